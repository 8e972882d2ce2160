#pragma once
// The errors a run's pieces throw and its driver reports: here, below the schemes and the driver
// both, so that neither includes the other for them.

#include <stdexcept>

namespace decgpe {

/// The state has blown up: a non-finite ψ, max|ψ| grown past the guard, or a step control that
/// needs a step shorter than its ladder holds.
struct InstabilityError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace decgpe
