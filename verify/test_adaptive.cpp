// Adaptive time steps: the phase criterion of the split schemes and RK4's step doubling follow what
// they are defined by, take their decisions from a reduction that leaves ψ on the backend, agree
// across backends, resume bitwise, and are refused where they cannot work (the leapfrog).

#include "hdf5/hdf5_file.hpp"
#include "solvers/integrator.hpp"
#include "verify/adaptive_runs.hpp"
#include "verify/counting_backend.hpp"
#include "verify/lattice_params.hpp"
#include "verify/restart_chain.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>

namespace decgpe {
namespace {

using verify::LiveScheme;
namespace fs = std::filesystem;

/// A scheme on the quench problem with adaptive steps.
struct AdaptiveRun : LiveScheme {
  AdaptiveRun(std::string_view backend_name, std::string_view scheme_name, const Problem& p,
              const std::vector<Complex>& psi0, const AdaptiveSettings& s)
      : LiveScheme(backend_name, scheme_name, p, s.dt_max, psi0) {
    scheme->make_adaptive(find_scheme(scheme_name).adaptive, s);
  }
};

TEST(PhaseCriterion, EachStepIsTheLongestOfTheLadderWithinThetaAsTheCondensateIsCompressed) {
  const Problem p = verify::quench_problem("bcc", 4000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  const AdaptiveSettings s = verify::quench_settings(psi0, 1.2);
  AdaptiveRun run("reference", "exponential", p, psi0, s);
  std::vector<double> steps, densities;
  while (!run.scheme->finished()) {
    const std::vector<Complex> psi = run.level(0, p);
    const double rate = verify::host_phase_rate(p, psi, s.density_floor);
    const double remaining = s.end_time - run.scheme->clock().time;
    ASSERT_EQ(run.scheme->advance(1), 1);
    const double dt = run.scheme->clock().last_dt;
    ASSERT_EQ(dt, std::min(phase_step(rate, s), remaining)) << "step " << steps.size();
    if (dt == remaining) {
      break;
    }
    EXPECT_LE(dt * rate, s.theta);
    if (dt < s.dt_max) {
      EXPECT_GT(dt * rate, s.theta * std::exp2(-1.0 / 8.0)) << "not the longest rung";
    }
    steps.push_back(dt);
    densities.push_back(verify::max_density(psi));
  }
  EXPECT_EQ(run.scheme->clock().time, s.end_time) << "the last step lands on end_time";
  // The tightened trap compresses the condensate several times over, and the step moves with
  // V + g|psi|^2 over the cloud (right after the quench the new trap's V at the cloud's edge is
  // the largest term; at the strongest compression g|psi|^2 at the centre catches up).
  const double growth = *std::ranges::max_element(densities) / densities.front();
  const auto [shortest, longest] = std::ranges::minmax(steps);
  RecordProperty("steps", static_cast<int>(steps.size()));
  RecordProperty("peak_density_growth", std::to_string(growth));
  RecordProperty("longest_over_shortest_step", std::to_string(longest / shortest));
  EXPECT_GT(growth, 3.0);
  EXPECT_GT(longest / shortest, 1.3);
}

class AdaptiveScheme : public ::testing::TestWithParam<std::string_view> {};

TEST_P(AdaptiveScheme, OpenmpTakesBitwiseTheReferencesSteps) {
  const Problem p = verify::quench_problem("bcc", 3000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  AdaptiveSettings s = verify::quench_settings(psi0, 0.1, 1e-7);
  s.dt_max = std::min(s.dt_max, 0.9 * verify::scheme_limit("rk4", p, psi0));
  AdaptiveRun reference("reference", GetParam(), p, psi0, s),
      openmp("openmp", GetParam(), p, psi0, s);
  const long steps = reference.scheme->advance(100000);
  EXPECT_EQ(openmp.scheme->advance(100000), steps);
  EXPECT_EQ(reference.scheme->clock().time, s.end_time);
  EXPECT_EQ(openmp.scheme->clock().time, s.end_time);
  EXPECT_EQ(openmp.scheme->clock().next_dt, reference.scheme->clock().next_dt);
  EXPECT_TRUE(verify::bitwise_equal(openmp.level(0, p), reference.level(0, p)));
}

TEST_P(AdaptiveScheme, NothingButTheReductionsTwoNumbersCrossesToTheHost) {
  const Problem p = verify::quench_problem("cubic", 3000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  AdaptiveSettings s = verify::quench_settings(psi0, 0.2, 1e-7);
  s.dt_max = std::min(s.dt_max, 0.9 * verify::scheme_limit("rk4", p, psi0));
  auto counting = std::make_unique<verify::CountingBackend>(make_backend("openmp", p));
  verify::CountingBackend& hook = *counting;
  const std::unique_ptr<Scheme> scheme = make_scheme(GetParam(), hook, s.dt_max);
  scheme->start({psi0, psi0, {}});
  scheme->make_adaptive(find_scheme(GetParam()).adaptive, s);
  const long steps = scheme->advance(200);
  EXPECT_GT(steps, 10);
  EXPECT_EQ(hook.downloads, 0) << "an adaptive step copied a vector to the host";
  EXPECT_GE(hook.step_reductions, steps) << "one reduction per decision at least";
}

INSTANTIATE_TEST_SUITE_P(EveryAdaptiveScheme, AdaptiveScheme,
                         ::testing::Values("trotter_suzuki", "trotter_suzuki4", "exponential",
                                           "rk4"),
                         verify::lattice_name);

TEST(StepDoubling, GlobalErrorFallsWithTheToleranceAndTheStepsStayBelowTheLimit) {
  const Problem p = verify::quench_problem("cubic", 3000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  const double limit = verify::scheme_limit("rk4", p, psi0), end_time = 0.5;
  // The exact flow, near enough: fixed RK4 at a fiftieth of the limit.
  const long fine_steps = static_cast<long>(std::ceil(end_time / (0.02 * limit)));
  LiveScheme fine("openmp", "rk4", p, end_time / static_cast<double>(fine_steps), psi0);
  fine.scheme->advance(fine_steps);
  const std::vector<Complex> exact = fine.level(0, p);
  std::vector<double> errors;
  for (double tolerance : {1e-9, 1e-11}) {
    AdaptiveSettings s = verify::quench_settings(psi0, end_time, tolerance);
    s.dt_max = 0.9 * limit;
    AdaptiveRun run("openmp", "rk4", p, psi0, s);
    double shortest = s.dt_max, longest = 0.0;
    while (!run.scheme->finished()) {
      run.scheme->advance(1);
      const auto report = run.scheme->step_report();
      ASSERT_EQ(report[0].first, "error_estimate");
      EXPECT_LE(report[0].second, tolerance) << "an accepted step above the tolerance";
      if (!run.scheme->finished()) {
        shortest = std::min(shortest, run.scheme->clock().last_dt);
      }
      longest = std::max(longest, run.scheme->clock().last_dt);
    }
    EXPECT_LE(longest, s.dt_max);
    EXPECT_LT(shortest, 0.5 * s.dt_max) << "the tolerance, not the limit, sets the step";
    errors.push_back(verify::distance(p.grid, run.level(0, p), exact));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "tolerance %.0e: error %.3e", tolerance, errors.back());
    RecordProperty("error_" + std::to_string(errors.size()), buffer);
  }
  // Local error control per step: the global error falls about as tolerance^{4/5}.
  const double order = std::log10(errors[0] / errors[1]) / 2.0;
  RecordProperty("tolerance_exponent", std::to_string(order));
  EXPECT_GT(order, 0.6);
  EXPECT_LT(order, 1.1);
}

TEST(AdaptiveSteps, ABlownUpStateStopsTheRunInsteadOfHidingInTheMax) {
  const Problem p = verify::quench_problem("cubic", 2000.0);
  std::vector<Complex> psi = verify::quench_start(p);
  psi[psi.size() / 2] = {std::nan(""), 0.0};
  for (const char* name : {"reference", "openmp"}) {
    const std::unique_ptr<Backend> b = make_backend(name, p);
    const VectorId x = b->create_vector(), y = b->create_vector();
    b->upload(x, psi);
    b->upload(y, verify::quench_start(p));
    const StepMaxima m = b->step_maxima(x, y, 0.0);
    EXPECT_EQ(m.phase_rate, std::numeric_limits<double>::infinity()) << name;
    EXPECT_EQ(m.difference, std::numeric_limits<double>::infinity()) << name;
  }
  const AdaptiveSettings s = verify::quench_settings(psi, 1.0);
  EXPECT_THROW(phase_step(std::numeric_limits<double>::infinity(), s), InstabilityError);
  EXPECT_EQ(phase_step(0.0, s), s.dt_max);
  EXPECT_EQ(doubling_step(1e-3, std::numeric_limits<double>::infinity(), s), 2e-4);
}

TEST(AdaptiveSteps, TheLeapfrogRefusesThem) {
  const Problem p = verify::quench_problem("cubic", 2000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  LiveScheme run("reference", "leapfrog", p, 1e-3, psi0);
  try {
    run.scheme->make_adaptive(StepControl::phase, verify::quench_settings(psi0, 1.0));
    FAIL() << "the leapfrog took adaptive steps";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fixed-step"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Through the command line: the case keys, Δt(t) in the results, restart.

const std::string kAdaptiveCase = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 300.0
[time]
scheme = "exponential"
adaptive = true
theta = 0.02
dt = 0.01
end_time = 0.3
diagnostics_every = 10
snapshot_every = 50
[initial]
kappa = 1
)";

class AdaptiveRunCommand : public verify::RestartFixture {};

TEST_F(AdaptiveRunCommand, ResultsHoldTheStepsAndThePolynomialOfEachSample) {
  ASSERT_EQ(run(kAdaptiveCase).exit_code, 0);
  const io::InputFile f(out());
  EXPECT_EQ(f.text_attribute("step_control"), "phase");
  EXPECT_EQ(f.number_attribute("adaptive_theta"), 0.02);
  const std::vector<double> t = f.doubles("/diagnostics/t"), dt = f.doubles("/diagnostics/dt");
  const std::vector<double> degree = f.doubles("/diagnostics/chebyshev_degree");
  const std::vector<double> bound = f.doubles("/diagnostics/chebyshev_error_bound");
  ASSERT_EQ(dt.size(), t.size());
  ASSERT_EQ(degree.size(), t.size());
  EXPECT_EQ(t.back(), 0.3);
  EXPECT_EQ(dt.front(), 0.01) << "at step 0: the longest step";
  EXPECT_LT(*std::ranges::max_element(std::span(dt).subspan(1)), 0.01)
      << "the criterion, not dt, sets the step";
  for (std::size_t k = 0; k < bound.size(); ++k) {
    EXPECT_LE(bound[k], 1e-12);
    EXPECT_GE(degree[k], 1.0);
  }
}

TEST_F(AdaptiveRunCommand, ResumedTwiceTheRunIsBitwiseTheUninterruptedOne) {
  for (const char* scheme : {"exponential", "rk4"}) {
    const std::string flags = std::string("--backend openmp --scheme ") + scheme;
    ASSERT_EQ(run(kAdaptiveCase, flags).exit_code, 0) << scheme;
    const fs::path whole = dir_ / "whole.h5";
    fs::rename(out(), whole);
    run_in_parts(kAdaptiveCase, flags, {"", "", ""});
    expect_same_run(whole, out());
    if (std::string(scheme) == "rk4") {
      const io::InputFile a(whole), b(out());
      EXPECT_EQ(a.doubles("/diagnostics/error_estimate"), b.doubles("/diagnostics/error_estimate"));
      EXPECT_EQ(a.doubles("/diagnostics/rejected_steps"), b.doubles("/diagnostics/rejected_steps"));
    }
    fs::remove(out());
  }
}

TEST_F(AdaptiveRunCommand, CasesThatCannotBeAdaptiveAreOneLine) {
  using verify::replace;
  expect_rejected(run(replace(kAdaptiveCase, "\"exponential\"", "\"leapfrog\"")), "fixed-step");
  expect_rejected(run(replace(kAdaptiveCase, "end_time = 0.3", "steps = 30")),
                  "needs 'time.end_time'");
  expect_rejected(run(replace(kAdaptiveCase, "adaptive = true", "adaptive = false")),
                  "key 'time.theta' needs 'time.adaptive = true'");
  expect_rejected(run(replace(kAdaptiveCase, "theta = 0.02", "theta = -1.0")),
                  "key 'time.theta' must be > 0");
  expect_rejected(run(replace(kAdaptiveCase, "adaptive = true", "adaptive = 1")),
                  "must be a boolean");
  expect_rejected(run(kAdaptiveCase, "--scheme leapfrog"), "fixed-step");
}

} // namespace
} // namespace decgpe
