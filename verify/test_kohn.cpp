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

TEST_P(Kohn, TheDipoleModeIsAtTheTrapFrequencyToSecondOrderInH) {
  const std::string& lattice = GetParam();
  const double unit = verify::spacing_unit(lattice);
  const KohnRun coarse = kohn_run(lattice, 0.35 / unit), fine = kohn_run(lattice, 0.25 / unit);
  for (const KohnRun& r : {coarse, fine}) {
    ASSERT_GT(r.omega, kLowest + 1e-6) << "the fit ran into its bracket";
    ASSERT_LT(r.omega, kHighest - 1e-6) << "the fit ran into its bracket";
  }
  const double e_coarse = std::abs(coarse.omega - 1.0), e_fine = std::abs(fine.omega - 1.0);
  const double order = std::log(e_coarse / e_fine) / std::log(coarse.h / fine.h);
  std::printf(
      "%s: h = %.4g dt = %.4g omega = %.8f | h = %.4g dt = %.4g omega = %.8f | order %.3f\n",
      lattice.c_str(), coarse.h, coarse.dt, coarse.omega, fine.h, fine.dt, fine.omega, order);
  RecordProperty("omega_error_coarse", std::to_string(e_coarse));
  RecordProperty("omega_error_fine", std::to_string(e_fine));
  RecordProperty("order", std::to_string(order));
  // Measured (h of 0.5, 0.35, 0.25 cell spacings): |ω_h − 1| ≈ 0.2 s² on cubic, 0.12 s² on
  // BCC, s = unit · h the mean cell spacing; the order between the two finest is 2.05 (cubic) and
  // 2.09 (BCC), between 0.5 and 0.35 it is 2.15 and 2.25 (the h⁴ term, shrinking with h). A
  // first-order error would show 1, the fourth-order cubic4 shows 3.98.
  const double spacing = unit * fine.h;
  EXPECT_LT(e_fine, 0.25 * spacing * spacing);
  EXPECT_NEAR(order, 2.0, 0.15);
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

} // namespace
} // namespace decgpe
