#pragma once
// Halo exchange of device-memory slabs with NCCL point-to-point (NVLink/P2P inside a node, the
// network across nodes). It runs on its own stream of the highest priority, ordered by events after
// the kernels that produced the fields and before those that read the halos, so the host never
// waits per step and NCCL's kernels are scheduled ahead of the interior's blocks.

#include "solvers/grid.hpp"
#include "solvers/halo_exchange.hpp"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

namespace decgpe::scaleout {

class NcclHaloExchange final : public HaloExchange {
public:
  /// Collective over `comm`; `lower` / `upper` are the neighbouring ranks or -1; `value_bytes`:
  /// the bytes of one stored value.
  NcclHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper, int value_bytes);
  ~NcclHaloExchange() override;
  void begin(std::span<std::byte* const> fields, void* stream) override;
  void end(void* stream) override;
  bool enqueues_only() const override { return true; }

private:
  void warm_up();

  const Grid& slab_;
  int lower_, upper_;
  std::int64_t slice_bytes_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
};

} // namespace decgpe::scaleout
