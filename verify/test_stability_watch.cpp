// The explicit schemes' limit with g ≠ 0 (solvers/stability.hpp: from the linearisation J, not from
// M(ψ) alone) and the stability watch (solvers/stability_watch.hpp), on the small version of the
// paper's scaling case: BCC, 8 × 8 × 12 structures at h = 0.23, g = 5000, where the interaction
// dominates the spectrum.

#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "setup/ground_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stability_watch.hpp"
#include "verify/run_fixture.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

std::string scaling_case(const std::string& initial) {
  return "lattice = \"bcc\"\nh = 0.23\nstructures = [8, 8, 12]\ng = 5000.0\n"
         "[potential]\nkind = \"harmonic\"\nlambda = 0.1\n"
         "[time]\ndt_fraction = 0.5\nsteps = 1\n[initial]\n" +
         initial;
}

/// The case set up (and relaxed, for a ground state) on the OpenMP backend.
setup::RunSetup set_up(const std::string& toml) {
  setup::RunSetup run = setup::prepare_run(setup::parse_case(toml, "scaling.toml"));
  if (run.config.initial_kind == setup::InitialKind::ground_state) {
    const std::unique_ptr<Backend> backend = make_backend("openmp", run.problem);
    setup::settle_on_ground_state(run, *backend);
  }
  return run;
}

/// The leapfrog from the run's state at `dt` for `steps` steps (watched when asked); "guard",
/// "watch" or "" for how it ended.
std::string leapfrog(const setup::RunSetup& run, double dt, long steps, bool watched,
                     std::string* line = nullptr) {
  const std::unique_ptr<Backend> backend = make_backend("openmp", run.problem);
  const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *backend, dt);
  scheme->start({run.current, run.current, {}});
  StabilityWatch watch(run.problem, nullptr, "leapfrog", 1.0, run.spectrum);
  RunObserver quiet;
  try {
    integrate(*scheme, Schedule{steps, 50, 0}, quiet, {}, watched ? &watch : nullptr);
  } catch (const InstabilityError& e) {
    if (line != nullptr) {
      *line = e.what();
    }
    return std::string(e.what()).find("limit fell") != std::string::npos ? "watch" : "guard";
  }
  return "";
}

TEST(LinearisedLimit, IsSharpWhereTheInteractionDominatesAndMAloneIsNot) {
  // The ground state in the small box: its density does not move, so neither does its limit.
  const setup::RunSetup run = set_up(scaling_case("kind = \"ground_state\"\nkappa = 0\n"
                                                  "[initial.ground_state]\nresidual = 1e-8\n"));
  const double limit = 1.0 / run.spectrum.radius, frozen = 1.0 / run.spectrum.frozen_radius;
  EXPECT_EQ(run.spectrum.method, "linearised, by lanczos");
  RecordProperty("limit_over_frozen", std::to_string(limit / frozen));
  EXPECT_LT(limit, 0.8 * frozen) << "the interaction should dominate this case's spectrum";
  EXPECT_EQ(leapfrog(run, 0.97 * limit, 6000, false), "") << "unstable below the limit";
  EXPECT_EQ(leapfrog(run, 1.05 * limit, 6000, false), "guard") << "stable above it: too low";
  EXPECT_EQ(leapfrog(run, 0.9 * frozen, 6000, false), "guard")
      << "0.9 of the limit from M(psi) alone should be unstable here";
}

TEST(StabilityWatch, StopsARunWhoseDensityGrowsBeforeItBlowsUp) {
  // The harmonic vortex is far from equilibrium in the small box: max|ψ|² grows 7–15% within the
  // first few hundred steps, and its limit falls by as much. Unwatched, 0.97 of the limit at t = 0
  // blows up; watched, the run stops at a diagnostics step with every value still finite.
  const setup::RunSetup run = set_up(scaling_case("kind = \"harmonic_vortex\"\nkappa = 20\n"));
  const double dt = 0.97 / run.spectrum.radius;
  EXPECT_EQ(leapfrog(run, dt, 4000, false), "guard") << "the unwatched run should blow up";
  std::string line;
  EXPECT_EQ(leapfrog(run, dt, 4000, true, &line), "watch");
  EXPECT_NE(line.find("rerun with dt below"), std::string::npos) << line;
  RecordProperty("watch_line", line);
  // The run, 0.8 of the limit from M(ψ⁰) alone (the limit before the linearisation), is
  // above the linearised limit: refused at set-up, before a step.
  const std::string at_frozen =
      verify::replace(scaling_case("kind = \"harmonic_vortex\"\nkappa = 20\n"), "dt_fraction = 0.5",
                      "dt = " + std::to_string(0.8 / run.spectrum.frozen_radius));
  try {
    set_up(at_frozen);
    ADD_FAILURE() << "0.8 of M's limit was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stability limit"), std::string::npos) << e.what();
  }
  // Far enough inside the limit, the watch lets the run finish.
  EXPECT_EQ(leapfrog(run, 0.7 / run.spectrum.radius, 4000, true), "");
}

class WatchedRun : public verify::RunFixture {};

TEST_F(WatchedRun, StopsWithOneLineNamingTheLimitsAndTheFix) {
  const std::string toml =
      verify::replace(verify::replace(scaling_case("kind = \"harmonic_vortex\"\nkappa = 20\n"),
                                      "dt_fraction = 0.5", "dt_fraction = 0.97"),
                      "steps = 1", "steps = 4000\ndiagnostics_every = 50");
  const verify::CommandResult r = run(toml, "--backend openmp");
  expect_one_line_error(r, "the leapfrog stability limit fell to");
  EXPECT_EQ(r.output.find("non-finite"), std::string::npos) << r.output;
  if (fs::exists(out().parent_path())) { // nothing half-written
    for (const fs::directory_entry& e : fs::directory_iterator(out().parent_path())) {
      EXPECT_EQ(e.path().extension(), ".h5") << "left behind: " << e.path();
    }
  }
}

} // namespace
} // namespace decgpe
