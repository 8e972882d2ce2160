#pragma once
// Running a scheme on a backend for a test: small trap-sized problems, a started scheme, and the
// weighted L2 distance between states.

#include "setup/initial_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stability.hpp"
#include "verify/bitwise.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace decgpe::verify {

/// About `cells` cells of `lattice` in a trap-sized domain (~9 trap units a side), S chosen so
/// that boundary and interior cells exist on every axis.
inline Problem trap_problem(std::string_view lattice, double cells, double lambda, double g) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const int n =
      std::max(4, static_cast<int>(std::lround(std::cbrt(cells / c.cells_per_structure()))));
  Problem p;
  p.grid =
      make_grid(c, {n, std::max(2, static_cast<int>(std::lround(n / c.box.y))), n + 1}, 9.0 / n);
  p.potential.lambda = lambda;
  p.g = g;
  return p;
}

/// The λ = 1 vortex, normalised: not stationary in a trap of another λ or with g ≠ 0.
inline std::vector<Complex> vortex(const Grid& grid) {
  return sample_normalised(grid, HarmonicVortex{1, 1.0}, 0.0);
}

/// The scheme's stability limit for the problem at ψ⁰.
inline double scheme_limit(std::string_view scheme, const Problem& p,
                           const std::vector<Complex>& psi0) {
  return find_scheme(scheme).limit_factor /
         estimate_spectrum(p.grid, p.potential, p.g, psi0).radius;
}

/// A step for testing the scheme: 0.9 of its limit, or for a scheme without one twice the
/// leapfrog's (past every explicit scheme's limit).
inline double test_step(std::string_view scheme, const Problem& p,
                        const std::vector<Complex>& psi0) {
  const double limit = scheme_limit(scheme, p, psi0);
  return std::isfinite(limit) ? 0.9 * limit : 2.0 * scheme_limit("leapfrog", p, psi0);
}

/// Steps of each scheme in a backend comparison: about the same work for each.
inline long comparison_steps(std::string_view scheme, long leapfrog_steps) {
  if (scheme == "leapfrog") {
    return leapfrog_steps;
  }
  return scheme == "rk4" ? leapfrog_steps / 4 : leapfrog_steps / 16;
}

/// Every kernel of the set but the fused steps, in turn on one backend, with the state after each
/// downloaded: two backends' trails must agree bit for bit.
inline std::vector<std::vector<Complex>> kernel_trail(Backend& b,
                                                      const std::vector<Complex>& psi0) {
  std::vector<std::vector<Complex>> trail;
  const VectorId x = b.create_vector(), y = b.create_vector(), z = b.create_vector();
  const auto keep = [&](VectorId v) {
    std::vector<Complex> out(psi0.size());
    b.download(v, out);
    trail.push_back(std::move(out));
  };
  b.upload(x, psi0);
  b.apply_m(x, y); // y = Mx
  keep(y);
  b.rotate_phase(x, 0.37); // x = e^{−iτU} x
  keep(x);
  b.axpby(z, {0.25, -1.5}, x, {2.0, 0.125}, y); // z = a x + b y
  b.axpby(z, {1.0, 0.0}, z, {0.0, -0.5}, y);    // in place
  keep(z);
  b.rotate_faces({x, y, 0, 0.05});
  b.rotate_faces({y, x, 1, 0.05, 0.21}); // the phase fused in
  keep(x);
  b.polynomial_term({x, kNoVector, y, z, 0.3, -0.7, 0.0, {0.5, -0.25}, false});
  keep(z);
  b.polynomial_term({x, kNoVector, y, z, 0.3, -0.7, 0.0, {0.5, -0.25}, false, true, {0.2, 0.9}});
  b.polynomial_term({y, x, x, z, 0.6, -1.4, -1.0, {-0.125, 0.75}, true}); // in place over prev
  keep(x);
  keep(z);
  // The adaptive steps' reduction: every cell, a density floor that leaves some out, a difference.
  std::vector<Complex> maxima;
  for (const auto& [other, floor] :
       {std::pair{kNoVector, 0.0}, std::pair{kNoVector, 1e-3}, std::pair{z, 1e300}}) {
    const StepMaxima m = b.step_maxima(x, other, floor);
    maxima.push_back({m.phase_rate, m.difference});
  }
  trail.push_back(std::move(maxima));
  for (VectorId v : {x, y, z}) {
    b.destroy_vector(v);
  }
  return trail;
}

/// A backend and a scheme on it, started from ψ⁰ (the discrete start unless `previous` is given).
struct LiveScheme {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Scheme> scheme;

  LiveScheme(std::string_view backend_name, std::string_view scheme_name, const Problem& p,
             double dt, const std::vector<Complex>& psi0, const std::vector<Complex>& previous = {},
             const BackendTuning& tuning = {})
      : backend(make_backend(backend_name, p, nullptr, tuning)),
        scheme(make_scheme(scheme_name, *backend, dt)) {
    scheme->start({psi0, psi0, previous});
  }

  std::vector<Complex> level(int index, const Problem& p) {
    std::vector<Complex> v(static_cast<std::size_t>(p.grid.cells()));
    scheme->download(index, v);
    return v;
  }
};

/// sqrt(Σ|B_i| |a_i − b_i|²).
inline double distance(const Grid& g, const std::vector<Complex>& a,
                       const std::vector<Complex>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sum += g.volume[i % static_cast<std::size_t>(g.ms)] * norm2(a[i] - b[i]);
  }
  return std::sqrt(sum);
}

} // namespace decgpe::verify
