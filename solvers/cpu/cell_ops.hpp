#pragma once
// Per-cell operations of the CPU backends, written once so that `reference` and `openmp` run the
// same arithmetic.

#include "solvers/backend.hpp"
#include "solvers/leapfrog.hpp"

#include <cmath>

namespace decgpe::cpu {

/// V at cell l of instance (sx, sy, sz), global index i.
inline double potential_at(const Problem& p, std::int64_t sx, std::int64_t sy, std::int64_t sz,
                           int l, std::int64_t i) {
  if (p.potential.kind == Potential::Kind::tabulated) {
    return p.potential.values[static_cast<std::size_t>(i)];
  }
  const lattices::Vec3 r = p.grid.position(sx, sy, sz, l);
  return harmonic_potential(r.x, r.y, r.z, p.potential.lambda);
}

/// Σ_F w_F (ψ_i − ψ_j) with ψ_j = 0 outside the domain (Dirichlet), bounds checked per face; sz
/// is the local slice (a slab stores its neighbours' boundary slices, so memory is local).
inline Complex laplacian_checked(const Grid& g, const Complex* psi, std::int64_t sx,
                                 std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  Complex lap{0.0, 0.0};
  const Complex psi_i = psi[i];
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    const std::int64_t nx = sx + s.dx, ny = sy + s.dy, nz = sz + s.dz;
    Complex psi_j{0.0, 0.0};
    if (nx >= 0 && ny >= 0 && nx < g.size[0] && ny < g.size[1] && g.z_inside(nz + g.z_offset)) {
      psi_j = psi[g.ms * ((nz * g.size[1] + ny) * g.size[0] + nx) + s.neighbour];
    }
    lap = add_face(lap, s.weight, psi_i, psi_j);
  }
  return lap;
}

/// Adds cell i's terms to the diagnostic sums.
/// `weight_sum` is the cell's Σ_F w_F.
inline void accumulate(Diagnostics& d, double volume, double weight_sum, Complex previous,
                       Complex current, Complex reference, Complex laplacian, double v, double g) {
  const double rho = norm2(current);
  d.max_diagonal = std::max(d.max_diagonal, 0.5 * weight_sum + v + g * rho);
  d.norm += volume * rho;
  d.energy += volume * (0.5 * conj_mul(current, laplacian).re + v * rho + 0.5 * g * rho * rho);
  d.invariant += volume * conj_mul(previous, current).re;
  d.overlap = d.overlap + volume * conj_mul(reference, current);
  d.max_abs = std::max(d.max_abs, std::sqrt(rho));
  d.finite = d.finite && std::isfinite(current.re) && std::isfinite(current.im);
}

inline void combine(Diagnostics& into, const Diagnostics& part) {
  into.norm += part.norm;
  into.energy += part.energy;
  into.invariant += part.invariant;
  into.overlap = into.overlap + part.overlap;
  into.max_abs = std::max(into.max_abs, part.max_abs);
  into.max_diagonal = std::max(into.max_diagonal, part.max_diagonal);
  into.finite = into.finite && part.finite;
}

} // namespace decgpe::cpu
