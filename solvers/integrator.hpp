#pragma once
// Drives a scheme through a run: diagnostics at step 0, every k steps and at the end, snapshots on
// their cadence, and the guard that stops a run which blows up (non-finite ψ, or max|ψ| grown more
// than 10×).

#include "solvers/schemes/scheme.hpp"

#include <stdexcept>

namespace decgpe {

struct Schedule {
  long steps = 0;
  long diagnostics_every = 1;
  long snapshot_every = 0; ///< 0: none
  /// > 0: stop after the first diagnostics step with E = 1 − |⟨ψ₀|ψ⟩| above this (ψ₀ normalised).
  double stop_when_error_exceeds = 0.0;
};

struct Sample {
  long step;
  double t;
  Diagnostics d;
};

class RunObserver {
public:
  virtual ~RunObserver() = default;
  virtual void on_diagnostics(const Sample&) {}
  virtual void on_snapshot(long /*step*/, double /*t*/, Scheme&) {}
  virtual void on_progress(long /*step*/, long /*total*/) {}
};

struct InstabilityError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The growth of max|ψ| over its initial value that counts as a blow-up.
inline constexpr double kMaxGrowth = 10.0;

/// Advances the started scheme schedule.steps steps, or fewer when the error threshold is crossed;
/// returns the steps done. Throws InstabilityError naming the step and time.
long integrate(Scheme& scheme, const Schedule& schedule, RunObserver& observer);

} // namespace decgpe
