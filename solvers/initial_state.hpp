#pragma once
// Initial states with known time dependence, sampled at the dual 0-cells.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <span>
#include <vector>

namespace decgpe {

/// The g = 0 harmonic-oscillator vortex eigenstate ψ ∝ (x + iy)^κ e^{−(ρ² + λz²)/2} e^{−iμt} of
/// V = ½(x² + y² + λ²z²), with μ = κ + 1 + λ/2.
struct HarmonicVortex {
  int kappa = 1;
  double lambda = 1.0;

  double mu() const { return kappa + 1.0 + 0.5 * lambda; }
  Complex operator()(const lattices::Vec3& r, double t) const; ///< unnormalised
};

/// ψ(r_i, t) · scale at every cell of the grid.
std::vector<Complex> sample(const Grid& grid, const HarmonicVortex& state, double t, double scale);

/// Σ_i |B_i| |ψ_i|², the discrete norm with per-cell volumes.
double grid_norm(const Grid& grid, std::span<const Complex> psi);

/// ψ(r_i, t) scaled so that its discrete norm is 1: the state the tests and benchmarks start from.
std::vector<Complex> sample_normalised(const Grid& grid, const HarmonicVortex& state, double t);

} // namespace decgpe
