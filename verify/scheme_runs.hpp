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

/// A backend and a scheme on it, started from ψ⁰ (the discrete start unless `previous` is given).
struct LiveScheme {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Scheme> scheme;

  LiveScheme(std::string_view backend_name, std::string_view scheme_name, const Problem& p,
             double dt, const std::vector<Complex>& psi0, const std::vector<Complex>& previous = {})
      : backend(make_backend(backend_name, p)), scheme(make_scheme(scheme_name, *backend, dt)) {
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
