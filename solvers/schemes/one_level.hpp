#pragma once
// What the schemes with a single level ψ share (RK4, the split and exponential schemes): start and
// resume from ψ⁰, the norm as the conserved quantity the exact flow keeps, one level to download.

#include "solvers/schemes/scheme.hpp"

#include <stdexcept>
#include <string>

namespace decgpe {

class OneLevelScheme : public Scheme {
public:
  void start(const StartLevels& levels) override {
    backend_.upload(current_, levels.current);
    backend_.upload(reference_.id(), levels.reference);
  }

  void resume(std::span<const std::vector<Complex>> levels,
              std::span<const Complex> reference) override {
    start({levels[0], reference, {}});
  }

  Diagnostics diagnostics() override {
    Diagnostics d = backend_.diagnostics(current_, kNoVector, reference_.id());
    d.invariant = d.norm;
    return d;
  }

  std::vector<std::string> level_names() const override { return {"current"}; }

  void download(int index, std::span<Complex> values) override {
    if (index != 0) {
      throw std::out_of_range(name() + " holds one level, not level " + std::to_string(index));
    }
    backend_.download(current_, values);
  }

  std::future<std::vector<PiercedEdge>> vortex_flux(double potential_cut) override {
    return backend_.vortex_flux_later(current_, potential_cut);
  }

protected:
  /// `current` is the vector ψ starts in; a scheme may move it to another of its vectors.
  OneLevelScheme(Backend& backend, double dt, VectorId current)
      : Scheme(backend, dt), current_(current), reference_(backend) {}

  VectorId current_;

private:
  OwnedVector reference_;
};

} // namespace decgpe
