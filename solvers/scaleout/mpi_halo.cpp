#include "solvers/scaleout/mpi_halo.hpp"

#include <limits>
#include <stdexcept>

namespace decgpe::scaleout {

MpiHaloExchange::MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper)
    : slab_(slab), comm_(comm), lower_(lower), upper_(upper) {
  if (2 * slab.slice_cells() > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("z-slices too large for one MPI message");
  }
  MPI_Type_contiguous(static_cast<int>(2 * slab.slice_cells()), MPI_DOUBLE, &slice_);
  MPI_Type_commit(&slice_);
  requests_.fill(MPI_REQUEST_NULL);
}

MpiHaloExchange::~MpiHaloExchange() {
  MPI_Type_free(&slice_);
}

void MpiHaloExchange::begin(Complex* state, void* /*stream*/) {
  const std::int64_t n = slab_.slice_cells();
  Complex* first_owned = state + slab_.owned_begin * n;
  Complex* last_owned = state + (slab_.owned_end - 1) * n;
  // Halo slices sit right outside the owned range; a slab at the domain's face has none there, and
  // MPI_PROC_NULL makes its calls no-ops.
  Complex* below = lower_ != MPI_PROC_NULL ? first_owned - n : first_owned;
  Complex* above = upper_ != MPI_PROC_NULL ? last_owned + n : last_owned;
  MPI_Irecv(below, 1, slice_, lower_, 0, comm_, &requests_[0]);
  MPI_Irecv(above, 1, slice_, upper_, 1, comm_, &requests_[1]);
  MPI_Isend(first_owned, 1, slice_, lower_, 1, comm_, &requests_[2]);
  MPI_Isend(last_owned, 1, slice_, upper_, 0, comm_, &requests_[3]);
}

void MpiHaloExchange::end(void* /*stream*/) {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

} // namespace decgpe::scaleout
