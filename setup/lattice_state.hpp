#pragma once
// `initial.lattice_stationary`: the run starts from the grid's own stationary state near the
// sampled continuum state (solvers/stationary_state.hpp), solved on the run's backend or read from
// the cache, and only then seeded.

#include "setup/case_setup.hpp"
#include "solvers/backend.hpp"
#include "solvers/stationary_state.hpp"

#include <filesystem>
#include <functional>

namespace decgpe::setup {

/// Replaces run.current (and run.previous for the paper's start) by the lattice's stationary
/// state ψ_h, then applies the case's seed and normalises; run.mu becomes μ_h and
/// run.lattice_state says how it was obtained. The state is cached in `cache_dir` as
/// lattice_state_<hash>.h5, the hash of the problem and of the sampled state; a cached state is
/// used only when its residual, recomputed on `backend`, is within the case's tolerance. Throws
/// std::runtime_error (one line) when the solver does not reach the tolerance.
/// `progress` is called after each Newton step of a solve, `poll` before each application of the
/// solver's time-stepper, and may throw to abandon it (either may be empty).
void settle_on_lattice(RunSetup& run, Backend& backend, const std::filesystem::path& cache_dir,
                       const std::function<void(const StationaryStateReport&)>& progress = {},
                       const std::function<void()>& poll = {});

} // namespace decgpe::setup
