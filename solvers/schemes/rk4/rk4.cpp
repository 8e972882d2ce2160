#include "solvers/schemes/rk4/rk4.hpp"

#include "solvers/schemes/one_level.hpp"

#include <stdexcept>
#include <string>

namespace decgpe {

void rk4_step(Backend& backend, const Rk4Vectors& v, double dt, VectorId out) {
  // Butcher weights b = (1/6, 1/3, 1/3, 1/6), nodes a = (1/2, 1/2, 1).
  const double sixth = dt / 6.0, third = dt / 3.0, half = 0.5 * dt;
  backend.rk4_stage({0, v.psi, v.psi, v.acc, v.stage_a, sixth, half});
  backend.rk4_stage({1, v.stage_a, v.psi, v.acc, v.stage_b, third, half});
  backend.rk4_stage({2, v.stage_b, v.psi, v.acc, v.stage_a, third, dt});
  backend.rk4_stage({3, v.stage_a, kNoVector, v.acc, out, sixth, 0.0});
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

  /// Four fused stages moving 48, 80, 80 and 48 B.
  StepTraffic traffic() const override { return {4.0, 256.0}; }

  void advance(long steps) override {
    for (long n = 0; n < steps; ++n) {
      rk4_step(backend_, {psi_.id(), acc_.id(), a_.id(), b_.id()}, dt_, psi_.id());
    }
  }

private:
  OwnedVector psi_, acc_, a_, b_;
};

} // namespace

std::unique_ptr<Scheme> make_rk4(Backend& backend, double dt) {
  return std::make_unique<Rk4>(backend, dt);
}

} // namespace decgpe
