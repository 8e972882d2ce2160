add_library(decgpe_warnings INTERFACE)
target_compile_options(decgpe_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  # GCC 12 misreports std::string concatenation under -O3 as overlapping memcpy (GCC PR105651).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${DECGPE_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${DECGPE_WERROR}>>:-Werror=all-warnings -Xcompiler=-Werror>)
