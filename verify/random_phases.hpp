#pragma once
// A field of unit amplitude and uniformly random phases: vortex lines through every part of the
// domain, for the detector's conservation and backend-equivalence tests.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

namespace decgpe::verify {

/// Phases uniform in [0, 2π) from `seed` (std::mt19937_64, 53-bit uniforms made here, so every
/// standard library gives the same field).
inline std::vector<Complex> random_phases(const Grid& g, std::uint64_t seed = 33) {
  std::mt19937_64 rng(seed);
  std::vector<Complex> psi(static_cast<std::size_t>(g.cells()));
  for (Complex& v : psi) {
    const double theta = 2.0 * std::numbers::pi * static_cast<double>(rng() >> 11) * 0x1.0p-53;
    v = {std::cos(theta), std::sin(theta)};
  }
  return psi;
}

} // namespace decgpe::verify
