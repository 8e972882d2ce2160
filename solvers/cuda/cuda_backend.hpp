#pragma once
// The CUDA backend: the state lives on the GPU; steps are kernels of Algorithm 1; diagnostics are
// device reductions.

#include "solvers/backend.hpp"
#include "solvers/halo_exchange.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe::cuda {

/// How the step kernel reads the neighbours ψ_j.
enum class StepVariant {
  plain,  ///< straight from global memory through the L1/read-only cache
  shared, ///< a tile of structure instances (with x halo) staged in shared memory; y/z neighbours
          ///< from global
};

std::string_view variant_name(StepVariant v);
/// Parses "plain" / "shared"; throws std::invalid_argument otherwise.
StepVariant parse_variant(std::string_view name);
/// The variant measured fastest for a lattice on Hopper (see docs/gpu.md).
StepVariant preferred_variant(std::string_view lattice);

/// True when a CUDA device can be used by this process.
bool device_available();
/// Number of usable CUDA devices (0 when none or no driver).
int device_count();

/// Name, compute capability, multiprocessors, memory, clocks, driver and runtime versions of the
/// current device: the context benchmark results are stored with.
std::vector<std::pair<std::string, std::string>> device_context();

/// Bytes per second of a device-to-device copy of `bytes` bytes, counting bytes read plus bytes
/// written (the BabelStream convention), best of `repeats` timed copies after a warm-up.
double measure_copy_bandwidth(std::size_t bytes, int repeats);

/// Throws std::runtime_error when no device is usable or the state does not fit in device memory.
/// With `halo`, the problem's grid is a z-slab and each step exchanges its boundary slices (split
/// phase, on streams).
std::unique_ptr<Backend> make_cuda_backend(const Problem& problem,
                                           std::optional<StepVariant> variant = {},
                                           HaloExchange* halo = nullptr);

} // namespace decgpe::cuda
