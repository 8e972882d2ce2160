#include "solvers/schemes/step_control.hpp"

#include "solvers/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace decgpe {

std::string_view step_control_name(StepControl control) {
  switch (control) {
  case StepControl::fixed:
    return "fixed";
  case StepControl::phase:
    return "phase";
  case StepControl::doubling:
    return "doubling";
  }
  return "fixed";
}

void blown_up(const char* what, double value) {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer,
                "%s = %.6g needs a step below dt_max * 2^-40: the state has blown up", what, value);
  throw InstabilityError(buffer);
}

double shortest_step(const AdaptiveSettings& s) {
  return std::ldexp(s.dt_max, -kLadderRungs / 8);
}

double phase_step(double rate, const AdaptiveSettings& s) {
  if (!(rate * s.dt_max > s.theta)) { // a zero rate included; NaN never reaches here (+∞)
    return s.dt_max;
  }
  // The smallest k with dt_max·2^{−k/8}·rate ≤ θ, checked by the same product the criterion is.
  auto k = static_cast<int>(std::ceil(8.0 * std::log2(s.dt_max * rate / s.theta)));
  k = std::max(k, 1);
  while (k <= kLadderRungs &&
         std::ldexp(std::exp2(-(k % 8) / 8.0), -k / 8) * s.dt_max * rate > s.theta) {
    ++k;
  }
  if (k > kLadderRungs) {
    blown_up("the phase rate max|V + g|psi|^2|", rate);
  }
  return std::ldexp(std::exp2(-(k % 8) / 8.0), -k / 8) * s.dt_max;
}

double doubling_step(double dt, double error, const AdaptiveSettings& s) {
  const double growth =
      error > 0.0 ? std::clamp(0.9 * std::pow(s.tolerance / error, 0.2), 0.2, 2.0) : 2.0;
  return std::min(s.dt_max, growth * dt);
}

} // namespace decgpe
