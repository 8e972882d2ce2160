#pragma once
// The breathing (monopole) mode of the isotropic trap, a known answer for interacting dynamics: in
// the Thomas–Fermi limit ⟨r²⟩ oscillates at ω_B = √5 ω⊥. At finite g the scaling ansatz
// ψ → s^{−3/2}ψ(r/s) with the virial theorem 2K − 2U + 3I = 0 (K, U, I the kinetic, trap and
// interaction energies of the ground state) gives Stringari's sum-rule value ω_B² = 5 − K/U (2 at
// g = 0, √5 as K/U → 0). The run relaxes the ground state at g(1 − ε) (initial.kind =
// "ground_state"), runs it in real time at g with the leapfrog, and fits the frequency of
// ⟨r²⟩ = 2⟨V⟩ (the trap term of the diagnostics) over three periods; K/U comes from the ground
// state relaxed at g.
//
// Why a quench of g: in the Thomas–Fermi limit the ground state of g(1 − ε) is the ground state of
// g scaled by (1 − ε)^{1/5}, so the quench starts a pure scaling motion, the breathing mode, with
// the trap (and so ω⊥ = 1) left as it is; a tabulated stiffer trap would do the same through a
// file, and rescaling ψ on the lattice would need an interpolation.

#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "setup/ground_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/frequency_fit.hpp"
#include "verify/lattice_params.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

namespace decgpe::verify {

inline constexpr double kBreathingG = 1000.0; ///< g after the quench: μ ≈ 8.67, TF radius ≈ 4.2
inline constexpr double kBreathingQuench = 0.1; ///< ε: relaxed at g(1 − ε), ⟨r²⟩ swings by ≈ 4%
inline constexpr double kBreathingSide = 11.0; ///< the cube's side: the cloud plus a margin
inline constexpr int kBreathingPeriods = 3;

/// The lattice's ground state at interaction `g`, relaxed on the OpenMP backend that stays with it.
struct Relaxed {
  setup::RunSetup run;
  std::unique_ptr<Backend> backend;
};

inline Relaxed relax(const std::string& lattice, double spacing, double g) {
  const std::string s = std::to_string(kBreathingSide);
  const std::string toml =
      "lattice = \"" + lattice + "\"\nh = " + std::to_string(spacing / spacing_unit(lattice)) +
      "\ndomain = [" + s + ", " + s + ", " + s + "]\ng = " + std::to_string(g) +
      "\n[time]\ndt_fraction = 0.5\nsteps = 1\n[initial]\nkind = \"ground_state\"\nkappa = 0\n"
      "[initial.ground_state]\nresidual = 1e-7\nenergy_change = 1e-10\n";
  Relaxed r{setup::prepare_run(setup::parse_case(toml, "breathing.toml")), nullptr};
  r.backend = make_backend("openmp", r.run.problem);
  setup::settle_on_ground_state(r.run, *r.backend);
  return r;
}

struct Breathing {
  double omega;    ///< fitted from ⟨r²⟩(t)
  double expected; ///< √(5 − K/U) of the ground state at g
  double k_over_u; ///< K/U of that ground state
  double r2_start; ///< ⟨r²⟩ of the quenched start
  double r2_swing; ///< max − min of ⟨r²⟩ over the run
  double dt;       ///< the leapfrog's step, half its limit
  long steps;      ///< over kBreathingPeriods periods of √5
  std::int64_t cells;
};

/// The quench's ⟨r²⟩ over three periods on `lattice` at mean cell spacing `spacing`, fitted.
inline Breathing breathing(const std::string& lattice, double spacing) {
  const Relaxed start = relax(lattice, spacing, kBreathingG * (1.0 - kBreathingQuench));
  Relaxed at_g = relax(lattice, spacing, kBreathingG);
  const setup::GroundStateInfo& ground = *at_g.run.ground_state;
  const double k_over_u = ground.kinetic / ground.trap;
  const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *at_g.backend, at_g.run.dt);
  scheme->start({start.run.current, start.run.current, {}});
  const double period = 2.0 * std::numbers::pi / std::sqrt(5.0);
  const long steps = std::lround(kBreathingPeriods * period / at_g.run.dt);
  constexpr long kSamples = 40 * kBreathingPeriods;
  std::vector<double> t, r2;
  for (long k = 0, done = 0; k <= kSamples; ++k) {
    const long step = k * steps / kSamples;
    scheme->advance(step - done);
    done = step;
    const Diagnostics d = scheme->diagnostics();
    t.push_back(static_cast<double>(step) * at_g.run.dt);
    r2.push_back(2.0 * d.trap / d.norm); // V = ½r² in the isotropic trap
  }
  return {verify::fit_frequency(t, r2, 1.9, 2.5),
          std::sqrt(5.0 - k_over_u),
          k_over_u,
          r2.front(),
          *std::ranges::max_element(r2) - *std::ranges::min_element(r2),
          at_g.run.dt,
          steps,
          at_g.run.problem.grid.cells()};
}

/// The value at s = 0 of the quadratic in s² through (s_k², ω_k), k = 0, 1, 2 (Lagrange).
inline double extrapolate(const std::array<double, 3>& s, const std::array<double, 3>& omega) {
  double at_zero = 0.0;
  for (int k = 0; k < 3; ++k) {
    double weight = 1.0;
    for (int j = 0; j < 3; ++j) {
      if (j != k) {
        weight *= s[j] * s[j] / (s[j] * s[j] - s[k] * s[k]);
      }
    }
    at_zero += weight * omega[k];
  }
  return at_zero;
}

} // namespace decgpe::verify
