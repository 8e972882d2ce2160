#pragma once
// The one table of backends: the command line, "auto", the slab backend, the benchmark and the
// tests all read it. A new backend is its own folder plus one line in backend_registry.cpp.

#include "solvers/backend.hpp"
#include "solvers/halo_exchange.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe {

struct BackendEntry {
  std::string_view name;
  std::string_view description;
  /// Why it cannot run in this process (no device, not built), or empty when it can.
  std::string (*unavailable)();
  /// With `halo`, the problem's grid is a z-slab of a larger domain; null for a whole domain.
  std::unique_ptr<Backend> (*make)(const Problem& problem, HaloExchange* halo,
                                   const BackendTuning& tuning);
  bool runs_on_slabs; ///< accepts a halo exchange (can be the local backend of MPI ranks)
  MemorySpace memory; ///< where its vectors live
  /// Bytes free where its vectors live (the host's for host backends).
  std::uint64_t (*free_bytes)();
  /// The case file's table of its tunables (backend_tunables()), "" for none.
  std::string_view tuning_table;
  /// The device's facts a benchmark is stored with (name, memory, clocks, versions), and the bytes
  /// per second of a device-to-device copy of `bytes` bytes (read + written, BabelStream's
  /// convention), best of `repeats`: null for a host backend.
  std::vector<std::pair<std::string, std::string>> (*device_facts)();
  double (*copy_bandwidth)(std::size_t bytes, int repeats);
  /// bench_step runs it unless told which backends to run.
  bool benchmarked;
};

/// In order of preference for "auto".
std::span<const BackendEntry> backend_registry();

/// "auto" becomes the first usable backend; any other name is returned as it is when registered.
/// Throws std::invalid_argument naming the known backends.
std::string resolve_backend(std::string_view name);

/// Why `name` cannot run here, or empty when it can.
std::string backend_unavailable(std::string_view name);

/// The registry's entry of `name` ("auto" resolved); throws as resolve_backend() does.
const BackendEntry& backend_entry(std::string_view name);

/// Every backend's tunables, table by table, whether or not the backend is in this build (a case
/// written for a GPU reads anywhere); the case schema's backend tables are these.
std::span<const TunableTable> backend_tunables();

/// The tunable of that dotted key ("cuda.block_shape"), or null when no backend has it.
const Tunable* find_tunable(std::string_view key);

/// Makes a backend by name ("auto" included); throws std::invalid_argument for an unknown name and
/// std::runtime_error when it cannot run here.
std::unique_ptr<Backend> make_backend(std::string_view name, const Problem& problem,
                                      HaloExchange* halo = nullptr,
                                      const BackendTuning& tuning = {});

} // namespace decgpe
