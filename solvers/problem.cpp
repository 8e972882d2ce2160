#include "solvers/problem.hpp"

#include "solvers/domain_reduction.hpp"

#include <algorithm>

namespace decgpe {

double max_diagonal(const Grid& grid, const Potential& potential, double g,
                    std::span<const Complex> psi, const DomainReduction* layout) {
  double best = 0.0; // a max: the same for any thread count and any split
  const std::int64_t n = grid.slice_cells();
#pragma omp parallel for schedule(static) reduction(max : best)
  for (std::int64_t i = grid.owned_begin * n; i < grid.owned_end * n; ++i) {
    const int l = static_cast<int>(i % grid.ms);
    const double m_ii = 0.5 * grid.weight_sum[l] + potential.in_frame(grid, i) +
                        g * norm2(psi[static_cast<std::size_t>(i)]);
    best = std::max(best, m_ii);
  }
  return layout != nullptr ? layout->max(best) : best;
}

double stability_bound(const Grid& grid, const Potential& potential, double g,
                       std::span<const Complex> psi, const DomainReduction* layout) {
  return 1.0 / (2.0 * max_diagonal(grid, potential, g, psi, layout));
}

} // namespace decgpe
