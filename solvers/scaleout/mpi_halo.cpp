#include "solvers/scaleout/mpi_halo.hpp"

#include <limits>
#include <stdexcept>

namespace decgpe::scaleout {

MPI_Datatype halo_slices_type(const Grid& slab, int value_bytes) {
  const std::int64_t values = std::int64_t{slab.halo_depth()} * slab.slice_cells();
  if (values > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("halo slices too large for one MPI message");
  }
  // A value's bytes as one element, so that the count limits values, not bytes.
  MPI_Datatype value = MPI_DATATYPE_NULL, type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(value_bytes, MPI_BYTE, &value);
  MPI_Type_contiguous(static_cast<int>(values), value, &type);
  MPI_Type_commit(&type);
  MPI_Type_free(&value);
  return type;
}

void post_halo_messages(const HaloMessages& m, std::size_t field, MPI_Datatype halo, int lower,
                        int upper, MPI_Comm comm, MPI_Request* requests) {
  const int down = static_cast<int>(2 * field), up = down + 1; // tags: the direction of travel
  MPI_Irecv(m.receive_below, 1, halo, lower, up, comm, &requests[0]);
  MPI_Irecv(m.receive_above, 1, halo, upper, down, comm, &requests[1]);
  MPI_Isend(m.send_below, 1, halo, lower, down, comm, &requests[2]);
  MPI_Isend(m.send_above, 1, halo, upper, up, comm, &requests[3]);
}

MpiHaloExchange::MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper,
                                 int value_bytes)
    : slab_(slab), comm_(comm), lower_(lower), upper_(upper),
      slice_bytes_(slab.slice_cells() * value_bytes), halo_(halo_slices_type(slab, value_bytes)) {}

MpiHaloExchange::~MpiHaloExchange() {
  MPI_Type_free(&halo_);
}

void MpiHaloExchange::begin(std::span<std::byte* const> fields, void* /*stream*/) {
  const std::int64_t halo = slab_.halo_depth() * slice_bytes_;
  requests_.assign(4 * fields.size(), MPI_REQUEST_NULL);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    std::byte* first_owned = fields[f] + slab_.owned_begin * slice_bytes_;
    std::byte* past_owned = fields[f] + slab_.owned_end * slice_bytes_;
    // Halo slices sit right outside the owned range; a slab at the domain's face has none there,
    // and MPI_PROC_NULL makes its calls no-ops.
    std::byte* below = lower_ != MPI_PROC_NULL ? first_owned - halo : first_owned;
    std::byte* above = upper_ != MPI_PROC_NULL ? past_owned : past_owned - halo;
    post_halo_messages({below, above, first_owned, past_owned - halo}, f, halo_, lower_, upper_,
                       comm_, &requests_[4 * f]);
  }
}

void MpiHaloExchange::end(void* /*stream*/) {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

} // namespace decgpe::scaleout
