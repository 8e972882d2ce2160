#pragma once
// One macro for every CUDA runtime call: a failure throws with the file, line, call and CUDA's
// message.

#include <cuda_runtime_api.h>
#include <stdexcept>
#include <string>

namespace decgpe::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw std::runtime_error(std::string("CUDA error at ") + file + ":" + std::to_string(line) +
                           ": " + call + ": " + cudaGetErrorString(status));
}

} // namespace decgpe::cuda

#define DECGPE_CUDA_CHECK(call)                                                                    \
  do {                                                                                             \
    const cudaError_t decgpe_status_ = (call);                                                     \
    if (decgpe_status_ != cudaSuccess) {                                                           \
      ::decgpe::cuda::throw_cuda_error(decgpe_status_, #call, __FILE__, __LINE__);                 \
    }                                                                                              \
  } while (false)
