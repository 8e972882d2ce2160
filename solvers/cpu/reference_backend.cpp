// `reference`: the oracle. Serial, plain loops that read like eq. 7; every other backend is tested
// against it.

#include "solvers/cpu/backends.hpp"
#include "solvers/cpu/cell_ops.hpp"
#include "solvers/cpu/host_state.hpp"

namespace decgpe::cpu {

namespace {

class ReferenceBackend final : public Backend {
public:
  explicit ReferenceBackend(const Problem& problem) : p_(problem), state_(problem.grid.cells()) {}

  std::string name() const override { return "reference"; }
  std::string device() const override { return "CPU, 1 thread"; }

  void load(std::span<const Complex> previous, std::span<const Complex> current,
            std::span<const Complex> reference) override {
    state_.load(previous, current, reference);
  }
  void store(std::span<Complex> current, std::span<Complex> previous) override {
    state_.store(current, previous);
  }

  void advance(long steps) override {
    const Grid& g = p_.grid;
    const double two_dt = 2.0 * p_.dt;
    for (long n = 0; n < steps; ++n) {
      const Complex* psi = state_.current();
      Complex* out = state_.previous(); // ψ^{n−1}, overwritten with ψ^{n+1}
      std::int64_t i = 0;
      for (std::int64_t sz = 0; sz < g.size[2]; ++sz) {
        for (std::int64_t sy = 0; sy < g.size[1]; ++sy) {
          for (std::int64_t sx = 0; sx < g.size[0]; ++sx) {
            for (int l = 0; l < g.ms; ++l, ++i) {
              const Complex lap = laplacian_checked(g, psi, sx, sy, sz, l, i);
              out[i] = leapfrog_update(out[i], psi[i], lap, potential_at(p_, sx, sy, sz, l, i),
                                       p_.g, two_dt);
            }
          }
        }
      }
      state_.swap();
    }
  }

  Diagnostics diagnostics() override {
    const Grid& g = p_.grid;
    Diagnostics d;
    const Complex* psi = state_.current();
    std::int64_t i = 0;
    for (std::int64_t sz = 0; sz < g.size[2]; ++sz) {
      for (std::int64_t sy = 0; sy < g.size[1]; ++sy) {
        for (std::int64_t sx = 0; sx < g.size[0]; ++sx) {
          for (int l = 0; l < g.ms; ++l, ++i) {
            accumulate(d, g.volume[l], g.weight_sum[l], state_.previous()[i], psi[i],
                       state_.reference()[i], laplacian_checked(g, psi, sx, sy, sz, l, i),
                       potential_at(p_, sx, sy, sz, l, i), p_.g);
          }
        }
      }
    }
    return d;
  }

private:
  const Problem& p_;
  HostState state_;
};

} // namespace

std::unique_ptr<Backend> make_reference_backend(const Problem& problem) {
  return std::make_unique<ReferenceBackend>(problem);
}

} // namespace decgpe::cpu
