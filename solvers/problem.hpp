#pragma once
// Everything that defines a run's equation: grid, potential, interaction and time step. Immutable
// once built.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <span>
#include <vector>

namespace decgpe {

/// V(r) = ½(x² + y² + λ²z²), the trap of the paper's cases; the one formula every backend evaluates
/// in its kernel.
DECGPE_HD double harmonic_potential(double x, double y, double z, double lambda) {
  return 0.5 * (x * x + y * y + lambda * lambda * (z * z));
}

struct Potential {
  enum class Kind { harmonic, tabulated };
  Kind kind = Kind::harmonic;
  double lambda = 1.0;        ///< harmonic
  std::vector<double> values; ///< tabulated: one value per dual 0-cell, in grid memory order

  double at(const Grid& grid, std::int64_t i) const {
    if (kind == Kind::tabulated) {
      return values[static_cast<std::size_t>(i)];
    }
    const lattices::Vec3 r = grid.position(i);
    return harmonic_potential(r.x, r.y, r.z, lambda);
  }
};

struct Problem {
  Grid grid;
  Potential potential;
  double g = 0.0;  ///< interaction strength
  double dt = 0.0; ///< time step Δt
};

/// max_i M_ii = max_i (½ Σ_F w_F + V_i + g|ψ_i|²), the diagonal of M(ψ) (paper eq. 6).
double max_diagonal(const Grid& grid, const Potential& potential, double g,
                    std::span<const Complex> psi);

/// The stability bound of eq. 11, 1 / (2 max_i M_ii), for the state ψ.
double stability_bound(const Grid& grid, const Potential& potential, double g,
                       std::span<const Complex> psi);

} // namespace decgpe
