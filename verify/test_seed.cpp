// [initial.seed]: a perturbation of chosen azimuthal content, the same function of position on
// every lattice, reproducible from its recorded seed, and recorded in the results.

#include "hdf5/hdf5_file.hpp"
#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "solvers/splitting.hpp"
#include "verify/bitwise.hpp"
#include "verify/run_fixture.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <numbers>

namespace decgpe {
namespace {

std::string vortex_case(const std::string& lattice, const std::string& seed) {
  return "lattice = \"" + lattice + R"("
h = 0.3
domain = [6.0, 6.0, 2.0]
g = 0.0
[time]
dt_fraction = 0.5
steps = 20
[initial]
kappa = 1
)" + seed;
}

setup::RunSetup prepared(const std::string& lattice, const std::string& seed) {
  return setup::prepare_run(setup::parse_case(vortex_case(lattice, seed), "case.toml"));
}

TEST(Seed, TheSameSeedGivesTheSameStateBitwiseAndAnotherSeedAnother) {
  const std::string seven = "[initial.seed]\nseed = 7\namplitude = 1e-3\n";
  const setup::RunSetup a = prepared("bcc", seven), b = prepared("bcc", seven);
  EXPECT_TRUE(verify::bitwise_equal(a.current, b.current));
  const setup::RunSetup c = prepared("bcc", "[initial.seed]\nseed = 8\namplitude = 1e-3\n");
  EXPECT_FALSE(verify::bitwise_equal(a.current, c.current));
  EXPECT_FALSE(verify::bitwise_equal(a.current, prepared("bcc", "").current));
}

TEST(Seed, AModesPhaseDoesNotDependOnTheOtherModesChosen) {
  const AzimuthalSeed all = AzimuthalSeed::draw({1, 2, 3, 4, 5, 6, 7, 8}, 1e-6, 42);
  const AzimuthalSeed three = AzimuthalSeed::draw({3}, 1e-6, 42);
  const AzimuthalSeed five_three = AzimuthalSeed::draw({5, 3}, 1e-6, 42);
  EXPECT_EQ(three.phases[0], all.phases[2]);
  EXPECT_EQ(five_three.phases[0], all.phases[4]);
  EXPECT_EQ(five_three.phases[1], all.phases[2]);
  for (const double theta : all.phases) {
    EXPECT_GE(theta, 0.0);
    EXPECT_LT(theta, 2.0 * std::numbers::pi);
  }
}

// Measured with the split analysis (the azimuthal spectrum of δρ on the plane z = 0): each chosen
// mode at ε Σ|B||ψ⁰|² over the plane's cells (δρ = 2ε|ψ⁰|² cos(mφ + θ_m)) to 5%, on a lattice
// that is C4-symmetric (cubic) and on one that is not (A15). The other modes are small but not
// nil: cells sample cos(mφ) at a few points per ring, so on the square grid m and m ± 4 alias
// (m = 7, 9, 11 at 14% here).
TEST(Seed, ThePerturbationHasTheChosenAzimuthalModesOnEveryLattice) {
  const double epsilon = 1e-4;
  for (const std::string lattice : {"cubic", "a15"}) {
    const setup::RunSetup plain = prepared(lattice, "");
    const setup::RunSetup seeded =
        prepared(lattice, "[initial.seed]\nmodes = [3, 5]\namplitude = 1e-4\nseed = 3\n");
    const Grid& grid = plain.problem.grid;
    const std::vector<Complex> zero(plain.current.size(), Complex{0.0, 0.0});
    const double plane_norm = azimuthal_spectrum(grid, plain.current, zero).amplitude[0];
    const std::vector<double> c = azimuthal_spectrum(grid, seeded.current, plain.current).amplitude;
    for (int m = 1; m <= 12; ++m) {
      const double scale = epsilon * plane_norm;
      if (m == 3 || m == 5) {
        EXPECT_NEAR(c[static_cast<std::size_t>(m)], scale, 0.05 * scale) << lattice << ", " << m;
      } else {
        EXPECT_LT(c[static_cast<std::size_t>(m)], 0.2 * scale) << lattice << ", m = " << m;
      }
    }
  }
}

class SeedRecord : public verify::RunFixture {};

TEST_F(SeedRecord, TheResultsRecordTheModesTheAmplitudeTheSeedAndThePhases) {
  const std::string seed = "[initial.seed]\nmodes = [4, 3]\namplitude = 2e-6\nseed = 11\n";
  ASSERT_EQ(run(vortex_case("bcc", seed), "--backend reference").exit_code, 0);
  const io::InputFile f(out());
  EXPECT_EQ(f.integer_attribute("seed"), 11);
  EXPECT_EQ(f.number_attribute("seed_amplitude"), 2e-6);
  const AzimuthalSeed drawn = AzimuthalSeed::draw({4, 3}, 2e-6, 11);
  const hid_t file = H5Fopen(out().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  std::vector<double> phases(2);
  std::vector<std::int64_t> modes(2);
  const hid_t a = H5Aopen(file, "seed_phases", H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_DOUBLE, phases.data());
  H5Aclose(a);
  const hid_t b = H5Aopen(file, "seed_modes", H5P_DEFAULT);
  H5Aread(b, H5T_NATIVE_INT64, modes.data());
  H5Aclose(b);
  H5Fclose(file);
  EXPECT_EQ(phases, drawn.phases);
  EXPECT_EQ(modes, (std::vector<std::int64_t>{4, 3}));
}

// A seeded eigenstate is no eigenstate: the summary's check against ψ₀e^{−iμt} must not judge it
// (a large ε would otherwise fail a correct run).
TEST_F(SeedRecord, ASeededRunIsNotCheckedAgainstTheExactEvolution) {
  const std::string seed = "[initial.seed]\namplitude = 0.1\n";
  const verify::CommandResult r =
      verify::run_decgpe("run " + write_case(vortex_case("bcc", seed)).string() + " --out " +
                         out().string() + " --backend reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("check:"), std::string::npos) << r.output;
  const verify::CommandResult plain =
      verify::run_decgpe("run " + write_case(vortex_case("bcc", "")).string() + " --out " +
                         out().string() + " --backend reference --force");
  // Unseeded, the same case is judged (and fails: this domain cuts the state off at z = ±1).
  EXPECT_NE(plain.output.find("check: "), std::string::npos) << plain.output;
}

TEST_F(SeedRecord, BadSeedTablesAreOneLineNamingTheKey) {
  expect_rejected(run(vortex_case("bcc", "[initial.seed]\nmodes = [3, 3]\n")),
                  "key 'initial.seed.modes' names a mode twice");
  expect_rejected(run(vortex_case("bcc", "[initial.seed]\nmodes = [9]\n")),
                  "key 'initial.seed.modes[0]' must be");
  expect_rejected(run(vortex_case("bcc", "[initial.seed]\nmodes = []\n")),
                  "must be a non-empty array of integers");
  expect_rejected(run(vortex_case("bcc", "[initial.seed]\namplitude = 0.5\n")),
                  "key 'initial.seed.amplitude' must be in (0, 0.1]");
  expect_rejected(run(vortex_case("bcc", "[initial.seed]\nphase = 1\n")),
                  "unknown key 'initial.seed.phase'");
}

} // namespace
} // namespace decgpe
