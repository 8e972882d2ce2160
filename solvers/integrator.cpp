#include "solvers/integrator.hpp"

#include "solvers/nvtx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace decgpe {

namespace {

/// Steps advanced between progress reports at most; small enough for a live progress line, large
/// enough to cost nothing on any backend.
constexpr long kMaxChunk = 64;

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

} // namespace

long integrate(Scheme& scheme, const Schedule& schedule, RunObserver& observer) {
  const double dt = scheme.dt();
  const Diagnostics first = measure(scheme);
  guard(first, first.max_abs, 0, dt);
  observer.on_diagnostics({0, 0.0, first});
  if (schedule.snapshot_every > 0) {
    snapshot(scheme, 0, 0.0, observer);
  }
  long step = 0;
  while (step < schedule.steps) {
    const long next_diag = (step / schedule.diagnostics_every + 1) * schedule.diagnostics_every;
    long next = std::min({schedule.steps, next_diag, step + kMaxChunk});
    if (schedule.snapshot_every > 0) {
      next = std::min(next, (step / schedule.snapshot_every + 1) * schedule.snapshot_every);
    }
    {
      const NvtxRange range("steps");
      scheme.advance(next - step);
    }
    step = next;
    const double t = static_cast<double>(step) * dt;
    if (step % schedule.diagnostics_every == 0 || step == schedule.steps) {
      const Diagnostics d = measure(scheme);
      guard(d, first.max_abs, step, dt);
      observer.on_diagnostics({step, t, d});
      if (schedule.stop_when_error_exceeds > 0.0 &&
          1.0 - std::hypot(d.overlap.re, d.overlap.im) > schedule.stop_when_error_exceeds) {
        if (schedule.snapshot_every > 0 && step % schedule.snapshot_every != 0) {
          snapshot(scheme, step, t, observer);
        }
        observer.on_progress(step, step);
        return step;
      }
    }
    if (schedule.snapshot_every > 0 && step % schedule.snapshot_every == 0) {
      snapshot(scheme, step, t, observer);
    }
    observer.on_progress(step, schedule.steps);
  }
  return step;
}

} // namespace decgpe
