// Case files: a valid file gives the expected configuration, and every bad input gives a one-line
// CaseError that names the file and the key; the schema's defaults, keys and ranges are the
// parser's.

#include "setup/case_file.hpp"
#include "setup/case_schema.hpp"
#include "verify/process_scratch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

namespace decgpe {
namespace {

using setup::CaseConfig;
using setup::CaseError;
using setup::parse_case;
using setup::read_case_file;

namespace fs = std::filesystem;

constexpr std::string_view kSource = "cases/x.toml";

// The smallest valid case, in the two pieces the error tests vary: top-level keys and the [time]
// table.
const std::string kGrid = "lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4, 4]\n";
const std::string kTime = "[time]\ndt = 1e-3\nsteps = 10\n";

/// `toml` with the keys every case must give (g and the initial winding) where it lacks them, so
/// that each test states only what it is about.
std::string with_physics(const std::string& toml) {
  std::string out = toml;
  if (!std::regex_search(toml, std::regex("(^|\n)g = "))) {
    out = "g = 0.0\n" + out;
  }
  if (toml.find("[initial]") == std::string::npos) {
    out += "\n[initial]\nkappa = 1\n";
  }
  return out;
}

CaseConfig parse(const std::string& toml) {
  return parse_case(with_physics(toml), kSource);
}

/// Success when parsing `toml` throws a CaseError whose one-line message is "cases/x.toml: ..."
/// containing `expected`.
testing::AssertionResult fails_with(const std::string& toml, std::string_view expected) {
  try {
    parse(toml);
  } catch (const CaseError& e) {
    const std::string message = e.what();
    if (message.find('\n') != std::string::npos) {
      return testing::AssertionFailure() << "message has a newline: " << message;
    }
    if (!message.starts_with(std::string(kSource) + ":")) {
      return testing::AssertionFailure() << "message does not start with the source: " << message;
    }
    if (message.find(expected) == std::string::npos) {
      return testing::AssertionFailure() << "message lacks \"" << expected << "\": " << message;
    }
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << "no CaseError for:\n" << toml;
}

/// A fresh folder per test, so that tests run in parallel, or by two test runs at once, do not
/// share files.
fs::path test_dir() {
  const fs::path dir = verify::process_scratch("decgpe_test_case_file") /
                       testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CaseFile, FullCaseParsesToExpectedValues) {
  const CaseConfig c = parse_case(R"(
lattice = "fcc"
h = 0.25
domain = [14.0, 12, 10.5]
g = -2.5
[potential]
kind = "harmonic"
lambda = 2.0
[time]
dt_fraction = 0.5
end_time = 2.0
diagnostics_every = 5
snapshot_every = 100
[initial]
kind = "harmonic_vortex"
kappa = 3
)",
                                  kSource);
  EXPECT_EQ(c.name, "x");
  EXPECT_EQ(c.lattice, "fcc");
  EXPECT_DOUBLE_EQ(c.h, 0.25);
  ASSERT_TRUE(c.domain.has_value());
  EXPECT_EQ(*c.domain, (std::array<double, 3>{14.0, 12.0, 10.5}));
  EXPECT_FALSE(c.structures.has_value());
  EXPECT_DOUBLE_EQ(c.g, -2.5);
  EXPECT_EQ(setup::option_name(c.potential_kind), "harmonic");
  EXPECT_DOUBLE_EQ(c.lambda, 2.0);
  EXPECT_FALSE(c.dt.has_value());
  ASSERT_TRUE(c.dt_fraction.has_value());
  EXPECT_DOUBLE_EQ(*c.dt_fraction, 0.5);
  ASSERT_TRUE(c.end_time.has_value());
  EXPECT_DOUBLE_EQ(*c.end_time, 2.0);
  EXPECT_FALSE(c.steps.has_value());
  EXPECT_EQ(c.diagnostics_every, 5);
  EXPECT_EQ(c.snapshot_every, 100);
  EXPECT_EQ(setup::option_name(c.initial_kind), "harmonic_vortex");
  EXPECT_EQ(c.kappa, 3);
}

TEST(CaseFile, MinimalCaseKeepsDefaults) {
  const CaseConfig c = parse(kGrid + kTime);
  EXPECT_EQ(setup::option_name(c.potential_kind), "harmonic");
  EXPECT_DOUBLE_EQ(c.lambda, 1.0);
  EXPECT_DOUBLE_EQ(c.g, 0.0);
  EXPECT_EQ(c.diagnostics_every, 10);
  EXPECT_EQ(c.snapshot_every, 0);
  EXPECT_EQ(setup::option_name(c.initial_kind), "harmonic_vortex");
  EXPECT_EQ(c.kappa, 1);
}

TEST(CaseFile, StructuresGridAndStepsParse) {
  const CaseConfig c = parse(kGrid + kTime);
  ASSERT_TRUE(c.structures.has_value());
  EXPECT_EQ(*c.structures, (std::array<int, 3>{4, 4, 4}));
  EXPECT_FALSE(c.domain.has_value());
  ASSERT_TRUE(c.dt.has_value());
  EXPECT_DOUBLE_EQ(*c.dt, 1e-3);
  ASSERT_TRUE(c.steps.has_value());
  EXPECT_EQ(*c.steps, 10);
}

TEST(CaseFile, DomainGridAcceptsIntegersAsNumbers) {
  const CaseConfig c = parse("lattice = \"cubic\"\nh = 1\ndomain = [8, 8, 16]\n" + kTime);
  ASSERT_TRUE(c.domain.has_value());
  EXPECT_EQ(*c.domain, (std::array<double, 3>{8.0, 8.0, 16.0}));
  EXPECT_DOUBLE_EQ(c.h, 1.0);
}

TEST(CaseFile, RelativeTabulatedPathIsResolvedAgainstBaseDir) {
  const CaseConfig c = parse_case(
      with_physics(kGrid + "[potential]\nkind = \"tabulated\"\nfile = \"data/v.h5\"\n" + kTime),
      kSource, "cases");
  EXPECT_EQ(setup::option_name(c.potential_kind), "tabulated");
  EXPECT_EQ(fs::path(c.potential_file), fs::path("cases") / "data" / "v.h5");
  EXPECT_EQ(c.potential_dataset, "V");
}

TEST(CaseFile, AbsoluteTabulatedPathIsKept) {
  const CaseConfig c = parse_case(
      with_physics(
          kGrid + "[potential]\nkind = \"tabulated\"\nfile = \"/data/v.h5\"\ndataset = \"trap\"\n" +
          kTime),
      kSource, "cases");
  EXPECT_EQ(c.potential_file, "/data/v.h5");
  EXPECT_EQ(c.potential_dataset, "trap");
}

TEST(CaseFile, ReadCaseFileNamesCaseByStemAndResolvesFromItsFolder) {
  const fs::path dir = test_dir();
  std::ofstream(dir / "vortex.toml")
      << with_physics(kGrid + "[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\n" + kTime);
  const CaseConfig c = read_case_file(dir / "vortex.toml");
  EXPECT_EQ(c.name, "vortex");
  EXPECT_EQ(fs::path(c.potential_file), dir / "v.h5");
}

TEST(CaseFile, UnknownLattice) {
  EXPECT_TRUE(fails_with("lattice = \"hcp\"\nh = 0.4\nstructures = [4, 4, 4]\n" + kTime,
                         "unknown lattice 'hcp' (known: cubic, fcc, bcc, a15, c15, z, cubic4)"));
}

TEST(CaseFile, ZeroH) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.0\nstructures = [4, 4, 4]\n" + kTime,
                         "key 'h' must be > 0"));
}

TEST(CaseFile, NegativeH) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = -0.4\nstructures = [4, 4, 4]\n" + kTime,
                         "key 'h' must be > 0"));
}

TEST(CaseFile, NegativeStructures) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\nstructures = [4, -4, 4]\n" + kTime,
                         "key 'structures[1]' must be >= 1"));
}

TEST(CaseFile, FloatStructures) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\nstructures = [4.0, 4, 4]\n" + kTime,
                         "key 'structures[0]' must be an integer, got float"));
}

TEST(CaseFile, StructuresNeedThreeEntries) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4]\n" + kTime,
                         "key 'structures' must be an array of 3 integers, got 2 entries"));
}

TEST(CaseFile, NonPositiveDomain) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\ndomain = [4, 0, 4]\n" + kTime,
                         "key 'domain[1]' must be > 0"));
}

TEST(CaseFile, BothDomainAndStructures) {
  EXPECT_TRUE(fails_with(kGrid + "domain = [4, 4, 4]\n" + kTime,
                         "give exactly one of 'domain' and 'structures'"));
}

TEST(CaseFile, NeitherDomainNorStructures) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\n" + kTime,
                         "give exactly one of 'domain' and 'structures'"));
}

TEST(CaseFile, MissingLattice) {
  EXPECT_TRUE(fails_with("h = 0.4\nstructures = [4, 4, 4]\n" + kTime, "missing key 'lattice'"));
}

TEST(CaseFile, MissingH) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nstructures = [4, 4, 4]\n" + kTime,
                         "give exactly one of 'h' and 'operations_per_time'"));
}

TEST(CaseFile, StationaryVortexCaseWithAutomaticDomainAndOperationCount) {
  const CaseConfig c =
      parse_case("lattice = \"c15\"\noperations_per_time = 6e9\ndomain = \"auto\"\n"
                 "shift = [-0.125, -0.125, -0.125]\ng = 300.0\n[time]\n"
                 "dt_fraction = 0.5\ndt_fraction_of = \"eq11\"\nend_time = 100.0\n"
                 "stop_when_error_exceeds = 0.01\n"
                 "[initial]\nkind = \"stationary_vortex\"\nkappa = 10\n",
                 "cases/x.toml");
  EXPECT_TRUE(c.domain_auto);
  EXPECT_EQ(c.operations_per_time, 6e9);
  EXPECT_EQ(c.shift[2], -0.125);
  EXPECT_EQ(c.stop_when_error_exceeds, 0.01);
  EXPECT_EQ(setup::option_name(c.initial_kind), "stationary_vortex");
}

TEST(CaseFile, OperationCountNeedsEq11AsTheBaseOfTheFraction) {
  EXPECT_TRUE(fails_with("lattice = \"c15\"\noperations_per_time = 6e9\ndomain = \"auto\"\n"
                         "[time]\ndt_fraction = 0.5\nend_time = 1.0\n"
                         "[initial]\nkind = \"stationary_vortex\"\nkappa = 1\n",
                         "set time.dt_fraction_of = 'eq11'"));
}

TEST(CaseFile, SchemeStartAndFractionBaseParse) {
  const std::string grid = "lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4, 4]\n";
  const CaseConfig defaults = parse(grid + kTime);
  EXPECT_EQ(defaults.scheme, "leapfrog");
  EXPECT_EQ(setup::option_name(defaults.start), "discrete");
  EXPECT_EQ(setup::option_name(defaults.dt_fraction_of), "limit");
  const CaseConfig c = parse(
      grid + "[time]\nscheme = \"rk4\"\ndt_fraction = 0.5\ndt_fraction_of = \"eq11\"\nsteps = 3\n");
  EXPECT_EQ(c.scheme, "rk4");
  EXPECT_EQ(setup::option_name(c.dt_fraction_of), "eq11");
  const CaseConfig paper = parse(grid + "[time]\nstart = \"paper\"\ndt = 1e-3\nsteps = 3\n");
  EXPECT_EQ(setup::option_name(paper.start), "paper");
}

TEST(CaseFile, BadSchemeStartAndFractionBase) {
  const std::string grid = "lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4, 4]\n[time]\n";
  EXPECT_TRUE(fails_with(grid + "scheme = \"euler\"\ndt = 1e-3\nsteps = 3\n",
                         "unknown scheme 'euler' (known: leapfrog, rk4, trotter_suzuki, "
                         "trotter_suzuki4, exponential)"));
  EXPECT_TRUE(fails_with(grid + "start = \"cold\"\ndt = 1e-3\nsteps = 3\n",
                         "must be 'discrete' or 'paper'"));
  EXPECT_TRUE(fails_with(grid + "scheme = \"rk4\"\nstart = \"paper\"\ndt = 1e-3\nsteps = 3\n",
                         "'rk4' has one level"));
  EXPECT_TRUE(fails_with(grid + "dt_fraction = 0.5\ndt_fraction_of = \"cfl\"\nsteps = 3\n",
                         "must be 'limit' or 'eq11'"));
  EXPECT_TRUE(fails_with(grid + "dt = 1e-3\ndt_fraction_of = \"eq11\"\nsteps = 3\n",
                         "needs 'time.dt_fraction'"));
}

TEST(CaseFile, AutomaticDomainNeedsTheStationaryVortex) {
  EXPECT_TRUE(
      fails_with("lattice = \"bcc\"\nh = 0.4\ndomain = \"auto\"\n" + kTime, "stationary_vortex"));
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\ndomain = \"big\"\n" + kTime, "\"auto\""));
}

TEST(CaseFile, StopOnErrorNeedsEndTimeAndAFraction) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4, 4]\n[time]\ndt = 1e-3\n"
                         "steps = 10\nstop_when_error_exceeds = 0.01\n",
                         "needs 'time.end_time'"));
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = 0.4\nstructures = [4, 4, 4]\n[time]\ndt = 1e-3\n"
                         "end_time = 1.0\nstop_when_error_exceeds = 1.5\n",
                         "must be in (0, 1)"));
}

TEST(CaseFile, MissingTime) {
  EXPECT_TRUE(fails_with(kGrid, "missing key 'time'"));
}

TEST(CaseFile, UnknownTopLevelKey) {
  EXPECT_TRUE(fails_with(kGrid + "name = \"x\"\n" + kTime, "unknown key 'name'"));
}

TEST(CaseFile, UnknownKeyInTable) {
  EXPECT_TRUE(fails_with(kGrid + kTime + "dtt = 1e-3\n", "unknown key 'time.dtt'"));
}

TEST(CaseFile, WrongType) {
  EXPECT_TRUE(fails_with("lattice = \"bcc\"\nh = \"0.4\"\nstructures = [4, 4, 4]\n" + kTime,
                         "key 'h' must be a number, got string"));
}

TEST(CaseFile, TableGivenAsValue) {
  EXPECT_TRUE(fails_with(kGrid + "time = 5\n", "key 'time' must be a table, got integer"));
}

TEST(CaseFile, InfinityIsRejected) {
  EXPECT_TRUE(fails_with(kGrid + "g = inf\n" + kTime, "key 'g' must be finite"));
}

TEST(CaseFile, NanIsRejected) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndt = nan\nsteps = 10\n", "key 'time.dt' must be finite"));
}

TEST(CaseFile, BothDtAndDtFraction) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndt = 1e-3\ndt_fraction = 0.5\nsteps = 10\n",
                         "give exactly one of 'time.dt' and 'time.dt_fraction'"));
}

TEST(CaseFile, NeitherDtNorDtFraction) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\nsteps = 10\n",
                         "give exactly one of 'time.dt' and 'time.dt_fraction'"));
}

TEST(CaseFile, DtFractionAtLeastOne) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndt_fraction = 1.0\nsteps = 10\n",
                         "key 'time.dt_fraction' must be in (0, 1)"));
}

TEST(CaseFile, BothEndTimeAndSteps) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndt = 1e-3\nend_time = 1.0\nsteps = 10\n",
                         "give exactly one of 'time.end_time' and 'time.steps'"));
}

TEST(CaseFile, NeitherEndTimeNorSteps) {
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndt = 1e-3\n",
                         "give exactly one of 'time.end_time' and 'time.steps'"));
}

TEST(CaseFile, ZeroSteps) {
  EXPECT_TRUE(
      fails_with(kGrid + "[time]\ndt = 1e-3\nsteps = 0\n", "key 'time.steps' must be >= 1"));
}

TEST(CaseFile, DampingIsRk4sAtFixedStepsOnly) {
  EXPECT_EQ(
      parse(kGrid + "[time]\nscheme = \"rk4\"\ndamping = 0.1\ndt = 1e-3\nsteps = 10\n").damping,
      0.1);
  EXPECT_TRUE(fails_with(kGrid + "[time]\ndamping = 0.1\ndt = 1e-3\nsteps = 10\n",
                         "the leapfrog is unstable with a dissipative term"));
  EXPECT_TRUE(
      fails_with(kGrid + "[time]\nscheme = \"exponential\"\ndamping = 0.1\ndt = 1e-3\nsteps = 10\n",
                 "scheme 'exponential' is not damped"));
  EXPECT_TRUE(fails_with(kGrid + "[time]\nscheme = \"rk4\"\ndamping = 0.1\ndt = 1e-3\n"
                                 "end_time = 1.0\nadaptive = true\n",
                         "damped steps are fixed"));
  EXPECT_TRUE(fails_with(
      kGrid + "[time]\nscheme = \"rk4\"\ndamping = -0.1\ndt = 1e-3\nsteps = 10\n", "time.damping"));
  CaseConfig damped =
      parse(kGrid + "[time]\nscheme = \"rk4\"\ndamping = 0.1\ndt = 1e-3\nsteps = 10\n");
  EXPECT_THROW(setup::override_scheme(damped, "leapfrog"), CaseError);
}

TEST(CaseFile, ZeroDiagnosticsEvery) {
  EXPECT_TRUE(fails_with(kGrid + kTime + "diagnostics_every = 0\n",
                         "key 'time.diagnostics_every' must be >= 1"));
}

TEST(CaseFile, NegativeLambda) {
  EXPECT_TRUE(fails_with(kGrid + "[potential]\nlambda = -1.0\n" + kTime,
                         "key 'potential.lambda' must be >= 0"));
}

TEST(CaseFile, BadPotentialKind) {
  EXPECT_TRUE(fails_with(kGrid + "[potential]\nkind = \"box\"\n" + kTime,
                         "key 'potential.kind' must be 'harmonic' or 'tabulated', got 'box'"));
}

TEST(CaseFile, TabulatedWithoutFile) {
  EXPECT_TRUE(fails_with(kGrid + "[potential]\nkind = \"tabulated\"\n" + kTime,
                         "missing key 'potential.file'"));
}

TEST(CaseFile, KeyOfOtherPotentialKind) {
  EXPECT_TRUE(fails_with(
      kGrid + "[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\nlambda = 1.0\n" + kTime,
      "key 'potential.lambda' applies only to kind 'harmonic'"));
}

// In the rotating frame the harmonic trap is ½(1 − Ω²)ρ² radially: |Ω| ≥ 1 does not confine.
TEST(CaseFile, ARotatingFrameThatDoesNotConfineTheHarmonicTrap) {
  for (const char* omega : {"1.0", "-1.0", "1.5"}) {
    EXPECT_TRUE(fails_with(kGrid + "[rotation]\nomega = " + omega + "\n" + kTime,
                           "does not confine the harmonic trap (its radial frequency is 1): "
                           "|omega| must be < 1"))
        << omega;
  }
  EXPECT_DOUBLE_EQ(parse(kGrid + "[rotation]\nomega = -0.999\n" + kTime).omega, -0.999);
  const std::string tabulated = "[potential]\nkind = \"tabulated\"\nfile = \"v.h5\"\n";
  EXPECT_DOUBLE_EQ(parse(kGrid + tabulated + "[rotation]\nomega = 1.5\n" + kTime).omega, 1.5)
      << "a tabulated potential's confinement is not judged";
}

TEST(CaseFile, KappaAboveCap) {
  EXPECT_TRUE(
      fails_with(kGrid + kTime + "[initial]\nkappa = 31\n", "key 'initial.kappa' must be <= 30"));
}

TEST(CaseFile, ControlCharactersInKeysStayOnOneLine) {
  EXPECT_TRUE(fails_with(kGrid + "\"bad\\nkey\" = 1\n" + kTime, "unknown key 'bad\\nkey'"));
}

TEST(CaseFile, TomlSyntaxErrorGivesLineAndColumn) {
  try {
    parse_case("lattice = \"bcc\"\nh = = 0.4\n", kSource);
    FAIL() << "no CaseError";
  } catch (const CaseError& e) {
    const std::string message = e.what();
    EXPECT_TRUE(std::regex_match(message, std::regex(R"(cases/x\.toml:2:[0-9]+: [^\n]+)")))
        << message;
  }
}

TEST(CaseFile, ThePhysicsHasNoDefaults) {
  EXPECT_TRUE(fails_with("g = 0.0\n" + kGrid + kTime + "[initial]\nkind = \"harmonic_vortex\"\n",
                         "missing key 'initial.kappa'"));
  try {
    parse_case(kGrid + kTime + "[initial]\nkappa = 1\n", kSource);
    FAIL() << "g was not asked for";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("missing key 'g'"), std::string::npos) << e.what();
  }
}

TEST(CaseFile, MissingFile) {
  const fs::path missing = test_dir() / "absent.toml";
  try {
    read_case_file(missing);
    FAIL() << "no CaseError";
  } catch (const CaseError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot read case file '" + missing.string() + "': "), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// ---------------------------------------------------------------------------------------------
// --set: overrides applied to the text, then checked like any case file.

CaseConfig with_overrides(const std::string& toml, std::vector<std::string> overrides) {
  return parse_case(setup::apply_overrides(toml, overrides, kSource), kSource);
}

TEST(CaseOverrides, TheEffectiveCaseWritesEachNumberShortestAndReadsItBackExactly) {
  const std::string base = kGrid + "g = 1.0\n" + kTime + "[initial]\nkappa = 1\n";
  const std::string effective = setup::apply_overrides(
      base, std::vector<std::string>{"h=0.35", "shift=[0.1, 0.2, 1e-17]", "g=0.1"}, kSource);
  EXPECT_NE(effective.find("h = 0.35\n"), std::string::npos) << effective;
  EXPECT_NE(effective.find("shift = [ 0.1, 0.2, 1e-17 ]"), std::string::npos) << effective;
  EXPECT_EQ(effective.find("9999"), std::string::npos) << effective;
  const CaseConfig c = parse_case(effective, kSource);
  EXPECT_EQ(c.h, 0.35);
  EXPECT_EQ(c.shift, (std::array<double, 3>{0.1, 0.2, 1e-17}));
  EXPECT_EQ(c.g, 0.1);
}

TEST(CaseOverrides, SetNestedKeysMakeTablesAndRemoveKeys) {
  const std::string base = kGrid + "g = 1.0\n" + kTime + "[initial]\nkappa = 1\n";
  const CaseConfig c = with_overrides(base, {"time.steps=", "time.end_time=2.5", "lattice=fcc",
                                             "g=-3", "cuda.graphs=false", "cuda.block_shape=2x256",
                                             "shift=[0.5, 0, -0.25]", "time.scheme=\"rk4\""});
  EXPECT_FALSE(c.steps);
  EXPECT_EQ(c.end_time, 2.5);
  EXPECT_EQ(c.lattice, "fcc");
  EXPECT_EQ(c.g, -3.0);
  EXPECT_EQ(c.backend_tuning.at("cuda.graphs"), "false");
  EXPECT_EQ(c.backend_tuning.at("cuda.block_shape"), "2x256");
  EXPECT_EQ(c.shift, (std::array<double, 3>{0.5, 0.0, -0.25}));
  EXPECT_EQ(c.scheme, "rk4");
}

TEST(CaseOverrides, BadOverridesAreOneLineNamingThem) {
  const std::string base = kGrid + "g = 1.0\n" + kTime + "[initial]\nkappa = 1\n";
  const auto message = [&](std::vector<std::string> overrides) {
    try {
      with_overrides(base, std::move(overrides));
    } catch (const CaseError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      return what;
    }
    ADD_FAILURE() << "accepted";
    return std::string();
  };
  EXPECT_NE(message({"time.steps"}).find("--set time.steps: expected KEY=VALUE"),
            std::string::npos);
  EXPECT_NE(message({"time..steps=3"}).find("is not a dotted key"), std::string::npos);
  EXPECT_NE(message({"g.x=3"}).find("'g' is not a table"), std::string::npos);
  EXPECT_NE(message({"time.steps=0"}).find("key 'time.steps' must be >= 1"), std::string::npos);
  EXPECT_NE(message({"time.stpes=3"}).find("unknown key 'time.stpes'"), std::string::npos);
  EXPECT_NE(message({"time.end_time=1"}).find("exactly one of"), std::string::npos);
  EXPECT_NE(message({"cuda.block_shape=3x3"}).find("'sweep', '1x256', '1x512' or '2x256'"),
            std::string::npos);
  EXPECT_NE(message({"cuda.graphs=yes"}).find("must be a boolean"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The schema (setup/case_schema.hpp): its defaults are CaseConfig's, it knows every key the shipped
// cases use, and the parser reads every key it lists and holds each to the schema's range.

using setup::CaseKey;
using setup::KeyRange;
using setup::KeyType;

const std::string kMinimal = with_physics(kGrid + kTime);

/// kMinimal with `overrides` applied; throws CaseError.
CaseConfig minimal_with(std::vector<std::string> overrides) {
  return with_overrides(kMinimal, std::move(overrides));
}

/// The message of the CaseError that kMinimal with `overrides` gives, or "" when it is accepted.
std::string refusal(std::vector<std::string> overrides) {
  try {
    minimal_with(std::move(overrides));
  } catch (const CaseError& e) {
    return e.what();
  }
  return {};
}

/// Whether `key` is in an array of tables ([[initial.vortices]]).
bool in_array_table(const CaseKey& key) {
  const auto tables = setup::case_tables();
  return std::ranges::any_of(
      tables, [&](const setup::CaseTable& t) { return t.array && t.name == key.table(); });
}

/// How the parser names `key` in its messages: an array of tables' key by its first entry.
std::string entry_name(const CaseKey& key) {
  return in_array_table(key) ? std::string(key.table()) + "[0]." + std::string(key.name())
                             : std::string(key.key);
}

/// The override that sets `key` to the TOML `value` ("": removes it). An array of tables' key is
/// set in a one-entry array whose other required keys have valid values (a dotted override cannot
/// reach into an array).
std::string assignment(const CaseKey& key, const std::string& value) {
  if (!in_array_table(key)) {
    return std::string(key.key) + "=" + value;
  }
  std::string entry;
  for (const CaseKey& other : setup::case_keys()) {
    if (other.table() != key.table()) {
      continue;
    }
    const bool itself = other.key == key.key;
    if (itself ? value.empty() : other.default_value != "required") {
      continue;
    }
    const std::string given = itself ? value : other.type == KeyType::integer ? "1" : "0.5";
    entry += (entry.empty() ? "" : ", ") + std::string(other.name()) + " = " + given;
  }
  return std::string(key.table()) + "=[{" + entry + "}]";
}

/// Overrides that make kMinimal a case where `key` applies (the rules between keys, which the
/// parser keeps), ending with the key removed.
std::vector<std::string> context_of(const CaseKey& key) {
  const std::string_view k = key.key;
  std::vector<std::string> context;
  if (k == "potential.file" || k == "potential.dataset") {
    context = {"potential.kind=tabulated", "potential.file=v.h5"};
  } else if (k == "rotation.omega") { // its generic value, 1.5, does not confine a harmonic trap
    context = {"potential.kind=tabulated", "potential.file=v.h5"};
  } else if (k == "time.adaptive" || k == "time.end_time" || k == "time.stop_when_error_exceeds") {
    context = {"time.scheme=rk4", "time.steps=", "time.end_time=1.0"};
  } else if (k == "time.beyond_limit") {
    context = {"time.scheme=trotter_suzuki"};
  } else if (k == "time.damping") {
    context = {"time.scheme=rk4"};
  } else if (k == "time.theta" || k == "time.density_floor" || k == "time.tolerance") {
    context = {"time.scheme=rk4", "time.steps=", "time.end_time=1.0", "time.adaptive=true"};
  } else if (k == "initial.file" || k == "initial.dataset") {
    context = {"initial.kind=file", "initial.kappa=", "initial.file=w.h5"};
  } else if (key.table() == "initial.ring") { // its required keys but this one
    context = {"initial.ring.radius=1.0", "initial.ring.charge=1"};
  } else if (k == "initial.stationary_residual" || k == "initial.stationary_krylov") {
    context = {"initial.lattice_stationary=true"};
  } else if (key.table() == "initial.ground_state") {
    context = {"initial.kind=ground_state"};
  } else if (k == "time.dt_fraction" || k == "time.dt_fraction_of") {
    context = {"time.dt=", "time.dt_fraction=0.5"};
  } else if (k == "domain") {
    context = {"structures="};
  } else if (k == "operations_per_time") {
    context = {"h=",
               "structures=",
               "domain=[8, 8, 8]",
               "time.dt=",
               "time.dt_fraction=0.5",
               "time.dt_fraction_of=eq11",
               "initial.kind=stationary_vortex"};
  }
  context.push_back(assignment(key, ""));
  return context;
}

bool is_integer(const CaseKey& key) {
  return key.type == KeyType::integer || key.type == KeyType::integers3 ||
         key.type == KeyType::integers;
}

bool is_array(const CaseKey& key) {
  return key.type == KeyType::numbers3 || key.type == KeyType::integers3 ||
         key.type == KeyType::numbers3_or_auto || key.type == KeyType::integers;
}

std::string entry_text(const CaseKey& key, double value) {
  return is_integer(key) ? std::to_string(static_cast<std::int64_t>(value))
                         : setup::number_text(value);
}

/// A value of `key` as TOML; an array's first entry is `first`, the other two `rest`.
std::string toml_value(const CaseKey& key, double first, double rest) {
  if (!is_array(key)) {
    return entry_text(key, first);
  }
  if (key.type == KeyType::integers) { // a list of distinct entries: one is enough
    return "[" + entry_text(key, first) + "]";
  }
  return "[" + entry_text(key, first) + ", " + entry_text(key, rest) + ", " +
         entry_text(key, rest) + "]";
}

/// The nearest value past `bound` towards `direction` (±1): the next integer or double.
double past(const CaseKey& key, double bound, double direction) {
  return is_integer(key) ? bound + direction : std::nextafter(bound, direction * INFINITY);
}

/// The values of `key` just inside each finite end of its interval.
std::vector<double> inside_values(const CaseKey& key) {
  const KeyRange& r = key.range;
  std::vector<double> values;
  if (std::isfinite(r.lo)) {
    values.push_back(r.lo_open ? past(key, r.lo, +1) : r.lo);
  }
  if (std::isfinite(r.hi)) {
    values.push_back(r.hi_open ? past(key, r.hi, -1) : r.hi);
  }
  return values;
}

/// The values of `key` just outside each finite end of its interval.
std::vector<double> outside_values(const CaseKey& key) {
  const KeyRange& r = key.range;
  std::vector<double> values;
  if (std::isfinite(r.lo)) {
    values.push_back(r.lo_open ? r.lo : past(key, r.lo, -1));
  }
  if (std::isfinite(r.hi)) {
    values.push_back(r.hi_open ? r.hi : past(key, r.hi, +1));
  }
  return values;
}

/// Values that `key`'s type and range admit, as TOML.
std::vector<std::string> valid_values(const CaseKey& key) {
  const KeyRange& r = key.range;
  std::vector<std::string> values;
  if (key.type == KeyType::boolean) {
    values = {"true", "false"};
  } else if (r.kind == KeyRange::Kind::choices) {
    for (const std::string_view choice : r.choices) {
      values.push_back("\"" + std::string(choice) + "\"");
    }
  } else if (key.type == KeyType::string) {
    values.push_back("\"w.h5\"");
  } else if (r.kind == KeyRange::Kind::interval) {
    // Both ends and a value between them: a default at one end is then not the only value.
    std::vector<double> inside = inside_values(key);
    const double middle = inside.size() == 2 ? (inside[0] + inside[1]) / 2 : inside[0] + 1;
    inside.push_back(is_integer(key) ? std::floor(middle) : middle);
    for (const double value : inside) {
      values.push_back(toml_value(key, value, value));
    }
  } else {
    values.push_back(toml_value(key, 1.5, 1.5));
  }
  return values;
}

TEST(CaseSchema, AMinimalCaseIsAValueInitialisedConfigWithItsKeys) {
  CaseConfig expected;
  expected.name = "x";
  expected.lattice = "bcc";
  expected.h = 0.4;
  expected.structures = std::array<int, 3>{4, 4, 4};
  expected.dt = 1e-3;
  expected.steps = 10;
  EXPECT_TRUE(parse(kGrid + kTime) == expected);
}

// A key left out and the key given as the schema's default read as the same case; a required key
// left out is refused by name.
TEST(CaseSchema, DefaultsAreTheParsersAndRequiredKeysAreAskedFor) {
  for (const CaseKey& key : setup::case_keys()) {
    const std::vector<std::string> context = context_of(key);
    if (key.default_value == "required") {
      const std::string message = refusal(context);
      EXPECT_NE(message.find("'" + entry_name(key) + "'"), std::string::npos)
          << key.key << ": " << message;
      continue;
    }
    const CaseConfig absent = minimal_with(context); // an optional key may be left out
    if (key.default_value == "none") {
      continue;
    }
    std::vector<std::string> given = context;
    given.push_back(assignment(key, std::string(key.default_value)));
    EXPECT_TRUE(minimal_with(given) == absent) << key.key << " = " << key.default_value;
  }
}

TEST(CaseSchema, KnowsEveryKeyOfTheShippedCases) {
  int files = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(DECGPE_SOURCE_DIR) / "cases")) {
    if (entry.path().extension() != ".toml") {
      continue;
    }
    ++files;
    const toml::table root = toml::parse_file(entry.path().string());
    for (const auto& [key, node] : root) {
      std::vector<std::string> dotted;
      if (const toml::table* table = node.as_table()) {
        for (const auto& [inner, value] : *table) {
          dotted.push_back(std::string(key.str()) + "." + std::string(inner.str()));
        }
      } else {
        dotted.push_back(std::string(key.str()));
      }
      for (const std::string& name : dotted) {
        EXPECT_NO_THROW(setup::case_key(name)) << entry.path() << ": " << name;
      }
    }
    EXPECT_NO_THROW(read_case_file(entry.path())) << entry.path();
  }
  EXPECT_GE(files, 12);
}

// Accepted, and read: one of its values changes the case.
TEST(CaseSchema, TheParserAcceptsAndReadsEveryKey) {
  for (const CaseKey& key : setup::case_keys()) {
    const std::vector<std::string> context = context_of(key);
    // A required key is read: the test above shows it refused when left out (and its case is).
    const bool required = key.default_value == "required";
    bool changes = false;
    for (const std::string& value : valid_values(key)) {
      std::vector<std::string> given = context;
      given.push_back(assignment(key, value));
      if (key.key == "potential.kind" && value == "\"tabulated\"") {
        given.push_back("potential.file=v.h5"); // the rule in code: tabulated needs a file
      }
      if (key.key == "initial.kind" && value == "\"file\"") { // a file, and no κ
        given.insert(given.end(), {"initial.kappa=", "initial.file=w.h5"});
      }
      ASSERT_EQ(refusal(given), "") << key.key << " = " << value;
      changes = changes || (!required && !(minimal_with(given) == minimal_with(context)));
    }
    EXPECT_TRUE(required || changes) << key.key << ": no value changes the case";
  }
}

// Just outside each finite end of a key's interval: refused in one line naming the key (an array
// by its entry); just inside: accepted.
TEST(CaseSchema, EveryRangeIsCheckedAtItsEnds) {
  int refused = 0;
  for (const CaseKey& key : setup::case_keys()) {
    if (key.range.kind != KeyRange::Kind::interval) {
      continue;
    }
    const double inside = inside_values(key).front();
    const std::string shown = entry_name(key) + (is_array(key) ? "[0]" : "");
    for (const double value : outside_values(key)) {
      std::vector<std::string> given = context_of(key);
      given.push_back(assignment(key, toml_value(key, value, inside)));
      const std::string message = refusal(given);
      EXPECT_TRUE(message.starts_with(std::string(kSource) + ": key '" + shown + "' must be "))
          << given.back() << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      ++refused;
    }
    for (const double value : inside_values(key)) {
      std::vector<std::string> given = context_of(key);
      given.push_back(assignment(key, toml_value(key, value, inside)));
      EXPECT_EQ(refusal(given), "") << given.back();
    }
  }
  EXPECT_GE(refused, 20);
}

} // namespace
} // namespace decgpe
