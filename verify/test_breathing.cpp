// The breathing (monopole) mode of the isotropic trap, a known answer for interacting dynamics: in
// the Thomas–Fermi limit ⟨r²⟩ oscillates at ω_B = √5 ω⊥. At finite g the scaling ansatz
// ψ → s^{−3/2}ψ(r/s) with the virial theorem 2K − 2U + 3I = 0 (K, U, I the kinetic, trap and
// interaction energies of the ground state) gives Stringari's sum-rule value ω_B² = 5 − K/U (2 at
// g = 0, √5 as K/U → 0). The test relaxes the ground state at g(1 − ε) (initial.kind =
// "ground_state"), runs it in real time at g, and fits the frequency of ⟨r²⟩ = 2⟨V⟩ (the trap
// term of the diagnostics) over three periods on three grids; K/U comes from the ground state
// relaxed at g.
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
#include <cstdio>
#include <gtest/gtest.h>
#include <numbers>
#include <string>
#include <vector>

namespace decgpe {
namespace {

constexpr double kG = 1000.0; ///< g after the quench: μ ≈ 8.67, Thomas–Fermi radius ≈ 4.2
constexpr double kQuench = 0.1; ///< ε: the start is relaxed at g(1 − ε), ⟨r²⟩ swings by ≈ 4%
constexpr double kSide = 11.0; ///< the cube's side, the cloud's diameter plus a margin
constexpr int kPeriods = 3;

/// The lattice's ground state at interaction `g`, relaxed on the OpenMP backend that stays with it.
struct Relaxed {
  setup::RunSetup run;
  std::unique_ptr<Backend> backend;
};

Relaxed relax(const std::string& lattice, double spacing, double g) {
  const std::string s = std::to_string(kSide);
  const std::string toml =
      "lattice = \"" + lattice +
      "\"\nh = " + std::to_string(spacing / verify::spacing_unit(lattice)) + "\ndomain = [" + s +
      ", " + s + ", " + s + "]\ng = " + std::to_string(g) +
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
};

Breathing breathing(const std::string& lattice, double spacing) {
  const Relaxed start = relax(lattice, spacing, kG * (1.0 - kQuench));
  Relaxed at_g = relax(lattice, spacing, kG);
  const setup::GroundStateInfo& ground = *at_g.run.ground_state;
  const double k_over_u = ground.kinetic / ground.trap;
  const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *at_g.backend, at_g.run.dt);
  scheme->start({start.run.current, start.run.current, {}});
  const double period = 2.0 * std::numbers::pi / std::sqrt(5.0);
  const long steps = std::lround(kPeriods * period / at_g.run.dt);
  constexpr long kSamples = 40 * kPeriods;
  std::vector<double> t, r2;
  for (long k = 0, done = 0; k <= kSamples; ++k) {
    const long step = k * steps / kSamples;
    scheme->advance(step - done);
    done = step;
    const Diagnostics d = scheme->diagnostics();
    t.push_back(static_cast<double>(step) * at_g.run.dt);
    r2.push_back(2.0 * d.trap / d.norm); // V = ½r² in the isotropic trap
  }
  const double omega = verify::fit_frequency(t, r2, 1.9, 2.5);
  std::printf("%s spacing %.3f: <r^2> from %.5f swings to %.5f; omega_B = %.6f, sum rule "
              "sqrt(5 - K/U) = %.6f (K/U = %.5f), sqrt(5) = %.6f; dt = %.4g, %ld steps\n",
              lattice.c_str(), spacing, r2.front(),
              *std::ranges::max_element(r2) - *std::ranges::min_element(r2), omega,
              std::sqrt(5.0 - k_over_u), k_over_u, std::sqrt(5.0), at_g.run.dt, steps);
  return {omega, std::sqrt(5.0 - k_over_u)};
}

class BreathingMode : public ::testing::TestWithParam<std::string> {};

/// The value at s = 0 of the quadratic in s² through (s_k², ω_k), k = 0, 1, 2 (Lagrange).
double extrapolate(const std::array<double, 3>& s, const std::array<double, 3>& omega) {
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

// The grid's ω_B approaches the sum rule's from below as the cell spacing s shrinks (second order
// in s, the DEC Laplacian's), and the quadratic in s² through three spacings gives ω_B(0).
// Measured, ω_B at s = 0.5, 0.35, 0.25 (sum rule 2.22400, 2.22397, 2.22395 with K/U = 0.0538 to
// 0.0540; √5 = 2.23607):
//   cubic 2.19234, 2.20800, 2.21507: gap order 1.92, 1.75; ω_B(0) = 2.22225
//   BCC   2.19727, 2.21118, 2.21641: gap order 1.98, 1.57; ω_B(0) = 2.22094
// So ω_B(0) sits 1.7e-3 and 3.0e-3 below the sum rule, which bounds it from above (their spread,
// 1.3e-3, is the extrapolation's uncertainty; fitting six periods instead of three moves each ω_B
// by 1.5e-4), and 0.014 to 0.015 below √5: the finite-g shift is resolved. The gap's order falls
// below 2 as the gap nears the sum rule's excess over the exact ω_B.
TEST_P(BreathingMode, ApproachesTheSumRuleBelowSqrtFiveAtSecondOrderInH) {
  const std::string& lattice = GetParam();
  constexpr std::array<double, 3> kSpacings = {0.5, 0.35, 0.25};
  std::array<double, 3> omega{}, gap{};
  double sum_rule = 0.0;
  for (int k = 0; k < 3; ++k) {
    const Breathing b = breathing(lattice, kSpacings[k]);
    omega[k] = b.omega;
    gap[k] = b.expected - b.omega;
    sum_rule = b.expected; // the finest grid's
  }
  const double order = std::log(gap[1] / gap[2]) / std::log(kSpacings[1] / kSpacings[2]);
  const double extrapolated = extrapolate(kSpacings, omega);
  std::printf("%s: gap to the sum rule %.3e, %.3e, %.3e: order %.3f (0.35 to 0.25); extrapolated "
              "omega_B = %.6f, sum rule %.6f, sqrt(5) = %.6f\n",
              lattice.c_str(), gap[0], gap[1], gap[2], order, extrapolated, sum_rule,
              std::sqrt(5.0));
  RecordProperty("omega_finest", std::to_string(omega[2]));
  RecordProperty("omega_extrapolated", std::to_string(extrapolated));
  RecordProperty("sum_rule", std::to_string(sum_rule));
  for (const double g : gap) {
    EXPECT_GT(g, 0.0) << "the grid's ω_B lies below the sum rule's";
  }
  EXPECT_GT(order, 1.3);
  EXPECT_LT(order, 2.5);
  EXPECT_NEAR(extrapolated, sum_rule, 4e-3);
  // The finite-g shift below the Thomas–Fermi √5 (the sum rule's is 0.0121) is resolved.
  EXPECT_LT(extrapolated, std::sqrt(5.0) - 0.008);
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, BreathingMode, ::testing::Values("cubic", "bcc"));

} // namespace
} // namespace decgpe
