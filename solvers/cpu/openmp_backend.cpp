// `openmp`: the reference arithmetic on all host cores. Rows of structure instances (fixed y, z)
// are shared among threads; instances whose neighbours are all inside the domain take a path
// without bounds checks, reading ψ_j at i + Δ_e with the offsets Δ_e precomputed per stencil entry.
// Faces are summed in the same order as in `reference`, so the state is bitwise identical to it.

#include "solvers/cpu/backends.hpp"
#include "solvers/cpu/cell_ops.hpp"
#include "solvers/cpu/host_state.hpp"
#include "solvers/halo_exchange.hpp"

#include <omp.h>

namespace decgpe::cpu {

namespace {

class OpenMPBackend final : public Backend {
public:
  OpenMPBackend(const Problem& problem, HaloExchange* halo)
      : p_(problem), halo_(halo), state_(problem.grid.cells()) {
    const Grid& g = p_.grid;
    for (int l = 0; l < g.ms; ++l) {
      for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
        const StencilEntry& s = g.stencil[e];
        delta_.push_back(g.ms * ((std::int64_t{s.dz} * g.size[1] + s.dy) * g.size[0] + s.dx) +
                         s.neighbour - l);
      }
    }
  }

  std::string name() const override { return "openmp"; }
  std::string device() const override {
    return "CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
  }

  void load(std::span<const Complex> previous, std::span<const Complex> current,
            std::span<const Complex> reference) override {
    state_.load(previous, current, reference);
  }
  void store(std::span<Complex> current, std::span<Complex> previous) override {
    state_.store(current, previous);
  }

  void advance(long steps) override {
    const Grid& g = p_.grid;
    for (long n = 0; n < steps; ++n) {
      if (halo_ == nullptr) {
        update(g.owned_begin, g.owned_end);
      } else {
        // Split phase: the boundary slices first, their exchange overlapping the interior's update.
        update(g.owned_begin, g.owned_begin + 1);
        update(std::max(g.owned_begin + 1, g.owned_end - 1), g.owned_end);
        halo_->begin(state_.previous(), nullptr);
        update(g.owned_begin + 1, g.owned_end - 1);
        halo_->end(nullptr);
      }
      state_.swap();
    }
  }

  Diagnostics diagnostics() override {
    Diagnostics total;
    const Complex* psi = state_.current();
    const Complex* prev = state_.previous();
    const Complex* ref = state_.reference();
#pragma omp parallel
    {
      Diagnostics mine;
      for_each_cell_in_team(
          [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i,
              const Complex& lap) {
            accumulate(mine, p_.grid.volume[l], p_.grid.weight_sum[l], prev[i], psi[i], ref[i], lap,
                       potential_at(p_, sx, sy, sz, l, i), p_.g);
          },
          psi, p_.grid.owned_begin, p_.grid.owned_end);
#pragma omp critical
      combine(total, mine);
    }
    return total;
  }

private:
  /// ψ^{n+1} on the local slices [z_begin, z_end), written over ψ^{n−1}.
  void update(int z_begin, int z_end) {
    const Complex* psi = state_.current();
    Complex* out = state_.previous();
    const double two_dt = 2.0 * p_.dt;
    for_each_cell(
        [&](std::int64_t sx, std::int64_t sy, std::int64_t sz, int l, std::int64_t i,
            const Complex& lap) {
          out[i] = leapfrog_update(out[i], psi[i], lap, potential_at(p_, sx, sy, sz, l, i), p_.g,
                                   two_dt);
        },
        psi, z_begin, z_end);
  }

  /// Calls f(sx, sy, sz, l, i, Σ_F w (ψ_i − ψ_j)) for every cell of the local slices
  /// [z_begin, z_end), rows shared among a new thread team.
  template <class F> void for_each_cell(F&& f, const Complex* psi, int z_begin, int z_end) const {
#pragma omp parallel
    for_each_cell_in_team(f, psi, z_begin, z_end);
  }

  /// The work-shared loop; call inside a parallel region.
  template <class F>
  void for_each_cell_in_team(F&& f, const Complex* psi, int z_begin, int z_end) const {
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
            f(sx, sy, sz, l, i,
              interior ? laplacian_interior(psi, l, i)
                       : laplacian_checked(g, psi, sx, sy, sz, l, i));
          }
        }
      }
    }
  }

  Complex laplacian_interior(const Complex* psi, int l, std::int64_t i) const {
    const Grid& g = p_.grid;
    Complex lap{0.0, 0.0};
    const Complex psi_i = psi[i];
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      lap = add_face(lap, g.stencil[e].weight, psi_i, psi[i + delta_[e]]);
    }
    return lap;
  }

  const Problem& p_;
  HaloExchange* halo_;
  HostState state_;
  std::vector<std::int64_t> delta_; ///< per stencil entry: global index offset to the neighbour
};

} // namespace

std::unique_ptr<Backend> make_openmp_backend(const Problem& problem, HaloExchange* halo) {
  return std::make_unique<OpenMPBackend>(problem, halo);
}

} // namespace decgpe::cpu
