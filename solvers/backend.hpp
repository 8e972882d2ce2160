#pragma once
// One interface for every backend (BabelStream-style): the state lives where the backend computes,
// and only diagnostics (a few numbers) cross to the host per cadence; ψ crosses only for snapshots
// and the final state.
//
// State convention: two buffers updated in place (paper §4). After n steps the backend holds ψ^n
// ("current") and ψ^{n−1} ("previous"); a step overwrites ψ^{n−1} with ψ^{n+1} and swaps the roles.

#include "solvers/complex.hpp"
#include "solvers/problem.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe {

/// Sums over the backend's cells, so that partial results of several slabs or ranks combine by
/// adding (max for max_abs, and for finite).
struct Diagnostics {
  double norm = 0.0;   ///< Σ|B_i| |ψ^n_i|²
  double energy = 0.0; ///< Σ|B_i| [conj(ψ_i) (½Lψ)_i + V_i|ψ_i|² + ½g|ψ_i|⁴] at level n
  double invariant =
      0.0; ///< Re Σ|B_i| conj(ψ^{n−1}_i) ψ^n_i: conserved exactly by the leapfrog scheme
  Complex overlap{0.0, 0.0}; ///< Σ|B_i| conj(ψ₀_i) ψ^n_i
  double max_abs = 0.0;      ///< max_i |ψ^n_i|
  double max_diagonal =
      0.0; ///< max_i M_ii = max_i (½ Σ_F w_F + V_i + g|ψ_i|²); eq. 11's bound is 1/(2 of it)
  bool finite = true; ///< all of ψ^n finite
};

class Backend {
public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string name() const = 0;
  virtual std::string
  device() const = 0; ///< where it runs, for provenance ("2 OpenMP threads", a GPU's name)

  /// Sets ψ^{n−1}, ψ^n and the reference state ψ₀ used by the overlap; each has grid.cells()
  /// values.
  virtual void load(std::span<const Complex> previous, std::span<const Complex> current,
                    std::span<const Complex> reference) = 0;
  /// Advances `steps` leapfrog steps; may return before they finish (see synchronize).
  virtual void advance(long steps) = 0;
  /// Blocks until all work queued by advance() is done; the CPU backends are synchronous already.
  virtual void synchronize() {}
  virtual Diagnostics diagnostics() = 0;
  /// Copies ψ^n and ψ^{n−1} to the host.
  virtual void store(std::span<Complex> current, std::span<Complex> previous) = 0;
};

/// Backends this build has, in order of preference for "auto": cuda (when built), openmp,
/// reference.
std::vector<std::string_view> backend_names();

/// Makes a backend by name ("auto" picks the first usable one; "cuda:plain" and "cuda:shared" force
/// a CUDA kernel variant, "cuda" takes the one measured fastest for the lattice); throws
/// std::invalid_argument for an unknown name and std::runtime_error when it cannot run here.
std::unique_ptr<Backend> make_backend(std::string_view name, const Problem& problem);

} // namespace decgpe
