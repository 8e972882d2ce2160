// `reference`: the oracle. Serial, plain loops over the cells that read like the equations; every
// other backend is tested against it.

#include "solvers/cpu/backends.hpp"
#include "solvers/cpu/cell_ops.hpp"
#include "solvers/cpu/host_vectors.hpp"

namespace decgpe::cpu {

namespace {

/// In the precision of Types (solvers/precision.hpp): ψ stored as Value, stepped in Real.
template <class Types> class ReferenceBackend final : public Backend {
  using Real = typename Types::Real;
  using Value = BasicComplex<typename Types::Store>;
  using Update = CellUpdate<Types>;

public:
  explicit ReferenceBackend(const Problem& problem)
      : p_(problem), vectors_(problem.grid.cells()), rings_(make_ring_table(problem.grid)) {}

  std::string name() const override { return "reference"; }
  std::string device() const override { return "CPU, 1 thread"; }
  const Problem& problem() const override { return p_; }

  VectorId create_vector() override { return vectors_.create(); }
  void destroy_vector(VectorId v) override { vectors_.destroy(v); }
  void upload(VectorId v, std::span<const Complex> values) override { vectors_.upload(v, values); }
  void download(VectorId v, std::span<Complex> values) override { vectors_.download(v, values); }

  void apply_m(VectorId in, VectorId out) override {
    const Value* psi = vectors_[in];
    Value* result = vectors_[out];
    for_each_cell<Real>(psi, [&](std::int64_t i, const BasicComplex<Real>& lap, double v) {
      Update{p_}.apply(result, psi, i, lap, v);
    });
  }

  void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) override {
    for (long n = 0; n < steps; ++n) {
      Value* out = vectors_[older]; // ψ^{n−1}, overwritten with ψ^{n+1}
      const Value* psi = vectors_[newer];
      for_each_cell<Real>(psi, [&](std::int64_t i, const BasicComplex<Real>& lap, double v) {
        Update{p_}.leapfrog(out, psi, i, lap, v, 2.0 * dt);
      });
      std::swap(older, newer);
    }
  }

  void rk4_stage(const Rk4Stage& s) override {
    const Value* input = vectors_[s.input];
    const Value* base = s.stage == 3 ? nullptr : vectors_[s.base];
    Value* acc = vectors_[s.acc];
    Value* next = vectors_[s.next];
    for_each_cell<Real>(input, [&](std::int64_t i, const BasicComplex<Real>& lap, double v) {
      Update{p_}.rk4(s, input, base, acc, next, i, lap, v);
    });
  }

  void rotate_faces(const FaceSweep& s) override {
    if (p_.potential.rotation.active()) {
      rotate_faces_magnetic(s);
      return;
    }
    const Value* psi = vectors_[s.in];
    Value* out = vectors_[s.out];
    const FaceColouring& colouring = face_colouring(p_.grid);
    const Complex* k = rotations_.at(p_.grid, s.tau).data();
    for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      Update::store(out, i,
                    face_rotated<Real>(p_.grid, colouring, k, s.colour, psi, sx, sy, sz, l, i));
      if (s.phase_tau != 0.0) {
        Update{p_}.rotate_phase(out, i, potential_at(p_, sx, sy, sz, l, i), s.phase_tau);
      }
    });
  }

  void polynomial_term(const PolynomialTerm& t) override {
    const Value* in = vectors_[t.in];
    const Value* prev = vectors_.optional(t.prev);
    Value* out = vectors_[t.out];
    Value* acc = vectors_[t.acc];
    for_each_cell<Real>(in, [&](std::int64_t i, const BasicComplex<Real>& lap, double) {
      Update::polynomial(t, in, prev, out, acc, i, lap);
    });
  }

  void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) override {
    const Value* xs = vectors_[x];
    const Value* ys = vectors_[y];
    Value* result = vectors_[out];
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(vectors_.cells()); ++i) {
      Update::axpby(result, a, xs, b, ys, i);
    }
  }

  void rotate_phase(VectorId v, double tau) override {
    Value* psi = vectors_[v];
    for_each_position(
        [&](std::int64_t i, double potential) { Update{p_}.rotate_phase(psi, i, potential, tau); });
  }

  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    if (p_.potential.rotation.active()) {
      return rotating_diagnostics(current, previous, reference);
    }
    const Value* psi = vectors_[current];
    const Value* prev = vectors_.optional(previous);
    const Value* ref = vectors_[reference];
    const Grid& g = p_.grid;
    CellSums sums{};
    for_each_cell<double>(psi, [&](std::int64_t i, const Complex& lap, double v) {
      const int l = static_cast<int>(i % g.ms);
      accumulate(sums, g.volume[l], g.weight_sum[l], widened(prev, i), widened(psi, i),
                 widened(ref, i), lap, v, p_.g);
    });
    return Diagnostics::from(sums);
  }

  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    const Value* xs = vectors_[x];
    const Value* ys = vectors_.optional(y);
    StepSums maxima{};
    for_each_position([&](std::int64_t i, double v) {
      accumulate_step(maxima, widened(xs, i), widened(ys, i), v, p_.g, density_floor);
    });
    return StepMaxima::from(maxima);
  }

  std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) override {
    std::vector<PiercedEdge> pierced;
    pierced_edges(p_, rings_, vectors_[psi], p_.grid.owned_begin, p_.grid.owned_end, potential_cut,
                  pierced);
    return pierced;
  }

private:
  /// f(i, Σ_F w_F (ψ_i − ψ_j) in R, V_i) for every cell in memory order; in a rotating frame the
  /// magnetic face sum and V − ½Ω²ρ².
  template <class R, class F> void for_each_cell(const Value* psi, F&& f) const {
    const Rotation& r = p_.potential.rotation;
    if (r.active()) {
      for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
        f(i, magnetic_laplacian<R>(p_.grid, r, psi, sx, sy, sz, l, i),
          p_.potential.in_frame(p_.grid, sx, sy, sz, l, i));
      });
      return;
    }
    for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      f(i, laplacian_checked<R>(p_.grid, psi, sx, sy, sz, l, i),
        potential_at(p_, sx, sy, sz, l, i));
    });
  }

  /// f(i, V_i) for every cell in memory order (V − ½Ω²ρ² in a rotating frame).
  template <class F> void for_each_position(F&& f) const {
    with_frame_potential(p_, [&](auto potential) {
      for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
        f(i, potential(sx, sy, sz, l, i));
      });
    });
  }

  void rotate_faces_magnetic(const FaceSweep& s) {
    const Value* psi = vectors_[s.in];
    Value* out = vectors_[s.out];
    const FaceColouring& colouring = face_colouring(p_.grid);
    const Complex* k = rotations_.at(p_.grid, s.tau).data();
    const Rotation& r = p_.potential.rotation;
    for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      Update::store(
          out, i,
          face_rotated_magnetic<Real>(p_.grid, r, colouring, k, s.colour, psi, sx, sy, sz, l, i));
      if (s.phase_tau != 0.0) {
        Update{p_}.rotate_phase(out, i, p_.potential.in_frame(p_.grid, sx, sy, sz, l, i),
                                s.phase_tau);
      }
    });
  }

  Diagnostics rotating_diagnostics(VectorId current, VectorId previous, VectorId reference) {
    const Value* psi = vectors_[current];
    const Value* prev = vectors_.optional(previous);
    const Value* ref = vectors_[reference];
    const Grid& g = p_.grid;
    RotatingSums sums{};
    for_each_index([&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
      accumulate_rotating(
          sums, g.volume[l], g.weight_sum[l], widened(prev, i), widened(psi, i), widened(ref, i),
          magnetic_laplacian<double>(g, p_.potential.rotation, psi, sx, sy, sz, l, i),
          p_.potential.in_frame(g, sx, sy, sz, l, i),
          laplacian_checked<double>(g, psi, sx, sy, sz, l, i), potential_at(p_, sx, sy, sz, l, i),
          p_.g);
    });
    return Diagnostics::from(sums);
  }

  /// f(sx, sy, sz, l, i) for every cell in memory order.
  template <class F> void for_each_index(F&& f) const {
    const Grid& g = p_.grid;
    std::int64_t i = 0;
    for (std::int64_t sz = 0; sz < g.size[2]; ++sz) {
      for (std::int64_t sy = 0; sy < g.size[1]; ++sy) {
        for (std::int64_t sx = 0; sx < g.size[0]; ++sx) {
          for (int l = 0; l < g.ms; ++l, ++i) {
            f(sx, sy, sz, l, i);
          }
        }
      }
    }
  }

  const Problem& p_;
  HostVectors<Value> vectors_;
  FaceRotationCache rotations_;
  RingTable rings_;
};

} // namespace

std::unique_ptr<Backend> make_reference_backend(const Problem& problem, HaloExchange* halo) {
  if (halo != nullptr) {
    throw std::invalid_argument(
        "backend 'reference' runs on one process only (use openmp or cuda)");
  }
  return with_precision(problem.precision, [&](auto types) -> std::unique_ptr<Backend> {
    return std::make_unique<ReferenceBackend<decltype(types)>>(problem);
  });
}

} // namespace decgpe::cpu
