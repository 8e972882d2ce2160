# ctest versions_agree: the version is written three times (CMakeLists.txt's project(), which the executable and the
# CMake package report; python/pyproject.toml's, which decgpe.__version__ reads; CITATION.cff's). They must agree.
#
#   cmake -DVERSION=<project version> -DSOURCE=<source root> -P version_check.cmake
file(STRINGS ${SOURCE}/python/pyproject.toml python_line REGEX "^version = ")
file(STRINGS ${SOURCE}/CITATION.cff citation_line REGEX "^version: ")
string(REGEX REPLACE "^version = \"([^\"]*)\"$" "\\1" python_version "${python_line}")
string(REGEX REPLACE "^version: \"([^\"]*)\"$" "\\1" citation_version "${citation_line}")
if(NOT python_version STREQUAL VERSION OR NOT citation_version STREQUAL VERSION)
  message(FATAL_ERROR "versions differ: CMakeLists.txt ${VERSION}, python/pyproject.toml '${python_version}', "
                      "CITATION.cff '${citation_version}'")
endif()
message(STATUS "version ${VERSION} in CMakeLists.txt, python/pyproject.toml and CITATION.cff")
