#pragma once
// Everything that defines a run's equation: grid, potential and interaction. Immutable once built.
// The time step belongs to the scheme (solvers/schemes/).

#include "solvers/cell_arithmetic.hpp"
#include "solvers/complex.hpp"
#include "solvers/grid.hpp"
#include "solvers/precision.hpp"

#include <span>
#include <vector>

namespace decgpe {

/// The frame rotating at Ω about the z axis through (x0, y0): H = ½(p − A)² + V − ½Ω²ρ², A = Ω ẑ×r
/// and ρ the distance from the axis. On the grid ½(p − A)² is the magnetic Laplacian, each face's
/// hopping carrying the Peierls phase of rotating_phase() (solvers/cell_arithmetic.hpp).
struct Rotation {
  double omega = 0.0;
  double x0 = 0.0, y0 = 0.0;

  bool active() const { return omega != 0.0; }
};

struct Potential {
  enum class Kind { harmonic, tabulated };
  Kind kind = Kind::harmonic;
  double lambda = 1.0;        ///< harmonic
  std::vector<double> values; ///< tabulated: one value per dual 0-cell, in grid memory order
  /// The rotating frame, whose gauge field the stencil carries beside V (inactive: the lab frame).
  Rotation rotation;

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
  /// The scalar potential of the rotating frame's Hamiltonian, V − ½Ω²ρ² (V when not rotating).
  double in_frame(const Grid& grid, std::int64_t i) const {
    return rotation.active() ? with_centrifugal(at(grid, i), grid.position(i)) : at(grid, i);
  }
  /// The same at cell l of instance (sx, sy, local sz), stored index i: the rotating kernels' V.
  double in_frame(const Grid& grid, std::int64_t sx, std::int64_t sy, std::int64_t sz, int l,
                  std::int64_t i) const {
    return with_centrifugal(at(grid, sx, sy, sz, l, i), grid.position(sx, sy, sz, l));
  }

private:
  double with_centrifugal(double v, const lattices::Vec3& r) const {
    return v + centrifugal_potential(rotation.omega, r.x - rotation.x0, r.y - rotation.y0);
  }
};

struct Problem {
  Grid grid;
  Potential potential;
  double g = 0.0; ///< interaction strength
  /// What ψ is stored and stepped in (solvers/precision.hpp): the discrete equation's arithmetic.
  Precision precision = Precision::double_;
};

class DomainReduction;

/// max_i M_ii = max_i (½ Σ_F w_F + V_i + g|ψ_i|²), the diagonal of M(ψ) (paper eq. 6; V − ½Ω²ρ² in
/// a rotating frame), over the owned cells; with a layout (`grid` and ψ this rank's part), over the
/// whole domain's.
double max_diagonal(const Grid& grid, const Potential& potential, double g,
                    std::span<const Complex> psi, const DomainReduction* layout = nullptr);

/// The paper's stability bound (eq. 11), 1 / (2 max_i M_ii), for the state ψ: recorded for
/// comparison; the schemes' limits come from the spectrum of M (solvers/stability.hpp).
double stability_bound(const Grid& grid, const Potential& potential, double g,
                       std::span<const Complex> psi, const DomainReduction* layout = nullptr);

} // namespace decgpe
