#pragma once
// What a run says as it starts and ends: its grid, step and backend; the lattice's stationary
// state; the summary with the self-check against the exact evolution where there is one.

#include "io/results.hpp"
#include "setup/case_setup.hpp"
#include "setup/lattice_state.hpp"
#include "solvers/backend.hpp"
#include "solvers/integrator.hpp"

#include <string>

namespace decgpe::runner {

void announce(const setup::RunSetup& run, const Backend& backend, long from_step);
void announce_lattice_state(const setup::LatticeStateInfo& l);
/// One line: μ_h, E, residual, iterations and time of initial.kind = "ground_state".
void announce_ground_state(const setup::GroundStateInfo& s);

/// `steps_run` of the `steps_done` were taken by this process, in `seconds`. Ends with the check
/// against the exact evolution where there is one; throws CheckFailed when it fails.
void summarise(const setup::RunSetup& run, const io::Series& s, const Outcome& outcome,
               long steps_run, double seconds, int fold, const std::string& out);

} // namespace decgpe::runner
