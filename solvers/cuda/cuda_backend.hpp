#pragma once
// The CUDA backend: the state lives on the GPU; steps are kernels of Algorithm 1; diagnostics are
// device reductions.

#include "solvers/backend.hpp"
#include "solvers/halo_exchange.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe::cuda {

/// Why no CUDA device can be used by this process, or empty when one can.
std::string why_unavailable();
/// True when a CUDA device can be used by this process.
bool device_available();
/// Free bytes on the current device (0 when none is usable).
std::uint64_t free_device_memory();
/// Number of usable CUDA devices (0 when none or no driver).
int device_count();

/// Name, compute capability, multiprocessors, memory, clocks, driver and runtime versions of the
/// current device: the context benchmark results are stored with.
std::vector<std::pair<std::string, std::string>> device_context();

/// Bytes per second of a device-to-device copy of `bytes` bytes, counting bytes read plus bytes
/// written (the BabelStream convention), best of `repeats` timed copies after a warm-up.
double measure_copy_bandwidth(std::size_t bytes, int repeats);

/// Evicts the L2 cache (writes a buffer twice its size), so that a timed sample starts cold.
void flush_l2();

/// The registry's factory. Throws std::runtime_error when no device is usable. With `halo`, the
/// problem's grid is a z-slab and every stencil kernel exchanges its output's boundary slices
/// (split phase, on streams). `tuning`: its [cuda] values (tunables.hpp), which it parses.
std::unique_ptr<Backend> make_cuda(const Problem& problem, HaloExchange* halo,
                                   const BackendTuning& tuning);

} // namespace decgpe::cuda
