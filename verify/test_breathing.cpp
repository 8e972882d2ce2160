// The breathing (monopole) mode of the isotropic trap against Stringari's sum rule
// ω_B² = 5 − K/U (√5 in the Thomas–Fermi limit): the quench of g and the fit of ⟨r²⟩ are
// verify/breathing_mode.hpp's, here on three grids of cubic and BCC.

#include "verify/breathing_mode.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace decgpe {
namespace {

using verify::extrapolate;

verify::Breathing breathing(const std::string& lattice, double spacing) {
  const verify::Breathing b = verify::breathing(lattice, spacing);
  std::printf("%s spacing %.3f: <r^2> from %.5f swings to %.5f; omega_B = %.6f, sum rule "
              "sqrt(5 - K/U) = %.6f (K/U = %.5f), sqrt(5) = %.6f; dt = %.4g, %ld steps\n",
              lattice.c_str(), spacing, b.r2_start, b.r2_swing, b.omega, b.expected, b.k_over_u,
              std::sqrt(5.0), b.dt, b.steps);
  return b;
}

class BreathingMode : public ::testing::TestWithParam<std::string> {};

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
    const verify::Breathing b = breathing(lattice, kSpacings[k]);
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
