#include "solvers/problem.hpp"

#include <algorithm>

namespace decgpe {

double max_diagonal(const Grid& grid, const Potential& potential, double g,
                    std::span<const Complex> psi) {
  double best = 0.0; // a max: the same for any thread count
#pragma omp parallel for schedule(static) reduction(max : best)
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const int l = static_cast<int>(i % grid.ms);
    const double m_ii = 0.5 * grid.weight_sum[l] + potential.at(grid, i) +
                        g * norm2(psi[static_cast<std::size_t>(i)]);
    best = std::max(best, m_ii);
  }
  return best;
}

double stability_bound(const Grid& grid, const Potential& potential, double g,
                       std::span<const Complex> psi) {
  return 1.0 / (2.0 * max_diagonal(grid, potential, g, psi));
}

} // namespace decgpe
