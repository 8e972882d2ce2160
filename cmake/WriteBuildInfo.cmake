# A copy of the tree whose .git is absent or stale (the GPU machine's) is told its commit through the environment;
# that word wins over git's.
if(DEFINED ENV{DECGPE_GIT_COMMIT} AND NOT "$ENV{DECGPE_GIT_COMMIT}" STREQUAL "")
  set(commit "$ENV{DECGPE_GIT_COMMIT}")
  set(dirty "")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse HEAD OUTPUT_VARIABLE commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  endif()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT dirty STREQUAL "")
  string(APPEND commit "-dirty")
endif()
set(content "#include \"build_info/build_info.hpp\"\nnamespace decgpe {\nconst char* version() { return \"${VERSION}\"; }\nconst char* git_commit() { return \"${commit}\"; }\n}\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
