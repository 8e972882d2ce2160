#include "solvers/integrator.hpp"

#include "solvers/nvtx.hpp"
#include "solvers/stability_watch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace decgpe {

namespace {

std::string at(long step, double t) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "step %ld (t = %.6g)", step, t);
  return buffer;
}

void guard(const Diagnostics& d, double initial_max, long step, double t) {
  if (!d.finite) {
    throw InstabilityError("non-finite value in psi at " + at(step, t) +
                           ": the run is unstable; reduce dt or check the inputs");
  }
  if (d.max_abs > kMaxGrowth * initial_max) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "max|psi| grew from %.6g to %.6g (more than %gx) by ",
                  initial_max, d.max_abs, kMaxGrowth);
    throw InstabilityError(buffer + at(step, t) + ": the run is unstable; reduce dt");
  }
}

Sample measure(Scheme& scheme) {
  const NvtxRange range("diagnostics");
  const StepClock& clock = scheme.clock();
  return {clock.steps, clock.time, clock.last_dt, scheme.diagnostics(), scheme.step_report()};
}

void snapshot(Scheme& scheme, RunObserver& observer) {
  const NvtxRange range("snapshot");
  observer.on_snapshot(scheme.clock().steps, scheme.clock().time, scheme);
}

void probe(Scheme& scheme, RunObserver& observer) {
  const NvtxRange range("host probe");
  observer.on_probe(scheme.clock().steps, scheme.clock().time, scheme);
}

void vortex_lines(Scheme& scheme, RunObserver& observer) {
  const NvtxRange range("vortex lines");
  observer.on_vortex_lines(scheme.clock().steps, scheme.clock().time, scheme);
}

/// Every sample the schedule takes, as at step 0 and at the error threshold's stop.
void sample_every_kind(Scheme& scheme, const Schedule& schedule, RunObserver& observer) {
  if (schedule.snapshot_every > 0) {
    snapshot(scheme, observer);
  }
  if (schedule.spectrum_every > 0) {
    probe(scheme, observer);
  }
  if (schedule.vortex_lines_every > 0) {
    vortex_lines(scheme, observer);
  }
}

/// The first multiple of `every` after `step` (none when every is 0).
long next_multiple(long step, long every, long otherwise) {
  return every > 0 ? std::min(otherwise, (step / every + 1) * every) : otherwise;
}

bool due(long step, long every) {
  return every > 0 && step % every == 0;
}

double progress(const Scheme& scheme, const Schedule& schedule, long step) {
  if (scheme.finished() || step >= schedule.steps) {
    return 1.0;
  }
  return scheme.adaptive() ? scheme.clock().time / scheme.end_time()
                           : static_cast<double>(step) / static_cast<double>(schedule.steps);
}

/// Whether the run is at its last step or the scheme at its end time.
bool finished(const Scheme& scheme, const Schedule& schedule, long step) {
  return step >= schedule.steps || scheme.finished();
}

/// The step the next chunk of steps ends at: the first at which anything is due, at most kMaxChunk
/// on.
long chunk_end(long step, const Schedule& schedule) {
  long next = std::min(schedule.steps, step + kMaxChunk);
  next = next_multiple(step, schedule.diagnostics_every, next);
  next = next_multiple(step, schedule.snapshot_every, next);
  next = next_multiple(step, schedule.spectrum_every, next);
  next = next_multiple(step, schedule.vortex_lines_every, next);
  next = next_multiple(step, schedule.checkpoint_every, next);
  return next;
}

/// The start's diagnostics and samples, which set the guard's reference max|psi|.
void sample_start(Scheme& scheme, const Schedule& schedule, RunObserver& observer,
                  Outcome& outcome) {
  const Sample first = measure(scheme);
  outcome.initial_max_abs = first.d.max_abs;
  guard(first.d, first.d.max_abs, 0, 0.0);
  observer.on_diagnostics(first);
  sample_every_kind(scheme, schedule, observer);
}

/// The diagnostics at `step`, guarded, observed and watched; true when the error is past the
/// schedule's threshold.
bool error_exceeded(Scheme& scheme, const Schedule& schedule, RunObserver& observer,
                    const Outcome& outcome, StabilityWatch* watch, long step, double t) {
  const Sample s = measure(scheme);
  guard(s.d, outcome.initial_max_abs, step, t);
  observer.on_diagnostics(s);
  if (watch != nullptr) {
    watch->check(s, scheme);
  }
  return schedule.stop_when_error_exceeds > 0.0 &&
         1.0 - std::hypot(s.d.overlap.re, s.d.overlap.im) > schedule.stop_when_error_exceeds;
}

/// The snapshot, the probe and the vortex lines due at `step` (the last two also at the end).
void sample_due(Scheme& scheme, const Schedule& schedule, RunObserver& observer, long step) {
  if (due(step, schedule.snapshot_every)) {
    snapshot(scheme, observer);
  }
  if (due(step, schedule.spectrum_every) ||
      (schedule.spectrum_every > 0 && finished(scheme, schedule, step))) {
    probe(scheme, observer);
  }
  if (due(step, schedule.vortex_lines_every) ||
      (schedule.vortex_lines_every > 0 && finished(scheme, schedule, step))) {
    vortex_lines(scheme, observer);
  }
}

} // namespace

Outcome integrate(Scheme& scheme, const Schedule& schedule, RunObserver& observer,
                  const StartPoint& from, StabilityWatch* watch) {
  Outcome outcome{from.step, false, false, from.initial_max_abs};
  if (from.step == 0) {
    sample_start(scheme, schedule, observer, outcome);
  }
  long& step = outcome.steps_done;
  while (!finished(scheme, schedule, step)) {
    const long next = chunk_end(step, schedule);
    {
      const NvtxRange range("steps");
      step += scheme.advance(next - step);
    }
    const double t = scheme.clock().time;
    if ((due(step, schedule.diagnostics_every) || finished(scheme, schedule, step)) &&
        error_exceeded(scheme, schedule, observer, outcome, watch, step, t)) {
      sample_every_kind(scheme, schedule, observer); // the state at the stop, on or off the cadence
      observer.on_progress(step, t, 1.0);
      outcome.error_exceeded = true;
      break;
    }
    sample_due(scheme, schedule, observer, step);
    observer.on_progress(step, t, progress(scheme, schedule, step));
    if (finished(scheme, schedule, step)) {
      break;
    }
    if (due(step, schedule.checkpoint_every)) {
      const NvtxRange range("checkpoint");
      observer.on_checkpoint(step, t, scheme);
    }
    if (!observer.keep_going(step, t, scheme)) {
      outcome.stopped = true;
      break;
    }
  }
  return outcome;
}

} // namespace decgpe
