#include "setup/case_schema.hpp"

#include "lattices/cell_complex.hpp"
#include "setup/case_file.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>

namespace decgpe::setup {

namespace {

using Kind = KeyRange::Kind;

KeyRange between(double lo, double hi, bool lo_open, bool hi_open) {
  KeyRange range;
  range.kind = Kind::interval;
  range.lo = lo;
  range.hi = hi;
  range.lo_open = lo_open;
  range.hi_open = hi_open;
  return range;
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

KeyRange above(double lo) {
  return between(lo, kInfinity, true, true);
}

KeyRange at_least(double lo) {
  return between(lo, kInfinity, false, true);
}

KeyRange one_of(std::vector<std::string_view> choices) {
  KeyRange range;
  range.kind = Kind::choices;
  range.choices = std::move(choices);
  return range;
}

/// The choices of a typed option: its enum's names (setup/case_file.hpp).
template <class Option> KeyRange one_of_option() {
  const auto names = names_of(Option{});
  return one_of({names.begin(), names.end()});
}

KeyRange non_empty() {
  KeyRange range;
  range.kind = Kind::non_empty;
  return range;
}

// The lattices and schemes are registries of their own: the schema lists what they hold.
KeyRange lattices_known() {
  const std::span<const std::string_view> names = lattices::lattice_names();
  KeyRange range = one_of({names.begin(), names.end()});
  range.registry = "lattice";
  return range;
}

KeyRange schemes_known() {
  KeyRange range = one_of({});
  for (const SchemeEntry& entry : scheme_registry()) {
    range.choices.push_back(entry.name);
  }
  range.registry = "scheme";
  return range;
}

// A winding beyond this is far outside any trap state the solver is meant for, so it is most likely
// a typo.
constexpr double kMaxKappa = 30;
// An imprinted vortex's or ring's charge, either sense.
constexpr double kMaxCharge = 30;
// The split patterns of interest are 2- to 4-fold; 8 leaves room for their harmonics.
constexpr double kMaxSeedMode = 8;

constexpr std::array kTables{
    CaseTable{"", true, "The lattice, the grid's scale and extent, and the interaction strength."},
    CaseTable{"potential", false, "The external potential V."},
    CaseTable{"rotation", false,
              "The frame rotating at Ω about the z axis: H = ½(p − A)² + V − ½Ω²ρ² = ½p² + V − "
              "ΩL_z, A = Ω ẑ × (r − origin), ρ the distance from the axis. On the grid ½(p − A)² "
              "is the magnetic Laplacian: each face's hopping carries the Peierls phase "
              "θ_ij = Ω (x_i y_j − x_j y_i) (coordinates from the axis). The CPU backends run it "
              "with every scheme, and so does the cuda backend (docs/cases.md, \"Rotation\")."},
    CaseTable{"time", true, "The scheme, its time step and how long to run."},
    CaseTable{"initial", true, "The initial state ψ⁰, normalised on the grid (Σ|B_i||ψ_i|² = 1)."},
    CaseTable{"initial.seed", false,
              "A controlled perturbation of ψ⁰, the same function of position on every lattice: "
              "ψ⁰(r) (1 + ε Σ_m cos(mφ + θ_m)), φ the azimuth about the z axis, one random phase "
              "θ_m per mode from `seed` (recorded in the results as `seed_phases`). It seeds the "
              "vortex's split with chosen azimuthal content instead of the grid's own."},
    CaseTable{"initial.vortices", false,
              "Vortex lines along z imprinted on ψ⁰, one `[[initial.vortices]]` table each: ψ⁰ "
              "times e^{iqθ}, θ = atan2(y − y₀, x − x₀), a pure phase (the density is left as it "
              "is and the core fills in as ψ evolves, as after an imprint in the laboratory). "
              "Positions are the trap's, not moved by `offset`.",
              true},
    CaseTable{
        "initial.ring", false,
        "A vortex ring imprinted on ψ⁰: the circle of radius R about the axis through (x, y) "
        "along z, in the plane z: ψ⁰ times e^{iqθ}, θ = atan2(z − z_ring, R − ρ), ρ the "
        "distance from the axis, a pure phase that winds by 2πq around the ring's core, "
        "right-handed about the azimuthal direction (counter-clockwise seen from +z). For q > "
        "0 the flow through the ring runs along +z, the way the ring then moves."},
    CaseTable{"initial.ground_state", false,
              "When `kind = \"ground_state\"` stops relaxing: the normalised gradient flow "
              "ψ ← ψ − Δτ(M(ψ)ψ − μψ) with heavy-ball momentum, renormalised each iteration, on "
              "the run's backend, until both the residual and the energy change are met; a run "
              "that has not met them after `max_iterations` is refused (nothing is written). The "
              "results record μ_h, E, the iterations, residual, energy change and wall time "
              "(`ground_state_*`)."},
    CaseTable{"analysis", false,
              "What a run measures of ψ beyond the diagnostics: the vortex lines (docs/cases.md, "
              "\"Vortex lines\")."},
    CaseTable{"output", false, "Checkpoints during a run."},
};

// After the backends' tables (backend_tunables()).
constexpr CaseTable kNumerics{
    "numerics", false,
    "The arithmetic ψ is stored and stepped in: it changes the results (by the rounding it "
    "allows), so it is part of the problem, recorded in the results and checkpoints."};

constexpr CaseTable kScaleout{
    "scaleout", false,
    "How a run split over MPI ranks (`mpirun -np N decgpe run …`) moves its halos: it changes the "
    "speed, never the results, and is recorded in the results."};

std::vector<CaseKey> top_level_keys() {
  return {
      {"lattice", KeyType::string, "—", "required", lattices_known(),
       "The crystal structure tiled over the domain (`cubic4`: the cubic grid with NLSEmagic's "
       "fourth-order Laplacian instead of the DEC one)."},
      {"h", KeyType::number, "a_ho", "required", above(0),
       "Structure edge length, the size of one structure instance; exactly one of `h` and "
       "`operations_per_time`."},
      {"operations_per_time", KeyType::number, "operations per 1/ω⊥", "required", above(0),
       "Instead of `h`: the h at which Σ_i #J_i / Δt equals this (the paper's Table 1 criterion, "
       "6e9 there); needs `time.dt_fraction_of = \"eq11\"`, `initial.kind = "
       "\"stationary_vortex\"` and a `domain`."},
      {"domain", KeyType::numbers3_or_auto, "a_ho", "required", above(0),
       "Extent of the cuboid centred on the origin that whole structure instances cover, or "
       "`\"auto\"`: eq. 15's cuboid, outside which |ψ⁰| ≤ 1e-5 max|ψ⁰|, grown on each side by "
       "`initial.offset`'s component (needs `initial.kind = \"stationary_vortex\"`); exactly one "
       "of `domain` and `structures`."},
      {"structures", KeyType::integers3, "structures", "required",
       between(1, std::numeric_limits<int>::max(), false, false),
       "S, the number of structure instances along x, y and z; exactly one of `domain` and "
       "`structures`."},
      {"shift",
       KeyType::numbers3,
       "h (structure edges)",
       "[0.0, 0.0, 0.0]",
       {},
       "Offset of the lattice from its placement centred on the origin, along x, y and z (the "
       "paper code's placement is [-0.125, -0.125, -0.125])."},
      {"g",
       KeyType::number,
       "— (ħω⊥ a_ho³ in physical units)",
       "required",
       {},
       "Interaction strength g = 4πN a_s / a_ho of the dimensionless GPE; required, since the "
       "physics has no defaults."},
  };
}

std::vector<CaseKey> potential_keys() {
  return {
      {"potential.kind", KeyType::string, "—", "\"harmonic\"", one_of_option<PotentialKind>(),
       "`\"harmonic\"`: V = ½(x² + y² + λ²z²), computed in the kernels; `\"tabulated\"`: one "
       "value per cell, read from an HDF5 dataset."},
      {"potential.lambda", KeyType::number, "— (ω_z/ω⊥)", "1.0", at_least(0),
       "Trap anisotropy λ = ω_z/ω⊥, of the potential and of the initial state; only with `kind = "
       "\"harmonic\"`."},
      {"potential.file", KeyType::string, "path", "required", non_empty(),
       "HDF5 file of the tabulated potential, relative to the case file's folder; required with "
       "and only with `kind = \"tabulated\"`."},
      {"potential.dataset", KeyType::string, "—", "\"V\"", non_empty(),
       "Dataset in `file` holding V in ħω⊥, one value per cell in the solver's memory order "
       "(§4); only with `kind = \"tabulated\"`."},
  };
}

std::vector<CaseKey> rotation_keys() {
  return {
      {"rotation.omega",
       KeyType::number,
       "ω⊥",
       "0.0",
       {},
       "Ω, the frame's angular velocity about +z (counter-clockwise seen from +z for Ω > 0); "
       "finite, and |Ω| < 1 with the harmonic trap (its radial frequency: at |Ω| ≥ 1 the rotating "
       "frame's trap ½(1 − Ω²)ρ² does not confine; a tabulated potential is not judged); 0: the "
       "lab frame. A κ vortex on the axis of the harmonic trap has μ − κΩ."},
      {"rotation.origin",
       KeyType::numbers3,
       "a_ho",
       "[0.0, 0.0, 0.0]",
       {},
       "A point of the rotation axis (along z; its z is immaterial); the trap's centre, the "
       "origin, by default."},
  };
}

/// The scheme, the step and the run's length.
std::vector<CaseKey> time_step_keys() {
  return {
      {"time.scheme", KeyType::string, "—", "\"leapfrog\"", schemes_known(),
       "The time integrator (the README's table); `decgpe run --scheme` overrides it."},
      {"time.start", KeyType::string, "—", "\"discrete\"", one_of_option<LeapfrogStart>(),
       "The leapfrog's ψ^{−1}: one backward RK4 step of the discrete equation (second order), "
       "or the continuum state at −Δt as the paper does (first order); `\"paper\"` only with "
       "the leapfrog."},
      {"time.dt", KeyType::number, "1/ω⊥", "required", above(0),
       "Time step, below the scheme's stability limit; exactly one of `dt` and `dt_fraction`."},
      {"time.dt_fraction", KeyType::number, "— (of the bound)", "required",
       between(0, 1, true, true),
       "Time step as a fraction of the bound `dt_fraction_of` names; exactly one of `dt` and "
       "`dt_fraction`."},
      {"time.dt_fraction_of", KeyType::string, "—", "\"limit\"", one_of_option<DtBound>(),
       "The bound of `dt_fraction`: the scheme's limit (the explicit schemes' stability limit "
       "from the spectrum of the linearised operator; the split schemes' limit for dynamics "
       "π/λ_max(½L)), or eq. 11's 1/(2 max M_ii); needs `dt_fraction`."},
      {"time.beyond_limit",
       KeyType::boolean,
       "—",
       "false",
       {},
       "Run a split scheme (`trotter_suzuki`, `trotter_suzuki4`, `exponential`) at a step at or "
       "beyond its limit for dynamics π/λ_max(½L), where the kinetic phase of the stencil's "
       "fastest modes wraps in one step: the norm is kept, the energy is not (the state heats); "
       "refused otherwise, and for the explicit schemes, which are unstable there."},
      {"time.end_time", KeyType::number, "1/ω⊥", "required", above(0),
       "Time to run to, Δt shrunk so that whole steps end exactly there; exactly one of "
       "`end_time` and `steps`."},
      {"time.steps", KeyType::integer, "steps", "required", at_least(1),
       "Number of steps to run; exactly one of `end_time` and `steps`."},
  };
}

/// The samples' cadence and the error threshold's stop.
std::vector<CaseKey> time_sampling_keys() {
  return {
      {"time.diagnostics_every", KeyType::integer, "steps", "10", at_least(1),
       "Steps between the samples of the diagnostics series (`/diagnostics`)."},
      {"time.snapshot_every", KeyType::integer, "steps", "0", at_least(0),
       "Steps between snapshots of ψ in the results (0: none)."},
      {"time.spectrum_every", KeyType::integer, "steps", "0", at_least(0),
       "Steps between host probes of ψ (0: none): the azimuthal spectrum of the density change on "
       "z = 0 and the per-cell sums of the paper's RMSE, in `/analysis/history`; also at step 0 "
       "and at the end."},
      {"time.stop_when_error_exceeds", KeyType::number, "—", "none", between(0, 1, true, true),
       "Stop at the first diagnostics step where E = 1 − |⟨ψ⁰|ψ⟩| exceeds this (the vortex "
       "split: 0.01 in the paper); needs `end_time`, the longest run."},
  };
}

/// Relaxation by damping, and adaptive steps.
std::vector<CaseKey> time_damping_adaptive_keys() {
  return {
      {"time.damping", KeyType::number, "—", "0", at_least(0),
       "γ of the damped equation (i − γ)∂ψ/∂t = (M(ψ) − μ)ψ, μ = ⟨ψ, M(ψ)ψ⟩, for relaxation: the "
       "energy falls and ψ is renormalised to Σ|B||ψ|² = 1 after every step (docs/cases.md, "
       "\"Damping\"); rk4 only, fixed steps; 0: none."},
      {"time.adaptive",
       KeyType::boolean,
       "—",
       "false",
       {},
       "Adaptive steps, `dt` or `dt_fraction` the longest (the split schemes' phase criterion, "
       "rk4's step doubling); needs `end_time`, and is refused for the leapfrog."},
      {"time.theta", KeyType::number, "radians", "0.1", above(0),
       "Phase criterion of the split schemes: Δt · max|V + g|ψ|²| ≤ θ over the cells above the "
       "density floor; needs `adaptive = true`."},
      {"time.density_floor", KeyType::number, "— (of max|ψ⁰|²)", "1e-6", between(0, 1, false, true),
       "Phase criterion: cells with |ψ|² below this × max|ψ⁰|² are left out; needs `adaptive = "
       "true`."},
      {"time.tolerance", KeyType::number, "a_ho^−3/2 (as ψ)", "1e-8", above(0),
       "Step doubling (rk4): the largest local error estimate max|ψ^{2×Δt/2} − ψ^{Δt}| / 15 a "
       "step keeps; needs `adaptive = true`."},
  };
}

std::vector<CaseKey> initial_keys() {
  return {
      {"initial.kind", KeyType::string, "—", "\"harmonic_vortex\"", one_of_option<InitialKind>(),
       "ψ ∝ (x + iy)^κ e^{−(ρ² + λz²)/2}, exact for g = 0 with μ = κ + 1 + λ/2, or eq. 14's "
       "stationary vortex of λ, g and κ, solved spectrally and cached (`DECGPE_CACHE`), or ψ read "
       "from an HDF5 file of a run on the same grid (`file`, `dataset`), or the lattice's ground "
       "state of this potential and g, relaxed in imaginary time from the harmonic vortex of κ "
       "(`ground_state`: κ = 0 for the ground state; κ > 0 keeps its winding only as far as the "
       "grid's symmetry keeps it, docs/cases.md)."},
      {"initial.kappa", KeyType::integer, "—", "required", between(0, kMaxKappa, false, false),
       "Winding number κ: the phase turns by 2πκ around the z axis; required with the vortex "
       "kinds, refused with `kind = \"file\"`."},
      {"initial.offset",
       KeyType::numbers3,
       "a_ho",
       "[0.0, 0.0, 0.0]",
       {},
       "The vortex kinds' state moved by this, ψ⁰(r − offset), the trap left centred (a "
       "displaced state oscillates at the trap frequencies: Kohn's theorem); not with `kind = "
       "\"file\"`, `lattice_stationary` or `time.start = \"paper\"`."},
      {"initial.file", KeyType::string, "path", "required", non_empty(),
       "HDF5 file of ψ⁰, relative to the case file's folder: a results file or checkpoint of a "
       "run on the same grid, or any file with such a dataset; required with and only with `kind "
       "= \"file\"`."},
      {"initial.dataset", KeyType::string, "—", "\"/state/current\"", non_empty(),
       "Dataset in `file` holding ψ⁰: one-dimensional, complex (a compound {r, i} of floats, as "
       "h5py writes complex128), one finite value per cell in the solver's memory order (§4); "
       "normalised on the grid as read. A results file's lattice and h must be the case's. Only "
       "with `kind = \"file\"`."},
      {"initial.lattice_stationary",
       KeyType::boolean,
       "—",
       "false",
       {},
       "Start from the grid's own stationary state near ψ⁰ (M(ψ)ψ = μ_h ψ on the lattice, by "
       "Newton–Krylov on the run's backend, cached in `DECGPE_CACHE`) instead of the sampled "
       "continuum state; the seed, if any, is applied to it. One process only (no MPI slabs)."},
      {"initial.stationary_residual", KeyType::number, "— (‖ψ‖ = 1)", "1e-10",
       between(0, 1e-3, true, false),
       "The lattice stationary state's tolerance ‖M(ψ)ψ − μ_h ψ‖; needs `lattice_stationary = "
       "true`."},
      {"initial.stationary_krylov", KeyType::integer, "vectors", "150",
       between(10, 2000, false, false),
       "The lattice stationary state's GMRES basis per Newton step (device memory: one state "
       "each); a larger basis converges in fewer Newton steps where slow modes stall it; needs "
       "`lattice_stationary = true`."},
  };
}

/// The seed, the imprinted vortices and ring, the ground state's relaxation.
std::vector<CaseKey> initial_addition_keys() {
  return {
      {"initial.seed.modes", KeyType::integers, "—", "[1, 2, 3, 4, 5, 6, 7, 8]",
       between(1, kMaxSeedMode, false, false),
       "The azimuthal modes m of the perturbation, each at most once."},
      {"initial.seed.amplitude", KeyType::number, "— (relative to ψ⁰)", "1e-06",
       between(0, 0.1, true, false),
       "ε, each mode's amplitude relative to ψ⁰ (a density modulation of 2ε per mode)."},
      {"initial.seed.seed", KeyType::integer, "—", "1", at_least(0),
       "Seed of the phases θ_m (a 64-bit Mersenne twister, one draw per m = 1…8 whichever modes "
       "are chosen, so that a mode's phase does not depend on the others)."},
      {"initial.vortices.x", KeyType::number, "a_ho", "required", {}, "x₀ of the vortex line."},
      {"initial.vortices.y", KeyType::number, "a_ho", "required", {}, "y₀ of the vortex line."},
      {"initial.vortices.charge", KeyType::integer, "—", "required",
       between(-kMaxCharge, kMaxCharge, false, false),
       "Its charge q: the phase turns by 2πq counter-clockwise about +z (0 imprints nothing)."},
      {"initial.ring.radius", KeyType::number, "a_ho", "required", above(0),
       "R, the radius of the ring's core circle."},
      {"initial.ring.charge", KeyType::integer, "—", "required",
       between(-kMaxCharge, kMaxCharge, false, false),
       "Its charge q: the phase turns by 2πq around the core (0 imprints nothing)."},
      {"initial.ring.x", KeyType::number, "a_ho", "0.0", {}, "x of the ring's axis."},
      {"initial.ring.y", KeyType::number, "a_ho", "0.0", {}, "y of the ring's axis."},
      {"initial.ring.z", KeyType::number, "a_ho", "0.0", {}, "z of the ring's plane."},
      {"initial.ground_state.residual", KeyType::number, "— (‖ψ‖ = 1)", "1e-08",
       between(0, 1e-2, true, false),
       "The relaxation stops once ‖M(ψ)ψ − μψ‖ is at most this (and the energy change is met)."},
      {"initial.ground_state.energy_change", KeyType::number, "— (relative)", "1e-12",
       between(0, 1e-2, true, false),
       "… and |E_k − E_{k−n}| / (n|E_k|), the relative change of E per iteration over the last n "
       "= 10 iterations, is at most this."},
      {"initial.ground_state.max_iterations", KeyType::integer, "iterations", "100000",
       between(1, 1e9, false, false),
       "Iterations after which a relaxation that has not met both tolerances is refused."},
  };
}

std::vector<CaseKey> analysis_output_keys() {
  return {
      {"analysis.vortex_lines_every", KeyType::integer, "steps", "0", at_least(0),
       "Steps between samples of the vortex lines (0: none): the edges ψ's phase winds around, "
       "found on the run's backend, joined into lines in `/vortex_lines` with their series and "
       "events, and a ParaView sidecar `<results>.lines.xmf`; also at step 0 and at the end."},
      {"analysis.vortex_region", KeyType::string, "—", "\"condensate\"",
       one_of_option<VortexRegion>(),
       "Where the vortex lines are measured. \"condensate\": only rings about the primal edges "
       "all of whose cells have V < `vortex_region_margin` · μ (μ of ψ⁰'s state, the run's "
       "chemical potential): lines end where they leave it (an end of kind 2, the region) "
       "instead of filling the round-off outside the condensate with random windings. "
       "\"domain\": every ring, the exact detector of the whole domain, and the default with "
       "`initial.kind = \"file\"` (no μ) (docs/cases.md, \"Vortex lines\")."},
      {"analysis.vortex_region_margin", KeyType::number, "— (of μ)", "1.0", above(0),
       "The condensate's region is V < this · μ (with `vortex_region = \"condensate\"`)."},
      {"output.checkpoint_every", KeyType::integer, "steps", "0", at_least(0),
       "Steps between checkpoints (0: none by steps; a stopped run writes one anyway)."},
      {"output.checkpoint_minutes", KeyType::number, "minutes", "0.0", at_least(0),
       "Wall-clock minutes between checkpoints (0: none by time)."},
  };
}

KeyType key_type(Tunable::Type type) {
  switch (type) {
  case Tunable::Type::integer:
    return KeyType::integer;
  case Tunable::Type::boolean:
    return KeyType::boolean;
  default:
    return KeyType::string;
  }
}

/// The backends' tunables, as each backend declares them (solvers/backend_registry.hpp).
std::vector<CaseKey> backend_keys() {
  std::vector<CaseKey> keys;
  for (const TunableTable& table : backend_tunables()) {
    for (const Tunable& t : table.keys) {
      KeyRange range = t.type == Tunable::Type::integer ? between(t.lo, t.hi, false, false)
                       : t.choices.empty()              ? KeyRange{}
                                                        : one_of(t.choices);
      keys.push_back(
          {t.key, key_type(t.type), t.units, t.default_value, std::move(range), t.meaning});
    }
  }
  return keys;
}

std::vector<CaseKey> numerics_keys() {
  return {
      {"numerics.precision", KeyType::string, "—", "double", one_of_option<Precision>(),
       "`double`: ψ stored and stepped in FP64 (16 B a value). `single`: stored and stepped in "
       "FP32 (8 B), every operation on ψ in FP32, the coefficients (V, the face weights, Δt) "
       "rounded from FP64. `mixed`: stored in FP32, every operation on ψ (the face sum, the "
       "update) in FP64, the result rounded once when stored. The diagnostics measure the stored "
       "state in FP64 in every precision. Each backend is bitwise the `reference` backend in the "
       "same precision; a checkpoint resumes only in its own precision (docs/cases.md, "
       "\"Precision\")."},
  };
}

/// The tuning of the slabs.
std::vector<CaseKey> scaleout_keys() {
  return {
      {"scaleout.halo_depth", KeyType::integer, "z-slices", "none", between(1, 64, false, false),
       "k: the halo slices each slab stores towards a neighbouring slab (deep halos). A "
       "vector's halos are exchanged every k stencil kernels instead of every one, the slices in "
       "between computed on both ranks: fewer, larger messages for k − 1 slices of redundant "
       "work per side. Every rank must own at least k z-slices. Unset: 1. Recorded, with where it "
       "came from, as `tuning_halo_depth`; one process ignores it."},
      {"scaleout.balance", KeyType::string, "—", "auto", one_of_option<SlabBalanceMode>(),
       "How the z-slices are shared among the ranks: `even` (sizes differ by at most one), "
       "`measured` (in proportion to each rank's throughput in a short calibration run of its "
       "backend, ~0.2 s), or `auto`: measured when the ranks' backends differ (hybrid ranks: "
       "`mpirun -np 1 decgpe run … --backend cuda : -np 3 decgpe run … --backend openmp`), else "
       "even. The results record each rank's slices (`slab_slices`) and the rates "
       "(`slab_calibration_cells_per_second`)."},
  };
}

// Each is read only when set and not empty (setup/case_setup.cpp, and the backends' tunables'
// own variables: backend_tunables()).
constexpr EnvironmentFallback kCacheVariable{
    "DECGPE_CACHE", "`out/cache`",
    "Folder of the solved stationary-vortex profiles (`vortex_l<λ>_g<g>_k<κ>_auto.h5`): "
    "`initial.kind = \"stationary_vortex\"` reads the one that matches, else solves eq. 14 and "
    "writes it; a relative path is taken from the working directory."};

} // namespace

bool KeyRange::admits(double value) const {
  const bool above_lo = lo_open ? value > lo : value >= lo;
  const bool below_hi = hi_open ? value < hi : value <= hi;
  return kind != Kind::interval || (above_lo && below_hi);
}

bool KeyRange::admits(std::string_view value) const {
  switch (kind) {
  case Kind::choices:
    return std::ranges::find(choices, value) != choices.end();
  case Kind::non_empty:
    return !value.empty();
  default:
    return true;
  }
}

std::string_view CaseKey::table() const {
  const std::size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : key.substr(0, dot);
}

std::string_view CaseKey::name() const {
  const std::size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

std::span<const CaseTable> case_tables() {
  static const std::vector<CaseTable> tables = [] {
    std::vector<CaseTable> all(kTables.begin(), kTables.end());
    for (const TunableTable& table : backend_tunables()) {
      all.push_back({table.name, false, table.meaning});
    }
    all.push_back(kScaleout);
    all.push_back(kNumerics);
    return all;
  }();
  return tables;
}

const std::vector<CaseKey>& case_keys() {
  static const std::vector<CaseKey> keys = [] {
    std::vector<CaseKey> all;
    for (auto part :
         {top_level_keys, potential_keys, rotation_keys, time_step_keys, time_sampling_keys,
          time_damping_adaptive_keys, initial_keys, initial_addition_keys, analysis_output_keys,
          backend_keys, scaleout_keys, numerics_keys}) {
      std::ranges::move(part(), std::back_inserter(all));
    }
    return all;
  }();
  return keys;
}

const CaseKey& case_key(std::string_view dotted) {
  const std::vector<CaseKey>& keys = case_keys();
  const auto it = std::ranges::find(keys, dotted, &CaseKey::key);
  if (it == keys.end()) {
    throw std::logic_error("the case schema has no key '" + std::string(dotted) + "'");
  }
  return *it;
}

bool is_case_key(std::string_view table, std::string_view name) {
  const auto in_table = [&](const CaseKey& k) { return k.table() == table && k.name() == name; };
  const std::string inner =
      table.empty() ? std::string(name) : std::string(table) + "." + std::string(name);
  const auto is_table = [&](const CaseTable& t) { return !t.name.empty() && t.name == inner; };
  return std::ranges::any_of(case_keys(), in_table) || std::ranges::any_of(case_tables(), is_table);
}

std::span<const EnvironmentFallback> environment_fallbacks() {
  static const std::vector<EnvironmentFallback> variables = [] {
    std::vector<EnvironmentFallback> all{kCacheVariable};
    for (const TunableTable& table : backend_tunables()) {
      for (const Tunable& t : table.keys) {
        if (!t.environment.empty()) {
          all.push_back({t.environment, t.environment_default, t.environment_meaning});
        }
      }
    }
    return all;
  }();
  return variables;
}

std::string_view type_text(KeyType type) {
  switch (type) {
  case KeyType::string:
    return "string";
  case KeyType::number:
    return "number";
  case KeyType::integer:
    return "integer";
  case KeyType::boolean:
    return "boolean";
  case KeyType::numbers3:
    return "array of 3 numbers";
  case KeyType::integers3:
    return "array of 3 integers";
  case KeyType::numbers3_or_auto:
    return "array of 3 numbers or \"auto\"";
  case KeyType::integers:
    return "array of integers";
  }
  return "unknown";
}

std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const std::to_chars_result written =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), written.ptr);
}

std::string interval_text(const KeyRange& range) {
  return (range.lo_open ? "(" : "[") + number_text(range.lo) + ", " + number_text(range.hi) +
         (range.hi_open ? ")" : "]");
}

} // namespace decgpe::setup
