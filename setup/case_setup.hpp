#pragma once
// From a validated case to everything a run needs: the problem (grid, potential), the scheme and
// its Δt within the scheme's stability limit, the schedule and the starting levels of the state.

#include "setup/case_file.hpp"
#include "setup/initial_state.hpp"
#include "solvers/integrator.hpp"
#include "solvers/problem.hpp"
#include "solvers/scaleout/calibration.hpp"
#include "solvers/scaleout/decomposition.hpp"
#include "solvers/schemes/step_control.hpp"
#include "solvers/stability.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace decgpe::setup {

/// How the lattice's own stationary state was obtained (initial.lattice_stationary).
struct LatticeStateInfo {
  double mu = 0.0;             ///< μ_h = ⟨ψ_h|M(ψ_h)ψ_h⟩
  double residual = 0.0;       ///< ‖M(ψ_h)ψ_h − μ_h ψ_h‖
  double start_residual = 0.0; ///< the sampled continuum state's
  int newton_steps = 0;
  long krylov_iterations = 0;
  long stencil_passes = 0;
  double seconds = 0.0;      ///< solving time (0 when loaded)
  std::string cache;         ///< "written" (solved) or "loaded"
  double continuum_mu = 0.0; ///< eq. 14's μ, for comparison
};

/// How initial.kind = "ground_state" relaxed (setup/ground_state.hpp).
struct GroundStateInfo {
  double mu = 0.0;            ///< μ_h = ⟨ψ|M(ψ)ψ⟩
  double energy = 0.0;        ///< E of the diagnostics
  double kinetic = 0.0;       ///< its terms: ⟨ψ, ½Lψ⟩,
  double trap = 0.0;          ///< ⟨ψ, Vψ⟩
  double interaction = 0.0;   ///< and ½g Σ|B||ψ|⁴
  double residual = 0.0;      ///< ‖M(ψ)ψ − μ_h ψ‖
  double energy_change = 0.0; ///< |ΔE| / |E| per iteration over the last check's iterations
  double start_residual = 0.0;
  long iterations = 0;
  long stencil_passes = 0; ///< apply_m calls, the cost
  double seconds = 0.0;
  bool converged = false;
};

struct RunSetup {
  CaseConfig config;
  /// Which z-slices this process holds: the whole domain, or its rank's slab. Everything per cell
  /// below is of the stored slices only; the scalars are the whole domain's, the same bits on any
  /// number of ranks.
  scaleout::Decomposition layout;
  /// The throughputs that sized the slabs, when they were measured (hybrid ranks).
  std::optional<scaleout::Calibration> calibration;
  /// This process's part of the problem: its grid is a slab when the layout is distributed
  /// (grid.global_z and global_cells() give the whole domain).
  Problem problem;
  Schedule schedule;
  double mu =
      0.0; ///< chemical potential (the rotating frame's): the exact state evolves as e^{−iμt}
  double dt = 0.0; ///< the time step (an adaptive run's longest)
  /// An adaptive run's step control (config.adaptive), its density floor made absolute.
  AdaptiveSettings adaptive;
  SpectrumEstimate spectrum; ///< ρ(M(ψ⁰)) and how it was obtained
  /// The scheme's limit: an explicit scheme's stability limit (its factor / ω), a split scheme's
  /// limit for dynamics π / λ_max(½L).
  double limit = 0.0;
  double kinetic_top = 0.0;          ///< λ_max(½L), for a split scheme (0 otherwise)
  std::string limit_method;          ///< what set `limit` (SpectrumEstimate::method, or π/λ)
  double eq11_bound = 0.0;           ///< the paper's bound 1/(2 max M_ii), for comparison
  double normalisation = 1.0;        ///< factor that makes Σ|B||ψ(0)|² = 1
  double operations_per_time = 0.0;  ///< Σ_i #J_i / Δt of this grid and step
  double effective_wavelength = 0.0; ///< 2π / √∫|∇ψ|² (stationary vortex only)
  std::optional<AzimuthalSeed> seed; ///< the perturbation ψ⁰ carries ([initial.seed])
  std::vector<Complex> current;      ///< ψ⁰ = Ψ(r, 0), normalised
  std::vector<Complex> previous;     ///< ψ^{−1} = Ψ(r, −Δt) for start = "paper", else empty
  /// Set by settle_on_lattice() (setup/lattice_state.hpp); until then `current` is the sampled
  /// continuum state, unseeded.
  std::optional<LatticeStateInfo> lattice_state;
  /// Set by settle_on_ground_state() (setup/ground_state.hpp); until then `current` is the sampled
  /// harmonic vortex it starts from, unseeded.
  std::optional<GroundStateInfo> ground_state;
};

/// Where solved stationary-vortex profiles are cached: $DECGPE_CACHE, else out/cache.
std::filesystem::path vortex_cache_dir();

/// Called with this process's cell count (its slab's, halos included) once it is known and before
/// anything per cell is allocated (the memory check); may throw.
using BeforeAllocating = std::function<void(std::int64_t cells)>;

/// Called on every rank once the whole domain's grid is known (`whole`: it, the case's harmonic
/// trap and g) and before the slabs are cut: the calibration whose rates size them, or none for
/// even slabs (solvers/scaleout/calibration.hpp). Collective.
using SlabBalance = std::function<std::optional<scaleout::Calibration>(const Problem& whole)>;

/// V_cut of the vortex lines' region (config.vortex_region): the margin times run.mu for the
/// condensate, +∞ for the whole domain (solvers/vortex_flux.hpp). Read once μ is final (a state
/// solved on the backend replaces it).
double vortex_potential_cut(const RunSetup& run);

/// The scheme's limit from the spectrum of M(ψ⁰), then Δt and the step count (run.spectrum,
/// limit, eq11_bound, dt, schedule.steps, adaptive): prepare_run's, again once ψ⁰ is replaced by
/// a state solved on the backend. Refuses (one line) a step that is not finite and positive, at or
/// above the limit, or a count that does not fit. Collective over the run's ranks.
void choose_step(RunSetup& run, std::span<const Complex> psi0,
                 const std::function<void()>& poll = {});

/// The set-up's cancellation hook, with what the set-up is doing ("solving eq. 14 for the
/// stationary vortex", "sampling the initial state", ...): called often enough in its long parts
/// (the stationary vortex's relaxation, sampling a large state, between phases) that a signal is
/// honoured within a fraction of a second, and may throw to abandon the set-up; empty: never
/// called. Not collective: a rank may throw where another goes on.
using Poll = std::function<void(const char* doing)>;

/// What Poll is told while eq. 14's stationary vortex is solved (it was not in the cache), the
/// set-up's longest part: this pointer, so that a caller may say so once.
inline constexpr const char* kSolvingStationaryVortex = "solving eq. 14 for the stationary vortex";

/// Throws std::invalid_argument / std::runtime_error with one line, e.g. for Δt above the scheme's
/// stability limit or a step count that does not fit. With `comm`, this rank's slab of the ranks
/// of `comm` (collective); without, the whole domain. `poll`: see Poll (the spectrum's Lanczos
/// steps, solvers/stability, are polled before and after only).
RunSetup prepare_run(const CaseConfig& config, const BeforeAllocating& before_allocating = {},
                     MPI_Comm comm = MPI_COMM_NULL, const SlabBalance& balance = {},
                     const Poll& poll = {});

} // namespace decgpe::setup
