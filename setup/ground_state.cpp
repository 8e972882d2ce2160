#include "setup/ground_state.hpp"

#include "solvers/schemes/scheme.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace decgpe::setup {

namespace {

/// Iterations between checks of the stopping rule: a residual costs a pointwise pass and a
/// reduction, the energy change needs iterations to show.
constexpr long kCheckEvery = 10;

/// The gap of M − μ above the state the momentum is tuned for, in trap units: the harmonic trap's
/// lowest excitations that a real start reaches are 1 to 2 (interactions stiffen the density
/// modes). A smaller true gap still converges, at 1 − gap/√(L · kAssumedGap) per iteration.
constexpr double kAssumedGap = 0.5;

/// One iteration's step Δτ = α and momentum β for M − μ with spectrum in [kAssumedGap, upper]:
/// Polyak's optimal pair, or the plain flow's optimal step.
std::pair<double, double> step_for(double upper, bool momentum) {
  if (!momentum) {
    return {2.0 / (upper + kAssumedGap), 0.0};
  }
  const double a = std::sqrt(upper), b = std::sqrt(kAssumedGap);
  const double ratio = (a - b) / (a + b);
  return {4.0 / ((a + b) * (a + b)), ratio * ratio};
}

class Relaxation {
public:
  Relaxation(Backend& backend, VectorId psi, const GroundStateSettings& s)
      : b_(backend), s_(s), caller_(psi), psi_(psi), prev_owned_(backend), image_owned_(backend),
        scratch_(backend), prev_(prev_owned_.id()), image_(image_owned_.id()) {}

  GroundStateInfo run() {
    const auto start = std::chrono::steady_clock::now();
    normalise(psi_);
    b_.axpby(prev_, {1.0, 0.0}, psi_, {0.0, 0.0}, psi_);
    for (long k = 0;; ++k) {
      b_.apply_m(psi_, image_);
      ++info_.stencil_passes;
      // ψ normalised: the overlap with M(ψ)ψ is μ, and the same reduction gives E and max|ψ|.
      const Diagnostics d = b_.diagnostics(psi_, kNoVector, image_);
      const double mu = d.overlap.re;
      const bool last = k == s_.max_iterations;
      if ((k % kCheckEvery == 0 || last) && (check(k, mu, d) || last)) {
        break;
      }
      update(mu);
    }
    if (psi_ != caller_) {
      b_.axpby(caller_, {1.0, 0.0}, psi_, {0.0, 0.0}, psi_);
    }
    info_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return info_;
  }

private:
  /// The stopping rule at iteration k (and the step's bound widened where |ψ| grew).
  bool check(long k, double mu, const Diagnostics& d) {
    if (s_.poll) {
      s_.poll();
    }
    b_.axpby(scratch_.id(), {1.0, 0.0}, image_, {-mu, 0.0}, psi_);
    const double residual = std::sqrt(b_.diagnostics(scratch_.id(), kNoVector, scratch_.id()).norm);
    info_.energy_change =
        k == 0 ? std::numeric_limits<double>::infinity()
               : std::abs(d.energy - info_.energy) /
                     (static_cast<double>(k - info_.iterations) * std::abs(d.energy));
    if (k == 0) {
      info_.start_residual = residual;
    }
    info_.mu = mu;
    info_.energy = d.energy;
    info_.kinetic = d.kinetic;
    info_.trap = d.trap;
    info_.interaction = d.interaction;
    info_.residual = residual;
    info_.iterations = k;
    widen_bound(d.max_abs);
    info_.converged = residual <= s_.residual && info_.energy_change <= s_.energy_change;
    return info_.converged;
  }

  /// λ_max(M(ψ)) ≤ ρ(M(ψ⁰)) + |g| max(|ψ|², |ψ⁰|²); twice the density term leaves room for the
  /// peak to grow until the next check, and a negative spectrum end widens M − μ's range.
  void widen_bound(double max_abs) {
    const double g = std::abs(b_.problem().g);
    if (first_peak_ == 0.0) {
      first_peak_ = max_abs * max_abs;
    }
    const double peak = std::max(first_peak_, max_abs * max_abs);
    const double upper = s_.spectral_radius + std::max(0.0, -s_.lowest_ritz) + 2.0 * g * peak;
    if (upper > upper_) {
      upper_ = upper;
      std::tie(alpha_, beta_) = step_for(upper_, s_.momentum);
    }
  }

  /// ψ ← ψ − α(M(ψ)ψ − μψ) + β(ψ − ψ_prev), normalised; image_ holds M(ψ)ψ and is overwritten.
  void update(double mu) {
    if (beta_ != 0.0) {
      b_.axpby(prev_, {1.0 + alpha_ * mu + beta_, 0.0}, psi_, {-beta_, 0.0}, prev_);
      b_.axpby(image_, {1.0, 0.0}, prev_, {-alpha_, 0.0}, image_);
    } else {
      b_.axpby(image_, {1.0 + alpha_ * mu, 0.0}, psi_, {-alpha_, 0.0}, image_);
    }
    normalise(image_);
    const VectorId spare = prev_;
    prev_ = psi_;
    psi_ = image_;
    image_ = spare;
  }

  void normalise(VectorId v) {
    const Diagnostics d = b_.diagnostics(v, kNoVector, v);
    if (!d.finite || !(d.norm > 0.0) || !std::isfinite(d.norm)) {
      throw std::runtime_error("the ground-state relaxation's state is not finite (norm " +
                               std::to_string(d.norm) + ")");
    }
    b_.axpby(v, {1.0 / std::sqrt(d.norm), 0.0}, v, {0.0, 0.0}, v);
  }

  Backend& b_;
  const GroundStateSettings& s_;
  const VectorId caller_;
  VectorId psi_;
  OwnedVector prev_owned_, image_owned_, scratch_;
  VectorId prev_, image_; ///< the three roles rotate among caller_ and the two owned vectors
  GroundStateInfo info_;
  double first_peak_ = 0.0, upper_ = 0.0, alpha_ = 0.0, beta_ = 0.0;
};

} // namespace

GroundStateInfo relax_to_ground_state(Backend& backend, VectorId psi,
                                      const GroundStateSettings& settings) {
  if (!(settings.spectral_radius > 0.0) || !std::isfinite(settings.spectral_radius)) {
    throw std::invalid_argument("the ground-state relaxation needs the spectral radius of M");
  }
  return Relaxation(backend, psi, settings).run();
}

void settle_on_ground_state(RunSetup& run, Backend& backend, const std::function<void()>& poll) {
  const GroundStateConfig& c = run.config.ground_state;
  const GroundStateSettings settings{c.residual,
                                     c.energy_change,
                                     c.max_iterations,
                                     run.spectrum.frozen_radius,
                                     run.spectrum.lambda_min,
                                     true,
                                     poll};
  const OwnedVector psi(backend);
  backend.upload(psi.id(), run.current);
  const GroundStateInfo info = relax_to_ground_state(backend, psi.id(), settings);
  if (!info.converged) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "the ground state did not converge in %ld iterations: residual %.3g (tolerance "
                  "%.3g), energy change %.3g per iteration (tolerance %.3g); raise "
                  "initial.ground_state.max_iterations",
                  info.iterations, info.residual, c.residual, info.energy_change, c.energy_change);
    throw std::runtime_error(line);
  }
  backend.download(psi.id(), run.current);
  if (run.seed) {
    apply_seed(run.problem.grid, *run.seed, run.current);
    const double norm = run.layout.sum_slices(slice_norms(run.problem.grid, run.current));
    for (Complex& z : run.current) {
      z = (1.0 / std::sqrt(norm)) * z;
    }
  }
  run.mu = info.mu;
  choose_step(run, run.current); // the relaxed state's spectrum, not the start's
  run.ground_state = info;
}

} // namespace decgpe::setup
