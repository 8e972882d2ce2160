// Kohn's theorem, a known answer for the dynamics: in the isotropic trap V = ½r² the centre of mass
// of any state oscillates at exactly the trap frequency ω = 1, whatever g (the dipole mode). The κ
// = 0 ground state displaced by d along x (initial.offset) at g = 0 has ⟨x⟩(t) = d cos t in the
// continuum. The leapfrog's ⟨x⟩(t) over one period, fitted, gives the grid's ω_h, whose error
// |ω_h − 1| must be small and fall at second order in h (the DEC Laplacian's order).

#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/frequency_fit.hpp"
#include "verify/lattice_params.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <numbers>
#include <string>
#include <vector>

namespace decgpe {
namespace {

constexpr double kOffset = 1.0; ///< d, the displacement along x (a_ho)

/// The bracket of the fitted ω: over a period the residual has one minimum in it (a 30% detuning
/// turns the phase by 1.9 rad, short of the side lobes at a whole turn).
constexpr double kLowest = 0.7, kHighest = 1.3;

struct KohnRun {
  double h, dt, omega;
};

/// The displaced g = 0 ground state's ⟨x⟩ over one period on `lattice` at `h` and interaction
/// `g`, 64 samples, and its fitted frequency.
KohnRun kohn_run(const std::string& lattice, double h, double g = 0.0) {
  const std::string toml =
      "lattice = \"" + lattice + "\"\nh = " + std::to_string(h) +
      "\ndomain = [10.0, 10.0, 10.0]\ng = " + std::to_string(g) +
      "\n[time]\ndt_fraction = 0.5\nend_time = " + std::to_string(2.0 * std::numbers::pi) +
      "\n[initial]\nkappa = 0\noffset = [" + std::to_string(kOffset) + ", 0.0, 0.0]\n";
  const setup::RunSetup setup = setup::prepare_run(setup::parse_case(toml, "kohn.toml"));
  const std::unique_ptr<Backend> backend = make_backend("openmp", setup.problem);
  const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *backend, setup.dt);
  scheme->start({setup.current, setup.current, {}});
  const Grid& grid = setup.problem.grid;
  std::vector<Complex> psi(setup.current.size());
  std::vector<double> t, x;
  constexpr long kSamples = 64;
  for (long k = 0, done = 0; k <= kSamples; ++k) {
    const long step = k * setup.schedule.steps / kSamples;
    scheme->advance(step - done);
    done = step;
    scheme->download(0, psi);
    t.push_back(static_cast<double>(step) * setup.dt);
    x.push_back(verify::centre_x(grid, psi));
  }
  EXPECT_NEAR(x.front(), kOffset, 0.02) << lattice << " h = " << h; // the sampled state's centre
  return {h, setup.dt, verify::fit_frequency(t, x, kLowest, kHighest)};
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
