#pragma once
// Halo exchange of host-memory slabs with non-blocking MPI point-to-point.

#include "solvers/grid.hpp"
#include "solvers/halo_exchange.hpp"

#include <mpi.h>
#include <vector>

namespace decgpe::scaleout {

class MpiHaloExchange final : public HaloExchange {
public:
  /// `lower` / `upper`: the ranks owning the slabs below and above, or MPI_PROC_NULL.
  MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper);
  ~MpiHaloExchange() override;
  void begin(std::span<Complex* const> fields, void* stream) override;
  void end(void* stream) override;

private:
  const Grid& slab_;
  MPI_Comm comm_;
  int lower_, upper_;
  MPI_Datatype halo_ = MPI_DATATYPE_NULL; ///< k z-slices of complex values
  std::vector<MPI_Request> requests_;     ///< four per field in flight
};

} // namespace decgpe::scaleout
