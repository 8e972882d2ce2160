# `cmake --install`: the decgpe executable, the libraries a program links to drive the solver itself, their headers
# under include/decgpe, and a package config, so that find_package(decgpe) gives decgpe::lattices, decgpe::solvers,
# decgpe::analysis, decgpe::setup, decgpe::hdf5 and decgpe::io (verify/install_consumer/ is the ctest that uses one).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(decgpe_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/decgpe)
set(decgpe_installed_libraries decgpe_lattices decgpe_solvers decgpe_analysis decgpe_setup decgpe_hdf5 decgpe_io decgpe_build_info)

foreach(library IN LISTS decgpe_installed_libraries)
  string(REPLACE "decgpe_" "" short ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${short})
  # In the tree a library's headers are found from the source root ("solvers/grid.hpp"); installed, the same
  # paths lie under include/decgpe.
  get_target_property(dirs ${library} INTERFACE_INCLUDE_DIRECTORIES)
  list(TRANSFORM dirs PREPEND "$<BUILD_INTERFACE:")
  list(TRANSFORM dirs APPEND ">")
  set_target_properties(${library} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                              "${dirs};$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/decgpe>")
  target_compile_features(${library} INTERFACE cxx_std_20) # the headers are C++20
endforeach()

# The static libraries name their private links in their interface (for the link line only), the warning flags
# among them: decgpe_warnings is exported too, and its flags stay in this build.
get_target_property(decgpe_warning_flags decgpe_warnings INTERFACE_COMPILE_OPTIONS)
set_target_properties(decgpe_warnings PROPERTIES EXPORT_NAME warnings
                                                 INTERFACE_COMPILE_OPTIONS "$<BUILD_INTERFACE:${decgpe_warning_flags}>")

install(TARGETS decgpe RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The licence and how to cite travel with every installed copy.
install(FILES LICENSE CITATION.cff DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The installed decgpe finds HDF5, MPI and the CUDA runtime where it was linked against them.
set_target_properties(decgpe PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${decgpe_installed_libraries} decgpe_warnings EXPORT decgpeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY build_info lattices solvers analysis hdf5 setup io DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/decgpe
        FILES_MATCHING PATTERN "*.hpp")
install(EXPORT decgpeTargets NAMESPACE decgpe:: DESTINATION ${decgpe_config_dir})

if(DECGPE_HAVE_CUDA)
  get_filename_component(decgpe_nccl_library_dir "${NCCL_LIBRARY}" DIRECTORY) # a hint for the package config
endif()
configure_package_config_file(cmake/decgpeConfig.cmake.in ${PROJECT_BINARY_DIR}/decgpeConfig.cmake
                              INSTALL_DESTINATION ${decgpe_config_dir})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/decgpeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/decgpeConfig.cmake ${PROJECT_BINARY_DIR}/decgpeConfigVersion.cmake
        DESTINATION ${decgpe_config_dir})
