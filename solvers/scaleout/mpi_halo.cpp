#include "solvers/scaleout/mpi_halo.hpp"

#include <limits>
#include <stdexcept>

namespace decgpe::scaleout {

MpiHaloExchange::MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper)
    : slab_(slab), comm_(comm), lower_(lower), upper_(upper) {
  const std::int64_t doubles = 2 * slab.halo_depth() * slab.slice_cells();
  if (doubles > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("halo slices too large for one MPI message");
  }
  MPI_Type_contiguous(static_cast<int>(doubles), MPI_DOUBLE, &halo_);
  MPI_Type_commit(&halo_);
}

MpiHaloExchange::~MpiHaloExchange() {
  MPI_Type_free(&halo_);
}

void MpiHaloExchange::begin(std::span<Complex* const> fields, void* /*stream*/) {
  const std::int64_t halo = slab_.halo_depth() * slab_.slice_cells();
  requests_.assign(4 * fields.size(), MPI_REQUEST_NULL);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    Complex* first_owned = fields[f] + slab_.owned_begin * slab_.slice_cells();
    Complex* past_owned = fields[f] + slab_.owned_end * slab_.slice_cells();
    // Halo slices sit right outside the owned range; a slab at the domain's face has none there,
    // and MPI_PROC_NULL makes its calls no-ops.
    Complex* below = lower_ != MPI_PROC_NULL ? first_owned - halo : first_owned;
    Complex* above = upper_ != MPI_PROC_NULL ? past_owned : past_owned - halo;
    const int down = static_cast<int>(2 * f), up = down + 1; // tags: the direction of travel
    MPI_Request* r = &requests_[4 * f];
    MPI_Irecv(below, 1, halo_, lower_, up, comm_, &r[0]);
    MPI_Irecv(above, 1, halo_, upper_, down, comm_, &r[1]);
    MPI_Isend(first_owned, 1, halo_, lower_, down, comm_, &r[2]);
    MPI_Isend(past_owned - halo, 1, halo_, upper_, up, comm_, &r[3]);
  }
}

void MpiHaloExchange::end(void* /*stream*/) {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

} // namespace decgpe::scaleout
