// `decgpe run` as a user meets it: a complete HDF5 file on success; on bad input one line, exit ≠
// 0, and no file.

#include "hdf5/hdf5_file.hpp"
#include "setup/case_setup.hpp"
#include "verify/run_fixture.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

class RunCommand : public verify::RunFixture {};

const std::string kGood = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 10.0
[time]
dt_fraction = 0.5
steps = 40
diagnostics_every = 10
snapshot_every = 20
[initial]
kappa = 1
)";

using verify::replace;

TEST_F(RunCommand, WritesOneCompleteHdf5File) {
  const verify::CommandResult r = run(kGood, "--backend reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(out()));
  ASSERT_TRUE(fs::exists(fs::path(out()).replace_extension(".xmf"))); // the sidecar for ParaView
  EXPECT_EQ(std::distance(fs::directory_iterator(out().parent_path()), fs::directory_iterator{}),
            2);
  EXPECT_EQ(io::read_doubles(out(), "/diagnostics/t").size(), 5u); // steps 0, 10, 20, 30, 40
  EXPECT_EQ(io::read_doubles(out(), "/grid/volume").size(), 12u);
  const hid_t f = H5Fopen(out().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  for (const char* attr :
       {"git_commit", "lattice", "backend", "device", "date", "command_line", "complete", "dt",
        "scheme", "start", "dt_limit", "dt_limit_method", "spectral_radius", "stability_bound", "g",
        "lambda", "structures", "host", "decgpe_version"}) {
    EXPECT_GT(H5Aexists(f, attr), 0) << attr;
  }
  for (const char* set :
       {"/case_toml", "/state/current", "/state/previous", "/snapshots/000000000000",
        "/snapshots/000000000020", "/snapshots/000000000040", "/diagnostics/overlap",
        "/diagnostics/invariant", "/diagnostics/energy"}) {
    EXPECT_GT(H5Lexists(f, "/state", H5P_DEFAULT), 0);
    EXPECT_GE(H5Oexists_by_name(f, set, H5P_DEFAULT), 1) << set;
  }
  H5Fclose(f);
}

TEST_F(RunCommand, TabulatedPotentialGivesTheSameRunAsTheAnalyticTrap) {
  ASSERT_EQ(run(kGood, "--backend reference").exit_code, 0);
  const fs::path analytic = dir_ / "analytic.h5";
  fs::rename(out(), analytic);
  {
    // V tabulated by the trap's formula at the grid's circumcentres, in memory order.
    const setup::RunSetup setup = setup::prepare_run(setup::parse_case(kGood, "case.toml"));
    const Grid& grid = setup.problem.grid;
    std::vector<double> v(static_cast<std::size_t>(grid.cells()));
    for (std::int64_t i = 0; i < grid.cells(); ++i) {
      const lattices::Vec3 r = grid.position(i);
      v[static_cast<std::size_t>(i)] = harmonic_potential(r.x, r.y, r.z, 1.0);
    }
    io::ResultsFile table(dir_ / "v.h5");
    table.write("/V", v, {v.size()});
    table.commit();
  }
  const verify::CommandResult r =
      run(replace(kGood, "g = 10.0\n",
                  "g = 10.0\n[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\n"),
          "--backend reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* series :
       {"/diagnostics/norm", "/diagnostics/energy", "/diagnostics/invariant"}) {
    EXPECT_EQ(io::read_doubles(analytic, series), io::read_doubles(out(), series)) << series;
  }
  // And a table of the wrong length is rejected.
  remove_results();
  io::ResultsFile short_table(dir_ / "v.h5");
  short_table.write("/V", std::vector<double>(7, 0.0), {7});
  short_table.commit();
  expect_rejected(run(replace(kGood, "g = 10.0\n",
                              "g = 10.0\n[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\n")),
                  "has 7 values");
}

TEST_F(RunCommand, ATabulatedPotentialThatIsNoFileOrNoNumbersIsRefusedSayingWhich) {
  const std::string tabulated = replace(
      kGood, "g = 10.0\n", "g = 10.0\n[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\n");
  expect_rejected(run(replace(tabulated, "\"v.h5\"", "\"/dev/null\"")),
                  "cannot read '/dev/null': not a regular file");
  { // as many strings as the grid has cells
    const hsize_t cells = 8748;
    const hid_t f = H5Fcreate((dir_ / "v.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 4);
    const hid_t space = H5Screate_simple(1, &cells, nullptr);
    const hid_t set = H5Dcreate2(f, "V", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const std::vector<char> text(4 * cells, 'a');
    H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
    H5Dclose(set);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(f);
  }
  expect_rejected(run(tabulated), "dataset 'V': holds strings, not numbers");
}

TEST_F(RunCommand, RejectsUnknownLattice) {
  expect_rejected(run(replace(kGood, "\"bcc\"", "\"hcp\"")),
                  "unknown lattice 'hcp' (known: cubic, fcc, bcc, a15, c15, z, cubic4)");
}
TEST_F(RunCommand, RejectsZeroSize) {
  expect_rejected(run(replace(kGood, "domain = [8.0, 8.0, 8.0]", "structures = [4, 0, 4]")),
                  "structures");
}
TEST_F(RunCommand, RejectsNegativeSize) {
  expect_rejected(run(replace(kGood, "domain = [8.0, 8.0, 8.0]", "domain = [8.0, -8.0, 8.0]")),
                  "domain");
}
TEST_F(RunCommand, RejectsTimeStepAboveTheLimitAndNamesTheLimit) {
  expect_rejected(run(replace(kGood, "dt_fraction = 0.5", "dt = 0.5")),
                  "is not below the leapfrog stability limit");
  expect_rejected(run(replace(kGood, "dt_fraction = 0.5", "dt = 0.5"), "--scheme rk4"),
                  "is not below the rk4 stability limit");
}
TEST_F(RunCommand, RejectsAStepCountThatDoesNotFit) {
  expect_rejected(run(replace(kGood, "steps = 40", "end_time = 1e20")), "steps: more than");
  expect_rejected(run(replace(kGood, "steps = 40", "steps = 9223372036854775807")),
                  "time.steps = 9.22e+18: more than the 1e12");
}
TEST_F(RunCommand, RejectsAnHThatLeavesNoStructureOrTooManyNamingTheAxisInShortNumbers) {
  expect_rejected(run(replace(kGood, "h = 0.9", "h = 1e300")),
                  "h = 1e+300 is too large for the domain: 8e-300 structures (each 1e+300 wide) "
                  "along x, where 1 to 1e6 fit");
  const verify::CommandResult tiny = run(replace(kGood, "h = 0.9", "h = 1e-300"));
  expect_rejected(tiny, "h = 1e-300 is too small for the domain: 8e+300 structures");
  EXPECT_LT(tiny.output.size(), 160U) << tiny.output;
}
TEST_F(RunCommand, AnOperationsTargetBelowTheCoarsestSensibleGridIsRefused) {
  // It was met with a grid of one structure.
  expect_rejected(run(R"(lattice = "cubic"
operations_per_time = 7.5
domain = "auto"
g = 300.0
[time]
dt_fraction = 0.9
dt_fraction_of = "eq11"
end_time = 1.0
[initial]
kind = "stationary_vortex"
kappa = 1
)"),
                  "operations_per_time = 7.5 is too small: the coarsest grid allowed, 4 "
                  "structures along x");
}
TEST_F(RunCommand, ValidateSaysWhatTheRunWouldBeAndWritesNothing) {
  const fs::path case_file = write_case(kGood);
  const verify::CommandResult r =
      verify::run_decgpe("validate " + case_file.string() + " --backend reference");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"lattice: bcc\n", "structures: 9 x 9 x 9\n", "cells: 8748\n",
                           "backend: reference", "scheme: leapfrog\n", "steps: 40\n",
                           "dt limit: ", "; dt is 0.5 of it)\n", "estimated wall time: "}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << " missing from\n" << r.output;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1)
      << "only the case file: validate writes nothing";
  const verify::CommandResult json = verify::run_decgpe("validate " + case_file.string() +
                                                        " --backend reference --json --set h=0.7");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(json.output.starts_with("{")) << json.output;
  EXPECT_NE(json.output.find("\"structures\": \"12 x 12 x 12\""), std::string::npos) << json.output;
  expect_one_line_error(
      verify::run_decgpe("validate " + write_case(replace(kGood, "\"bcc\"", "\"hcp\"")).string()),
      "unknown lattice 'hcp'");
}
TEST_F(RunCommand, ValidateReportsTheHThatAnOperationsTargetChooses) {
  // The grid's h, not the case's (unset here: validate printed "h: 0").
  const std::string toml =
      replace(replace(replace(kGood, "h = 0.9", "operations_per_time = 2e7"), "dt_fraction = 0.5",
                      "dt_fraction = 0.5\ndt_fraction_of = \"eq11\""),
              "kappa = 1", "kind = \"stationary_vortex\"\nkappa = 1");
  const verify::CommandResult v =
      verify::run_decgpe("validate " + write_case(toml).string() + " --backend reference");
  ASSERT_EQ(v.exit_code, 0) << v.output;
  const verify::CommandResult r = verify::run_decgpe(
      "run " + write_case(toml).string() + " --backend reference --out " + out().string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto h_after = [](const std::string& text, const std::string& label) {
    const std::size_t at = text.find(label);
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + label.size()));
  };
  const double validated = h_after(v.output, "\nh: "), run_h = h_after(r.output, ", h = ");
  EXPECT_GT(validated, 0.0) << v.output;
  EXPECT_EQ(validated, run_h) << v.output << r.output;
}
TEST_F(RunCommand, RejectsASubnormalTimeStep) {
  expect_rejected(run(replace(kGood, "dt_fraction = 0.5", "dt = 5e-324")), "is subnormal");
}
TEST_F(RunCommand, RejectsAnUnknownSchemeFlag) {
  expect_rejected(run(kGood, "--scheme euler"), "unknown scheme 'euler'");
}
TEST_F(RunCommand, Rk4RunRecordsItsSchemeLimitAndOneLevel) {
  const verify::CommandResult r = run(kGood, "--scheme rk4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const hid_t f = H5Fopen(out().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const auto number = [f](const char* name) {
    double value = std::nan("");
    const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(a);
    return value;
  };
  const auto text = [f](const char* name) {
    const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    std::string value(H5Tget_size(type), '\0');
    H5Aread(a, type, value.data());
    H5Tclose(type);
    H5Aclose(a);
    return value;
  };
  EXPECT_EQ(text("scheme"), "rk4");
  EXPECT_EQ(text("dt_limit_method"), "linearised, by lanczos"); // g > 0, V ≥ 0
  EXPECT_NEAR(number("dt"), 0.5 * number("dt_limit"), 1e-15);
  EXPECT_NEAR(number("dt_limit") * number("spectral_radius"), 2.0 * std::sqrt(2.0), 1e-12);
  EXPECT_LE(number("spectral_radius"), number("spectral_radius_gershgorin"));
  EXPECT_GT(H5Oexists_by_name(f, "/state/current", H5P_DEFAULT), 0);
  EXPECT_EQ(H5Lexists(f, "/state/previous", H5P_DEFAULT), 0);
  H5Fclose(f);
}
TEST_F(RunCommand, RejectsMissingKey) {
  expect_rejected(run(replace(kGood, "h = 0.9\n", "")), "'h'");
}
TEST_F(RunCommand, RejectsUnknownKey) {
  expect_rejected(run(replace(kGood, "g = 10.0", "g = 10.0\ngg = 1.0")), "'gg'");
}
TEST_F(RunCommand, RejectsWrongType) {
  expect_rejected(run(replace(kGood, "h = 0.9", "h = \"0.9\"")), "'h'");
}
TEST_F(RunCommand, RejectsNonFiniteNumber) {
  expect_rejected(run(replace(kGood, "g = 10.0", "g = nan")), "'g'");
}
TEST_F(RunCommand, RejectsUnwritableOutput) {
  const fs::path blocker = dir_ / "out";
  std::ofstream(blocker) << "a file where the output folder should be";
  const verify::CommandResult r = run(kGood);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot write output"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}
TEST_F(RunCommand, RejectsUnknownBackend) {
  expect_rejected(run(kGood, "--backend fpga"), "unknown backend 'fpga'");
}

TEST_F(RunCommand, ARotatingFrameIsCheckedInOneLineAndRecorded) {
  const std::string rotating =
      replace(kGood, "[time]", "[rotation]\nomega = 0.4\norigin = [0.5, -0.25, 0.0]\n[time]");
  const verify::CommandResult v =
      verify::run_decgpe("validate " + write_case(rotating).string() + " --backend reference");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  const auto validate = [&](const std::string& toml) {
    return verify::run_decgpe("validate " + write_case(toml).string() + " --backend reference");
  };
  expect_one_line_error(validate(replace(rotating, "omega = 0.4", "omega = inf")),
                        "key 'rotation.omega' must be finite");
  expect_one_line_error(validate(replace(rotating, "omega = 0.4", "omega = nan")),
                        "key 'rotation.omega' must be finite");
  expect_one_line_error(validate(replace(rotating, "omega = 0.4", "omega = \"fast\"")),
                        "rotation.omega");
  expect_one_line_error(validate(replace(rotating, "[0.5, -0.25, 0.0]", "[0.5, -0.25]")),
                        "rotation.origin");
  expect_one_line_error(validate(replace(rotating, "omega = 0.4", "omega = 0.4\naxis = 1")),
                        "rotation.axis");
  expect_one_line_error(
      validate(replace(rotating, "dt_fraction = 0.5", "dt_fraction = 0.5\nstart = \"paper\"")),
      "not with rotation.omega");
  expect_one_line_error(validate(replace(rotating, "omega = 0.4", "omega = -1.0")),
                        "key 'rotation.omega' = -1 does not confine the harmonic trap (its radial "
                        "frequency is 1): |omega| must be < 1");
  expect_rejected(run(replace(rotating, "omega = 0.4", "omega = 1.2"), "--backend openmp"),
                  "|omega| must be < 1");
  ASSERT_EQ(run(rotating, "--backend openmp").exit_code, 0);
  const io::InputFile f(out());
  EXPECT_EQ(f.number_attribute("rotation_omega"), 0.4);
  const std::vector<double> rotation = f.doubles("/diagnostics/rotation");
  ASSERT_FALSE(rotation.empty());
  EXPECT_LT(rotation.front(), -0.1) << "−Ω⟨L_z⟩ of the κ = 1 vortex, ≈ −0.4 near its axis";
}

TEST_F(RunCommand, OverridesAreCheckedAndRecordedWithTheCaseAsRun) {
  ASSERT_EQ(run(kGood, "--set time.steps=7 --set 'shift=[0.25, 0, 0]'").exit_code, 0);
  const io::InputFile f(out());
  EXPECT_EQ(f.integer_attribute("steps"), 7);
  EXPECT_EQ(f.text_attribute("overrides"), "--set 'time.steps=7' --set 'shift=[0.25, 0, 0]'");
  EXPECT_EQ(f.text("/case_toml"), kGood) << "the case as read";
  const std::string effective = f.text("/case_toml_effective");
  EXPECT_NE(effective.find("steps = 7"), std::string::npos) << effective;
  EXPECT_NE(effective.find("shift = [ 0.25, 0, 0 ]"), std::string::npos) << effective;
  remove_results();
  expect_rejected(run(kGood, "--set time.steps=-1"), "with --set: key 'time.steps' must be >= 1");
  expect_rejected(run(kGood, "--set nonsense"), "--set nonsense: expected KEY=VALUE");
}

} // namespace
} // namespace decgpe
