#include "solvers/integrator.hpp"

#include "solvers/nvtx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace decgpe {

namespace {

std::string at(long step, double dt) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "step %ld (t = %.6g)", step, static_cast<double>(step) * dt);
  return buffer;
}

void guard(const Diagnostics& d, double initial_max, long step, double dt) {
  if (!d.finite) {
    throw InstabilityError("non-finite value in psi at " + at(step, dt) +
                           ": the run is unstable; reduce dt or check the inputs");
  }
  if (d.max_abs > kMaxGrowth * initial_max) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "max|psi| grew from %.6g to %.6g (more than %gx) by ",
                  initial_max, d.max_abs, kMaxGrowth);
    throw InstabilityError(buffer + at(step, dt) + ": the run is unstable; reduce dt");
  }
}

} // namespace

namespace {

Diagnostics measure(Scheme& scheme) {
  const NvtxRange range("diagnostics");
  return scheme.diagnostics();
}

void snapshot(Scheme& scheme, long step, double t, RunObserver& observer) {
  const NvtxRange range("snapshot");
  observer.on_snapshot(step, t, scheme);
}

/// The first multiple of `every` after `step` (none when every is 0).
long next_multiple(long step, long every, long otherwise) {
  return every > 0 ? std::min(otherwise, (step / every + 1) * every) : otherwise;
}

bool due(long step, long every) {
  return every > 0 && step % every == 0;
}

} // namespace

Outcome integrate(Scheme& scheme, const Schedule& schedule, RunObserver& observer,
                  const StartPoint& from) {
  const double dt = scheme.dt();
  Outcome outcome{from.step, false, from.initial_max_abs};
  if (from.step == 0) {
    const Diagnostics first = measure(scheme);
    outcome.initial_max_abs = first.max_abs;
    guard(first, first.max_abs, 0, dt);
    observer.on_diagnostics({0, 0.0, first});
    if (schedule.snapshot_every > 0) {
      snapshot(scheme, 0, 0.0, observer);
    }
  }
  long& step = outcome.steps_done;
  while (step < schedule.steps) {
    long next = std::min(schedule.steps, step + kMaxChunk);
    next = next_multiple(step, schedule.diagnostics_every, next);
    next = next_multiple(step, schedule.snapshot_every, next);
    next = next_multiple(step, schedule.checkpoint_every, next);
    {
      const NvtxRange range("steps");
      scheme.advance(next - step);
    }
    step = next;
    const double t = static_cast<double>(step) * dt;
    if (due(step, schedule.diagnostics_every) || step == schedule.steps) {
      const Diagnostics d = measure(scheme);
      guard(d, outcome.initial_max_abs, step, dt);
      observer.on_diagnostics({step, t, d});
      if (schedule.stop_when_error_exceeds > 0.0 &&
          1.0 - std::hypot(d.overlap.re, d.overlap.im) > schedule.stop_when_error_exceeds) {
        if (schedule.snapshot_every > 0) {
          snapshot(scheme, step, t, observer); // the state at the stop, on or off the cadence
        }
        observer.on_progress(step, step);
        break;
      }
    }
    if (due(step, schedule.snapshot_every)) {
      snapshot(scheme, step, t, observer);
    }
    observer.on_progress(step, schedule.steps);
    if (step == schedule.steps) {
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
