#pragma once
// Adaptive time steps. A scheme that can change its step says how it chooses it (SchemeEntry::
// adaptive); the choice is made on the host from one device max-reduction per decision
// (Backend::step_maxima), so ψ never leaves the backend.
//  - phase: the split schemes take the longest step of the ladder dt_max·2^{−k/8} with
//    Δt · max_i |V_i + g|ψ_i|²| ≤ θ, the max over cells above a density floor (where ψ ≈ 0 the
//    splitting error vanishes however fast the phase turns, and the trap's value at the domain's
//    edge would otherwise set the step). The ladder makes the step's tables (face rotations,
//    Chebyshev coefficients) reusable across steps.
//  - doubling: RK4 compares one step of Δt with two of Δt/2; the difference / 15 estimates the
//    local error of the two half steps, which are kept when it is at most the tolerance.
// The leapfrog stays fixed-step: a changed Δt breaks its invariant Re⟨ψ^{n−1}, ψ^n⟩ and the
// second-order accuracy of its two-level start.

#include <string_view>

namespace decgpe {

enum class StepControl { fixed, phase, doubling };

std::string_view step_control_name(StepControl control);

struct AdaptiveSettings {
  double end_time = 0.0; ///< the run ends exactly here: the last step is cut to reach it
  double dt_max = 0.0;   ///< no step is longer (the case's dt)
  double theta = 0.1;    ///< phase: the most phase V + g|ψ|² turns by in one step (radians)
  /// phase: cells with |ψ_i|² below this (absolute) are left out of the max.
  double density_floor = 0.0;
  double tolerance = 1e-8; ///< doubling: max_i |ψ_i^{2×Δt/2} − ψ_i^{Δt}| / 15 per step
};

/// Steps of the ladder dt_max·2^{−k/8} below dt_max at most; a step that would need more is a
/// blown-up state (or a rate ~1e12 times the case's), and the run stops with an InstabilityError.
inline constexpr int kLadderRungs = 8 * 40;

/// The phase criterion's step for a rate max_i |V_i + g|ψ_i|²|: the longest dt_max·2^{−k/8} with
/// step · rate ≤ θ. Throws InstabilityError when none of kLadderRungs is short enough.
double phase_step(double rate, const AdaptiveSettings& s);

/// Step doubling's next step after an attempt of `dt` with error estimate `error`: the standard
/// controller 0.9 (tol/error)^{1/5} Δt, growth within [1/5, 2], at most dt_max.
double doubling_step(double dt, double error, const AdaptiveSettings& s);

/// The shortest step a doubling run may take before it counts as blown up.
double shortest_step(const AdaptiveSettings& s);

/// Throws the InstabilityError of a step control that needs a step below shortest_step():
/// "<what> = <value> needs a step below dt_max * 2^-40: the state has blown up".
[[noreturn]] void blown_up(const char* what, double value);

} // namespace decgpe
