#pragma once
// Moving z-slab boundary slices between neighbouring ranks, split into begin and end so that the
// interior update overlaps the communication (AMReX-style): a stencil kernel begin()s the exchange
// of its inputs' halos, updates the slices that need none, end()s it and updates the rest
// (solvers/halo_schedule.hpp plans which). Implementations: MPI (host memory) and NCCL (device
// memory).

#include <cstddef>
#include <span>

namespace decgpe {

class HaloExchange {
public:
  virtual ~HaloExchange() = default;
  HaloExchange() = default;
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// Starts sending this slab's first and last k = Grid::halo_depth() owned slices of each of
  /// `fields` to the neighbouring ranks and receiving theirs into its k halo slices. A field is the
  /// vector's first byte, its values of the precision's size (value_bytes(): solvers/precision.hpp,
  /// given to the exchange when it is made). `stream` is the CUDA stream that produced them
  /// (nullptr for host memory).
  virtual void begin(std::span<std::byte* const> fields, void* stream) = 0;
  /// Completes the exchange; on a GPU, work queued on `stream` afterwards sees the halo values.
  virtual void end(void* stream) = 0;
  /// Whether begin() and end() only enqueue work on the streams, never wait on the host, so that a
  /// CUDA graph may capture them.
  virtual bool enqueues_only() const { return false; }
};

} // namespace decgpe
