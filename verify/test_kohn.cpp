// Kohn's theorem, a known answer for the dynamics: in the isotropic trap V = ½r² the centre of mass
// of any state oscillates at exactly the trap frequency ω = 1, whatever g (the dipole mode). The κ
// = 0 ground state displaced by d along x (initial.offset) at g = 0 has ⟨x⟩(t) = d cos t in the
// continuum. The leapfrog's ⟨x⟩(t) over one period, fitted, gives the grid's ω_h, whose error
// |ω_h − 1| must be small and fall at second order in h (the DEC Laplacian's order).

#include "verify/kohn_dipole.hpp"
#include "verify/lattice_params.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace decgpe {
namespace {

constexpr double kOffset = verify::kKohnOffset;
constexpr double kLowest = verify::kKohnLowest, kHighest = verify::kKohnHighest;
using verify::KohnRun;

/// The displaced g = 0 ground state's ⟨x⟩ over one period on `lattice` at `h` and interaction
/// `g` (the leapfrog at half its limit), 64 samples, and its fitted frequency.
KohnRun kohn_run(const std::string& lattice, double h, double g = 0.0) {
  const KohnRun r = verify::kohn_run({.lattice = lattice, .h = h, .g = g});
  EXPECT_NEAR(r.x0, kOffset, 0.02) << lattice << " h = " << h; // the sampled state's centre
  return r;
}

class Kohn : public ::testing::TestWithParam<std::string> {};
class KohnOtherStencils : public ::testing::TestWithParam<std::string> {};
class KohnTimeOrder : public ::testing::TestWithParam<std::string> {};

/// The leapfrog's ω_h at mean cell spacings 0.35 and 0.25 (g = 0), and the order of |ω_h − 1|.
struct HOrder {
  KohnRun coarse, fine;
  double e_coarse, e_fine, order;
};

HOrder h_order(const std::string& lattice) {
  const double unit = verify::spacing_unit(lattice);
  const KohnRun coarse = kohn_run(lattice, 0.35 / unit), fine = kohn_run(lattice, 0.25 / unit);
  for (const KohnRun& r : {coarse, fine}) {
    EXPECT_GT(r.omega, kLowest + 1e-6) << "the fit ran into its bracket";
    EXPECT_LT(r.omega, kHighest - 1e-6) << "the fit ran into its bracket";
  }
  const double e_coarse = std::abs(coarse.omega - 1.0), e_fine = std::abs(fine.omega - 1.0);
  const double order = std::log(e_coarse / e_fine) / std::log(coarse.h / fine.h);
  std::printf(
      "%s: h = %.4g dt = %.4g omega = %.8f | h = %.4g dt = %.4g omega = %.8f | order %.3f\n",
      lattice.c_str(), coarse.h, coarse.dt, coarse.omega, fine.h, fine.dt, fine.omega, order);
  ::testing::Test::RecordProperty("omega_error_coarse", std::to_string(e_coarse));
  ::testing::Test::RecordProperty("omega_error_fine", std::to_string(e_fine));
  ::testing::Test::RecordProperty("order", std::to_string(order));
  return {coarse, fine, e_coarse, e_fine, order};
}

TEST_P(Kohn, TheDipoleModeIsAtTheTrapFrequencyToSecondOrderInH) {
  const std::string& lattice = GetParam();
  const HOrder m = h_order(lattice);
  ASSERT_FALSE(HasFailure()) << "the fit ran into its bracket";
  // Measured (h of 0.5, 0.35, 0.25 cell spacings): |ω_h − 1| ≈ 0.2 s² on cubic, 0.12 s² on
  // BCC, s = unit · h the mean cell spacing; the order between the two finest is 2.05 (cubic) and
  // 2.09 (BCC), between 0.5 and 0.35 it is 2.15 and 2.25 (the h⁴ term, shrinking with h). A
  // first-order error would show 1, the fourth-order cubic4 shows 3.98.
  const double spacing = verify::spacing_unit(lattice) * m.fine.h;
  EXPECT_LT(m.e_fine, 0.25 * spacing * spacing);
  EXPECT_NEAR(m.order, 2.0, 0.15);
}

// Kohn's theorem holds for any g: the state, a displaced g = 0 Gaussian, breathes as well, yet its
// centre oscillates at ω = 1. At g = 20 the measured error is 9.2e-3 (cubic) and 5.4e-3 (BCC) at a
// spacing of 0.25, below the g = 0 bound (the order between 0.35 and 0.25 is 2.05 and 2.06; at
// g = 100 the errors are alike, 9.5e-3 and 4.9e-3, the orders 2.5 and 1.4: not asserted).
TEST_P(Kohn, TheDipoleModeStaysAtTheTrapFrequencyWithInteractions) {
  const std::string& lattice = GetParam();
  const double unit = verify::spacing_unit(lattice);
  const KohnRun r = kohn_run(lattice, 0.25 / unit, 20.0);
  std::printf("%s g = 20: h = %.4g dt = %.4g omega = %.8f\n", lattice.c_str(), r.h, r.dt, r.omega);
  EXPECT_LT(std::abs(r.omega - 1.0), 0.25 * 0.25 * 0.25);
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, Kohn, ::testing::Values("cubic", "bcc"));

// The other five stencils, the leapfrog at half its limit, g = 0: |ω_h − 1| falls at the
// stencil's order in h (4 on cubic4, 2 on the crystals). Measured at mean cell spacings s = 0.35
// and 0.25: |ω_h − 1| at 0.25 = 0.18 s² (FCC), 0.14 s² (A15, C15), 0.13 s² (Z), 0.13 s⁴ (cubic4,
// 5.1e-4); the order 2.08 (FCC), 2.14 (A15), 2.20 (C15), 2.11 (Z), 3.97 (cubic4). Above 2 on the
// crystals as on cubic and BCC between 0.5 and 0.35: the h⁴ term.
TEST_P(KohnOtherStencils, TheDipoleModeConvergesAtTheStencilsOrderInH) {
  const std::string& lattice = GetParam();
  const HOrder m = h_order(lattice);
  ASSERT_FALSE(HasFailure()) << "the fit ran into its bracket";
  const double s = verify::spacing_unit(lattice) * m.fine.h;
  const double expected = lattice == "cubic4" ? 4.0 : 2.0;
  EXPECT_LT(m.e_fine, 0.25 * std::pow(s, expected));
  EXPECT_GT(m.order, expected - 0.15);
  EXPECT_LT(m.order, expected + 0.35);
}

INSTANTIATE_TEST_SUITE_P(EveryOtherStencil, KohnOtherStencils,
                         ::testing::Values("fcc", "a15", "c15", "z", "cubic4"));

// Every scheme's order in Δt, from the dipole modes themselves: cubic at mean cell spacing 0.5,
// g = 20 (so the nonlinear phase enters the time error), the trap λ = 2 and the
// start displaced by (1, 0, 0.5), so x oscillates at 1 and z at 2; Δt = 0.8, 0.4 and 0.2 of the
// scheme's limit. The grid's error is the same in the three runs, so log₂ of the ratio of the
// successive changes of ω is the order in Δt, free of any reference. Measured (x, z): leapfrog
// 2.005, 2.009; rk4 3.933, 3.711; trotter_suzuki 2.006, 1.992; trotter_suzuki4 3.956, 4.362;
// exponential 2.002, 2.005 (before Scheme::advance(0) became a no-op, the split schemes' stray
// half-step at the first sample gave trotter_suzuki4 1.64 and 1.03).
TEST_P(KohnTimeOrder, TheDipoleFrequenciesConvergeAtTheSchemesOrderInDt) {
  const SchemeEntry& scheme = find_scheme(GetParam());
  verify::KohnCase c{.lattice = "cubic",
                     .h = 0.5,
                     .scheme = std::string(scheme.name),
                     .g = 20.0,
                     .lambda = 2.0,
                     .offset_z = 0.5,
                     .domain = {10.0, 10.0, 7.0},
                     .dt_fraction = 0.8};
  std::vector<KohnRun> runs{verify::kohn_run(c)};
  for (const double divisor : {2.0, 4.0}) {
    c.dt = runs.front().dt / divisor;
    runs.push_back(verify::kohn_run(c));
  }
  const auto order = [&](double KohnRun::*omega) {
    return std::log2((runs[0].*omega - runs[1].*omega) / (runs[1].*omega - runs[2].*omega));
  };
  const double order_x = order(&KohnRun::omega), order_z = order(&KohnRun::omega_z);
  std::printf("%s: dt = %.4g (%.3f of the limit): omega %.10f %.10f %.10f, z %.10f %.10f %.10f; "
              "order x %.3f z %.3f\n",
              std::string(scheme.name).c_str(), runs[0].dt, runs[0].dt / runs[0].limit,
              runs[0].omega, runs[1].omega, runs[2].omega, runs[0].omega_z, runs[1].omega_z,
              runs[2].omega_z, order_x, order_z);
  EXPECT_NEAR(order_x, scheme.order, 0.12 * scheme.order);
  EXPECT_NEAR(order_z, scheme.order, 0.12 * scheme.order);
}

std::vector<std::string> scheme_names() {
  std::vector<std::string> names;
  for (const SchemeEntry& e : scheme_registry()) {
    names.emplace_back(e.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryScheme, KohnTimeOrder, ::testing::ValuesIn(scheme_names()));

} // namespace
} // namespace decgpe
