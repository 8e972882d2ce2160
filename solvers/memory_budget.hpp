#pragma once
// What a run will allocate, computed from its size before anything large is allocated, and what
// the machine has free: a run that cannot fit is refused at once instead of failing after hours.

#include "solvers/backend.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace decgpe {

/// The largest number of cells a run may have: far beyond any memory, small enough that every
/// size product stays exact in 64 bits.
inline constexpr std::int64_t kMaxCells = std::int64_t{1} << 40;

/// Cells of a grid of `size` structures with `ms` cells each; throws std::invalid_argument when
/// it exceeds kMaxCells (no product can overflow on the way).
std::int64_t checked_cell_count(std::array<int, 3> size, int ms);

struct MemoryNeed {
  std::uint64_t host = 0;   ///< peak bytes on the host
  std::uint64_t device = 0; ///< bytes on the GPU (0 for host backends)
};

/// What the pieces of a run hold per cell (bytes): the set-up's levels, the scheme's vectors on
/// the backend, the buffers the results and checkpoints are gathered into.
struct RunShape {
  std::int64_t cells = 0;      ///< this rank's: its slab's, halos included (the domain's alone)
  int scheme_vectors = 0;      ///< the most vectors the scheme holds at once (its start included)
  int levels = 0;              ///< state levels written to results and checkpoints
  bool previous_level = false; ///< the set-up holds ψ^{−1} (the paper's start)
  bool tabulated_potential = false;
  MemorySpace memory = MemorySpace::host;
  /// Bytes of one value of the backend's vectors (value_bytes(): 8 in single and mixed precision);
  /// the host's levels, snapshots and ψ⁰ stay FP64.
  int value_bytes = 16;
};

/// This rank's need: its slab's set-up, levels and snapshot buffer on the host (and its vectors
/// when the backend is a host one; no rank gathers the domain), its slab's vectors on its GPU.
/// Ranks sharing a node sum their host needs (slabs and backends may differ between ranks).
MemoryNeed memory_need(const RunShape& shape);

/// Bytes this process can still allocate on the host: the least of the kernel's MemAvailable, the
/// cgroup's limit less its use, and the address-space limit (ulimit -v) less the space in use.
std::uint64_t free_host_memory();

/// Throws std::runtime_error with one line naming the bytes needed and free when the run does not
/// fit; `free_device` is the GPU's free memory (ignored for host backends).
void check_memory(const MemoryNeed& need, std::uint64_t free_host, std::uint64_t free_device);

std::string format_bytes(double bytes);

} // namespace decgpe
