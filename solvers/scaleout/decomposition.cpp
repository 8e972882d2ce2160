#include "solvers/scaleout/decomposition.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace decgpe::scaleout {

SlabRange slab_range(int rank, int ranks, int sz) {
  if (ranks > sz) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks but only " + std::to_string(sz) +
                                " z-slices of structures: use fewer ranks or a larger domain");
  }
  const int base = sz / ranks, extra = sz % ranks;
  const int begin = rank * base + std::min(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

Decomposition Decomposition::whole(int sz) {
  return slabs(sz, MPI_COMM_NULL);
}

Decomposition Decomposition::slabs(int sz, MPI_Comm comm) {
  Decomposition d;
  d.global_z_ = sz;
  if (comm != MPI_COMM_NULL) {
    d.comm_ = comm;
    MPI_Comm_rank(comm, &d.rank_);
    MPI_Comm_size(comm, &d.ranks_);
  }
  for (int r = 0; r < d.ranks_; ++r) {
    const SlabRange s = slab_range(r, d.ranks_, sz);
    d.owned_counts_.push_back(s.end - s.begin);
    d.owned_offsets_.push_back(s.begin);
  }
  d.owned_ = slab_range(d.rank_, d.ranks_, sz);
  d.first_ = d.owned_.begin - (d.rank_ > 0 ? 1 : 0);
  d.last_ = d.owned_.end + (d.rank_ + 1 < d.ranks_ ? 1 : 0);
  return d;
}

Grid Decomposition::local(const Grid& whole) const {
  return distributed() ? make_slab(whole, first_, last_, owned_.begin, owned_.end) : whole;
}

Problem Decomposition::local(const Problem& whole) const {
  Problem p;
  p.grid = local(whole.grid);
  p.potential.kind = whole.potential.kind;
  p.potential.lambda = whole.potential.lambda;
  if (whole.potential.kind == Potential::Kind::tabulated) {
    const auto values =
        stored(std::span<const double>(whole.potential.values), whole.grid.slice_cells());
    p.potential.values.assign(values.begin(), values.end());
  }
  p.g = whole.g;
  return p;
}

double Decomposition::sum_slices(std::span<const double> owned) const {
  std::vector<double> every(owned.begin(), owned.end());
  if (distributed()) {
    every.resize(static_cast<std::size_t>(global_z_));
    MPI_Allgatherv(owned.data(), static_cast<int>(owned.size()), MPI_DOUBLE, every.data(),
                   owned_counts_.data(), owned_offsets_.data(), MPI_DOUBLE, comm_);
  }
  double total = 0.0;
  for (const double s : every) {
    total += s;
  }
  return total;
}

std::vector<std::uint64_t> Decomposition::all_slices(std::span<const std::uint64_t> owned) const {
  std::vector<std::uint64_t> every(owned.begin(), owned.end());
  if (distributed()) {
    every.resize(static_cast<std::size_t>(global_z_));
    MPI_Allgatherv(owned.data(), static_cast<int>(owned.size()), MPI_UINT64_T, every.data(),
                   owned_counts_.data(), owned_offsets_.data(), MPI_UINT64_T, comm_);
  }
  return every;
}

void Decomposition::gather_owned(std::span<const Complex> stored, std::span<Complex> whole,
                                 std::int64_t slice_values) const {
  const std::span<const Complex> owned =
      stored.subspan(static_cast<std::size_t>((owned_.begin - first_) * slice_values),
                     static_cast<std::size_t>((owned_.end - owned_.begin) * slice_values));
  if (!distributed()) {
    std::copy(owned.begin(), owned.end(), whole.begin());
    return;
  }
  // Counts in doubles (two per value) must fit MPI's int.
  if (2 * global_z_ * slice_values > std::numeric_limits<int>::max()) {
    throw std::runtime_error("domain too large to gather on one rank");
  }
  std::vector<int> counts, offsets;
  for (std::size_t r = 0; r < owned_counts_.size(); ++r) {
    counts.push_back(static_cast<int>(2 * owned_counts_[r] * slice_values));
    offsets.push_back(static_cast<int>(2 * owned_offsets_[r] * slice_values));
  }
  MPI_Gatherv(owned.data(), counts[static_cast<std::size_t>(rank_)], MPI_DOUBLE, whole.data(),
              counts.data(), offsets.data(), MPI_DOUBLE, 0, comm_);
}

double Decomposition::max(double mine) const {
  if (distributed()) {
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, comm_);
  }
  return mine;
}

bool Decomposition::all(bool mine) const {
  int flag = mine ? 1 : 0;
  if (distributed()) {
    MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MIN, comm_);
  }
  return flag == 1;
}

void Decomposition::exchange_halos(std::span<double> stored, std::int64_t slice_values) const {
  if (!distributed()) {
    return;
  }
  if (slice_values > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("z-slices too large for one MPI message");
  }
  const auto n = static_cast<int>(slice_values);
  double* first_owned = stored.data() + (owned_.begin - first_) * slice_values;
  double* last_owned = stored.data() + (owned_.end - 1 - first_) * slice_values;
  const int below = lower() >= 0 ? lower() : MPI_PROC_NULL;
  const int above = upper() >= 0 ? upper() : MPI_PROC_NULL;
  MPI_Sendrecv(first_owned, n, MPI_DOUBLE, below, 0, last_owned + (above != MPI_PROC_NULL ? n : 0),
               n, MPI_DOUBLE, above, 0, comm_, MPI_STATUS_IGNORE);
  MPI_Sendrecv(last_owned, n, MPI_DOUBLE, above, 1, first_owned - (below != MPI_PROC_NULL ? n : 0),
               n, MPI_DOUBLE, below, 1, comm_, MPI_STATUS_IGNORE);
}

} // namespace decgpe::scaleout
