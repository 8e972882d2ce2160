#include "solvers/scaleout/decomposition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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

namespace {

/// weighted_slab_sizes without memory limits.
std::vector<int> proportional_sizes(int sz, std::span<const double> weights, int fewest) {
  const auto ranks = static_cast<int>(weights.size());
  if (ranks * fewest > sz) {
    throw std::invalid_argument(std::to_string(ranks) + " ranks of at least " +
                                std::to_string(fewest) + " z-slices each, but only " +
                                std::to_string(sz) + ": use fewer ranks or a larger domain");
  }
  double total = 0.0;
  for (const double w : weights) {
    if (!(w > 0.0) || !std::isfinite(w)) {
      throw std::invalid_argument("a slab weight is not a positive number");
    }
    total += w;
  }
  std::vector<double> ideal;
  std::vector<int> sizes;
  for (const double w : weights) {
    ideal.push_back(sz * w / total);
    sizes.push_back(std::max(fewest, static_cast<int>(std::floor(ideal.back()))));
  }
  // Too many (the minimum lifted some): take from the most over their share; too few: give to
  // the most under it. Ties go to the lower rank.
  int sum = std::accumulate(sizes.begin(), sizes.end(), 0);
  while (sum != sz) {
    int pick = -1;
    double best = 0.0;
    for (int r = 0; r < ranks; ++r) {
      const auto i = static_cast<std::size_t>(r);
      const double excess = sizes[i] - ideal[i];
      const bool can = sum > sz ? sizes[i] > fewest : true;
      const double score = sum > sz ? excess : -excess;
      if (can && (pick < 0 || score > best)) {
        pick = r;
        best = score;
      }
    }
    sizes[static_cast<std::size_t>(pick)] += sum > sz ? -1 : 1;
    sum += sum > sz ? -1 : 1;
  }
  return sizes;
}

} // namespace

std::vector<int> weighted_slab_sizes(int sz, std::span<const double> weights, int fewest,
                                     std::span<const int> most) {
  if (most.empty()) {
    return proportional_sizes(sz, weights, fewest);
  }
  for (std::size_t r = 0; r < most.size(); ++r) {
    if (most[r] < fewest) {
      throw std::invalid_argument("rank " + std::to_string(r) + "'s memory holds " +
                                  std::to_string(most[r]) + " z-slices, fewer than the " +
                                  std::to_string(fewest) + " each rank needs");
    }
  }
  // Water-filling: ranks whose share exceeds their memory get their most; the others share the
  // rest in proportion, until every share fits.
  std::vector<int> sizes(weights.size(), 0);
  std::vector<std::size_t> open(weights.size());
  std::iota(open.begin(), open.end(), std::size_t{0});
  int left = sz;
  while (true) {
    if (open.empty()) {
      throw std::invalid_argument("the ranks' memory holds " + std::to_string(sz - left) +
                                  " of the " + std::to_string(sz) +
                                  " z-slices: use more ranks or a smaller domain");
    }
    std::vector<double> w;
    for (const std::size_t r : open) {
      w.push_back(weights[r]);
    }
    const std::vector<int> share = proportional_sizes(left, w, fewest);
    std::vector<std::size_t> still;
    bool capped = false;
    for (std::size_t i = 0; i < open.size(); ++i) {
      if (share[i] > most[open[i]]) {
        sizes[open[i]] = most[open[i]];
        left -= most[open[i]];
        capped = true;
      } else {
        still.push_back(open[i]);
      }
    }
    if (!capped) {
      for (std::size_t i = 0; i < open.size(); ++i) {
        sizes[open[i]] = share[i];
      }
      return sizes;
    }
    open = still;
  }
}

Decomposition Decomposition::whole(int sz) {
  return slabs(sz, MPI_COMM_NULL);
}

Decomposition Decomposition::slabs(int sz, MPI_Comm comm, int halo_depth,
                                   std::span<const double> weights, std::span<const int> most) {
  Decomposition d;
  d.global_z_ = sz;
  d.halo_depth_ = halo_depth;
  if (comm != MPI_COMM_NULL) {
    d.comm_ = comm;
    MPI_Comm_rank(comm, &d.rank_);
    MPI_Comm_size(comm, &d.ranks_);
  }
  if (!weights.empty() && static_cast<int>(weights.size()) != d.ranks_) {
    throw std::invalid_argument("one slab weight per rank is needed");
  }
  if (weights.empty()) {
    for (int r = 0; r < d.ranks_; ++r) {
      const SlabRange s = slab_range(r, d.ranks_, sz);
      d.owned_counts_.push_back(s.end - s.begin);
      d.owned_offsets_.push_back(s.begin);
    }
  } else {
    d.owned_counts_ = weighted_slab_sizes(sz, weights, std::max(1, halo_depth), most);
    for (int r = 0, next = 0; r < d.ranks_;
         next += d.owned_counts_[static_cast<std::size_t>(r)], ++r) {
      d.owned_offsets_.push_back(next);
    }
  }
  if (d.ranks_ > 1) {
    const int fewest = *std::min_element(d.owned_counts_.begin(), d.owned_counts_.end());
    if (halo_depth < 1 || halo_depth > fewest) {
      throw std::invalid_argument("halo_depth " + std::to_string(halo_depth) + " with " +
                                  std::to_string(d.ranks_) + " ranks of " + std::to_string(sz) +
                                  " z-slices: it must be 1 to the fewest slices a " +
                                  "rank owns (" + std::to_string(fewest) + ")");
    }
  }
  d.owned_ = d.owned_by(d.rank_);
  d.first_ = d.owned_.begin - (d.rank_ > 0 ? halo_depth : 0);
  d.last_ = d.owned_.end + (d.rank_ + 1 < d.ranks_ ? halo_depth : 0);
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
  p.potential.rotation = whole.potential.rotation;
  if (whole.potential.kind == Potential::Kind::tabulated) {
    const auto values =
        stored(std::span<const double>(whole.potential.values), whole.grid.slice_cells());
    p.potential.values.assign(values.begin(), values.end());
  }
  p.g = whole.g;
  p.precision = whole.precision;
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

std::vector<Complex> Decomposition::gather_slices(std::span<const Complex> stored, int begin,
                                                  int end, std::int64_t slice_values) const {
  const int mine_begin = std::max(begin, owned_.begin), mine_end = std::min(end, owned_.end);
  const std::span<const Complex> mine =
      mine_end > mine_begin
          ? stored.subspan(static_cast<std::size_t>((mine_begin - first_) * slice_values),
                           static_cast<std::size_t>((mine_end - mine_begin) * slice_values))
          : std::span<const Complex>();
  if (!distributed()) {
    return {mine.begin(), mine.end()};
  }
  if (2 * (end - begin) * slice_values > std::numeric_limits<int>::max()) {
    throw std::runtime_error("too many slices to gather on one rank");
  }
  std::vector<int> counts, offsets; // in doubles, two per value
  for (std::size_t r = 0; r < owned_counts_.size(); ++r) {
    const int b = std::max(begin, owned_offsets_[r]);
    const int e = std::min(end, owned_offsets_[r] + owned_counts_[r]);
    counts.push_back(static_cast<int>(2 * std::max(0, e - b) * slice_values));
    offsets.push_back(static_cast<int>(2 * std::max(0, b - begin) * slice_values));
  }
  std::vector<Complex> band(rank_ == 0 ? static_cast<std::size_t>((end - begin) * slice_values)
                                       : 0);
  MPI_Gatherv(mine.data(), counts[static_cast<std::size_t>(rank_)], MPI_DOUBLE, band.data(),
              counts.data(), offsets.data(), MPI_DOUBLE, 0, comm_);
  return band;
}

double Decomposition::max(double mine) const {
  if (distributed()) {
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, comm_);
  }
  return mine;
}

std::uint64_t Decomposition::broadcast(std::uint64_t value) const {
  if (distributed()) {
    MPI_Bcast(&value, 1, MPI_UINT64_T, 0, comm_);
  }
  return value;
}

void Decomposition::barrier() const {
  if (distributed()) {
    MPI_Barrier(comm_);
  }
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
