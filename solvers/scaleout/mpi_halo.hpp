#pragma once
// Halo exchange of host-memory slabs with non-blocking MPI point-to-point.

#include "solvers/grid.hpp"
#include "solvers/halo_exchange.hpp"

#include <mpi.h>
#include <vector>

namespace decgpe::scaleout {

/// The messages of one field's exchange, the same from host and from staged device memory: k
/// z-slices each way of values of `value_bytes`, tagged by field and direction. An MPI_Datatype of
/// k slices (MPI_Type_free it); throws when one message would exceed MPI's int count.
MPI_Datatype halo_slices_type(const Grid& slab, int value_bytes);

/// Where one field's four messages go; the pointers may be anything at a face (MPI_PROC_NULL).
struct HaloMessages {
  std::byte* receive_below;
  std::byte* receive_above;
  const std::byte* send_below;
  const std::byte* send_above;
};

/// Posts field `field`'s receives and sends into requests[0..3].
void post_halo_messages(const HaloMessages& m, std::size_t field, MPI_Datatype halo, int lower,
                        int upper, MPI_Comm comm, MPI_Request* requests);

class MpiHaloExchange final : public HaloExchange {
public:
  /// `lower` / `upper`: the ranks owning the slabs below and above, or MPI_PROC_NULL;
  /// `value_bytes`: the bytes of one stored value.
  MpiHaloExchange(const Grid& slab, MPI_Comm comm, int lower, int upper, int value_bytes);
  ~MpiHaloExchange() override;
  void begin(std::span<std::byte* const> fields, void* stream) override;
  void end(void* stream) override;

private:
  const Grid& slab_;
  MPI_Comm comm_;
  int lower_, upper_;
  std::int64_t slice_bytes_;
  MPI_Datatype halo_ = MPI_DATATYPE_NULL; ///< k z-slices of the precision's values
  std::vector<MPI_Request> requests_;     ///< four per field in flight
};

} // namespace decgpe::scaleout
