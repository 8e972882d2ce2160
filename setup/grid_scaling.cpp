#include "setup/grid_scaling.hpp"

#include "solvers/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace decgpe {

namespace {
constexpr double kFewestStructures = 4.0; ///< along x, for operations_per_time's grid
} // namespace

double operations_per_step(const Grid& grid) {
  double per_instance = 0.0;
  for (int l = 0; l < grid.ms; ++l) {
    per_instance += grid.row_begin[l + 1] - grid.row_begin[l] + 1;
  }
  return per_instance * static_cast<double>(grid.global_instances());
}

double max_diagonal_without_density(const Grid& grid, double lambda) {
  double best = 0.0;
  for (int corner = 0; corner < 8; ++corner) {
    const std::int64_t sx = (corner & 1) != 0 ? grid.size[0] - 1 : 0;
    const std::int64_t sy = (corner & 2) != 0 ? grid.size[1] - 1 : 0;
    const std::int64_t sz = (corner & 4) != 0 ? grid.size[2] - 1 : 0;
    for (int l = 0; l < grid.ms; ++l) {
      const lattices::Vec3 r = grid.position(sx, sy, sz, l);
      best = std::max(best, 0.5 * grid.weight_sum[l] + harmonic_potential(r.x, r.y, r.z, lambda));
    }
  }
  return best;
}

OperationScale scale_for_operations(const lattices::CellComplex& complex,
                                    std::array<double, 3> extent, lattices::Vec3 shift,
                                    double lambda, double fraction, double target) {
  const auto evaluate = [&](double h) {
    Grid grid = make_grid(complex, structures_covering(complex, extent, h), h);
    grid.origin += shift * h;
    const double dt = fraction / (2.0 * max_diagonal_without_density(grid, lambda));
    return OperationScale{h, grid.size, operations_per_step(grid) / dt};
  };
  // The work per unit time falls monotonically (if in steps) as h grows: bisect on log h.
  double lo = 1e-3 * extent[0], hi = extent[0];
  if (evaluate(lo).operations_per_time < target) {
    throw std::invalid_argument(
        "operations_per_time is out of reach: too large for any sensible h");
  }
  // Fewer than four structures along x cannot hold a vortex: a target below their work is refused
  // rather than met by a grid of one structure.
  const OperationScale coarsest = evaluate(extent[0] / (kFewestStructures * complex.box[0]));
  if (coarsest.operations_per_time > target) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "operations_per_time = %.4g is too small: the coarsest grid allowed, %d "
                  "structures along x (h = %.4g), takes %.4g",
                  target, coarsest.size[0], coarsest.h, coarsest.operations_per_time);
    throw std::invalid_argument(line);
  }
  for (int iter = 0; iter < 60; ++iter) {
    const double mid = std::sqrt(lo * hi);
    (evaluate(mid).operations_per_time >= target ? lo : hi) = mid;
  }
  return evaluate(lo);
}

std::array<double, 2> dual_edge_lengths(const lattices::CellComplex& complex, double h) {
  double sum = 0.0, largest = 0.0;
  int count = 0;
  for (const lattices::Cell& cell : complex.cells) {
    for (const lattices::Face& f : cell.faces) {
      sum += f.dual_length;
      largest = std::max(largest, f.dual_length);
      ++count;
    }
  }
  return {h * sum / count, h * largest};
}

} // namespace decgpe
