#include "solvers/schemes/leapfrog/leapfrog.hpp"

#include "solvers/schemes/rk4/rk4.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace decgpe {

namespace {

class Leapfrog final : public Scheme {
public:
  Leapfrog(Backend& backend, double dt)
      : Scheme(backend, dt), a_(backend), b_(backend), reference_(backend) {}

  std::string name() const override { return "leapfrog"; }

  void start(const StartLevels& levels) override {
    previous_ = a_.id();
    current_ = b_.id();
    backend_.upload(current_, levels.current);
    backend_.upload(reference_.id(), levels.reference);
    if (!levels.previous.empty()) {
      backend_.upload(previous_, levels.previous);
      return;
    }
    // ψ^{−1} = ψ⁰ one RK4 step backwards; the accumulator is ψ^{−1}'s own buffer, the two stage
    // buffers live only this long (the stages one by one: a fused step's spare vector would raise
    // the run's peak for one step).
    const OwnedVector stage_a(backend_), stage_b(backend_);
    rk4_step(backend_, {current_, previous_, stage_a.id(), stage_b.id()}, -dt_, previous_,
             Rk4Stages::one_by_one);
    backend_.synchronize();
  }

  void resume(std::span<const std::vector<Complex>> levels,
              std::span<const Complex> reference) override {
    start({levels[0], reference, levels[1]});
  }

  /// Read ψⁿ and ψⁿ⁻¹, write ψⁿ⁺¹.
  StepTraffic fp64_traffic() const override { return {1.0, 48.0}; }

  Diagnostics diagnostics() override {
    return backend_.diagnostics(current_, previous_, reference_.id());
  }

  std::vector<std::string> level_names() const override { return {"current", "previous"}; }
  void download(int index, std::span<Complex> values) override {
    if (index != 0 && index != 1) {
      throw std::out_of_range("leapfrog holds two levels, not level " + std::to_string(index));
    }
    backend_.download(index == 0 ? current_ : previous_, values);
  }
  std::future<std::vector<PiercedEdge>> vortex_flux(double potential_cut) override {
    return backend_.vortex_flux_later(current_, potential_cut);
  }

private:
  void advance_fixed(long steps) override {
    backend_.leapfrog_steps(previous_, current_, dt_, steps);
    if (steps % 2 != 0) {
      std::swap(previous_, current_);
    }
  }

  OwnedVector a_, b_, reference_;
  VectorId previous_ = kNoVector, current_ = kNoVector;
};

} // namespace

std::unique_ptr<Scheme> make_leapfrog(Backend& backend, double dt) {
  return std::make_unique<Leapfrog>(backend, dt);
}

} // namespace decgpe
