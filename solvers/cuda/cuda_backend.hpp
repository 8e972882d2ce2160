#pragma once
// The CUDA backend: the state lives on the GPU; steps are kernels of Algorithm 1; diagnostics are
// device reductions.

#include "solvers/backend.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/halo_exchange.hpp"

#include <cstdint>
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

/// Times work queued on a CUDA backend with CUDA events on its stream (NVBench's method: device
/// time, not host time): start() before the work, stop() after it returns the seconds between.
class DeviceTimer {
public:
  /// Throws std::invalid_argument when `backend` is not a CUDA backend.
  explicit DeviceTimer(Backend& backend);
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  void start();
  double stop(); ///< waits for the work

private:
  void* stream_;
  void* start_;
  void* stop_;
};

/// Evicts the L2 cache (writes a buffer twice its size), so that a timed sample starts cold.
void flush_l2();

/// The registry's factories: the variant measured fastest for the lattice, or the one named. Throw
/// std::runtime_error when no device is usable. With `halo`, the problem's grid is a z-slab and
/// every stencil kernel exchanges its output's boundary slices (split phase, on streams).
/// `tuning`: the plain kernel's block and CUDA graphs (BackendTuning).
std::unique_ptr<Backend> make_preferred(const Problem& problem, HaloExchange* halo,
                                        const BackendTuning& tuning);
std::unique_ptr<Backend> make_plain(const Problem& problem, HaloExchange* halo,
                                    const BackendTuning& tuning);
std::unique_ptr<Backend> make_shared(const Problem& problem, HaloExchange* halo,
                                     const BackendTuning& tuning);

} // namespace decgpe::cuda
