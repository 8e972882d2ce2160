#pragma once
// initial.kind = "ground_state": the lattice's lowest stationary state, by the normalised gradient
// flow (imaginary time) ψ ← ψ − Δτ(M(ψ)ψ − μψ), μ = ⟨ψ|M(ψ)ψ⟩, renormalised each iteration,
// accelerated by heavy-ball momentum (Polyak): the step and the momentum are the optimal ones for
// the spectrum of M − μ in [gap, L], L bounding it from above (the spectral radius of M(ψ⁰) and a
// margin for g|ψ|²), so the slow modes converge in O(√(L/gap)) iterations instead of O(L/gap).
// Written against the kernel set (apply_m, axpby, diagnostics), it runs on every backend; the state
// never leaves it. Imaginary time keeps the symmetry sector of its start: a real κ = 0 start ends
// in the ground state, a κ imprint in the lowest state of its winding as far as the grid's own
// symmetry keeps the winding (docs/cases.md).

#include "setup/case_setup.hpp"
#include "solvers/backend.hpp"

#include <functional>

namespace decgpe::setup {

struct GroundStateSettings {
  double residual = 1e-8;       ///< stop when ‖M(ψ)ψ − μψ‖ ≤ this …
  double energy_change = 1e-12; ///< … and |ΔE| / |E| per iteration ≤ this
  long max_iterations = 100000;
  double spectral_radius = 0.0; ///< ρ(M(ψ⁰)) (> 0)
  double lowest_ritz = 0.0;     ///< the smallest Ritz value of M(ψ⁰): a negative one widens L
  bool momentum = true;         ///< false: the plain flow at Δτ = 1/L (for comparison)
  /// Called before every check (every few iterations); may throw to abandon the relaxation.
  std::function<void()> poll;
};

/// Relaxes ψ = `psi` (any norm > 0) on `backend` until both tolerances hold or max_iterations pass;
/// leaves the last state, normalised, and reports converged = false in the latter case. Throws
/// std::runtime_error when ψ stops being finite.
GroundStateInfo relax_to_ground_state(Backend& backend, VectorId psi,
                                      const GroundStateSettings& settings);

/// The backend vectors relax_to_ground_state() holds at once, ψ not counted.
constexpr int kGroundStateVectors = 3;

/// Replaces run.current by the relaxed state of run.config's [initial.ground_state], then applies
/// the case's seed and normalises, chooses the step again for the new state (choose_step), and
/// sets run.mu to μ_h and run.ground_state. Throws std::runtime_error (one line) when it has not
/// converged after max_iterations: a run never starts from an unrelaxed state.
void settle_on_ground_state(RunSetup& run, Backend& backend,
                            const std::function<void()>& poll = {});

} // namespace decgpe::setup
