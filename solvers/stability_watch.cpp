#include "solvers/stability_watch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace decgpe {

StabilityWatch::StabilityWatch(const Problem& problem, const DomainReduction* layout,
                               std::string_view scheme_name, double limit_factor,
                               const SpectrumEstimate& at_start)
    : problem_(problem), layout_(layout), scheme_(scheme_name), factor_(limit_factor),
      start_(at_start), anchor_radius_(at_start.radius), anchor_density_(at_start.max_density) {}

double StabilityWatch::projected_radius(double max_density) const {
  return anchor_radius_ + 3.0 * std::abs(problem_.g) * std::max(0.0, max_density - anchor_density_);
}

void StabilityWatch::check(const Sample& sample, Scheme& scheme) {
  const double density = sample.d.max_abs * sample.d.max_abs;
  if (problem_.g == 0.0 || sample.dt * projected_radius(density) < factor_) {
    return; // M does not depend on ψ, or the density has not grown enough to matter
  }
  psi_.resize(static_cast<std::size_t>(problem_.grid.cells()));
  scheme.download(0, psi_);
  const SpectrumEstimate now =
      estimate_spectrum(problem_.grid, problem_.potential, problem_.g, psi_, 80, layout_);
  ++estimates_;
  anchor_radius_ = now.radius;
  anchor_density_ = now.max_density;
  if (sample.dt * now.radius < factor_) {
    return;
  }
  char line[512];
  std::snprintf(
      line, sizeof line,
      "the %s stability limit fell to %.6g at step %ld (t = %.6g; %.6g at t = 0, max|psi|^2 "
      "%.6g -> %.6g), not above dt = %.6g: stopped before the run turned unstable; rerun "
      "with dt below %.6g (time.dt_fraction %.3g of the limit at t = 0, or less)",
      scheme_.c_str(), limit_now(), sample.step, sample.t, limit_at_start(), start_.max_density,
      now.max_density, sample.dt, 0.9 * limit_now(), 0.9 * limit_now() / limit_at_start());
  throw InstabilityError(line);
}

} // namespace decgpe
