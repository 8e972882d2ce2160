#include "cli/case_setup.hpp"

#include "cli/hdf5_file.hpp"
#include "solvers/grid_scaling.hpp"
#include "solvers/stationary_vortex.hpp"

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <stdexcept>

namespace decgpe::cli {

namespace {

Potential make_potential(const CaseConfig& c, const Grid& grid) {
  Potential v;
  if (c.potential_kind == "harmonic") {
    v.kind = Potential::Kind::harmonic;
    v.lambda = c.lambda;
    return v;
  }
  v.kind = Potential::Kind::tabulated;
  v.values = read_doubles(c.potential_file, c.potential_dataset);
  const std::string where =
      "tabulated potential '" + c.potential_file + "' dataset '" + c.potential_dataset + "'";
  if (static_cast<std::int64_t>(v.values.size()) != grid.cells()) {
    throw std::invalid_argument(where + " has " + std::to_string(v.values.size()) +
                                " values, the grid has " + std::to_string(grid.cells()) + " cells");
  }
  for (std::size_t i = 0; i < v.values.size(); ++i) {
    if (!std::isfinite(v.values[i])) {
      throw std::invalid_argument(where + " has a non-finite value at index " + std::to_string(i));
    }
  }
  return v;
}

/// Everything after the state is chosen, for either kind of state.
template <class State>
void finish(RunSetup& run, const State& state, const lattices::CellComplex& complex) {
  const CaseConfig& config = run.config;
  Problem& p = run.problem;
  std::array<int, 3> size{};
  if (config.structures) {
    size = *config.structures;
  } else {
    size = structures_covering(complex, *config.domain, config.h);
  }
  p.grid = make_grid(complex, size, config.h);
  p.grid.origin += lattices::Vec3{config.shift[0], config.shift[1], config.shift[2]} * config.h;
  p.potential = make_potential(config, p.grid);
  p.g = config.g;
  run.mu = state.mu();

  std::vector<Complex> psi0 = sample(p.grid, state, 0.0, 1.0);
  const double norm = grid_norm(p.grid, psi0);
  if (!(norm > 0.0) || !std::isfinite(norm)) {
    throw std::invalid_argument("the initial state vanishes on this grid (norm " +
                                std::to_string(norm) + ")");
  }
  run.normalisation = 1.0 / std::sqrt(norm);
  for (Complex& z : psi0) {
    z = run.normalisation * z;
  }
  run.bound = stability_bound(p.grid, p.potential, p.g, psi0);

  const double requested = config.dt ? *config.dt : *config.dt_fraction * run.bound;
  if (config.dt && *config.dt >= run.bound) {
    char msg[200];
    std::snprintf(msg, sizeof msg,
                  "dt = %.6g is not below the stability bound 1/(2 max M_ii) = %.6g (eq. 11)",
                  *config.dt, run.bound);
    throw std::invalid_argument(msg);
  }
  if (config.steps) {
    p.dt = requested;
    run.schedule.steps = *config.steps;
  } else {
    // Whole steps that end exactly at end_time without exceeding the requested step.
    run.schedule.steps = static_cast<long>(std::ceil(*config.end_time / requested - 1e-12));
    p.dt = *config.end_time / static_cast<double>(run.schedule.steps);
  }
  run.operations_per_time = operations_per_step(p.grid) / p.dt;
  run.schedule.diagnostics_every = config.diagnostics_every;
  run.schedule.snapshot_every = config.snapshot_every;
  run.schedule.stop_when_error_exceeds = config.stop_when_error_exceeds.value_or(0.0);
  run.previous = sample(p.grid, state, -p.dt, run.normalisation);
  run.current = std::move(psi0);
}

} // namespace

std::filesystem::path vortex_cache_dir() {
  const char* env = std::getenv("DECGPE_CACHE");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path("out/cache");
}

RunSetup prepare_run(const CaseConfig& config) {
  RunSetup run;
  run.config = config;
  const lattices::CellComplex& complex = lattices::cell_complex(config.lattice);
  if (config.initial_kind == "harmonic_vortex") {
    finish(run, HarmonicVortex{config.kappa, config.lambda}, complex);
    return run;
  }
  const StationaryVortex vortex =
      StationaryVortex::solve({config.lambda, config.g, config.kappa}, vortex_cache_dir());
  CaseConfig& c = run.config;
  if (c.domain_auto) {
    // Eq. 15: the smallest cuboid outside which |ψ| ≤ 1e-5 max|ψ|.
    const auto [rho, z] = vortex.extent(1e-5);
    c.domain = std::array<double, 3>{2.0 * rho, 2.0 * rho, 2.0 * z};
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
  finish(run, vortex, complex);
  return run;
}

} // namespace decgpe::cli
