#include "setup/case_setup.hpp"

#include "hdf5/hdf5_file.hpp"
#include "setup/grid_scaling.hpp"
#include "setup/stationary_vortex.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace decgpe::setup {

namespace {

/// More steps than any run could take (10¹² steps of the smallest grid are days of work): a case
/// that asks for them has an end_time or dt that is off by orders of magnitude.
constexpr double kMaxSteps = 1e12;

/// The potential on this process's cells (`grid`, a slab's or the whole domain's): a tabulated one
/// is read for the stored slices only.
Potential make_potential(const CaseConfig& c, const Grid& grid) {
  Potential v;
  v.rotation = {c.omega, c.rotation_origin[0], c.rotation_origin[1]};
  if (c.potential_kind == PotentialKind::harmonic) {
    v.kind = Potential::Kind::harmonic;
    v.lambda = c.lambda;
    return v;
  }
  v.kind = Potential::Kind::tabulated;
  const io::InputFile file(c.potential_file);
  const std::string where =
      "tabulated potential '" + c.potential_file + "' dataset '" + c.potential_dataset + "'";
  const std::uint64_t values = file.size(c.potential_dataset);
  if (static_cast<std::int64_t>(values) != grid.global_cells()) {
    throw std::invalid_argument(where + " has " + std::to_string(values) +
                                " values, the grid has " + std::to_string(grid.global_cells()) +
                                " cells");
  }
  const auto offset = static_cast<std::uint64_t>(grid.z_offset * grid.slice_cells());
  v.values = file.doubles(c.potential_dataset, offset, static_cast<std::uint64_t>(grid.cells()));
  for (std::size_t i = 0; i < v.values.size(); ++i) {
    if (!std::isfinite(v.values[i])) {
      throw std::invalid_argument(where + " has a non-finite value at index " +
                                  std::to_string(offset + i));
    }
  }
  return v;
}

/// max |ψ_i|² over the owned cells of every rank.
double max_density(const RunSetup& run, std::span<const Complex> psi) {
  const Grid& g = run.problem.grid;
  double most = 0.0;
  for (std::int64_t i = g.owned_begin * g.slice_cells(); i < g.owned_end * g.slice_cells(); ++i) {
    most = std::max(most, norm2(psi[static_cast<std::size_t>(i)]));
  }
  return run.layout.max(most);
}

std::string format(const char* pattern, double a, double b = 0.0, double c = 0.0) {
  char buffer[240];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c);
  return buffer;
}

/// Refuses `steps` beyond kMaxSteps in one line, `what` saying how they were counted; where the
/// step is a fraction of a bound that a tabulated potential's size sets, the line says so (a table
/// can hold any value, the harmonic trap's are bounded by the domain).
void check_step_count(const RunSetup& run, double steps, const std::string& what) {
  if (steps <= kMaxSteps) {
    return;
  }
  std::string why;
  const Potential& v = run.problem.potential;
  if (v.kind == Potential::Kind::tabulated && !run.config.dt) {
    double largest = 0.0;
    for (const double value : v.values) {
      largest = std::max(largest, std::abs(value));
    }
    largest = run.layout.max(largest);
    if (largest >= 0.5 * run.spectrum.radius) {
      why = format("; the tabulated potential's |V| up to %.3g sets the step", largest);
    }
  }
  throw std::invalid_argument(
      what + format(" = %.3g steps: more than the 1e12 a run may take", steps) + why);
}

/// The structures covering the case's domain at its h, refused with the axis and the count where h
/// leaves not one structure or more than a million along an axis.
std::array<int, 3> domain_structures(const CaseConfig& config,
                                     const lattices::CellComplex& complex) {
  const char* axes = "xyz";
  for (int a = 0; a < 3; ++a) {
    const double width = complex.box[a] * config.h, n = (*config.domain)[a] / width;
    if (n < 1e-6 || n > 1e6) {
      throw std::invalid_argument(
          "h = " + format("%.4g", config.h) + " is too " + (n < 1e-6 ? "large" : "small") +
          " for the domain: " + format("%.4g", n) + " structures (each " + format("%.4g", width) +
          " wide) along " + std::string(1, axes[a]) + ", where 1 to 1e6 fit");
    }
  }
  return structures_covering(complex, *config.domain, config.h);
}

/// The case's state before its imprints and seed, ψ(r_i, t) on this process's cells, unnormalised
/// (t ≠ 0 only for the paper's start, which only the vortex kinds as they are have).
using StateSampler = std::function<std::vector<Complex>(const Grid& grid, double t)>;

/// The set-up's cancellation hook (prepare_run's `poll`), called where it is set.
void call(const Poll& poll, const char* doing) {
  if (poll) {
    poll(doing);
  }
}

template <class State> StateSampler sampler_of(State state, const Poll& poll) {
  return [state = std::move(state), &poll](const Grid& grid, double t) {
    return sample(grid, state, t, 1.0, [&poll] { call(poll, "sampling the initial state"); });
  };
}

/// A results file's lattice and h, where it records them, must be the case's.
void check_same_grid(const io::InputFile& file, const CaseConfig& c, const std::string& where) {
  if (file.has_attribute("lattice") && file.text_attribute("lattice") != c.lattice) {
    throw std::invalid_argument(where + " is of lattice '" + file.text_attribute("lattice") +
                                "', the case's is '" + c.lattice + "'");
  }
  if (file.has_attribute("h") && std::abs(file.number_attribute("h") - c.h) > 1e-12 * c.h) {
    throw std::invalid_argument(
        where + format(" is of h = %.6g, the case's is %.6g", file.number_attribute("h"), c.h));
  }
}

/// kind = "file": ψ⁰ on this process's cells, refused in one line naming the file and dataset when
/// either is missing, the dataset is not one complex value per cell, or a value is not finite.
std::vector<Complex> read_state(const CaseConfig& c, const Grid& grid) {
  const std::string where =
      "initial state '" + c.initial_file + "' dataset '" + c.initial_dataset + "'";
  const io::InputFile file(c.initial_file);
  check_same_grid(file, c, where);
  const std::uint64_t values = file.size(c.initial_dataset);
  if (static_cast<std::int64_t>(values) != grid.global_cells()) {
    throw std::invalid_argument(where + " has " + std::to_string(values) +
                                " values, the grid has " + std::to_string(grid.global_cells()) +
                                " cells");
  }
  const auto offset = static_cast<std::uint64_t>(grid.z_offset * grid.slice_cells());
  std::vector<Complex> psi =
      file.complexes(c.initial_dataset, offset, static_cast<std::uint64_t>(grid.cells()));
  for (std::size_t i = 0; i < psi.size(); ++i) {
    if (!std::isfinite(psi[i].re) || !std::isfinite(psi[i].im)) {
      throw std::invalid_argument(where + " has a non-finite value at index " +
                                  std::to_string(offset + i));
    }
  }
  return psi;
}

/// [[initial.vortices]] and [initial.ring] as one phase imprint.
PhaseImprint imprint_of(const CaseConfig& c) {
  PhaseImprint imprint;
  for (const VortexConfig& v : c.vortices) {
    imprint.lines.push_back({v.x, v.y, v.charge});
  }
  if (c.ring) {
    imprint.ring = VortexRing{c.ring->x, c.ring->y, c.ring->z, c.ring->radius, c.ring->charge};
  }
  return imprint;
}

/// ψ⁰ on this rank's grid: the state sampled, imprinted and seeded as the case says, normalised
/// over the whole domain (run.normalisation, run.seed set).
std::vector<Complex> initial_level(RunSetup& run, const StateSampler& state) {
  const CaseConfig& config = run.config;
  const Grid& grid = run.problem.grid;
  std::vector<Complex> psi0 = state(grid, 0.0);
  if (!config.vortices.empty() || config.ring) {
    apply_imprint(grid, imprint_of(config), psi0);
  }
  if (config.seed) {
    run.seed = AzimuthalSeed::draw(config.seed->modes, config.seed->amplitude,
                                   static_cast<std::uint64_t>(config.seed->seed));
    // Else the solved state is seeded (settle_on_lattice, settle_on_ground_state).
    if (!config.lattice_stationary && config.initial_kind != InitialKind::ground_state) {
      apply_seed(grid, *run.seed, psi0);
    }
  }
  const double norm = run.layout.sum_slices(slice_norms(grid, psi0));
  if (!(norm > 0.0) || !std::isfinite(norm)) {
    throw std::invalid_argument("the initial state vanishes on this grid (norm " +
                                std::to_string(norm) + ")");
  }
  run.normalisation = 1.0 / std::sqrt(norm);
  for (Complex& z : psi0) {
    z = run.normalisation * z;
  }
  return psi0;
}

/// The structures along x, y and z the case asks for, refused when the grid's cells would not fit
/// an index.
std::array<int, 3> structures_of(const CaseConfig& config, const lattices::CellComplex& complex) {
  std::array<int, 3> size{};
  if (config.structures) {
    size = *config.structures;
  } else {
    size = domain_structures(config, complex);
  }
  checked_cell_count(size, complex.cells_per_structure());
  return size;
}

/// run.layout: the z-slices of `whole` shared among the ranks (in proportion to their measured
/// throughputs where `balance` measures them, run.calibration), then the memory check on this
/// rank's part.
void lay_out_slabs(RunSetup& run, const Grid& whole, const std::array<int, 3>& size,
                   const lattices::CellComplex& complex, const BeforeAllocating& before_allocating,
                   MPI_Comm comm, const SlabBalance& balance, const Poll& poll) {
  const CaseConfig& config = run.config;
  if (balance && comm != MPI_COMM_NULL) {
    Problem trial;
    trial.grid = whole;
    trial.potential.lambda = config.lambda;
    trial.potential.rotation = {config.omega, config.rotation_origin[0], config.rotation_origin[1]};
    trial.g = config.g;
    trial.precision = config.precision;
    run.calibration = balance(trial);
    call(poll, "measuring the ranks' throughputs");
  }
  run.layout = scaleout::Decomposition::slabs(
      size[2], comm, config.halo_depth.value_or(1),
      run.calibration ? std::span<const double>(run.calibration->cells_per_second)
                      : std::span<const double>(),
      run.calibration ? std::span<const int>(run.calibration->most_slices)
                      : std::span<const int>());
  if (before_allocating) {
    const int stored = run.layout.last() - run.layout.first();
    before_allocating(
        checked_cell_count({size[0], size[1], stored}, complex.cells_per_structure()));
  }
}

/// run.schedule: the case's cadences and error threshold.
void set_schedule(RunSetup& run) {
  const CaseConfig& config = run.config;
  run.schedule.diagnostics_every = config.diagnostics_every;
  run.schedule.snapshot_every = config.snapshot_every;
  run.schedule.spectrum_every = config.spectrum_every;
  run.schedule.vortex_lines_every = config.vortex_lines_every;
  run.schedule.checkpoint_every = config.checkpoint_every;
  run.schedule.stop_when_error_exceeds = config.stop_when_error_exceeds.value_or(0.0);
}

/// run.previous for the paper's start: the continuum state at −Δt, normalised and seeded as ψ⁰ is.
void paper_previous_level(RunSetup& run, const StateSampler& state) {
  run.previous = state(run.problem.grid, -run.dt);
  for (Complex& z : run.previous) {
    z = run.normalisation * z;
  }
  if (run.seed) { // the same perturbation on both levels
    apply_seed(run.problem.grid, *run.seed, run.previous);
  }
}

/// Everything after the state is chosen, for every kind of state (`mu`: its chemical potential,
/// NaN where it has none).
void finish(RunSetup& run, double mu, const StateSampler& state,
            const lattices::CellComplex& complex, const BeforeAllocating& before_allocating,
            MPI_Comm comm, const SlabBalance& balance, const Poll& poll) {
  const CaseConfig& config = run.config;
  Problem& p = run.problem;
  const std::array<int, 3> size = structures_of(config, complex);
  Grid whole = make_grid(complex, size, config.h);
  whole.origin += lattices::Vec3{config.shift[0], config.shift[1], config.shift[2]} * config.h;
  lay_out_slabs(run, whole, size, complex, before_allocating, comm, balance, poll);
  p.grid = run.layout.local(whole);
  p.potential = make_potential(config, p.grid);
  call(poll, "reading the potential");
  p.g = config.g;
  p.precision = config.precision;
  // In the rotating frame H = H_lab − ΩL_z: the vortex kinds' states are L_z = κ eigenstates about
  // their own axis, so μ − κΩ is exact when the rotation axis is theirs.
  run.mu = mu - config.kappa * config.omega;

  std::vector<Complex> psi0 = initial_level(run, state);
  call(poll, "preparing the initial state");
  choose_step(run, psi0, [&poll] { call(poll, "estimating the spectrum of M"); });
  call(poll, "estimating the spectrum of M");
  run.operations_per_time = operations_per_step(p.grid) / run.dt;
  set_schedule(run);
  if (config.start == LeapfrogStart::paper && !config.lattice_stationary) {
    paper_previous_level(run, state);
  }
  run.current = std::move(psi0);
}

} // namespace

std::filesystem::path vortex_cache_dir() {
  const char* env = std::getenv("DECGPE_CACHE");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path("out/cache");
}

namespace {

/// The step the case asks for (dt, or a fraction of eq. 11's bound or of the scheme's limit),
/// refused unless finite, normal and below the scheme's limit.
double requested_step(const RunSetup& run, const SchemeEntry& scheme) {
  const CaseConfig& config = run.config;
  const bool split = scheme.limit_factor == kUnconditionallyStable;
  double requested = 0.0;
  if (config.dt) {
    requested = *config.dt;
  } else if (config.dt_fraction_of == DtBound::eq11) {
    if (!std::isfinite(run.eq11_bound) || !(run.eq11_bound > 0.0)) {
      throw std::invalid_argument(
          format("eq. 11's bound 1/(2 max M_ii) = %g is meaningless here (V or g < 0): use "
                 "time.dt_fraction_of = 'limit'",
                 run.eq11_bound));
    }
    requested = *config.dt_fraction * run.eq11_bound;
  } else {
    requested = *config.dt_fraction * run.limit;
  }
  if (!std::isfinite(requested) || !(requested > 0.0)) {
    throw std::invalid_argument(format("dt = %g: the time step must be finite and > 0", requested));
  }
  if (!std::isnormal(requested)) { // t + dt would not move t, and the step's arithmetic loses bits
    throw std::invalid_argument(format("dt = %g is subnormal: the time step must be at least %g",
                                       requested, std::numeric_limits<double>::min()));
  }
  if (requested >= run.limit && split && !config.beyond_limit) {
    throw std::invalid_argument(
        "dt = " + format("%.6g", requested) + " is not below the " + config.scheme +
        " limit for dynamics " +
        format("%.6g = pi / lambda_max(L/2) (lambda = %.6g)", run.limit, run.kinetic_top) +
        ": beyond it the kinetic phase of the stencil's fastest modes wraps in one step and the "
        "state heats; set time.beyond_limit = true to run it anyway");
  }
  if (requested >= run.limit && !split) {
    throw std::invalid_argument(
        "dt = " + format("%.6g", requested) + " is not below the " + config.scheme +
        " stability limit " + format("%.6g = %.6g / rho", run.limit, scheme.limit_factor) +
        format(" (rho = %.6g by ", run.spectrum.radius) + run.spectrum.method + ")");
  }
  return requested;
}

} // namespace

double vortex_potential_cut(const RunSetup& run) {
  if (run.config.vortex_region == VortexRegion::domain) {
    return kEveryRing;
  }
  return run.config.vortex_region_margin * run.mu;
}

void choose_step(RunSetup& run, std::span<const Complex> psi0, const std::function<void()>& poll) {
  const CaseConfig& config = run.config;
  const Problem& p = run.problem;
  const SchemeEntry& scheme = find_scheme(config.scheme);
  run.eq11_bound = stability_bound(p.grid, p.potential, p.g, psi0, &run.layout);
  run.spectrum = estimate_spectrum(p.grid, p.potential, p.g, psi0, 80, &run.layout, poll);
  const bool split = scheme.limit_factor == kUnconditionallyStable;
  run.kinetic_top = split ? kinetic_top(p.grid, p.potential.rotation, 80, &run.layout, poll) : 0.0;
  run.limit =
      split ? kKineticPhaseLimit / run.kinetic_top : scheme.limit_factor / run.spectrum.radius;
  run.limit_method = split ? "pi / lambda_max(L/2), for dynamics" : run.spectrum.method;
  if (!std::isfinite(run.limit) || !(run.limit > 0.0)) {
    throw std::invalid_argument(
        format("the stability limit is not finite: the spectral radius of M is %g (check the "
               "potential and g)",
               run.spectrum.radius));
  }
  const double requested = requested_step(run, scheme);
  if (config.steps) {
    if (static_cast<double>(*config.steps) > kMaxSteps) {
      throw std::invalid_argument(format("time.steps = %.3g: more than the 1e12 a run may take",
                                         static_cast<double>(*config.steps)));
    }
    run.dt = requested;
    run.schedule.steps = *config.steps;
    return;
  }
  if (config.adaptive) { // the longest step; the run ends at end_time, however many steps it takes
    check_step_count(
        run, std::ceil(*config.end_time / requested - 1e-12),
        format("end_time / the longest dt = %.6g / %.6g", *config.end_time, requested));
    run.dt = requested;
    run.schedule.steps = static_cast<long>(kMaxSteps);
    run.adaptive = {*config.end_time, requested, config.theta,
                    config.density_floor * max_density(run, psi0), config.tolerance};
    return;
  }
  // Whole steps that end exactly at end_time without exceeding the requested step.
  const double steps = std::ceil(*config.end_time / requested - 1e-12);
  check_step_count(run, steps, format("end_time / dt = %.6g / %.6g", *config.end_time, requested));
  run.schedule.steps = std::max(1L, static_cast<long>(steps));
  run.dt = *config.end_time / static_cast<double>(run.schedule.steps);
}

RunSetup prepare_run(const CaseConfig& config, const BeforeAllocating& before_allocating,
                     MPI_Comm comm, const SlabBalance& balance, const Poll& poll) {
  call(poll, "setting up");
  RunSetup run;
  run.config = config;
  const lattices::CellComplex& complex = lattices::cell_complex(config.lattice);
  const lattices::Vec3 offset{config.offset[0], config.offset[1], config.offset[2]};
  // ground_state: the harmonic vortex is where the relaxation starts (settle_on_ground_state).
  if (config.initial_kind == InitialKind::harmonic_vortex ||
      config.initial_kind == InitialKind::ground_state) {
    const HarmonicVortex vortex{config.kappa, config.lambda};
    finish(run, vortex.mu(), sampler_of(Displaced<HarmonicVortex>{vortex, offset}, poll), complex,
           before_allocating, comm, balance, poll);
    return run;
  }
  if (config.initial_kind == InitialKind::file) {
    finish(
        run, std::numeric_limits<double>::quiet_NaN(),
        [&config](const Grid& grid, double /*t = 0*/) { return read_state(config, grid); }, complex,
        before_allocating, comm, balance, poll);
    return run;
  }
  const StationaryVortex vortex =
      StationaryVortex::solve({config.lambda, config.g, config.kappa}, vortex_cache_dir(),
                              [&poll] { call(poll, kSolvingStationaryVortex); });
  CaseConfig& c = run.config;
  if (c.domain_auto) {
    // Eq. 15: the smallest cuboid outside which |ψ| ≤ 1e-5 max|ψ|; an offset state swings through
    // the centre to −offset (Kohn's dipole mode), so the cuboid grows by it on both sides.
    const auto [rho, z] = vortex.extent(1e-5);
    c.domain = std::array<double, 3>{2.0 * (rho + std::abs(c.offset[0])),
                                     2.0 * (rho + std::abs(c.offset[1])),
                                     2.0 * (z + std::abs(c.offset[2]))};
  }
  if (c.operations_per_time) {
    if (!c.dt_fraction || !c.domain) {
      throw std::invalid_argument(
          "operations_per_time needs time.dt_fraction and a domain, not structures");
    }
    c.h =
        scale_for_operations(complex, *c.domain, lattices::Vec3{c.shift[0], c.shift[1], c.shift[2]},
                             c.lambda, *c.dt_fraction, *c.operations_per_time)
            .h;
  }
  run.effective_wavelength = 2.0 * std::numbers::pi / std::sqrt(2.0 * vortex.energies().kinetic);
  finish(run, vortex.mu(), sampler_of(Displaced<StationaryVortex>{vortex, offset}, poll), complex,
         before_allocating, comm, balance, poll);
  return run;
}

} // namespace decgpe::setup
