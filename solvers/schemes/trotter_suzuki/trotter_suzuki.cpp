#include "solvers/schemes/trotter_suzuki/trotter_suzuki.hpp"

#include "solvers/face_colouring.hpp"
#include "solvers/schemes/one_level.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace decgpe {

namespace {

/// Suzuki's S4(τ) = S2(pτ)² S2((1 − 4p)τ) S2(pτ)², p = 1/(4 − 4^{1/3}).
std::vector<double> suzuki_fractions(int order) {
  if (order == 2) {
    return {1.0};
  }
  const double p = 1.0 / (4.0 - std::cbrt(4.0));
  return {p, p, 1.0 - 4.0 * p, p, p};
}

/// The norm, its invariant, is conserved to round-off: every factor is unitary.
///
/// A second-order step of τ is K_0 … K_{C−1} P K_{C−1} … K_0 with K_c = exp(−i(τ/2) K_c) and
/// P = exp(−iτ(V + g|ψ|²)). Two fusions save passes over ψ: P runs in the pass of the sweep before
/// it (FaceSweep::phase_tau, bitwise the same), and where one step ends and the next begins the two
/// sweeps of colour 0 are one of the summed τ (the blocks of one colour commute: exact up to
/// rounding). A step then moves ψ through 2C − 1 passes instead of 2C + 1, plus one per advance().
class TrotterSuzuki final : public OneLevelScheme {
public:
  TrotterSuzuki(Backend& backend, double dt, int order)
      : OneLevelScheme(backend, dt, kNoVector), order_(order), fractions_(suzuki_fractions(order)),
        colours_(face_colouring(backend.problem().grid).colours), psi_(backend), work_(backend) {
    current_ = psi_.id();
  }

  std::string name() const override { return order_ == 2 ? "trotter_suzuki" : "trotter_suzuki4"; }

  /// Per second-order step 2C − 1 passes, each reading and writing ψ once (the fused sweeps); the
  /// adaptive decision reads ψ once more.
  StepTraffic fp64_traffic() const override {
    const double passes = static_cast<double>((2 * colours_ - 1) * fractions_.size());
    const double decision = adaptive() ? 1.0 : 0.0;
    return {passes + decision, 32.0 * passes + 16.0 * decision};
  }

  std::vector<std::pair<std::string, double>> properties() const override {
    return {{"face_colours", colours_},
            {"passes_per_step", static_cast<double>((2 * colours_ - 1) * fractions_.size())}};
  }

private:
  void advance_fixed(long steps) override { sweep_steps(steps, dt_); }

  double advance_adaptive(StepControl, double longest, StepClock&) override {
    const StepMaxima m = backend_.step_maxima(current_, kNoVector, adaptive_.density_floor);
    const double dt = std::min(phase_step(m.phase_rate, adaptive_), longest);
    sweep_steps(1, dt);
    return dt;
  }

  /// `steps` steps of dt: every second-order step of every Suzuki fraction in turn, colour 0's
  /// sweeps between them merged.
  void sweep_steps(long steps, double dt) {
    double colour_zero = 0.5 * fractions_.front() * dt; // the first step's opening sweep
    for (long n = 0; n < steps; ++n) {
      for (std::size_t k = 0; k < fractions_.size(); ++k) {
        const double tau = fractions_[k] * dt;
        sweep(0, colour_zero, colours_ == 1 ? tau : 0.0);
        for (int c = 1; c < colours_; ++c) {
          sweep(c, 0.5 * tau, c == colours_ - 1 ? tau : 0.0);
        }
        for (int c = colours_ - 1; c >= 1; --c) {
          sweep(c, 0.5 * tau, 0.0);
        }
        const bool last = n + 1 == steps && k + 1 == fractions_.size();
        const double next = last ? 0.0 : fractions_[(k + 1) % fractions_.size()] * dt;
        colour_zero = 0.5 * tau + 0.5 * next;
      }
    }
    sweep(0, colour_zero, 0.0); // the last step's closing sweep
  }

  void sweep(int colour, double tau, double phase_tau) {
    const VectorId to = current_ == psi_.id() ? work_.id() : psi_.id();
    backend_.rotate_faces({current_, to, colour, tau, phase_tau});
    current_ = to;
  }

  int order_;
  std::vector<double> fractions_;
  int colours_;
  OwnedVector psi_, work_; ///< ψ is in either (current_)
};

} // namespace

std::unique_ptr<Scheme> make_trotter_suzuki(Backend& backend, double dt) {
  return std::make_unique<TrotterSuzuki>(backend, dt, 2);
}

std::unique_ptr<Scheme> make_trotter_suzuki4(Backend& backend, double dt) {
  return std::make_unique<TrotterSuzuki>(backend, dt, 4);
}

} // namespace decgpe
