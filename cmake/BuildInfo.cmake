# Generates build_info.cpp (version, git commit) at every build, rewriting it only when the commit changes, so
# results record the exact source they came from without forcing rebuilds.
set(DECGPE_BUILD_INFO_CPP "${PROJECT_BINARY_DIR}/generated/build_info.cpp")
add_custom_target(decgpe_build_info_gen
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${DECGPE_BUILD_INFO_CPP}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteBuildInfo.cmake
  BYPRODUCTS ${DECGPE_BUILD_INFO_CPP}
  COMMENT "decgpe build info")
add_library(decgpe_build_info STATIC ${DECGPE_BUILD_INFO_CPP})
add_dependencies(decgpe_build_info decgpe_build_info_gen)
target_include_directories(decgpe_build_info PUBLIC ${PROJECT_SOURCE_DIR})
