#pragma once
// Cell access of the CPU backends, written once so that `reference` and `openmp` read the same
// neighbours and potential; the arithmetic itself is solvers/cell_arithmetic.hpp.

#include "solvers/backend.hpp"
#include "solvers/face_colouring.hpp"

namespace decgpe::cpu {

/// V at cell l of instance (sx, sy, local sz), stored index i.
inline double potential_at(const Problem& p, std::int64_t sx, std::int64_t sy, std::int64_t sz,
                           int l, std::int64_t i) {
  return p.potential.at(p.grid, sx, sy, sz, l, i);
}

/// f(potential), potential(sx, sy, sz, l, i) the V the kernels step with: potential_at(), or
/// V − ½Ω²ρ² in a rotating frame. Chosen once per kernel: the lab frame's loop stays as it was.
template <class F> void with_frame_potential(const Problem& p, F&& f) {
  if (p.potential.rotation.active()) {
    f([&p](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      return p.potential.in_frame(p.grid, sx, sy, sz, l, i);
    });
  } else {
    f([&p](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      return potential_at(p, sx, sy, sz, l, i);
    });
  }
}

/// Whether the neighbour across stencil entry s of a cell in instance (sx, sy, local sz) exists,
/// and its stored index j when it does.
inline bool neighbour_index(const Grid& g, const StencilEntry& s, std::int64_t sx, std::int64_t sy,
                            std::int64_t sz, std::int64_t& j) {
  const std::int64_t nx = sx + s.dx, ny = sy + s.dy, nz = sz + s.dz;
  if (nx >= 0 && ny >= 0 && nx < g.size[0] && ny < g.size[1] && g.z_inside(nz + g.z_offset)) {
    j = g.ms * ((nz * g.size[1] + ny) * g.size[0] + nx) + s.neighbour;
    return true;
  }
  return false;
}

/// Σ_F w_F (ψ_i − ψ_j) with ψ_j = 0 outside the domain (Dirichlet), bounds checked per face; sz
/// is the local slice (a slab stores its neighbours' boundary slices, so memory is local).
inline Complex laplacian_checked(const Grid& g, const Complex* psi, std::int64_t sx,
                                 std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  Complex lap{0.0, 0.0};
  const Complex psi_i = psi[i];
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    std::int64_t j = 0;
    lap = add_face(lap, s.weight, psi_i,
                   neighbour_index(g, s, sx, sy, sz, j) ? psi[j] : Complex{0.0, 0.0});
  }
  return lap;
}

/// Cell l of instance (sx, sy, local sz) relative to the rotation axis, from its global position
/// (the potential's arithmetic): the same bits on a slab as in the whole domain.
inline lattices::Vec3 from_axis(const Grid& g, const Rotation& r, std::int64_t sx, std::int64_t sy,
                                std::int64_t sz, int l) {
  const lattices::Vec3 c = g.position(sx, sy, sz, l);
  return {c.x - r.x0, c.y - r.y0, c.z};
}

/// The rotating frame's face sum Σ_F w_F (ψ_i − e^{−iθ_ij} ψ_j), ψ_j = 0 outside the domain: the
/// magnetic Laplacian as magnetic_sum() forms it, its hops in stencil-table order.
inline Complex magnetic_laplacian(const Grid& g, const Rotation& r, const Complex* psi,
                                  std::int64_t sx, std::int64_t sy, std::int64_t sz, int l,
                                  std::int64_t i) {
  Complex hops{0.0, 0.0};
  const lattices::Vec3 c_i = from_axis(g, r, sx, sy, sz, l);
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    const lattices::Vec3 c_j = from_axis(g, r, sx + s.dx, sy + s.dy, sz + s.dz, s.neighbour);
    std::int64_t j = 0;
    const Complex psi_j = neighbour_index(g, s, sx, sy, sz, j) ? psi[j] : Complex{0.0, 0.0};
    hops = add_hop(
        hops, weighted_phase(s.weight, rotating_phase(r.omega, c_i.x, c_i.y, c_j.x, c_j.y)), psi_j);
  }
  return magnetic_sum(g.weight_sum[static_cast<std::size_t>(l)], psi[i], hops);
}

/// Cell i after one colour of a Trotter–Suzuki sweep: its face of that colour rotated exactly
/// (face_rotations' k: interior at 2e, boundary at 2e + 1), or ψ_i when it has none.
inline Complex face_rotated(const Grid& g, const FaceColouring& colouring, const Complex* k,
                            int colour, const Complex* psi, std::int64_t sx, std::int64_t sy,
                            std::int64_t sz, int l, std::int64_t i) {
  const int f = colouring.face_of(colour, cell_parity(sx, sy, sz + g.z_offset), l);
  if (f < 0) {
    return psi[i];
  }
  const int e = g.row_begin[l] + f;
  std::int64_t j = 0;
  if (neighbour_index(g, g.stencil[static_cast<std::size_t>(e)], sx, sy, sz, j)) {
    return rotate_face(psi[i], psi[j], k[2 * e]);
  }
  return rotate_face(psi[i], Complex{0.0, 0.0}, k[2 * e + 1]);
}

/// face_rotated() in the rotating frame: the face's block in cell i's gauge, ψ_j carried by
/// e^{−iθ_ij}. Cell j's side carries ψ_i by e^{−iθ_ji} = e^{iθ_ij}, so the pair (ψ_i,
/// e^{−iθ_ij}ψ_j) takes the lab frame's exact rotation: still unitary, the block now
/// complex-Hermitian.
inline Complex face_rotated_magnetic(const Grid& g, const Rotation& r,
                                     const FaceColouring& colouring, const Complex* k, int colour,
                                     const Complex* psi, std::int64_t sx, std::int64_t sy,
                                     std::int64_t sz, int l, std::int64_t i) {
  const int f = colouring.face_of(colour, cell_parity(sx, sy, sz + g.z_offset), l);
  if (f < 0) {
    return psi[i];
  }
  const int e = g.row_begin[l] + f;
  const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
  std::int64_t j = 0;
  if (neighbour_index(g, s, sx, sy, sz, j)) {
    const lattices::Vec3 c_i = from_axis(g, r, sx, sy, sz, l);
    const lattices::Vec3 c_j = from_axis(g, r, sx + s.dx, sy + s.dy, sz + s.dz, s.neighbour);
    return rotate_face(
        psi[i], transported(psi[j], rotating_phase(r.omega, c_i.x, c_i.y, c_j.x, c_j.y)), k[2 * e]);
  }
  return rotate_face(psi[i], Complex{0.0, 0.0}, k[2 * e + 1]);
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
  /// PolynomialTerm's update of cell i; `prev` may be null (zero).
  static void polynomial(const PolynomialTerm& t, const Complex* in, const Complex* prev,
                         Complex* out, Complex* acc, std::int64_t i, const Complex& lap) {
    const Complex next = recurrence_term(in[i], lap, prev != nullptr ? prev[i] : Complex{0.0, 0.0},
                                         t.alpha, t.beta, t.gamma);
    const Complex psi = in[i];
    out[i] = next;
    acc[i] = accumulate_term(t.first, t.first ? Complex{0.0, 0.0} : acc[i], t.c_in, psi, t.c, next);
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
