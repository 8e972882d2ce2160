#include "solvers/schemes/rk4/rk4.hpp"

#include "solvers/schemes/one_level.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace decgpe {

void rk4_step(Backend& backend, const Rk4Vectors& v, double dt, VectorId out, Rk4Stages stages) {
  // Butcher weights b = (1/6, 1/3, 1/3, 1/6), nodes a = (1/2, 1/2, 1).
  const double sixth = dt / 6.0, third = dt / 3.0, half = 0.5 * dt;
  const std::array<Rk4Stage, 4> step{{{0, v.psi, v.psi, v.acc, v.stage_a, sixth, half},
                                      {1, v.stage_a, v.psi, v.acc, v.stage_b, third, half},
                                      {2, v.stage_b, v.psi, v.acc, v.stage_a, third, dt},
                                      {3, v.stage_a, kNoVector, v.acc, out, sixth, 0.0}}};
  if (stages == Rk4Stages::together) {
    backend.rk4_stages(step);
    return;
  }
  for (const Rk4Stage& s : step) {
    backend.rk4_stage(s);
  }
}

/// One step of ψ' = c (M(ψ) − μ)ψ, c = −(i + γ)/(1 + γ²), μ = ⟨ψ, M(ψ)ψ⟩/⟨ψ, ψ⟩ at the step's
/// start, from the stencil and pointwise kernels (the fused stages take a real −iΔt only):
/// m ← (M(s) − μ)s; acc ← acc + b_s c Δt m; s ← ψ + a_s c Δt m. μ keeps the norm to the scheme's
/// order, so that the interaction within a step sees the density it should, and makes the ground
/// state a fixed point; the result, in ψ, is then renormalised to Σ|B||ψ|² = 1.
void damped_rk4_step(Backend& backend, const Rk4Vectors& v, double dt, double gamma) {
  const Complex c{-gamma / (1.0 + gamma * gamma), -1.0 / (1.0 + gamma * gamma)};
  const auto times = [&c](double tau) { return Complex{c.re * tau, c.im * tau}; };
  constexpr double kWeights[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  constexpr double kNodes[3] = {0.5, 0.5, 1.0};
  const VectorId stage = v.stage_a, m = v.stage_b;
  backend.apply_m(v.psi, m);
  const Diagnostics start = backend.diagnostics(v.psi, kNoVector, m);
  const Complex minus_mu{-start.overlap.re / start.norm, 0.0};
  backend.axpby(m, {1.0, 0.0}, m, minus_mu, v.psi);
  backend.axpby(v.acc, {1.0, 0.0}, v.psi, times(kWeights[0] * dt), m);
  for (int s = 1; s < 4; ++s) {
    backend.axpby(stage, {1.0, 0.0}, v.psi, times(kNodes[s - 1] * dt), m);
    backend.apply_m(stage, m);
    backend.axpby(m, {1.0, 0.0}, m, minus_mu, stage);
    backend.axpby(s < 3 ? v.acc : v.psi, {1.0, 0.0}, v.acc, times(kWeights[s] * dt), m);
  }
  const double norm = backend.diagnostics(v.psi, kNoVector, v.psi).norm;
  backend.axpby(v.psi, {1.0 / std::sqrt(norm), 0.0}, v.psi, {0.0, 0.0}, v.psi);
}

namespace {

/// The norm, its invariant, decays at O(Δt⁴) per unit time.
class Rk4 final : public OneLevelScheme {
public:
  Rk4(Backend& backend, double dt)
      : OneLevelScheme(backend, dt, kNoVector), psi_(backend), acc_(backend), a_(backend),
        b_(backend) {
    current_ = psi_.id();
  }

  std::string name() const override { return "rk4"; }

  /// Four fused stages moving 48, 80, 80 and 48 B; step doubling takes three steps and a
  /// reduction over two vectors per attempt (rejected attempts not counted).
  StepTraffic fp64_traffic() const override {
    return adaptive() ? StepTraffic{13.0, 3.0 * 256.0 + 32.0} : StepTraffic{4.0, 256.0};
  }

  /// Step doubling's estimate of the last accepted step's error, and how many attempts it rejected
  /// before accepting it (both 0 for fixed steps).
  std::vector<std::pair<std::string, double>> step_report() const override {
    return {{"error_estimate", error_}, {"rejected_steps", static_cast<double>(rejected_)}};
  }

private:
  void make_damped(double gamma) override {
    if (adaptive()) {
      throw std::invalid_argument("rk4's damped steps are fixed");
    }
    gamma_ = gamma;
  }

  void advance_fixed(long steps) override {
    for (long n = 0; n < steps; ++n) {
      if (gamma_ > 0.0) {
        damped_rk4_step(backend_, work(current_), dt_, gamma_);
      } else {
        rk4_step(backend_, work(current_), dt_, current_);
      }
    }
  }

  /// Step doubling: ψ^{Δt} into `full`, two half steps into `halves`; the halves are kept when
  /// max_i |halves_i − full_i| / 15 (their error, Richardson) is at most the tolerance.
  double advance_adaptive(StepControl, double longest, StepClock& clock) override {
    if (!full_) {
      full_.emplace(backend_);
      halves_.emplace(backend_);
    }
    for (long rejections = 0;;) {
      const double dt = std::min(clock.next_dt, longest);
      const VectorId full = full_->id();
      VectorId halves = halves_id_ == kNoVector ? halves_->id() : halves_id_;
      rk4_step(backend_, work(current_), dt, full);
      rk4_step(backend_, work(current_), 0.5 * dt, halves);
      rk4_step(backend_, work(halves), 0.5 * dt, halves);
      const double error = backend_.step_maxima(halves, full, kNoDensity).difference / 15.0;
      const double next = doubling_step(dt, error, adaptive_);
      if (error <= adaptive_.tolerance) {
        rejected_ = rejections;
        halves_id_ = current_; // the old ψ's vector holds the next halves
        current_ = halves;
        error_ = error;
        clock.next_dt = dt < longest ? next : std::max(next, clock.next_dt);
        return dt;
      }
      ++rejections;
      clock.next_dt = next;
      if (next < shortest_step(adaptive_)) {
        blown_up("rk4 step doubling's error estimate", error);
      }
    }
  }

  /// The vectors of an RK4 step from `psi`.
  Rk4Vectors work(VectorId psi) const { return {psi, acc_.id(), a_.id(), b_.id()}; }

  /// No cell is dense enough: step_maxima's phase rate is not wanted.
  static constexpr double kNoDensity = std::numeric_limits<double>::infinity();

  OwnedVector psi_, acc_, a_, b_;
  std::optional<OwnedVector> full_, halves_; ///< step doubling's
  VectorId halves_id_ = kNoVector;           ///< halves_ or psi_, whichever ψ is not in
  double error_ = 0.0;
  long rejected_ = 0;
  double gamma_ = 0.0; ///< the damping (0: none)
};

} // namespace

std::unique_ptr<Scheme> make_rk4(Backend& backend, double dt) {
  return std::make_unique<Rk4>(backend, dt);
}

} // namespace decgpe
