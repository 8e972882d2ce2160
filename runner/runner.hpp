#pragma once
// The runner: owns a run from the claim on its outputs through set-up, resources, backend and
// scheme, start or resume, integration and recording, to its results and the self-check. The
// command line (cli/) parses options into a RunRequest and turns the outcome into an exit code.

#include "runner/run_request.hpp"

namespace decgpe::runner {

/// Runs `request` to its end; throws Stopped for a clean stop, CheckFailed for a failed self-check
/// (both after writing their results), and std::exception with one line for anything else.
void run(const RunRequest& request);

} // namespace decgpe::runner
