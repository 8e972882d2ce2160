#include "solvers/backend_registry.hpp"

#include "solvers/cpu/backends.hpp"
#include "solvers/cuda/tunables.hpp"
#include "solvers/memory_budget.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace decgpe {

namespace {

std::string always_available() {
  return {};
}

/// The host backends have no tunables.
template <std::unique_ptr<Backend> (*Make)(const Problem&, HaloExchange*)>
std::unique_ptr<Backend> untuned(const Problem& problem, HaloExchange* halo, const BackendTuning&) {
  return Make(problem, halo);
}

constexpr BackendEntry kBackends[] = {
#if DECGPE_HAVE_CUDA
    {"cuda", "NVIDIA GPU, z-sweeping blocks with L2 prefetch", cuda::why_unavailable,
     cuda::make_cuda, true, MemorySpace::cuda_device, cuda::free_device_memory, "cuda",
     cuda::device_context, cuda::measure_copy_bandwidth, false},
    // The name the benchmark data and scripts carry (cuda:shared, its sibling, was retired).
    {"cuda:plain", "NVIDIA GPU, the same as cuda", cuda::why_unavailable, cuda::make_cuda, true,
     MemorySpace::cuda_device, cuda::free_device_memory, "cuda", cuda::device_context,
     cuda::measure_copy_bandwidth, true},
#endif
    {"openmp", "all host cores, bitwise equal to reference", always_available,
     untuned<cpu::make_openmp_backend>, true, MemorySpace::host, free_host_memory, "", nullptr,
     nullptr, true},
    {"reference", "one host core, plain loops: the oracle", always_available,
     untuned<cpu::make_reference_backend>, false, MemorySpace::host, free_host_memory, "", nullptr,
     nullptr, true},
};

const BackendEntry* find(std::string_view name) {
  const auto* it = std::find_if(std::begin(kBackends), std::end(kBackends),
                                [&](const BackendEntry& e) { return e.name == name; });
  return it == std::end(kBackends) ? nullptr : it;
}

} // namespace

std::span<const BackendEntry> backend_registry() {
  return kBackends;
}

std::span<const TunableTable> backend_tunables() {
  static const std::vector<TunableTable> tables{cuda::tunables()};
  return tables;
}

const Tunable* find_tunable(std::string_view key) {
  for (const TunableTable& table : backend_tunables()) {
    for (const Tunable& t : table.keys) {
      if (t.key == key) {
        return &t;
      }
    }
  }
  return nullptr;
}

std::string resolve_backend(std::string_view name) {
  if (name == "auto") {
    for (const BackendEntry& e : kBackends) {
      if (e.unavailable().empty()) {
        return std::string(e.name);
      }
    }
  }
  if (find(name) != nullptr) {
    return std::string(name);
  }
  std::string known = "auto";
  for (const BackendEntry& e : kBackends) {
    known += ", " + std::string(e.name);
  }
  if (name.starts_with("cuda")) {
    known += "; cuda is not in this build (configure with the cuda preset where nvcc exists)";
  }
  throw std::invalid_argument("unknown backend '" + std::string(name.substr(0, 64)) +
                              "' (known: " + known + ")");
}

std::string backend_unavailable(std::string_view name) {
  return backend_entry(name).unavailable();
}

const BackendEntry& backend_entry(std::string_view name) {
  return *find(resolve_backend(name));
}

std::unique_ptr<Backend> make_backend(std::string_view name, const Problem& problem,
                                      HaloExchange* halo, const BackendTuning& tuning) {
  const BackendEntry& e = backend_entry(name);
  if (const std::string why = e.unavailable(); !why.empty()) {
    throw std::runtime_error("backend '" + std::string(e.name) + "': " + why);
  }
  return e.make(problem, halo, tuning);
}

} // namespace decgpe
