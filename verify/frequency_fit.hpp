#pragma once
// The frequency of a sampled oscillation: the ω of the least-squares fit a cos ωt + b sin ωt + c,
// for the tests of collective modes against known frequencies (Kohn's dipole, the breathing mode),
// and the centre of mass that the dipole modes move.

#include "solvers/grid.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace decgpe::verify {

/// ⟨r⟩ = Σ|B_i||ψ_i|² r_i / Σ|B_i||ψ_i|²: the centre of mass, whose x and z components the dipole
/// modes move.
inline lattices::Vec3 centre_of_mass(const Grid& grid, std::span<const Complex> psi) {
  double mass = 0.0;
  lattices::Vec3 moment;
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const double w = grid.volume[static_cast<std::size_t>(i % grid.ms)] *
                     norm2(psi[static_cast<std::size_t>(i)]);
    mass += w;
    moment += grid.position(i) * w;
  }
  return moment * (1.0 / mass);
}

/// The residual of the least-squares fit of a cos ωt + b sin ωt + c to the samples.
inline double fit_residual(const std::vector<double>& t, const std::vector<double>& x,
                           double omega) {
  // Normal equations of the three basis functions, solved by Cramer's rule.
  std::array<std::array<double, 3>, 3> a{};
  std::array<double, 3> rhs{};
  for (std::size_t k = 0; k < t.size(); ++k) {
    const std::array<double, 3> f = {std::cos(omega * t[k]), std::sin(omega * t[k]), 1.0};
    for (int i = 0; i < 3; ++i) {
      rhs[i] += f[i] * x[k];
      for (int j = 0; j < 3; ++j) {
        a[i][j] += f[i] * f[j];
      }
    }
  }
  const auto det = [](const std::array<std::array<double, 3>, 3>& m) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  std::array<double, 3> c{};
  for (int j = 0; j < 3; ++j) {
    std::array<std::array<double, 3>, 3> m = a;
    for (int i = 0; i < 3; ++i) {
      m[i][j] = rhs[i];
    }
    c[j] = det(m) / det(a);
  }
  double sum = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const double r = x[k] - c[0] * std::cos(omega * t[k]) - c[1] * std::sin(omega * t[k]) - c[2];
    sum += r * r;
  }
  return sum;
}

/// The ω in [lowest, highest] of the best fit, by golden-section search. The bracket must hold one
/// minimum of the residual: over n periods a detuning that turns the phase by a whole turn reaches
/// the side lobes, so the bracket's half-width must stay below ω/n.
inline double fit_frequency(const std::vector<double>& t, const std::vector<double>& x,
                            double lowest, double highest) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double lo = lowest, hi = highest;
  while (hi - lo > 1e-12) {
    const double a = hi - ratio * (hi - lo), b = lo + ratio * (hi - lo);
    if (fit_residual(t, x, a) < fit_residual(t, x, b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  return 0.5 * (lo + hi);
}

} // namespace decgpe::verify
