#pragma once
// A TOML case file, read and validated. Every problem with the file is a CaseError whose message is
// one line naming the file, the key and what is wrong with it.

#include "solvers/precision.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe::setup {

struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The case file's choices, typed where the file is read. Each `names_of` lists an option's names in
// its enum's order: the schema's choices, the parser's reading and what the results record.
enum class PotentialKind { harmonic, tabulated };
enum class LeapfrogStart { discrete, paper };
enum class DtBound { limit, eq11 };
enum class InitialKind { harmonic_vortex, stationary_vortex, file, ground_state };
enum class VortexRegion { condensate, domain };
enum class SlabBalanceMode { automatic, even, measured };

constexpr std::array<std::string_view, 2> names_of(PotentialKind) {
  return {"harmonic", "tabulated"};
}
constexpr std::array<std::string_view, 2> names_of(LeapfrogStart) {
  return {"discrete", "paper"};
}
constexpr std::array<std::string_view, 2> names_of(DtBound) {
  return {"limit", "eq11"};
}
constexpr std::array<std::string_view, 4> names_of(InitialKind) {
  return {"harmonic_vortex", "stationary_vortex", "file", "ground_state"};
}
constexpr std::array<std::string_view, 2> names_of(VortexRegion) {
  return {"condensate", "domain"};
}
constexpr std::array<std::string_view, 3> names_of(SlabBalanceMode) {
  return {"auto", "even", "measured"};
}
constexpr std::array<std::string_view, 3> names_of(Precision) {
  return kPrecisionNames;
}

/// An option's name in the case file ("tabulated" for PotentialKind::tabulated).
template <class Option> constexpr std::string_view option_name(Option value) {
  return names_of(Option{})[static_cast<std::size_t>(value)];
}

/// The defaults below are the schema's (setup/case_schema.cpp); a test holds the two equal.
/// [initial.seed]: ψ⁰(r) (1 + ε Σ_m cos(mφ + θ_m)), θ_m drawn from `seed`
/// (setup/initial_state.hpp).
struct SeedConfig {
  std::vector<int> modes = {1, 2, 3, 4, 5, 6, 7, 8}; ///< azimuthal modes, each in [1, 8], once
  double amplitude = 1e-6;                           ///< ε, relative to ψ⁰
  std::int64_t seed = 1;                             ///< of the phases θ_m

  bool operator==(const SeedConfig&) const = default;
};

/// [[initial.vortices]]: a straight vortex line along z through (x, y), imprinted as a phase
/// (setup/initial_state.hpp, LineVortex).
struct VortexConfig {
  double x = 0.0;
  double y = 0.0;
  int charge = 0; ///< winding number q ≠ 0, counter-clockwise about +z for q > 0

  bool operator==(const VortexConfig&) const = default;
};

/// [initial.ring]: a vortex ring about the axis through (x, y) along z, in the plane z, imprinted
/// as a phase (setup/initial_state.hpp, VortexRing).
struct RingConfig {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
  double radius = 0.0; ///< R > 0
  int charge = 0;      ///< q ≠ 0; q > 0: the flow through the ring runs along +z

  bool operator==(const RingConfig&) const = default;
};

/// [initial.ground_state]: when the imaginary-time relaxation of kind = "ground_state" stops
/// (setup/ground_state.hpp): both tolerances met, or refused after max_iterations.
struct GroundStateConfig {
  double residual = 1e-8;       ///< ‖M(ψ)ψ − μψ‖ with ‖ψ‖ = 1, at most this
  double energy_change = 1e-12; ///< |ΔE| / |E| per iteration, at most this
  long max_iterations = 100000;

  bool operator==(const GroundStateConfig&) const = default;
};

struct CaseConfig {
  std::string name; ///< the file's stem ("default" for cases/default.toml)

  // Grid: `lattice`; exactly one of `h` and `operations_per_time`; exactly one of `domain` and
  // `structures`.
  std::string lattice; ///< cubic, fcc, bcc, a15, c15, z
  double h = 0.0;      ///< structure edge length (> 0)
  /// Instead of h: the h at which Σ_i #J_i / Δt equals this (the paper's Table 1 criterion).
  std::optional<double> operations_per_time;
  std::optional<std::array<double, 3>> domain; ///< cuboid extent centred on the origin (each > 0)
  bool domain_auto = false;                    ///< domain = "auto": eq. 15's cuboid of the state
  std::optional<std::array<int, 3>> structures; ///< S = (Sx, Sy, Sz) structure instances (each ≥ 1)
  std::array<double, 3> shift{};                ///< lattice offset in structure edges (placement)

  // Physics. [potential] kind = "harmonic" (V = ½(x² + y² + λ²z²)) or "tabulated" (values per dual
  // 0-cell, in the solver's memory order, read from an HDF5 dataset).
  PotentialKind potential_kind = PotentialKind::harmonic;
  double lambda = 1.0; ///< trap anisotropy λ (harmonic; finite, ≥ 0)
  std::string
      potential_file; ///< tabulated: HDF5 file, relative paths taken from the case file's folder
  std::string potential_dataset = "V"; ///< tabulated: dataset name
  double g = 0.0;                      ///< interaction strength (finite)
  /// [rotation]: the frame rotating at Ω about the z axis through rotation_origin's (x, y)
  /// (solvers/problem.hpp, Rotation); 0: the lab frame.
  double omega = 0.0;
  std::array<double, 3> rotation_origin{};

  // [time]: exactly one of dt / dt_fraction, exactly one of end_time / steps.
  std::string scheme = "leapfrog"; ///< a registered scheme (solvers/schemes/registry.cpp)
  /// leapfrog's ψ^{−1}: discrete (one backward RK4 step of the discrete operator, second order)
  /// or paper (the continuum state at −Δt, as the paper does: first order in time).
  LeapfrogStart start = LeapfrogStart::discrete;
  std::optional<double> dt;          ///< > 0, finite, below the scheme's limit
  std::optional<double> dt_fraction; ///< fraction of `dt_fraction_of`, in (0, 1)
  /// limit: the scheme's stability limit from the spectrum of M (solvers/stability.hpp);
  /// eq11: the paper's bound 1/(2 max M_ii), which operations_per_time is defined with.
  DtBound dt_fraction_of = DtBound::limit;
  bool beyond_limit = false; ///< a split scheme at or beyond its limit for dynamics, on purpose
  std::optional<double> end_time; ///< > 0, finite
  std::optional<long> steps;      ///< ≥ 1
  long diagnostics_every = 10;    ///< ≥ 1
  long snapshot_every = 0;        ///< 0: no snapshots, else ≥ 1
  long spectrum_every = 0;        ///< 0: no host probes, else ≥ 1 (solvers/host_probe.hpp)
  long vortex_lines_every = 0;    ///< [analysis]; 0: no vortex lines, else ≥ 1
  /// [analysis]; where the lines are measured: condensate, the rings whose cells all have
  /// V < vortex_region_margin · μ; domain, every ring. Default: the condensate when ψ⁰ has a μ
  /// (every initial.kind but file).
  VortexRegion vortex_region = VortexRegion::condensate;
  double vortex_region_margin = 1.0; ///< [analysis]; > 0
  /// Adaptive steps (solvers/schemes/step_control.hpp), with end_time: dt (or dt_fraction) is
  /// then the longest step. The split schemes follow the phase criterion, RK4 step doubling.
  bool adaptive = false;
  double damping = 0.0;        ///< γ of (i − γ)∂ψ/∂t = M(ψ)ψ (0: none)
  double theta = 0.1;          ///< phase criterion: Δt · max|V + g|ψ|²| ≤ θ (radians, > 0)
  double density_floor = 1e-6; ///< phase criterion: cells with |ψ|² < this · max|ψ⁰|² left out
  double tolerance = 1e-8; ///< step doubling: max|ψ^{2×Δt/2} − ψ^{Δt}| / 15 per step (> 0)
  /// Stop at the first diagnostics step where E = 1 − |⟨ψ₀|ψ⟩| exceeds this (the vortex split).
  std::optional<double> stop_when_error_exceeds;

  /// The backends' tunables ([cuda] …: solvers/backend_registry.hpp's backend_tunables()) as
  /// "table.key" → the value's text (a boolean "true" or "false"), checked against the schema and
  /// parsed by the backend; they change its speed, never its results, and are recorded in the
  /// results. A key not given is absent.
  std::map<std::string, std::string> backend_tuning;
  std::optional<int> halo_depth; ///< [scaleout]: halo slices per slab side; unset: 1
  /// [numerics]: what ψ is stored and stepped in (solvers/precision.hpp).
  Precision precision = Precision::double_;
  SlabBalanceMode slab_balance = {}; ///< [scaleout]: its first value, automatic, by default

  // [output]
  long checkpoint_every = 0;       ///< steps between checkpoints (0: none by steps)
  double checkpoint_minutes = 0.0; ///< wall-clock minutes between checkpoints (0: none by time)

  // [initial]
  /// harmonic_vortex: ψ ∝ (x + iy)^κ e^{−(ρ² + λz²)/2}, exact phase e^{−iμt};
  /// stationary_vortex: the eq. 14 state of this λ, g and κ; file: ψ read from an HDF5 dataset;
  /// ground_state: the harmonic vortex relaxed in imaginary time on the run's backend.
  InitialKind initial_kind = InitialKind::harmonic_vortex;
  int kappa = 1;                  ///< winding number κ ≥ 0 (the vortex kinds)
  std::array<double, 3> offset{}; ///< the vortex kinds' state moved by this (a_ho)
  std::string initial_file;       ///< file: HDF5 file, relative to the case file's folder
  std::string initial_dataset = "/state/current"; ///< file: complex dataset, one value per cell
  std::vector<VortexConfig> vortices;             ///< phase imprints of vortex lines
  std::optional<RingConfig> ring;                 ///< the phase imprint of a vortex ring
  std::optional<SeedConfig> seed;     ///< a controlled perturbation, when [initial.seed] is given
  bool lattice_stationary = false;    ///< start from the grid's own stationary state
  double stationary_residual = 1e-10; ///< its tolerance ‖M(ψ)ψ − μ_h ψ‖
  int stationary_krylov = 150;        ///< its GMRES basis per Newton step
  GroundStateConfig ground_state;     ///< kind = "ground_state": when to stop

  bool operator==(const CaseConfig&) const = default;
};

/// The case text with `overrides` applied (the --set flag): each "dotted.key=VALUE" sets that key,
/// VALUE read as a TOML value (a number, a boolean, a quoted string, an array) or else as a bare
/// string; "dotted.key=" removes the key. Tables on the way are made as needed. The result is
/// validated by parse_case like any case file. Throws CaseError naming the override.
std::string apply_overrides(std::string_view toml, std::span<const std::string> overrides,
                            std::string_view source);

/// Replaces the case's scheme (the --scheme flag), with the checks the case file gets.
void override_scheme(CaseConfig& config, const std::string& scheme);

/// A case file's text, read with a bound (regular files of at most 1 MiB; throws CaseError).
std::string read_case_text(const std::filesystem::path& path);

/// Whether ψ⁰ is a vortex kind's state as it is (not moved, no imprint, not read from a file, not
/// relaxed to a ground state): the states whose evolution e^{−iμt} the paper's start and the exact
/// check know.
bool is_plain_vortex(const CaseConfig& config);

/// Reads and validates a case file (throws CaseError; a missing or unreadable file is a CaseError
/// too).
CaseConfig read_case_file(const std::filesystem::path& path);

/// Parses and validates TOML text; `source` names it in messages, `base_dir` resolves relative
/// paths.
CaseConfig parse_case(std::string_view toml, std::string_view source,
                      const std::filesystem::path& base_dir = {});

} // namespace decgpe::setup
