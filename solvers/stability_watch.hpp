#pragma once
// The stability watch of an explicit scheme's run: the limit at t = 0 holds for the state at t = 0
// only. ω grows with the density (by at most 3|g| per unit of max|ψ|², Weyl on J's pointwise part),
// so at each diagnostics step the watch projects the limit from max|ψ|² (which every backend's
// diagnostics reduce on the device already), and where the projection comes within the step it
// estimates the spectrum again from the state itself. A run whose Δt has passed the limit stops
// there, before its unstable modes grow from round-off, with one line naming the time, the limits
// and the fix.

#include "solvers/integrator.hpp"
#include "solvers/stability.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace decgpe {

class StabilityWatch {
public:
  /// `problem` and `layout` as the limit at t = 0 was estimated (this rank's part); `at_start`
  /// that estimate, `limit_factor` the scheme's interval on the imaginary axis.
  StabilityWatch(const Problem& problem, const DomainReduction* layout,
                 std::string_view scheme_name, double limit_factor,
                 const SpectrumEstimate& at_start);

  /// At a diagnostics sample of a running scheme (collective over ranks when distributed): throws
  /// InstabilityError when its Δt is no longer below the limit of its current state.
  void check(const Sample& sample, Scheme& scheme);

  double limit_at_start() const { return factor_ / start_.radius; }
  double limit_now() const { return factor_ / anchor_radius_; }
  /// The spectrum estimates taken from a running state so far.
  int estimates() const { return estimates_; }

private:
  double projected_radius(double max_density) const;

  const Problem& problem_;
  const DomainReduction* layout_;
  std::string scheme_;
  double factor_;
  SpectrumEstimate start_;
  double anchor_radius_;  ///< the last estimate's ω …
  double anchor_density_; ///< … at this max|ψ|²
  int estimates_ = 0;
  std::vector<Complex> psi_; ///< the state, for an estimate
};

} // namespace decgpe
