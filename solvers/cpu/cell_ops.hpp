#pragma once
// Cell access of the CPU backends, written once so that `reference` and `openmp` read the same
// neighbours and potential; the arithmetic itself is solvers/cell_arithmetic.hpp.

#include "solvers/backend.hpp"

namespace decgpe::cpu {

/// V at cell l of instance (sx, sy, local sz), stored index i.
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

/// What a stencil kernel does with a cell once its face sum is known: the one place the kernels'
/// per-cell updates are spelt out for the CPU backends.
struct CellUpdate {
  const Problem& p;

  void leapfrog(Complex* older, const Complex* newer, std::int64_t i, const Complex& lap, double v,
                double two_dt) const {
    older[i] = step_along(older[i], two_dt, apply_m(newer[i], lap, v, p.g));
  }
  void apply(Complex* out, const Complex* in, std::int64_t i, const Complex& lap, double v) const {
    out[i] = apply_m(in[i], lap, v, p.g);
  }
  /// `input`, `base`, `acc`, `next` as in Rk4Stage.
  void rk4(const Rk4Stage& s, const Complex* input, const Complex* base, Complex* acc,
           Complex* next, std::int64_t i, const Complex& lap, double v) const {
    const Complex m = apply_m(input[i], lap, v, p.g);
    if (s.stage == 3) {
      next[i] = step_along(acc[i], s.acc_tau, m);
      return;
    }
    const Complex from = base[i];
    acc[i] = step_along(s.stage == 0 ? from : acc[i], s.acc_tau, m);
    next[i] = step_along(from, s.next_tau, m);
  }
};

} // namespace decgpe::cpu
