#pragma once
// A backend that forwards every kernel to another and counts what crosses to the host and how many
// vectors live at once: the test hook behind "an adaptive step never copies ψ to the host" and
// behind the registry's vector counts (the memory check's).

#include "solvers/backend.hpp"

#include <algorithm>
#include <memory>
#include <utility>

namespace decgpe::verify {

class CountingBackend final : public Backend {
public:
  explicit CountingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  long downloads = 0;       ///< download() calls: the only way ψ reaches the host
  long step_reductions = 0; ///< step_maxima() calls
  int live_vectors = 0;     ///< vectors created and not destroyed
  int most_live_vectors = 0;

  std::string name() const override { return inner_->name(); }
  const Problem& problem() const override { return inner_->problem(); }
  std::string device() const override { return inner_->device(); }
  VectorId create_vector() override {
    most_live_vectors = std::max(most_live_vectors, ++live_vectors);
    return inner_->create_vector();
  }
  void destroy_vector(VectorId v) override {
    --live_vectors;
    inner_->destroy_vector(v);
  }
  void upload(VectorId v, std::span<const Complex> values) override { inner_->upload(v, values); }
  void download(VectorId v, std::span<Complex> values) override {
    ++downloads;
    inner_->download(v, values);
  }
  void apply_m(VectorId in, VectorId out) override { inner_->apply_m(in, out); }
  std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) override {
    return inner_->vortex_flux(psi, potential_cut);
  }
  void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) override {
    inner_->leapfrog_steps(older, newer, dt, steps);
  }
  void rk4_stage(const Rk4Stage& stage) override { inner_->rk4_stage(stage); }
  void rk4_stages(const std::array<Rk4Stage, 4>& stages) override { inner_->rk4_stages(stages); }
  void rotate_faces(const FaceSweep& sweep) override { inner_->rotate_faces(sweep); }
  void polynomial_term(const PolynomialTerm& term) override { inner_->polynomial_term(term); }
  void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) override {
    inner_->axpby(out, a, x, b, y);
  }
  void rotate_phase(VectorId v, double tau) override { inner_->rotate_phase(v, tau); }
  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    return inner_->diagnostics(current, previous, reference);
  }
  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    ++step_reductions;
    return inner_->step_maxima(x, y, density_floor);
  }
  void synchronize() override { inner_->synchronize(); }

private:
  std::unique_ptr<Backend> inner_;
};

} // namespace decgpe::verify
