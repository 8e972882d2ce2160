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
class TrotterSuzuki final : public OneLevelScheme {
public:
  TrotterSuzuki(Backend& backend, double dt, int order)
      : OneLevelScheme(backend, dt, kNoVector), order_(order), fractions_(suzuki_fractions(order)),
        colours_(face_colouring(backend.problem().grid).colours), psi_(backend), work_(backend) {
    current_ = psi_.id();
  }

  std::string name() const override { return order_ == 2 ? "trotter_suzuki" : "trotter_suzuki4"; }

  /// Per second-order step 2C colour sweeps and one phase pass, each reading and writing ψ once.
  StepTraffic traffic() const override {
    const double passes = static_cast<double>((2 * colours_ + 1) * fractions_.size());
    return {passes, 32.0 * passes};
  }

  std::vector<std::pair<std::string, double>> properties() const override {
    return {{"face_colours", colours_},
            {"sweeps_per_step", static_cast<double>(2 * colours_ * fractions_.size())}};
  }

private:
  void advance_fixed(long steps) override {
    for (long n = 0; n < steps; ++n) {
      step(dt_);
    }
  }

  double advance_adaptive(StepControl, double longest, StepClock&) override {
    const StepMaxima m = backend_.step_maxima(psi_.id(), kNoVector, adaptive_.density_floor);
    const double dt = std::min(phase_step(m.phase_rate, adaptive_), longest);
    step(dt);
    return dt;
  }

  void step(double dt) {
    for (double fraction : fractions_) {
      second_order_step(fraction * dt);
    }
  }

  /// 2C sweeps (even), so ψ ends in psi_ again.
  void second_order_step(double tau) {
    VectorId from = psi_.id(), to = work_.id();
    const auto sweep = [&](int colour) {
      backend_.rotate_faces({from, to, colour, 0.5 * tau});
      std::swap(from, to);
    };
    for (int c = 0; c < colours_; ++c) {
      sweep(c);
    }
    backend_.rotate_phase(from, tau);
    for (int c = colours_ - 1; c >= 0; --c) {
      sweep(c);
    }
  }

  int order_;
  std::vector<double> fractions_;
  int colours_;
  OwnedVector psi_, work_;
};

} // namespace

std::unique_ptr<Scheme> make_trotter_suzuki(Backend& backend, double dt) {
  return std::make_unique<TrotterSuzuki>(backend, dt, 2);
}

std::unique_ptr<Scheme> make_trotter_suzuki4(Backend& backend, double dt) {
  return std::make_unique<TrotterSuzuki>(backend, dt, 4);
}

} // namespace decgpe
