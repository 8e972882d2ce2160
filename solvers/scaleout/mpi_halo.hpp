#pragma once
// Halo exchange of host-memory slabs with non-blocking MPI point-to-point.

#include "solvers/grid.hpp"
#include "solvers/halo_exchange.hpp"

#include <array>
#include <mpi.h>

namespace decgpe::scaleout {

class MpiHaloExchange final : public HaloExchange {
public:
  /// `lower` / `upper`: the ranks owning the slabs below and above, or MPI_PROC_NULL.
  MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper);
  ~MpiHaloExchange() override;
  void begin(Complex* state, void* stream) override;
  void end(void* stream) override;

private:
  const Grid& slab_;
  MPI_Comm comm_;
  int lower_, upper_;
  MPI_Datatype slice_ = MPI_DATATYPE_NULL; ///< one z-slice of complex values
  std::array<MPI_Request, 4> requests_{};
};

} // namespace decgpe::scaleout
