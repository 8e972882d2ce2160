#pragma once
// Drives a scheme through a run: diagnostics at step 0, every k steps and at the end, snapshots and
// checkpoints on their cadences, the guard that stops a run which blows up (non-finite ψ, or max|ψ|
// grown more than 10×), and a stop asked for at a step boundary (a signal, a wall-clock limit).

#include "solvers/errors.hpp"
#include "solvers/schemes/scheme.hpp"

#include <string>
#include <utility>
#include <vector>

namespace decgpe {

class StabilityWatch;

struct Schedule {
  /// The steps of a fixed-step run; an adaptive run's most (it ends when the scheme reaches its
  /// end time).
  long steps = 0;
  long diagnostics_every = 1;
  long snapshot_every = 0;     ///< 0: none
  long spectrum_every = 0;     ///< host probes (RunObserver::on_probe); 0: none
  long vortex_lines_every = 0; ///< RunObserver::on_vortex_lines; 0: none
  long checkpoint_every = 0;   ///< 0: none (by steps; wall-clock checkpoints are the observer's)
  /// > 0: stop after the first diagnostics step with E = 1 − |⟨ψ₀|ψ⟩| above this (ψ₀ normalised).
  double stop_when_error_exceeds = 0.0;
};

struct Sample {
  long step;
  double t;
  double dt; ///< the step that reached t (the first step's Δt at step 0)
  Diagnostics d;
  std::vector<std::pair<std::string, double>> report; ///< Scheme::step_report()
};

class RunObserver {
public:
  virtual ~RunObserver() = default;
  virtual void on_diagnostics(const Sample&) {}
  virtual void on_snapshot(long /*step*/, double /*t*/, Scheme&) {}
  /// At step 0, every Schedule::spectrum_every steps and at the end (when spectrum_every > 0).
  virtual void on_probe(long /*step*/, double /*t*/, Scheme&) {}
  /// At step 0, every Schedule::vortex_lines_every steps and at the end (when it is > 0).
  virtual void on_vortex_lines(long /*step*/, double /*t*/, Scheme&) {}
  /// `done` is the fraction of the run behind it (of the steps, or of the time when adaptive).
  virtual void on_progress(long /*step*/, double /*t*/, double /*done*/) {}
  virtual void on_checkpoint(long /*step*/, double /*t*/, Scheme&) {}
  /// At every step boundary the run reaches before its end (at most kMaxChunk steps apart), after
  /// that step's diagnostics, snapshot and checkpoint: false stops the run there.
  virtual bool keep_going(long /*step*/, double /*t*/, Scheme&) { return true; }
};

/// Where a run starts: step 0 of a started scheme, or a step of a resumed one with the guard's
/// reference max|ψ| of its step 0.
struct StartPoint {
  long step = 0;
  double initial_max_abs = 0.0; ///< used when step > 0
};

struct Outcome {
  long steps_done = 0;
  bool stopped = false;        ///< keep_going() said stop
  bool error_exceeded = false; ///< stopped at Schedule::stop_when_error_exceeds
  double initial_max_abs = 0.0;
};

/// The growth of max|ψ| over its initial value that counts as a blow-up.
inline constexpr double kMaxGrowth = 10.0;

/// Steps advanced between step boundaries at most; small enough for a live progress line and a
/// prompt stop, large enough to cost nothing on any backend.
inline constexpr long kMaxChunk = 64;

/// Advances the started scheme (its clock set to `from` when resumed) to schedule.steps, or to its
/// end time when adaptive, or less far when the error threshold is crossed or the observer stops
/// it. A resumed run produces the same states, diagnostics and
/// snapshots from its step on as the run it continues. Throws InstabilityError naming the step and
/// time. A `watch` checks the step against the limit of the state at every diagnostics step.
Outcome integrate(Scheme& scheme, const Schedule& schedule, RunObserver& observer,
                  const StartPoint& from = {}, StabilityWatch* watch = nullptr);

} // namespace decgpe
