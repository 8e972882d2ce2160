#pragma once
// A vortex lattice: the ground state of a quasi-2D condensate (λ large: the z ground state, g's 2D
// coupling g√(λ/2π)) in the frame rotating at Ω near 1. Its coarse-grained density is the
// Thomas–Fermi profile of the radial trap ½(1 − Ω²)ρ² (the lattice's flow mimics rigid rotation),
// of radius R² = 2√(g₂/π)/√(1 − Ω²) for ∫|ψ|² = 1, and Feynman's rule puts Ω/π vortices per unit
// area: ΩR² over the condensate, on a triangular lattice of spacing √(2π/(√3Ω)).
//
// The relaxation (initial.kind = "ground_state") starts from the harmonic vortex's κ = 0 state
// with `seeded` vortices imprinted at random places inside R: started without them it stalls with
// vortices left outside the condensate (docs/cases.md, "Rotation"), where the density that drives
// them in is near zero.

#include "verify/vortex_precession.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace decgpe::verify {

struct VortexLatticeCase {
  std::string lattice;
  double spacing, g, lambda, omega, half_width;
  int seeded;
  double residual = 1e-4, energy_change = 1e-9; ///< the relaxation's stop

  double g2d() const { return g * std::sqrt(lambda / (2.0 * std::numbers::pi)); }
  /// The Thomas–Fermi radius in the rotating frame.
  double radius() const {
    return std::sqrt(2.0 * std::sqrt(g2d() / std::numbers::pi) / std::sqrt(1.0 - omega * omega));
  }
  double feynman_count() const { return omega * radius() * radius(); }
  double feynman_spacing() const {
    return std::sqrt(2.0 * std::numbers::pi / (std::sqrt(3.0) * omega));
  }
};

/// `value` as TOML reads it back bit for bit (std::to_string's six decimals would write 1e-9 as 0).
inline std::string exact(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// The case's TOML: the vortices at positions uniform in the disc of radius R (a fixed seed).
inline std::string vortex_lattice_toml(const VortexLatticeCase& c, double unit) {
  std::mt19937_64 engine(7);
  const auto uniform = [&] { return static_cast<double>(engine() >> 11) * 0x1.0p-53; };
  std::string vortices;
  for (int k = 0; k < c.seeded; ++k) {
    const double r = c.radius() * std::sqrt(uniform()), phi = 2.0 * std::numbers::pi * uniform();
    vortices += "[[initial.vortices]]\nx = " + std::to_string(r * std::cos(phi)) +
                "\ny = " + std::to_string(r * std::sin(phi)) + "\ncharge = 1\n";
  }
  const std::string w = std::to_string(2.0 * c.half_width);
  return "lattice = \"" + c.lattice + "\"\nh = " + std::to_string(c.spacing / unit) +
         "\ndomain = [" + w + ", " + w + ", " + std::to_string(6.0 / std::sqrt(c.lambda)) +
         "]\ng = " + std::to_string(c.g) + "\n[potential]\nlambda = " + std::to_string(c.lambda) +
         "\n[rotation]\nomega = " + std::to_string(c.omega) +
         "\n[time]\ndt_fraction = 0.5\nsteps = 1\n[initial]\nkind = \"ground_state\"\nkappa = 0\n" +
         vortices + "[initial.ground_state]\nresidual = " + exact(c.residual) +
         "\nenergy_change = " + exact(c.energy_change) + "\nmax_iterations = 60000\n";
}

/// The vortices of the relaxed state within `reach` of the axis: where the detector's lines (the
/// rings below `potential_cut`, every ring unless given) cross z = 0.
inline std::vector<ZCrossing> vortices_within(Backend& backend, const setup::RunSetup& run,
                                              double reach, double potential_cut = kEveryRing) {
  const VectorId psi = backend.create_vector();
  backend.upload(psi, run.current);
  const analysis::PrimalEdges primal(run.problem.grid);
  std::vector<ZCrossing> inside;
  for (const ZCrossing& c :
       crossings_of_z0(analysis::vortex_lines(primal, backend.vortex_flux(psi, potential_cut)))) {
    if (std::hypot(c.at.x, c.at.y) < reach) {
      inside.push_back(c);
    }
  }
  return inside;
}

/// The distance from each vortex to its nearest neighbour.
inline std::vector<double> nearest_distances(const std::vector<ZCrossing>& v) {
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double best = INFINITY;
    for (std::size_t j = 0; j < v.size(); ++j) {
      if (j != i) {
        best = std::min(best, std::hypot(v[i].at.x - v[j].at.x, v[i].at.y - v[j].at.y));
      }
    }
    out.push_back(best);
  }
  return out;
}

} // namespace decgpe::verify
