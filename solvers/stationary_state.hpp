#pragma once
// The lattice's own stationary state: ψ with M(ψ)ψ = μψ on the DEC grid itself, not the continuum
// state sampled at its cells (which starts every run with a transient of the interpolation error).
//
// Newton–Krylov around a time-stepper (Tuckerman & Barkley's method): Φ is a stretch T of
// normalised imaginary-time flow, ψ ← ψ − τ(M(ψ)ψ − μψ), and Newton solves Φ(ψ) − ψ = 0 with
// GMRES, each Jacobian product a finite difference of Φ. Imaginary time alone cannot reach a
// multiply quantised vortex: it is a saddle of the energy (its splitting modes lower it), and the
// flow leaves it along them. Newton converges to the saddle all the same, and Φ makes GMRES cheap:
// the fast lattice-scale modes of I − DΦ sit at 1, only the slow and the unstable ones cost
// iterations. A short imaginary-time polish at the end takes the remaining lattice-scale error to
// round-off (Newton's last update carries GMRES's tolerance on every mode; the flow damps the fast
// ones in a few steps and does not yet feel the slow unstable ones).
//
// Written once against the kernel set (apply_m, axpby, diagnostics), so it runs on every backend;
// the state never leaves it.

#include "solvers/backend.hpp"

#include <functional>
#include <utility>

namespace decgpe {

struct StationaryStateReport;

/// The defaults are what the paper's κ = 10 cases (1.4M cells) needed on an H100: with T = 2 the
/// unstable modes grow too far and Newton wanders off to a lower state; with 60 basis vectors GMRES
/// stalls on the slow long-wavelength phase modes (BCC reaches 1e-5 in 12 Newton steps, 150
/// vectors 4e-9). Past the first two steps Newton converges only linearly (×0.77 a step on BCC):
/// those slow modes need more basis than a step holds. Small κ converges in 2-4 steps.
struct StationaryStateSettings {
  double residual_tolerance = 1e-10; ///< ‖M(ψ)ψ − μψ‖ with ‖ψ‖ = 1 (volume-weighted norms)
  double spectral_radius = 0.0;   ///< ρ(M) at the start (> 0): the imaginary step is 1/ρ
  double stretch = 0.5;           ///< T, the imaginary time of one Φ
  int krylov_dimension = 150;     ///< GMRES basis per Newton step (no restart)
  double krylov_tolerance = 1e-3; ///< GMRES's relative tolerance per Newton step
  int max_newton_steps = 30;
  /// Called after each Newton step with the report so far (progress of long solves); may be empty.
  std::function<void(const StationaryStateReport&)> on_newton_step;
  /// Called before every application of Φ (a fraction of a second to seconds apart); may throw to
  /// abandon the solve (a signal asking the process to stop). May be empty.
  std::function<void()> poll;
};

struct StationaryStateReport {
  double mu = 0.0;       ///< ⟨ψ|M(ψ)ψ⟩ of the result
  double residual = 0.0; ///< ‖M(ψ)ψ − μψ‖ of the result
  double start_residual = 0.0;
  double start_mu = 0.0;
  int newton_steps = 0;
  long krylov_iterations = 0;
  long stencil_passes = 0; ///< apply_m calls, the cost
  bool converged = false;
};

/// Replaces ψ = `psi` (normalised, Σ|B||ψ|² = 1) by the nearby stationary state of the backend's
/// problem. Throws std::runtime_error when the state is not finite; reports converged = false
/// (and leaves the best state found) when the tolerance is not reached.
StationaryStateReport solve_stationary_state(Backend& backend, VectorId psi,
                                             const StationaryStateSettings& settings);

/// The backend vectors solve_stationary_state() holds at once, ψ not counted.
int stationary_state_vectors(const StationaryStateSettings& settings);

/// ‖M(ψ)ψ − μψ‖ and μ = ⟨ψ|M(ψ)ψ⟩/⟨ψ|ψ⟩, with `scratch` a vector it may overwrite.
std::pair<double, double> stationary_residual(Backend& backend, VectorId psi, VectorId scratch);

} // namespace decgpe
