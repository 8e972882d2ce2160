#include "cli/case_setup.hpp"

#include "cli/hdf5_file.hpp"

#include <cmath>
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

} // namespace

RunSetup prepare_run(const CaseConfig& config) {
  RunSetup run;
  run.config = config;
  const lattices::CellComplex& complex = lattices::cell_complex(config.lattice);
  const std::array<int, 3> size = config.structures
                                      ? *config.structures
                                      : structures_covering(complex, *config.domain, config.h);
  Problem& p = run.problem;
  p.grid = make_grid(complex, size, config.h);
  p.potential = make_potential(config, p.grid);
  p.g = config.g;
  run.initial = HarmonicVortex{config.kappa, config.lambda};

  std::vector<Complex> psi0 = sample(p.grid, run.initial, 0.0, 1.0);
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
  run.schedule.diagnostics_every = config.diagnostics_every;
  run.schedule.snapshot_every = config.snapshot_every;
  run.previous = sample(p.grid, run.initial, -p.dt, run.normalisation);
  run.current = std::move(psi0);
  return run;
}

} // namespace decgpe::cli
