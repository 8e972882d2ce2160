// The initial states of [initial]: the displaced state, the phase-imprinted vortex lines and ring,
// and ψ⁰ read from a file; through the set-up and through `decgpe run` and `decgpe validate` as a
// user meets them, bad values included (one line, exit 1, nothing written).

#include "hdf5/hdf5_file.hpp"
#include "setup/case_setup.hpp"
#include "verify/run_fixture.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <numbers>

namespace decgpe {
namespace {

namespace fs = std::filesystem;
using verify::replace;

constexpr double kPi = std::numbers::pi;

/// The phase of the imprint summed around a circle of radius a about `centre` in the plane spanned
/// by `u` and `v`, in steps small enough that each change is its principal value: 2π × the winding.
double winding(const PhaseImprint& imprint, lattices::Vec3 centre, lattices::Vec3 u,
               lattices::Vec3 v, double a) {
  constexpr int kSteps = 720;
  double total = 0.0;
  double last = imprint.phase(centre + u * a);
  for (int k = 1; k <= kSteps; ++k) {
    const double s = 2.0 * kPi * k / kSteps;
    const double now = imprint.phase(centre + u * (a * std::cos(s)) + v * (a * std::sin(s)));
    total += std::remainder(now - last, 2.0 * kPi);
    last = now;
  }
  return total;
}

const lattices::Vec3 kX{1, 0, 0}, kY{0, 1, 0}, kZ{0, 0, 1};

TEST(PhaseImprint, AVortexLineWindsItsChargeAboutItsOwnAxisOnly) {
  const PhaseImprint imprint{{{0.7, -0.4, 3}, {-1.0, 1.0, -2}}, {}};
  EXPECT_NEAR(winding(imprint, {0.7, -0.4, 0.3}, kX, kY, 0.1), 6 * kPi, 1e-9);
  EXPECT_NEAR(winding(imprint, {-1.0, 1.0, -2.0}, kX, kY, 0.1), -4 * kPi, 1e-9);
  EXPECT_NEAR(winding(imprint, {0.0, 0.0, 0.0}, kX, kY, 3.0), 2 * kPi, 1e-9); // both inside
  EXPECT_NEAR(winding(imprint, {3.0, 3.0, 0.0}, kX, kY, 0.5), 0.0, 1e-9);     // neither
}

TEST(PhaseImprint, AVortexRingWindsItsChargeAroundItsCoreAndFlowsAlongZThroughItsHole) {
  const VortexRing ring{0.5, -0.5, 0.25, 2.0, 1};
  const PhaseImprint imprint{{}, ring};
  // Around the core at azimuth 0 and π/2 of the ring's axis, right-handed about the azimuthal
  // direction φ̂ (+y there, then −x): z first, then outwards.
  EXPECT_NEAR(winding(imprint, {2.5, -0.5, 0.25}, kZ, kX, 0.2), 2 * kPi, 1e-9);
  EXPECT_NEAR(winding(imprint, {0.5, 1.5, 0.25}, kZ, kY, 0.2), 2 * kPi, 1e-9);
  EXPECT_NEAR(winding(imprint, {0.5, -0.5, 0.25}, kX, kZ, 1.0), 0.0, 1e-9); // the hole, no core
  // The phase grows along +z on the axis: the flow ∇θ runs along +z through the ring.
  const double step = 1e-4;
  EXPECT_GT(imprint.phase({0.5, -0.5, 0.25 + step}) - imprint.phase({0.5, -0.5, 0.25 - step}), 0.0);
  const PhaseImprint opposite{{}, VortexRing{0.5, -0.5, 0.25, 2.0, -2}};
  EXPECT_NEAR(winding(opposite, {2.5, -0.5, 0.25}, kZ, kX, 0.2), -4 * kPi, 1e-9);
}

const std::string kCase = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 0.0
[time]
dt_fraction = 0.5
steps = 20
diagnostics_every = 10
[initial]
kappa = 0
)";

/// Σ|B_i||ψ_i|² r_i of a normalised state.
lattices::Vec3 centre_of_mass(const Grid& grid, std::span<const Complex> psi) {
  lattices::Vec3 sum{};
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    sum += grid.position(i) * (grid.volume[static_cast<std::size_t>(i % grid.ms)] *
                               norm2(psi[static_cast<std::size_t>(i)]));
  }
  return sum;
}

TEST(InitialState, AnOffsetMovesTheStateNotTheTrapAndImprintsLeaveTheDensity) {
  const setup::RunSetup centred = setup::prepare_run(setup::parse_case(kCase, "c.toml"));
  const std::string moved_case = kCase + "offset = [0.9, -0.45, 0.3]\n";
  const setup::RunSetup moved = setup::prepare_run(setup::parse_case(moved_case, "m.toml"));
  const Grid& grid = moved.problem.grid;
  const lattices::Vec3 c = centre_of_mass(grid, moved.current);
  // The sampled Gaussian's centre, up to the grid's O(h²) and the domain's edge.
  EXPECT_NEAR(c.x, 0.9, 0.03);
  EXPECT_NEAR(c.y, -0.45, 0.03);
  EXPECT_NEAR(c.z, 0.3, 0.03);
  EXPECT_NEAR(centre_of_mass(grid, centred.current).x, 0.0, 1e-6); // the cells' own asymmetry
  EXPECT_EQ(moved.mu, centred.mu); // the unmoved state's μ, recorded
  EXPECT_TRUE(moved.previous.empty());

  const std::string imprinted_case = moved_case +
                                     "[[initial.vortices]]\nx = 0.5\ny = 0.0\ncharge = 2\n"
                                     "[initial.ring]\nradius = 1.5\ncharge = -1\n";
  const setup::RunSetup imprinted = setup::prepare_run(setup::parse_case(imprinted_case, "i.toml"));
  const PhaseImprint imprint{{{0.5, 0.0, 2}}, VortexRing{0.0, 0.0, 0.0, 1.5, -1}};
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double theta = imprint.phase(grid.position(i));
    const Complex expected = mul({std::cos(theta), std::sin(theta)}, moved.current[k]);
    ASSERT_NEAR(imprinted.current[k].re, expected.re, 1e-15) << i;
    ASSERT_NEAR(imprinted.current[k].im, expected.im, 1e-15) << i;
  }
}

TEST(InitialState, TheAutomaticDomainGrowsByTheOffsetOnBothSides) {
  const std::string stationary =
      replace(replace(kCase, "domain = [8.0, 8.0, 8.0]", "domain = \"auto\""), "kappa = 0\n",
              "kind = \"stationary_vortex\"\nkappa = 1\n");
  const setup::RunSetup centred = setup::prepare_run(setup::parse_case(stationary, "c.toml"));
  const setup::RunSetup moved =
      setup::prepare_run(setup::parse_case(stationary + "offset = [1.0, 0.0, -0.5]\n", "m.toml"));
  const std::array<double, 3> a = *centred.config.domain, b = *moved.config.domain;
  EXPECT_DOUBLE_EQ(b[0], a[0] + 2.0);
  EXPECT_DOUBLE_EQ(b[1], a[1]);
  EXPECT_DOUBLE_EQ(b[2], a[2] + 1.0);
}

class InitialStateRun : public verify::RunFixture {};

const std::string kImprinted = kCase + R"(offset = [0.5, 0.0, 0.0]
[[initial.vortices]]
x = 0.5
y = 0.0
charge = 1
[[initial.vortices]]
x = -1.0
y = 0.5
charge = -1
[initial.ring]
radius = 1.5
z = 0.5
charge = 1
)";

TEST_F(InitialStateRun, TheNewKeysRunAndAFileStartsWhereTheirRunEnded) {
  const verify::CommandResult r = run(kImprinted);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const fs::path first = dir_ / "first.h5";
  fs::rename(out(), first);
  remove_results();
  const io::InputFile before(first);
  EXPECT_EQ(before.text_attribute("initial_state"), "harmonic_vortex");
  EXPECT_EQ(before.doubles("/diagnostics/t").size(), 3u);

  // The summary makes no exact check of a state whose evolution it does not know.
  const fs::path case_file = write_case(kImprinted, "summary.toml");
  const verify::CommandResult loud =
      verify::run_decgpe("run " + case_file.string() + " --out " + (dir_ / "loud.h5").string());
  ASSERT_EQ(loud.exit_code, 0) << loud.output;
  EXPECT_EQ(loud.output.find("check:"), std::string::npos) << loud.output;
  EXPECT_EQ(loud.output.find("phase error"), std::string::npos) << loud.output;

  const std::string from_file = replace(replace(kCase, "kappa = 0\n", ""), "[initial]\n",
                                        "[initial]\nkind = \"file\"\nfile = \"first.h5\"\n");
  const verify::CommandResult again =
      run(from_file, "--set time.steps=1 --set time.snapshot_every=1");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const io::InputFile after(out());
  EXPECT_EQ(after.text_attribute("initial_file"), (dir_ / "first.h5").string());
  EXPECT_FALSE(after.has_attribute("mu"));
  // ψ⁰ of the second run is the first run's end, normalised on the grid.
  const std::vector<Complex> end = before.complexes("/state/current");
  const std::vector<double> volume = before.doubles("/grid/volume");
  double norm = 0.0;
  for (std::size_t i = 0; i < end.size(); ++i) {
    norm += volume[i % volume.size()] * norm2(end[i]);
  }
  EXPECT_NEAR(norm, before.doubles("/diagnostics/norm").back(), 1e-12);
  const std::vector<Complex> start = after.complexes("/snapshots/000000000000");
  ASSERT_EQ(start.size(), end.size());
  for (std::size_t i = 0; i < end.size(); ++i) {
    ASSERT_NEAR(start[i].re, end[i].re / std::sqrt(norm), 1e-14) << i;
    ASSERT_NEAR(start[i].im, end[i].im / std::sqrt(norm), 1e-14) << i;
  }
}

/// An HDF5 file holding `dataset` of `cells` values, each `value`: complex (a compound {r, i} of
/// doubles, as the solver writes them) or real.
void write_psi(const fs::path& path, const char* dataset, hsize_t cells, bool complex,
               double value) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t type =
      complex ? H5Tcreate(H5T_COMPOUND, sizeof(Complex)) : H5Tcopy(H5T_NATIVE_DOUBLE);
  if (complex) {
    H5Tinsert(type, "r", offsetof(Complex, re), H5T_NATIVE_DOUBLE);
    H5Tinsert(type, "i", offsetof(Complex, im), H5T_NATIVE_DOUBLE);
  }
  const hid_t space = H5Screate_simple(1, &cells, nullptr);
  const hid_t set = H5Dcreate2(f, dataset, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const std::vector<Complex> values(cells, Complex{value, 0.0});
  const std::vector<double> reals(cells, value);
  H5Dwrite(set, complex ? type : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
           complex ? static_cast<const void*>(values.data()) : reals.data());
  H5Dclose(set);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(f);
}

TEST_F(InitialStateRun, AFileThatIsMissingOrNotOneFiniteComplexValuePerCellIsRefusedSayingWhich) {
  const std::string from_file =
      replace(replace(kCase, "kappa = 0\n", ""), "[initial]\n",
              "[initial]\nkind = \"file\"\nfile = \"psi.h5\"\ndataset = \"psi\"\n");
  const std::string where = "'" + (dir_ / "psi.h5").string() + "'";
  expect_rejected(run(from_file), "cannot read " + where + ": no such file");
  constexpr hsize_t kCells = 8748; // the case's grid
  write_psi(dir_ / "psi.h5", "other", kCells, true, 1.0);
  expect_rejected(run(from_file), "dataset 'psi': no such dataset");
  write_psi(dir_ / "psi.h5", "psi", kCells - 1, true, 1.0);
  expect_rejected(run(from_file), "dataset 'psi' has 8747 values, the grid has 8748 cells");
  write_psi(dir_ / "psi.h5", "psi", kCells, false, 1.0);
  expect_rejected(run(from_file), "dataset 'psi': holds real numbers, not complex numbers");
  write_psi(dir_ / "psi.h5", "psi", kCells, true, NAN);
  expect_rejected(run(from_file), "dataset 'psi' has a non-finite value at index 0");
  write_psi(dir_ / "psi.h5", "psi", kCells, true, 0.0);
  expect_rejected(run(from_file), "the initial state vanishes on this grid");
  write_psi(dir_ / "psi.h5", "psi", kCells, true, 1.0);
  EXPECT_EQ(run(from_file).exit_code, 0); // and the good one runs
}

TEST_F(InitialStateRun, AResultsFileOfAnotherGridIsRefusedNamingIt) {
  ASSERT_EQ(run(kCase).exit_code, 0);
  fs::rename(out(), dir_ / "first.h5");
  remove_results();
  const std::string from_file = replace(replace(kCase, "kappa = 0\n", ""), "[initial]\n",
                                        "[initial]\nkind = \"file\"\nfile = \"first.h5\"\n");
  expect_rejected(run(replace(from_file, "h = 0.9", "h = 0.8")),
                  "dataset '/state/current' is of h = 0.9, the case's is 0.8");
  expect_rejected(run(replace(from_file, "\"bcc\"", "\"cubic\"")),
                  "is of lattice 'bcc', the case's is 'cubic'");
}

TEST_F(InitialStateRun, BadValuesOfTheNewKeysAreOneLineThroughValidate) {
  const auto validate = [this](const std::string& toml) {
    return verify::run_decgpe("validate " + write_case(toml).string());
  };
  const std::string ring = kCase + "[initial.ring]\nradius = 1.0\ncharge = 1\n";
  const std::string vortex = kCase + "[[initial.vortices]]\nx = 0.0\ny = 0.0\ncharge = 1\n";
  for (const auto& [toml, needle] : std::vector<std::pair<std::string, std::string>>{
           {replace(ring, "radius = 1.0", "radius = -1.0"),
            "key 'initial.ring.radius' must be > 0"},
           {replace(ring, "radius = 1.0\n", ""), "missing key 'initial.ring.radius'"},
           {replace(ring, "charge = 1", "charge = 31"), "key 'initial.ring.charge' must be <= 30"},
           {replace(vortex, "charge = 1", "charge = -31"),
            "key 'initial.vortices[0].charge' must be >= -30"},
           {replace(vortex, "charge = 1", "charge = 1.5"),
            "key 'initial.vortices[0].charge' must be an integer, got float"},
           {replace(vortex, "y = 0.0\n", ""), "missing key 'initial.vortices[0].y'"},
           {replace(vortex, "x = 0.0", "x = 0.0\nz = 1.0"), "unknown key 'initial.vortices[0].z'"},
           {kCase + "vortices = 3\n", "key 'initial.vortices' must be an array of tables"},
           {kCase + "offset = [inf, 0.0, 0.0]\n", "key 'initial.offset[0]' must be finite"},
           {kCase + "offset = [nan, 0.0, 0.0]\n", "key 'initial.offset[0]' must be finite"},
           {kCase + "offset = [1.0, 0.0]\n", "key 'initial.offset' must be an array of 3 numbers"},
           {kCase + "kind = \"file\"\n", "applies only to the vortex kinds"},
           {replace(kCase, "kappa = 0\n", "kind = \"file\"\n"), "missing key 'initial.file'"},
           {kCase + "file = \"psi.h5\"\n", "key 'initial.file' applies only to kind 'file'"},
           {kCase + "offset = [1.0, 0.0, 0.0]\nlattice_stationary = true\n",
            "solves for the centred vortex"},
           {replace(kCase, "steps = 20", "steps = 20\nstart = \"paper\"") +
                "offset = [1.0, 0.0, 0.0]\n",
            "time.start = 'paper' samples the vortex's known evolution"}}) {
    const verify::CommandResult r = validate(toml);
    expect_one_line_error(r, needle);
    EXPECT_EQ(r.exit_code, 1) << r.output;
  }
}

} // namespace
} // namespace decgpe
