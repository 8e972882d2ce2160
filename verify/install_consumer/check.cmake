# ctest install_consumer_finds_decgpe: installs the build into a fresh prefix, then configures, builds and runs the
# consumer project against it, and runs the installed decgpe.
#   cmake -DBUILD=<build dir> -DWORK=<scratch dir> -DGENERATOR=<generator> -DCXX=<C++ compiler> -DCC=<C compiler>
#         -DCXX_FLAGS=<the build's CMAKE_CXX_FLAGS> -DLINKER_FLAGS=<its CMAKE_EXE_LINKER_FLAGS> -P check.cmake
# The consumer takes the build's compilers and flags: a sanitized build's libraries need the sanitizers' runtime.
file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

step(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}")
foreach(document LICENSE CITATION.cff)
  file(GLOB_RECURSE found "${prefix}/share/doc/*/${document}")
  if(NOT found)
    message(FATAL_ERROR "cmake --install left out ${document} (looked under ${prefix}/share/doc)")
  endif()
endforeach()
step(${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${WORK}/build" -G "${GENERATOR}"
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
     "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}" -DCMAKE_PREFIX_PATH=${prefix})
step(${CMAKE_COMMAND} --build "${WORK}/build")
step("${WORK}/build/consumer")
if(NOT output MATCHES "^auto = (cuda|openmp)\n$")
  message(FATAL_ERROR "the consumer printed '${output}'")
endif()
message(STATUS "consumer: ${output}")
step("${prefix}/bin/decgpe" --version)
message(STATUS "installed decgpe: ${output}")
