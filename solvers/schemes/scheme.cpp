#include "solvers/schemes/scheme.hpp"

#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace decgpe {

long Scheme::advance(long steps) {
  if (steps <= 0) { // no step: the split schemes would open and close a fused half-step
    return 0;
  }
  if (!adaptive()) {
    advance_fixed(steps);
    clock_.steps += steps;
    clock_.time = static_cast<double>(clock_.steps) * dt_;
    return steps;
  }
  long taken = 0;
  while (taken < steps && !finished()) {
    // The last step is cut to land on end_time exactly.
    const double taken_dt = advance_adaptive(control_, adaptive_.end_time - clock_.time, clock_);
    clock_.last_dt = taken_dt;
    const double reached = clock_.time + taken_dt;
    clock_.time = taken_dt == adaptive_.end_time - clock_.time ? adaptive_.end_time : reached;
    ++clock_.steps;
    ++taken;
  }
  return taken;
}

void Scheme::make_damped(double) {
  throw std::invalid_argument(name() + " has no damped form");
}

void Scheme::make_adaptive(StepControl control, const AdaptiveSettings& settings) {
  if (control == StepControl::fixed) {
    control_ = control;
    return;
  }
  const SchemeEntry& entry = find_scheme(name());
  if (entry.adaptive != control) {
    throw std::invalid_argument(
        name() + " cannot take " + std::string(step_control_name(control)) + "-controlled steps" +
        (entry.adaptive == StepControl::fixed
             ? std::string(": it is fixed-step")
             : ", only " + std::string(step_control_name(entry.adaptive)) + "-controlled ones"));
  }
  if (!(settings.dt_max > 0.0) || !(settings.end_time > 0.0)) {
    throw std::invalid_argument("adaptive steps need dt_max > 0 and end_time > 0");
  }
  adaptive_ = settings;
  control_ = control;
  clock_.next_dt = std::min(clock_.next_dt, settings.dt_max);
}

double Scheme::advance_adaptive(StepControl control, double, StepClock&) {
  // make_adaptive() accepts only the control the registry names: this is a scheme that names one
  // it does not implement.
  throw std::logic_error(name() + " is registered with " + std::string(step_control_name(control)) +
                         "-controlled steps but does not take them");
}

} // namespace decgpe
