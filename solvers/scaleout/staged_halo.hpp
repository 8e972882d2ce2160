#pragma once
// Halo exchange of a device-memory slab with host-memory neighbours (hybrid ranks: one GPU rank
// beside OpenMP ranks): the boundary slices are copied to pinned host buffers and sent with MPI,
// the received halos copied back. Its messages are MpiHaloExchange's, so either end may be the
// other kind. It waits on the host (for the copies and MPI), so it cannot be captured in a graph.

#include "solvers/grid.hpp"
#include "solvers/halo_exchange.hpp"

#include <mpi.h>
#include <vector>

namespace decgpe::scaleout {

class StagedHaloExchange final : public HaloExchange {
public:
  /// `lower` / `upper`: the ranks owning the slabs below and above, or MPI_PROC_NULL;
  /// `value_bytes`: the bytes of one stored value.
  StagedHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper, int value_bytes);
  ~StagedHaloExchange() override;
  void begin(std::span<std::byte* const> fields, void* stream) override;
  void end(void* stream) override;

private:
  /// Pinned host memory for `fields` fields: per field, send and receive buffers below and above.
  void reserve(std::size_t fields);
  std::byte* buffer(std::size_t field,
                    int which) const; ///< which: 0/1 send below/above, 2/3 receive

  const Grid& slab_;
  MPI_Comm comm_;
  int lower_, upper_;
  std::int64_t slice_bytes_;
  MPI_Datatype halo_ = MPI_DATATYPE_NULL; ///< k z-slices of the precision's values
  std::byte* pinned_ = nullptr;
  std::size_t pinned_fields_ = 0;
  std::vector<std::byte*> fields_; ///< those in flight
  std::vector<MPI_Request> requests_;
};

} // namespace decgpe::scaleout
