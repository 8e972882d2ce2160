#pragma once
// The adaptive-step tests' problem: a condensate compressed by a tightening trap, so that g|ψ|²
// and with it the phase criterion's step change during the run.

#include "solvers/schemes/step_control.hpp"
#include "verify/scheme_runs.hpp"

#include <algorithm>
#include <vector>

namespace decgpe::verify {

/// The weak trap V = ½r² with g = 400: a Thomas–Fermi condensate (μ ≈ 6, radius ≈ 3.4) in which
/// V + g|ψ|² ≈ μ over the whole cloud.
inline Problem weak_trap(std::string_view lattice, double cells) {
  return trap_problem(lattice, cells, 1.0, 100.0);
}

/// The trap tightens at t = 0 to V = 2r² (twice the frequency, tabulated): the condensate
/// contracts, its density and with it V + g|ψ|² over the cloud rise until it bounces back.
inline Problem quench_problem(std::string_view lattice, double cells) {
  Problem p = weak_trap(lattice, cells);
  p.potential.kind = Potential::Kind::tabulated;
  p.potential.values.resize(static_cast<std::size_t>(p.grid.cells()));
  for (std::int64_t i = 0; i < p.grid.cells(); ++i) {
    const lattices::Vec3 r = p.grid.position(i);
    p.potential.values[static_cast<std::size_t>(i)] = 4.0 * harmonic_potential(r.x, r.y, r.z, 1.0);
  }
  return p;
}

/// The weak trap's ground state, near enough: the normalised gradient flow ψ ← ψ − τ M(ψ)ψ from
/// the g = 0 Gaussian to t = 10, where the slowest mode (gap ≈ ω = 1) has decayed by e^{−10}.
inline std::vector<Complex> quench_start(const Problem& quenched) {
  Problem weak = quenched;
  weak.potential = Potential{};
  const std::vector<Complex> gaussian = sample_normalised(weak.grid, HarmonicVortex{0, 1.0}, 0.0);
  const std::unique_ptr<Backend> b = make_backend("openmp", weak);
  const VectorId psi = b->create_vector(), m = b->create_vector();
  b->upload(psi, gaussian);
  const double tau = 0.5 / estimate_spectrum(weak.grid, weak.potential, weak.g, gaussian).radius;
  for (double t = 0.0; t < 10.0; t += tau) {
    b->apply_m(psi, m);
    b->axpby(psi, {1.0, 0.0}, psi, {-tau, 0.0}, m);
    const double norm = b->diagnostics(psi, kNoVector, psi).norm;
    b->axpby(psi, {1.0 / std::sqrt(norm), 0.0}, psi, {0.0, 0.0}, psi);
  }
  std::vector<Complex> ground(gaussian.size());
  b->download(psi, ground);
  return ground;
}

inline double max_density(const std::vector<Complex>& psi) {
  double most = 0.0;
  for (const Complex& z : psi) {
    most = std::max(most, norm2(z));
  }
  return most;
}

/// Phase criterion θ = 0.05 over the cells above 1% of the initial peak density, or step
/// doubling at `tolerance`; steps of at most 0.01 to t = end_time.
inline AdaptiveSettings quench_settings(const std::vector<Complex>& psi0, double end_time,
                                        double tolerance = 1e-8) {
  return {end_time, 0.01, 0.05, 1e-2 * max_density(psi0), tolerance};
}

/// The phase criterion's rate computed on the host from a downloaded state: what the backend's
/// reduction must give.
inline double host_phase_rate(const Problem& p, const std::vector<Complex>& psi, double floor) {
  double rate = 0.0;
  for (std::size_t i = 0; i < psi.size(); ++i) {
    const double rho = norm2(psi[i]);
    if (rho >= floor) {
      rate = std::max(rate, std::abs(p.potential.values[i] + p.g * rho));
    }
  }
  return rate;
}

} // namespace decgpe::verify
