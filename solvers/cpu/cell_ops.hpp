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

/// ψ_i in FP64 (exact), zero for a null vector: what the diagnostics measure in every precision.
template <class Store> Complex widened(const BasicComplex<Store>* psi, std::int64_t i) {
  return psi != nullptr ? convert<double>(psi[i]) : Complex{0.0, 0.0};
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

/// Σ_F w_F (ψ_i − ψ_j) with ψ_j = 0 outside the domain (Dirichlet), bounds checked per face, in
/// Real from ψ stored as Store; sz is the local slice (a slab stores its neighbours' boundary
/// slices, so memory is local).
template <class Real, class Store>
BasicComplex<Real> laplacian_checked(const Grid& g, const BasicComplex<Store>* psi, std::int64_t sx,
                                     std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  BasicComplex<Real> lap{0, 0};
  const BasicComplex<Real> psi_i = convert<Real>(psi[i]);
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    std::int64_t j = 0;
    lap = add_face(lap, static_cast<Real>(s.weight), psi_i,
                   neighbour_index(g, s, sx, sy, sz, j) ? convert<Real>(psi[j])
                                                        : BasicComplex<Real>{0, 0});
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
/// magnetic Laplacian as magnetic_sum() forms it in Real, its hops in stencil-table order.
template <class Real, class Store>
BasicComplex<Real> magnetic_laplacian(const Grid& g, const Rotation& r,
                                      const BasicComplex<Store>* psi, std::int64_t sx,
                                      std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  BasicComplex<Real> hops{0, 0};
  const lattices::Vec3 c_i = from_axis(g, r, sx, sy, sz, l);
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    const lattices::Vec3 c_j = from_axis(g, r, sx + s.dx, sy + s.dy, sz + s.dz, s.neighbour);
    std::int64_t j = 0;
    const BasicComplex<Real> psi_j =
        neighbour_index(g, s, sx, sy, sz, j) ? convert<Real>(psi[j]) : BasicComplex<Real>{0, 0};
    hops = add_hop(
        hops, weighted_phase<Real>(s.weight, rotating_phase(r.omega, c_i.x, c_i.y, c_j.x, c_j.y)),
        psi_j);
  }
  return magnetic_sum(static_cast<Real>(g.weight_sum[static_cast<std::size_t>(l)]),
                      convert<Real>(psi[i]), hops);
}

/// Cell i after one colour of a Trotter–Suzuki sweep in Real: its face of that colour rotated
/// exactly (face_rotations' k: interior at 2e, boundary at 2e + 1, rounded to Real), or ψ_i when it
/// has none.
template <class Real, class Store>
BasicComplex<Real> face_rotated(const Grid& g, const FaceColouring& colouring, const Complex* k,
                                int colour, const BasicComplex<Store>* psi, std::int64_t sx,
                                std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  const BasicComplex<Real> psi_i = convert<Real>(psi[i]);
  const int f = colouring.face_of(colour, cell_parity(sx, sy, sz + g.z_offset), l);
  if (f < 0) {
    return psi_i;
  }
  const int e = g.row_begin[l] + f;
  std::int64_t j = 0;
  if (neighbour_index(g, g.stencil[static_cast<std::size_t>(e)], sx, sy, sz, j)) {
    return rotate_face(psi_i, convert<Real>(psi[j]), convert<Real>(k[2 * e]));
  }
  return rotate_face(psi_i, BasicComplex<Real>{0, 0}, convert<Real>(k[2 * e + 1]));
}

/// face_rotated() in the rotating frame: the face's block in cell i's gauge, ψ_j carried by
/// e^{−iθ_ij}. Cell j's side carries ψ_i by e^{−iθ_ji} = e^{iθ_ij}, so the pair (ψ_i,
/// e^{−iθ_ij}ψ_j) takes the lab frame's exact rotation: still unitary, the block now
/// complex-Hermitian.
template <class Real, class Store>
BasicComplex<Real>
face_rotated_magnetic(const Grid& g, const Rotation& r, const FaceColouring& colouring,
                      const Complex* k, int colour, const BasicComplex<Store>* psi, std::int64_t sx,
                      std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
  const BasicComplex<Real> psi_i = convert<Real>(psi[i]);
  const int f = colouring.face_of(colour, cell_parity(sx, sy, sz + g.z_offset), l);
  if (f < 0) {
    return psi_i;
  }
  const int e = g.row_begin[l] + f;
  const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
  std::int64_t j = 0;
  if (neighbour_index(g, s, sx, sy, sz, j)) {
    const lattices::Vec3 c_i = from_axis(g, r, sx, sy, sz, l);
    const lattices::Vec3 c_j = from_axis(g, r, sx + s.dx, sy + s.dy, sz + s.dz, s.neighbour);
    return rotate_face(
        psi_i,
        transported(convert<Real>(psi[j]), rotating_phase(r.omega, c_i.x, c_i.y, c_j.x, c_j.y)),
        convert<Real>(k[2 * e]));
  }
  return rotate_face(psi_i, BasicComplex<Real>{0, 0}, convert<Real>(k[2 * e + 1]));
}

/// What a stencil kernel does with a cell once its face sum is known: the one place the kernels'
/// per-cell updates are spelt out for the CPU backends. Values are read from Store into Real, the
/// coefficients rounded to Real, and each result rounded to Store once, when it is stored.
template <class Types> struct CellUpdate {
  using Real = typename Types::Real;
  using Value = BasicComplex<typename Types::Store>;
  using R = BasicComplex<Real>;
  const Problem& p;

  static R load(const Value* v, std::int64_t i) { return convert<Real>(v[i]); }
  static void store(Value* v, std::int64_t i, R value) {
    v[i] = convert<typename Types::Store>(value);
  }
  R m(const Value* psi, std::int64_t i, const R& lap, double v) const {
    return decgpe::apply_m(load(psi, i), lap, static_cast<Real>(v), static_cast<Real>(p.g));
  }

  void leapfrog(Value* older, const Value* newer, std::int64_t i, const R& lap, double v,
                double two_dt) const {
    store(older, i, step_along(load(older, i), static_cast<Real>(two_dt), m(newer, i, lap, v)));
  }
  void apply(Value* out, const Value* in, std::int64_t i, const R& lap, double v) const {
    store(out, i, m(in, i, lap, v));
  }
  /// PolynomialTerm's update of cell i; `prev` may be null (zero).
  static void polynomial(const PolynomialTerm& t, const Value* in, const Value* prev, Value* out,
                         Value* acc, std::int64_t i, const R& lap) {
    const R psi = load(in, i);
    const R next = recurrence_term(psi, lap, prev != nullptr ? load(prev, i) : R{0, 0},
                                   static_cast<Real>(t.alpha), static_cast<Real>(t.beta),
                                   static_cast<Real>(t.gamma));
    const R sum = accumulate_term(t.first, t.first ? R{0, 0} : load(acc, i), convert<Real>(t.c_in),
                                  psi, convert<Real>(t.c), next);
    store(out, i, next);
    store(acc, i, sum);
  }
  /// `input`, `base`, `acc`, `next` as in Rk4Stage.
  void rk4(const Rk4Stage& s, const Value* input, const Value* base, Value* acc, Value* next,
           std::int64_t i, const R& lap, double v) const {
    const R mi = m(input, i, lap, v);
    if (s.stage == 3) {
      store(next, i, step_along(load(acc, i), static_cast<Real>(s.acc_tau), mi));
      return;
    }
    const R from = load(base, i);
    store(acc, i, step_along(s.stage == 0 ? from : load(acc, i), static_cast<Real>(s.acc_tau), mi));
    store(next, i, step_along(from, static_cast<Real>(s.next_tau), mi));
  }
  /// exp(−iτ(V + g|ψ|²)) ψ of cell i.
  void rotate_phase(Value* psi, std::int64_t i, double v, double tau) const {
    store(psi, i,
          decgpe::rotate_phase(load(psi, i), static_cast<Real>(v), static_cast<Real>(p.g),
                               static_cast<Real>(tau)));
  }
  /// a x + b y of cell i.
  static void axpby(Value* out, Complex a, const Value* x, Complex b, const Value* y,
                    std::int64_t i) {
    store(out, i, decgpe::axpby(convert<Real>(a), load(x, i), convert<Real>(b), load(y, i)));
  }
};

} // namespace decgpe::cpu
