# System packages (Debian: see scripts/install-deps.sh). Header-only libraries may also come from .deps/, the folder
# scripts/fetch-header-deps.sh unpacks Debian packages into, so they travel to machines without a package registry.
set(DECGPE_HEADER_HINTS "${PROJECT_SOURCE_DIR}/.deps/usr/include")

find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(Threads REQUIRED)
find_package(MPI REQUIRED COMPONENTS CXX)

function(decgpe_header_library target header)
  find_path(${target}_INCLUDE_DIR ${header} HINTS ${DECGPE_HEADER_HINTS} REQUIRED)
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  # SYSTEM: third-party headers must not trip our warnings-as-errors.
  set_target_properties(${target} PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${${target}_INCLUDE_DIR}"
                                             INTERFACE_INCLUDE_DIRECTORIES "${${target}_INCLUDE_DIR}")
endfunction()

decgpe_header_library(decgpe::json nlohmann/json.hpp)
decgpe_header_library(decgpe::cli11 CLI/CLI.hpp)
decgpe_header_library(decgpe::toml toml++/toml.h)
set_property(TARGET decgpe::toml APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS TOML_HEADER_ONLY=1 TOML_EXCEPTIONS=1)

if(BUILD_TESTING)
  find_package(GTest REQUIRED)
endif()
find_package(benchmark REQUIRED)

# CUDA is optional: a CPU-only build links and runs, and `--backend cuda` then says it was not built.
set(DECGPE_HAVE_CUDA OFF)
if(DECGPE_ENABLE_CUDA)
  # The compiler: CMAKE_CUDA_COMPILER or CUDACXX where given, nvcc on PATH, else the toolkit's usual place.
  find_program(DECGPE_NVCC_ON_PATH nvcc)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND NOT DECGPE_NVCC_ON_PATH
     AND EXISTS /usr/local/cuda/bin/nvcc)
    set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The architecture: CMAKE_CUDA_ARCHITECTURES where given, else the first GPU present, else sm_90 (H100, H200).
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
      execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE decgpe_compute_cap RESULT_VARIABLE decgpe_smi ERROR_QUIET)
      if(decgpe_smi EQUAL 0 AND decgpe_compute_cap MATCHES "^([0-9]+)\\.([0-9]+)")
        set(CMAKE_CUDA_ARCHITECTURES "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
      endif()
    endif()
    message(STATUS "decgpe: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
    enable_language(CUDA)
    # CMake 3.25 (Debian 12) does not know nvcc's C++20 flag; newer CMake does.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # NCCL ships with the CUDA toolkit on the machines decgpe targets; a system install works too.
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
    add_library(decgpe::nccl INTERFACE IMPORTED GLOBAL)
    set_target_properties(decgpe::nccl PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}"
                                                  INTERFACE_LINK_LIBRARIES "${NCCL_LIBRARY}")
    set(DECGPE_HAVE_CUDA ON)
  endif()
endif()
message(STATUS "decgpe: CUDA backend ${DECGPE_HAVE_CUDA}")
