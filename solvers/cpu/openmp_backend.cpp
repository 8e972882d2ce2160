// `openmp`: the reference arithmetic on all host cores. Rows of structure instances (fixed y, z)
// are shared among threads; instances whose neighbours are all inside the domain take a path
// without bounds checks, reading ψ_j at i + Δ_e with the offsets Δ_e precomputed per stencil entry.
// Faces are summed in the same order as in `reference`, so the state is bitwise identical to it.
// On a slab, a stencil kernel exchanges its inputs' halos when they are no longer current
// (solvers/halo_schedule.hpp: every k kernels with k halo slices) and updates the slices that need
// none while the messages are in flight (split phase).

#include "solvers/cpu/backends.hpp"
#include "solvers/cpu/cell_ops.hpp"
#include "solvers/cpu/host_vectors.hpp"
#include "solvers/halo_exchange.hpp"
#include "solvers/halo_schedule.hpp"
#include "solvers/neighbour_offsets.hpp"

#include <omp.h>

namespace decgpe::cpu {

namespace {

/// In the precision of Types (solvers/precision.hpp): ψ stored as Value, stepped in Real.
template <class Types> class OpenMPBackend final : public Backend {
  using Real = typename Types::Real;
  using Value = BasicComplex<typename Types::Store>;
  using R = BasicComplex<Real>;
  using Update = CellUpdate<Types>;

public:
  OpenMPBackend(const Problem& problem, HaloExchange* halo)
      : p_(problem), halo_(halo), schedule_(problem.grid), vectors_(problem.grid.cells()),
        delta_(neighbour_offsets(problem.grid)), rings_(make_ring_table(problem.grid)) {}

  std::string name() const override { return "openmp"; }
  std::string device() const override {
    return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
  }
  const Problem& problem() const override { return p_; }

  VectorId create_vector() override {
    const VectorId v = vectors_.create();
    schedule_.created(v);
    return v;
  }
  void destroy_vector(VectorId v) override { vectors_.destroy(v); }
  void upload(VectorId v, std::span<const Complex> values) override {
    vectors_.upload(v, values);
    schedule_.uploaded(v);
  }
  void download(VectorId v, std::span<Complex> values) override { vectors_.download(v, values); }

  void apply_m(VectorId in, VectorId out) override {
    const Value* psi = vectors_[in];
    Value* result = vectors_[out];
    stencil(plan(apply_m_access(in, out)), psi, [&](std::int64_t i, const R& lap, double v) {
      Update{p_}.apply(result, psi, i, lap, v);
    });
  }

  void leapfrog_steps(VectorId older, VectorId newer, double dt, long steps) override {
    for (long n = 0; n < steps; ++n) {
      Value* out = vectors_[older];
      const Value* psi = vectors_[newer];
      stencil(plan(leapfrog_access(older, newer)), psi,
              [&](std::int64_t i, const R& lap, double v) {
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
    const StencilPlan p = plan(access(s));
    stencil(p, input, [&](std::int64_t i, const R& lap, double v) {
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
    split_phase(plan(access(s)), [&](int z_begin, int z_end) {
      for_each_index(
          z_begin, z_end,
          [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
            Update::store(
                out, i, face_rotated<Real>(p_.grid, colouring, k, s.colour, psi, sx, sy, sz, l, i));
            if (s.phase_tau != 0.0) {
              Update{p_}.rotate_phase(out, i, potential_at(p_, sx, sy, sz, l, i), s.phase_tau);
            }
          });
    });
  }

  void polynomial_term(const PolynomialTerm& t) override {
    const Value* in = vectors_[t.in];
    const Value* prev = vectors_.optional(t.prev);
    Value* out = vectors_[t.out];
    Value* acc = vectors_[t.acc];
    const StencilPlan p = plan(access(t));
    stencil(p, in, [&](std::int64_t i, const R& lap, double) {
      Update::polynomial(t, in, prev, out, acc, i, lap);
    });
  }

  void axpby(VectorId out, Complex a, VectorId x, Complex b, VectorId y) override {
    const Value* xs = vectors_[x];
    const Value* ys = vectors_[y];
    Value* result = vectors_[out];
    schedule_.pointwise(out, {x, y});
    const auto n = static_cast<std::int64_t>(vectors_.cells());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      Update::axpby(result, a, xs, b, ys, i);
    }
  }

  void rotate_phase(VectorId v, double tau) override {
    Value* psi = vectors_[v];
    with_frame_potential(p_, [&](auto potential) {
      for_each_index(0, p_.grid.size[2],
                     [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
                       Update{p_}.rotate_phase(psi, i, potential(sx, sy, sz, l, i), tau);
                     });
    });
  }

  Diagnostics diagnostics(VectorId current, VectorId previous, VectorId reference) override {
    if (p_.potential.rotation.active()) {
      return rotating_diagnostics(current, previous, reference);
    }
    const Value* psi = vectors_[current];
    const Value* prev = vectors_.optional(previous);
    const Value* ref = vectors_[reference];
    const Grid& g = p_.grid;
    split_phase(plan(diagnostics_access(current, previous, reference)),
                [](int, int) {}); // ψ's halos for ½Lψ
    CellSums total{};
#pragma omp parallel
    {
      CellSums mine{};
      for_each_cell_in_team<double>(
          [&](std::int64_t i, const Complex& lap, double v) {
            const int l = static_cast<int>(i % g.ms);
            accumulate(mine, g.volume[l], g.weight_sum[l], widened(prev, i), widened(psi, i),
                       widened(ref, i), lap, v, p_.g);
          },
          psi, g.owned_begin, g.owned_end);
#pragma omp critical
      total = combine(total, mine);
    }
    return Diagnostics::from(total);
  }

  StepMaxima step_maxima(VectorId x, VectorId y, double density_floor) override {
    const Value* xs = vectors_[x];
    const Value* ys = vectors_.optional(y);
    const Grid& g = p_.grid;
    StepSums total{};
    with_frame_potential(p_, [&](auto potential) {
#pragma omp parallel
      {
        StepSums mine{};
        for_each_index_in_team(
            g.owned_begin, g.owned_end,
            [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
              accumulate_step(mine, widened(xs, i), widened(ys, i), potential(sx, sy, sz, l, i),
                              p_.g, density_floor);
            });
#pragma omp critical
        total = combine(total, mine);
      }
    });
    return StepMaxima::from(total);
  }

  /// Each thread takes whole z-slices; their lists, each in edge-id order, join in slice order.
  std::vector<PiercedEdge> vortex_flux(VectorId psi, double potential_cut) override {
    const Value* values = vectors_[psi];
    const Grid& g = p_.grid;
    split_phase(plan(vortex_flux_access(psi)), [](int, int) {}); // the rings' halo cells
    std::vector<std::vector<PiercedEdge>> by_slice(static_cast<std::size_t>(g.size[2]));
#pragma omp parallel for schedule(dynamic)
    for (int sz = g.owned_begin; sz < g.owned_end; ++sz) {
      pierced_edges(p_, rings_, values, sz, sz + 1, potential_cut,
                    by_slice[static_cast<std::size_t>(sz)]);
    }
    std::vector<PiercedEdge> pierced;
    for (const std::vector<PiercedEdge>& slice : by_slice) {
      pierced.insert(pierced.end(), slice.begin(), slice.end());
    }
    return pierced;
  }

private:
  /// How a stencil kernel runs: over the owned slices of a whole domain, or as the slab's
  /// schedule plans it.
  StencilPlan plan(const KernelAccess& kernel) {
    if (halo_ == nullptr) {
      return {{}, {p_.grid.owned_begin, p_.grid.owned_end}, {}};
    }
    return schedule_.stencil(kernel);
  }

  /// f(i, Σ_F w_F (ψ_i − ψ_j) in Real, V_i) on every cell of the slices `plan` computes.
  template <class F> void stencil(const StencilPlan& plan, const Value* psi, F&& f) {
    split_phase(plan, [&](int z_begin, int z_end) { for_each_cell(f, psi, z_begin, z_end); });
  }

  /// update(z_begin, z_end) over the slices of `plan`: the exchange it names in flight while the
  /// first part is updated.
  template <class F> void split_phase(const StencilPlan& plan, F&& update) {
    std::vector<std::byte*> fields;
    for (const VectorId v : plan.exchange) {
      fields.push_back(reinterpret_cast<std::byte*>(vectors_[v]));
    }
    if (!fields.empty()) {
      halo_->begin(fields, nullptr);
    }
    if (!plan.during.empty()) {
      update(plan.during.begin, plan.during.end);
    }
    if (!fields.empty()) {
      halo_->end(nullptr);
      for (const SliceRange& r : plan.after) {
        if (!r.empty()) {
          update(r.begin, r.end);
        }
      }
    }
  }

  /// f(sx, sy, sz, l, i) for every cell of the local slices [z_begin, z_end), rows shared among
  /// the threads.
  template <class F> void for_each_index(int z_begin, int z_end, F&& f) const {
#pragma omp parallel
    for_each_index_in_team(z_begin, z_end, f);
  }

  /// The work-shared loop of for_each_index; call inside a parallel region.
  template <class F> void for_each_index_in_team(int z_begin, int z_end, F&& f) const {
    const Grid& g = p_.grid;
    const std::int64_t nx = g.size[0], ny = g.size[1];
#pragma omp for collapse(2) schedule(static)
    for (std::int64_t sz = z_begin; sz < z_end; ++sz) {
      for (std::int64_t sy = 0; sy < ny; ++sy) {
        std::int64_t i = g.ms * ((sz * ny + sy) * nx);
        for (std::int64_t sx = 0; sx < nx; ++sx) {
          for (int l = 0; l < g.ms; ++l, ++i) {
            f(sx, sy, sz, l, i);
          }
        }
      }
    }
  }

  /// f for every cell of the local slices [z_begin, z_end), rows shared among a new thread team.
  template <class F> void for_each_cell(F&& f, const Value* psi, int z_begin, int z_end) const {
#pragma omp parallel
    for_each_cell_in_team<Real>(f, psi, z_begin, z_end);
  }

  /// The work-shared loop, face sums in Rl; call inside a parallel region. A rotating frame takes
  /// its own loop.
  template <class Rl, class F>
  void for_each_cell_in_team(F&& f, const Value* psi, int z_begin, int z_end) const {
    if (p_.potential.rotation.active()) {
      for_each_magnetic_cell_in_team<Rl>(f, psi, z_begin, z_end);
      return;
    }
    const Grid& g = p_.grid;
    const std::int64_t nx = g.size[0], ny = g.size[1];
#pragma omp for collapse(2) schedule(static)
    for (std::int64_t sz = z_begin; sz < z_end; ++sz) {
      for (std::int64_t sy = 0; sy < ny; ++sy) {
        const std::int64_t gz = sz + g.z_offset; // Dirichlet faces are the global domain's
        const bool inner_row = sy > 0 && sy < ny - 1 && gz > 0 && gz < g.global_z - 1;
        std::int64_t i = g.ms * ((sz * ny + sy) * nx);
        for (std::int64_t sx = 0; sx < nx; ++sx) {
          const bool interior = inner_row && sx > 0 && sx < nx - 1;
          for (int l = 0; l < g.ms; ++l, ++i) {
            f(i,
              interior ? laplacian_interior<Rl>(psi, l, i)
                       : laplacian_checked<Rl>(g, psi, sx, sy, sz, l, i),
              potential_at(p_, sx, sy, sz, l, i));
          }
        }
      }
    }
  }

  /// f(i, the magnetic face sum, V_i − ½Ω²ρ_i²) on every cell of the local slices [z_begin,
  /// z_end): bounds and phases per face, in the reference's order.
  template <class Rl, class F>
  void for_each_magnetic_cell_in_team(F&& f, const Value* psi, int z_begin, int z_end) const {
    const Rotation& r = p_.potential.rotation;
    for_each_index_in_team(
        z_begin, z_end,
        [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
          f(i, magnetic_laplacian<Rl>(p_.grid, r, psi, sx, sy, sz, l, i),
            p_.potential.in_frame(p_.grid, sx, sy, sz, l, i));
        });
  }

  void rotate_faces_magnetic(const FaceSweep& s) {
    const Value* psi = vectors_[s.in];
    Value* out = vectors_[s.out];
    const FaceColouring& colouring = face_colouring(p_.grid);
    const Complex* k = rotations_.at(p_.grid, s.tau).data();
    const Rotation& r = p_.potential.rotation;
    split_phase(plan(access(s)), [&](int z_begin, int z_end) {
      for_each_index(z_begin, z_end,
                     [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
                       Update::store(out, i,
                                     face_rotated_magnetic<Real>(p_.grid, r, colouring, k, s.colour,
                                                                 psi, sx, sy, sz, l, i));
                       if (s.phase_tau != 0.0) {
                         Update{p_}.rotate_phase(
                             out, i, p_.potential.in_frame(p_.grid, sx, sy, sz, l, i), s.phase_tau);
                       }
                     });
    });
  }

  Diagnostics rotating_diagnostics(VectorId current, VectorId previous, VectorId reference) {
    const Value* psi = vectors_[current];
    const Value* prev = vectors_.optional(previous);
    const Value* ref = vectors_[reference];
    const Grid& g = p_.grid;
    split_phase(plan(diagnostics_access(current, previous, reference)),
                [](int, int) {}); // ψ's halos for both face sums
    RotatingSums total{};
#pragma omp parallel
    {
      RotatingSums mine{};
      for_each_index_in_team(
          g.owned_begin, g.owned_end,
          [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i) {
            accumulate_rotating(
                mine, g.volume[l], g.weight_sum[l], widened(prev, i), widened(psi, i),
                widened(ref, i),
                magnetic_laplacian<double>(g, p_.potential.rotation, psi, sx, sy, sz, l, i),
                p_.potential.in_frame(g, sx, sy, sz, l, i),
                laplacian_checked<double>(g, psi, sx, sy, sz, l, i),
                potential_at(p_, sx, sy, sz, l, i), p_.g);
          });
#pragma omp critical
      total = combine(total, mine);
    }
    return Diagnostics::from(total);
  }

  template <class Rl>
  BasicComplex<Rl> laplacian_interior(const Value* psi, int l, std::int64_t i) const {
    const Grid& g = p_.grid;
    BasicComplex<Rl> lap{0, 0};
    const BasicComplex<Rl> psi_i = convert<Rl>(psi[i]);
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      lap = add_face(lap, static_cast<Rl>(g.stencil[e].weight), psi_i,
                     convert<Rl>(psi[i + delta_[e]]));
    }
    return lap;
  }

  const Problem& p_;
  HaloExchange* halo_;
  HaloSchedule schedule_; ///< used on a slab only
  HostVectors<Value> vectors_;
  std::vector<std::int64_t> delta_; ///< per stencil entry: global index offset to the neighbour
  FaceRotationCache rotations_;
  RingTable rings_;
};

} // namespace

std::unique_ptr<Backend> make_openmp_backend(const Problem& problem, HaloExchange* halo) {
  return with_precision(problem.precision, [&](auto types) -> std::unique_ptr<Backend> {
    return std::make_unique<OpenMPBackend<decltype(types)>>(problem, halo);
  });
}

} // namespace decgpe::cpu
