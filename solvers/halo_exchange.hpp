#pragma once
// Moving z-slab boundary slices between neighbouring ranks, split into begin and end so that the
// interior update overlaps the communication (AMReX-style): a step updates the owned boundary
// slices, begin()s the exchange, updates the interior, and end()s it. Implementations: MPI (host
// memory) and NCCL (device memory).

#include "solvers/complex.hpp"

namespace decgpe {

class HaloExchange {
public:
  virtual ~HaloExchange() = default;
  HaloExchange() = default;
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// Starts sending this slab's first and last owned slices of `state` to the neighbouring ranks
  /// and receiving theirs into its halo slices. `stream` is the CUDA stream that produced `state`
  /// (nullptr for host memory).
  virtual void begin(Complex* state, void* stream) = 0;
  /// Completes the exchange; on a GPU, work queued on `stream` afterwards sees the halo values.
  virtual void end(void* stream) = 0;
};

} // namespace decgpe
