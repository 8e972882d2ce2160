#pragma once
// Which z-slices of the domain this process holds: the whole domain in one process, or one slab
// per MPI rank (paper §4.2). Everything per cell — the set-up's initial state and potential, the
// backend's vectors, the output — is held for the stored slices only, so a rank's memory is its
// slab's. The reductions here do not depend on the split: a sum is taken slice by slice and the
// slice sums are added in slice order, so one process and any number of ranks get the same bits
// (the normalisation, the spectral radius and with it Δt, the run's fingerprint).

#include "solvers/complex.hpp"
#include "solvers/domain_reduction.hpp"
#include "solvers/grid.hpp"
#include "solvers/problem.hpp"

#include <cstdint>
#include <mpi.h>
#include <span>
#include <vector>

namespace decgpe::scaleout {

/// Slices [begin, end) of Sz that rank `rank` of `ranks` owns: as even as possible, sizes differ by
/// at most one.
struct SlabRange {
  int begin, end;
};
SlabRange slab_range(int rank, int ranks, int sz);

/// Slab sizes in proportion to `weights` (a rank's measured throughput), each at least `fewest`,
/// summing to Sz: the largest remainders round up. With `most` (per rank), a rank whose share
/// would exceed what its memory holds gets that much and the rest is shared among the others in
/// proportion. The same inputs give the same sizes on every rank. Throws std::invalid_argument
/// when Sz cannot give every rank `fewest`, or the ranks cannot hold Sz.
std::vector<int> weighted_slab_sizes(int sz, std::span<const double> weights, int fewest,
                                     std::span<const int> most = {});

/// The reduction policy of solvers/ (DomainReduction) for any split over MPI ranks.
class Decomposition final : public DomainReduction {
public:
  /// The whole domain of Sz = `sz` slices in this one process.
  static Decomposition whole(int sz);
  /// Slab `rank` of the ranks of `comm` (MPI_COMM_NULL: the whole domain), with `halo_depth` halo
  /// slices towards each neighbouring slab (deep halos: solvers/halo_schedule.hpp); throws
  /// std::invalid_argument for more ranks than slices, or a rank owning fewer than halo_depth.
  /// With `weights` (one per rank, the same on every rank), the slab sizes follow them
  /// (weighted_slab_sizes); without, they are even.
  static Decomposition slabs(int sz, MPI_Comm comm, int halo_depth = 1,
                             std::span<const double> weights = {}, std::span<const int> most = {});

  bool distributed() const { return ranks_ > 1; }
  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int global_z() const { return global_z_; }
  /// Halo slices stored towards each neighbouring slab.
  int halo_depth() const { return halo_depth_; }
  /// Global z-slices stored here: owned ones and halos.
  int first() const { return first_; }
  int last() const { return last_; }
  SlabRange owned() const { return owned_; }
  /// The slices rank `r` owns.
  SlabRange owned_by(int r) const {
    const auto i = static_cast<std::size_t>(r);
    return {owned_offsets_[i], owned_offsets_[i] + owned_counts_[i]};
  }
  /// The neighbouring ranks below and above, or −1 at the domain's faces.
  int lower() const { return first_ < owned_.begin ? rank_ - 1 : -1; }
  int upper() const { return last_ > owned_.end ? rank_ + 1 : -1; }

  /// This process's part of a whole-domain grid (the grid itself when not distributed).
  Grid local(const Grid& whole) const;
  /// This process's part of a whole-domain problem: its grid, and a tabulated potential cut to
  /// the stored slices.
  Problem local(const Problem& whole) const;
  /// The stored slices' values of a whole-domain array of `slice_values` values per slice.
  template <class T>
  std::span<const T> stored(std::span<const T> whole, std::int64_t slice_values) const {
    return whole.subspan(static_cast<std::size_t>(first_ * slice_values),
                         static_cast<std::size_t>((last_ - first_) * slice_values));
  }

  /// Σ over the whole domain of per-slice values, in global slice order (DomainReduction).
  double sum_slices(std::span<const double> owned) const override;
  /// Every slice's value in slice order, from each rank's owned ones (the same on every rank).
  std::vector<std::uint64_t> all_slices(std::span<const std::uint64_t> owned) const;
  /// Global slices [begin, end) of the ranks' `stored` arrays (`slice_values` values per slice),
  /// on rank 0 (empty elsewhere): a few slices, never the domain (the plane z = 0 of the analysis).
  std::vector<Complex> gather_slices(std::span<const Complex> stored, int begin, int end,
                                     std::int64_t slice_values) const;
  double max(double mine) const override;
  /// Rank 0's value on every rank.
  std::uint64_t broadcast(std::uint64_t value) const;
  /// Waits for every rank.
  void barrier() const;
  bool all(bool mine) const;
  /// The neighbours' owned boundary slices into this rank's halo slices (DomainReduction).
  void exchange_halos(std::span<double> stored, std::int64_t slice_values) const override;

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, ranks_ = 1;
  int global_z_ = 0;
  int halo_depth_ = 1;
  int first_ = 0, last_ = 0;
  SlabRange owned_{0, 0};
  std::vector<int> owned_counts_, owned_offsets_; ///< per rank, in slices (for the gathers)
};

} // namespace decgpe::scaleout
