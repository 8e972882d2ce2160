#pragma once
// Everything that defines a run's equation: grid, potential and interaction. Immutable once built.
// The time step belongs to the scheme (solvers/schemes/).

#include "solvers/cell_arithmetic.hpp"
#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <span>
#include <vector>

namespace decgpe {

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
  /// V at cell l of instance (sx, sy, local sz), stored index i: what the backends step with.
  double at(const Grid& grid, std::int64_t sx, std::int64_t sy, std::int64_t sz, int l,
            std::int64_t i) const {
    if (kind == Kind::tabulated) {
      return values[static_cast<std::size_t>(i)];
    }
    const lattices::Vec3 r = grid.position(sx, sy, sz, l);
    return harmonic_potential(r.x, r.y, r.z, lambda);
  }
};

struct Problem {
  Grid grid;
  Potential potential;
  double g = 0.0; ///< interaction strength
};

class DomainReduction;

/// max_i M_ii = max_i (½ Σ_F w_F + V_i + g|ψ_i|²), the diagonal of M(ψ) (paper eq. 6), over the
/// owned cells; with a layout (`grid` and ψ this rank's part), over the whole domain's.
double max_diagonal(const Grid& grid, const Potential& potential, double g,
                    std::span<const Complex> psi, const DomainReduction* layout = nullptr);

/// The paper's stability bound (eq. 11), 1 / (2 max_i M_ii), for the state ψ: recorded for
/// comparison; the schemes' limits come from the spectrum of M (solvers/stability.hpp).
double stability_bound(const Grid& grid, const Potential& potential, double g,
                       std::span<const Complex> psi, const DomainReduction* layout = nullptr);

} // namespace decgpe
