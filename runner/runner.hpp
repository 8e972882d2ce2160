#pragma once
// The runner: owns a run from the claim on its outputs through set-up, resources, backend and
// scheme, start or resume, integration and recording, to its results and the self-check. The
// command line (cli/) parses options into a RunRequest and turns the outcome into an exit code.

#include "runner/run_request.hpp"

#include <string>
#include <utility>
#include <vector>

namespace decgpe::runner {

/// What a run would be, found without running it or writing anything: each fact a name and its
/// value (the resolved case, grid, backend, memory, step and its limit, steps, and the wall time a
/// short timed trial of `trial_steps` steps on this machine predicts).
struct RunPlan {
  std::vector<std::pair<std::string, std::string>> facts;
};
RunPlan plan_run(const RunRequest& request, long trial_steps = 20);

/// Runs `request` to its end; throws Stopped for a clean stop, CheckFailed for a failed self-check
/// (both after writing their results), and std::exception with one line for anything else.
void run(const RunRequest& request);

} // namespace decgpe::runner
