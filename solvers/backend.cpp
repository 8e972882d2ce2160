#include "solvers/backend.hpp"

#include "solvers/cpu/backends.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <stdexcept>

namespace decgpe {

std::vector<std::string_view> backend_names() {
#if DECGPE_HAVE_CUDA
  return {"cuda", "openmp", "reference"};
#else
  return {"openmp", "reference"};
#endif
}

std::unique_ptr<Backend> make_backend(std::string_view name, const Problem& problem) {
  if (name == "auto") {
#if DECGPE_HAVE_CUDA
    if (cuda::device_available()) {
      return cuda::make_cuda_backend(problem);
    }
#endif
    return cpu::make_openmp_backend(problem);
  }
  if (name == "reference") {
    return cpu::make_reference_backend(problem);
  }
  if (name == "openmp") {
    return cpu::make_openmp_backend(problem);
  }
  if (name == "cuda" || name.starts_with("cuda:")) {
#if DECGPE_HAVE_CUDA
    if (name == "cuda") {
      return cuda::make_cuda_backend(problem);
    }
    return cuda::make_cuda_backend(problem, cuda::parse_variant(name.substr(5)));
#else
    throw std::runtime_error(
        "backend 'cuda' is not in this build (configure with the cuda preset where nvcc exists)");
#endif
  }
  std::string known = "auto";
  for (std::string_view n : backend_names()) {
    known += ", " + std::string(n);
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (known: " + known + ")");
}

} // namespace decgpe
