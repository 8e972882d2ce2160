#include "solvers/schemes/rk4/rk4.hpp"

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

class Rk4 final : public Scheme {
public:
  Rk4(Backend& backend, double dt)
      : Scheme(backend, dt), psi_(backend), acc_(backend), a_(backend), b_(backend),
        reference_(backend) {}

  std::string name() const override { return "rk4"; }

  void start(const StartLevels& levels) override {
    backend_.upload(psi_.id(), levels.current);
    backend_.upload(reference_.id(), levels.reference);
  }

  void resume(std::span<const std::vector<Complex>> levels,
              std::span<const Complex> reference) override {
    start({levels[0], reference, {}});
  }

  void advance(long steps) override {
    for (long n = 0; n < steps; ++n) {
      rk4_step(backend_, {psi_.id(), acc_.id(), a_.id(), b_.id()}, dt_, psi_.id());
    }
  }

  Diagnostics diagnostics() override {
    Diagnostics d = backend_.diagnostics(psi_.id(), kNoVector, reference_.id());
    d.invariant = d.norm; // what the exact flow conserves, and RK4 does not quite
    return d;
  }

  std::vector<std::string> level_names() const override { return {"current"}; }
  void download(int index, std::span<Complex> values) override {
    if (index != 0) {
      throw std::out_of_range("rk4 holds one level, not level " + std::to_string(index));
    }
    backend_.download(psi_.id(), values);
  }

private:
  OwnedVector psi_, acc_, a_, b_, reference_;
};

} // namespace

std::unique_ptr<Scheme> make_rk4(Backend& backend, double dt) {
  return std::make_unique<Rk4>(backend, dt);
}

} // namespace decgpe
