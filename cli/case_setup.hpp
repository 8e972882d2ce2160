#pragma once
// From a validated case to everything a run needs: the problem (grid, potential, Δt within the
// stability bound), the schedule and both starting levels of the state.

#include "cli/case_file.hpp"
#include "solvers/initial_state.hpp"
#include "solvers/integrator.hpp"
#include "solvers/problem.hpp"

#include <vector>

namespace decgpe::cli {

struct RunSetup {
  CaseConfig config;
  Problem problem;
  Schedule schedule;
  double mu = 0.0;                   ///< chemical potential: the exact state evolves as e^{−iμt}
  double bound = 0.0;                ///< stability bound eq. 11 at t = 0
  double normalisation = 1.0;        ///< factor that makes Σ|B||ψ(0)|² = 1
  double operations_per_time = 0.0;  ///< Σ_i #J_i / Δt of this grid and step
  double effective_wavelength = 0.0; ///< 2π / √∫|∇ψ|² (stationary vortex only)
  std::vector<Complex> previous;     ///< ψ^{−1} = Ψ(r, −Δt)
  std::vector<Complex> current;      ///< ψ^0 = Ψ(r, 0)
};

/// Where solved stationary-vortex profiles are cached: $DECGPE_CACHE, else out/cache.
std::filesystem::path vortex_cache_dir();

/// Throws std::invalid_argument / std::runtime_error with one line, e.g. for Δt above the stability
/// bound.
RunSetup prepare_run(const CaseConfig& config);

} // namespace decgpe::cli
