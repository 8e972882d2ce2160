#include "io/results.hpp"

#include "build_info/build_info.hpp"
#include "io/visualisation.hpp"
#include "setup/grid_scaling.hpp"
#include "setup/one_line.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/splitting.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <unistd.h>

namespace decgpe::io {

namespace {

/// A typed option of the case, by its name in the case file.
template <class Option>
void option_attribute(ResultsFile& f, const std::string& name, Option value) {
  f.attribute(name, std::string(setup::option_name(value)));
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

std::string host_name() {
  char buffer[256] = {};
  gethostname(buffer, sizeof buffer - 1);
  return buffer;
}

void write_identity(ResultsFile& f, const Backend& backend, const RunIdentity& who) {
  f.attribute("decgpe_version", std::string(version()));
  f.attribute("git_commit", std::string(git_commit()));
  f.attribute("command_line", setup::one_line(who.command_line, 4096));
  f.attribute("date", who.date);
  f.attribute("host", who.host);
  f.attribute("backend", backend.name());
  f.attribute("device", backend.device());
  f.attribute("case_file", who.case_file);
  f.attribute("fingerprint", who.fingerprint);
  f.write_text("/case_toml", who.case_text); // a dataset: attributes end at 64 KiB
  f.attribute("overrides", who.overrides);
  if (!who.overrides.empty()) { // the case as run: /case_toml with the overrides applied
    f.write_text("/case_toml_effective", who.effective_case_text);
  }
}

/// What ψ⁰ was made of: the vortex kinds' κ and offset or the file read, and the imprints.
void write_initial(ResultsFile& f, const setup::CaseConfig& c) {
  if (c.initial_kind == setup::InitialKind::file) {
    f.attribute("initial_file", c.initial_file);
    f.attribute("initial_dataset", c.initial_dataset);
  } else {
    f.attribute("kappa", static_cast<std::int64_t>(c.kappa));
    f.attribute("initial_offset", std::span<const double>(c.offset));
  }
  if (!c.vortices.empty()) { // x, y of each, then each charge
    std::vector<double> positions;
    std::vector<std::int64_t> charges;
    for (const setup::VortexConfig& v : c.vortices) {
      positions.insert(positions.end(), {v.x, v.y});
      charges.push_back(v.charge);
    }
    f.attribute("vortex_positions", std::span<const double>(positions));
    f.attribute("vortex_charges", std::span<const std::int64_t>(charges));
  }
  if (const auto& r = c.ring) {
    const std::array<double, 4> ring = {r->x, r->y, r->z, r->radius};
    f.attribute("ring_centre_radius", std::span<const double>(ring));
    f.attribute("ring_charge", static_cast<std::int64_t>(r->charge));
  }
}

/// The grid: lattice, scale, extent, placement and the dual edges' lengths.
void write_grid_attributes(ResultsFile& f, const setup::RunSetup& run) {
  const setup::CaseConfig& c = run.config;
  const Grid& g = run.problem.grid;
  f.attribute("case_name", c.name);
  f.attribute("lattice", c.lattice);
  f.attribute("h", c.h);
  const std::array<std::int64_t, 3> size = {g.size[0], g.size[1], g.global_z};
  f.attribute("structures", std::span<const std::int64_t>(size));
  f.attribute("cells", static_cast<std::int64_t>(g.global_cells()));
  f.attribute("cells_per_structure", static_cast<std::int64_t>(g.ms));
  const std::array<double, 3> shift = c.shift;
  f.attribute("shift", std::span<const double>(shift));
  f.attribute("domain_volume",
              static_cast<double>(g.global_instances()) * g.box.x * g.box.y * g.box.z);
  const std::array<double, 2> edges = dual_edge_lengths(lattices::cell_complex(c.lattice), c.h);
  f.attribute("dual_edge_mean", edges[0]);
  f.attribute("dual_edge_max", edges[1]);
}

/// How ψ⁰ was solved for or perturbed: the seed, the lattice's stationary state, the ground state.
void write_start_solves(ResultsFile& f, const setup::RunSetup& run) {
  const setup::CaseConfig& c = run.config;
  if (run.seed) { // [initial.seed]: what the perturbation was, phases included
    const std::vector<std::int64_t> modes(run.seed->modes.begin(), run.seed->modes.end());
    f.attribute("seed_modes", std::span<const std::int64_t>(modes));
    f.attribute("seed_amplitude", run.seed->amplitude);
    f.attribute("seed", static_cast<std::int64_t>(c.seed->seed));
    f.attribute("seed_phases", std::span<const double>(run.seed->phases));
  }
  if (const auto& l = run.lattice_state) { // initial.lattice_stationary: mu is the lattice's μ_h
    f.attribute("lattice_stationary", static_cast<std::int64_t>(1));
    f.attribute("mu_continuum", l->continuum_mu);
    f.attribute("lattice_residual", l->residual);
    f.attribute("lattice_start_residual", l->start_residual);
    f.attribute("lattice_newton_steps", static_cast<std::int64_t>(l->newton_steps));
    f.attribute("lattice_krylov_iterations", static_cast<std::int64_t>(l->krylov_iterations));
    f.attribute("lattice_krylov_dimension",
                static_cast<std::int64_t>(run.config.stationary_krylov));
    f.attribute("lattice_stencil_passes", static_cast<std::int64_t>(l->stencil_passes));
    f.attribute("lattice_solve_seconds", l->seconds);
    f.attribute("lattice_state_cache", l->cache);
  }
  if (const auto& s = run.ground_state) { // initial.kind = "ground_state": mu is its μ_h
    f.attribute("ground_state_energy", s->energy);
    f.attribute("ground_state_kinetic", s->kinetic);
    f.attribute("ground_state_trap", s->trap);
    f.attribute("ground_state_interaction", s->interaction);
    f.attribute("ground_state_residual", s->residual);
    f.attribute("ground_state_start_residual", s->start_residual);
    f.attribute("ground_state_energy_change", s->energy_change);
    f.attribute("ground_state_iterations", static_cast<std::int64_t>(s->iterations));
    f.attribute("ground_state_stencil_passes", static_cast<std::int64_t>(s->stencil_passes));
    f.attribute("ground_state_seconds", s->seconds);
    f.attribute("ground_state_residual_tolerance", run.config.ground_state.residual);
    f.attribute("ground_state_energy_change_tolerance", run.config.ground_state.energy_change);
  }
}

void write_physics(ResultsFile& f, const setup::RunSetup& run) {
  const setup::CaseConfig& c = run.config;
  write_grid_attributes(f, run);
  option_attribute(f, "potential", c.potential_kind);
  f.attribute("lambda", c.lambda);
  f.attribute("g", c.g);
  option_attribute(f, "precision", c.precision);
  f.attribute("rotation_omega", c.omega);
  f.attribute("rotation_origin", std::span<const double>(c.rotation_origin));
  option_attribute(f, "initial_state", c.initial_kind);
  write_initial(f, c);
  if (c.initial_kind != setup::InitialKind::file) { // a state read from a file has no known μ
    f.attribute("mu", run.mu);
  }
  write_start_solves(f, run);
  if (run.effective_wavelength > 0.0) {
    f.attribute("effective_wavelength", run.effective_wavelength);
  }
}

void write_time_stepping(ResultsFile& f, const setup::RunSetup& run) {
  const SchemeEntry& scheme = find_scheme(run.config.scheme);
  f.attribute("scheme", run.config.scheme);
  option_attribute(f, "start", run.config.start);
  f.attribute("damping", run.config.damping);
  f.attribute("invariant_meaning", std::string(scheme.invariant));
  f.attribute("dt", run.dt);
  option_attribute(f, "dt_fraction_of", run.config.dt_fraction_of);
  f.attribute("dt_limit", run.limit);
  f.attribute("dt_limit_factor", scheme.limit_factor);
  f.attribute("dt_limit_method", run.limit_method);
  f.attribute("kinetic_lambda_max", run.kinetic_top);
  f.attribute("spectral_radius", run.spectrum.radius);
  f.attribute("spectral_radius_gershgorin", run.spectrum.gershgorin);
  f.attribute("spectral_radius_lanczos", run.spectrum.lanczos_upper);
  f.attribute("lanczos_lambda_max", run.spectrum.lambda_max);
  f.attribute("lanczos_lambda_min", run.spectrum.lambda_min);
  f.attribute("lanczos_iterations", static_cast<std::int64_t>(run.spectrum.iterations));
  f.attribute("stability_bound", run.eq11_bound); // the paper's eq. 11, for comparison
  const setup::CaseConfig& c = run.config;
  f.attribute("step_control",
              std::string(step_control_name(c.adaptive ? scheme.adaptive : StepControl::fixed)));
  if (c.adaptive) { // dt is the longest step; the steps taken are steps_done and /diagnostics/dt
    f.attribute("end_time", *c.end_time);
    f.attribute("adaptive_theta", c.theta);
    f.attribute("adaptive_density_floor", c.density_floor);
    f.attribute("adaptive_tolerance", c.tolerance);
  } else {
    f.attribute("steps", static_cast<std::int64_t>(run.schedule.steps));
    f.attribute("end_time", static_cast<double>(run.schedule.steps) * run.dt);
  }
  f.attribute("diagnostics_every", static_cast<std::int64_t>(run.schedule.diagnostics_every));
  f.attribute("snapshot_every", static_cast<std::int64_t>(run.schedule.snapshot_every));
  if (run.schedule.vortex_lines_every > 0) {
    f.attribute("vortex_lines_every", static_cast<std::int64_t>(run.schedule.vortex_lines_every));
    option_attribute(f, "vortex_region", c.vortex_region);
    f.attribute("vortex_region_margin", c.vortex_region_margin);
    f.attribute("vortex_potential_cut", setup::vortex_potential_cut(run)); // +inf: the domain
  }
  f.attribute("operations_per_time", run.operations_per_time);
}

} // namespace

RunIdentity identify_run(std::string command_line, std::string case_file, std::string case_text) {
  return {std::move(command_line),
          std::move(case_file),
          std::move(case_text),
          utc_now(),
          host_name(),
          {},
          {},
          {}};
}

void Series::add(const Sample& s) {
  const Diagnostics& d = s.d;
  step.push_back(s.step);
  t.push_back(s.t);
  dt.push_back(s.dt);
  for (const auto& [name, value] : s.report) {
    auto column = std::ranges::find(report, name, &decltype(report)::value_type::first);
    if (column == report.end()) {
      report.emplace_back(name, std::vector<double>{});
      column = std::prev(report.end());
    }
    column->second.push_back(value);
  }
  for (std::size_t k = 0; k < kDiagnosticFields.size(); ++k) {
    fields[k].push_back(d.*kDiagnosticFields[k].value);
  }
  overlap.push_back(d.overlap);
}

void write_provenance(ResultsFile& f, const setup::RunSetup& run, const Backend& backend,
                      const RunIdentity& who) {
  write_identity(f, backend, who);
  write_physics(f, run);
  write_time_stepping(f, run);
}

void write_grid(ResultsFile& f, const Grid& g) {
  std::vector<double> centre;
  for (const lattices::Vec3& c : g.centre) {
    centre.insert(centre.end(), {c.x, c.y, c.z});
  }
  f.write("/grid/centre", centre, {static_cast<std::uint64_t>(g.ms), 3});
  f.write("/grid/volume", g.volume, {static_cast<std::uint64_t>(g.ms)});
  const std::array<double, 3> origin = {g.origin.x, g.origin.y, g.origin.z};
  const std::array<double, 3> box = {g.box.x, g.box.y, g.box.z};
  f.write("/grid/origin", origin, {3});
  f.write("/grid/box", box, {3});
}

void ProbeSeries::add(const ProbeSample& p) {
  step.push_back(p.step);
  t.push_back(p.t);
  azimuthal_amplitude.insert(azimuthal_amplitude.end(), p.azimuthal_amplitude.begin(),
                             p.azimuthal_amplitude.end());
  cell_norm.push_back(p.cell_norm);
  cell_overlap.push_back(p.cell_overlap);
}

void write_series(ResultsFile& f, const Series& s) {
  f.write("/diagnostics/step", s.step);
  const auto series = [&f](const std::string& name, const std::vector<double>& v) {
    f.write("/diagnostics/" + name, v, {v.size()});
  };
  series("t", s.t);
  series("dt", s.dt);
  for (const auto& [name, column] : s.report) {
    series(name, column);
  }
  for (std::size_t k = 0; k < kDiagnosticFields.size(); ++k) {
    series(std::string(kDiagnosticFields[k].name), s.fields[k]);
  }
  f.write("/diagnostics/overlap", s.overlap);
  const ProbeSeries& p = s.probes;
  if (!p.t.empty()) {
    f.write("/analysis/history/step", p.step);
    f.write("/analysis/history/t", p.t, {p.t.size()});
    f.write("/analysis/history/azimuthal_amplitude", p.azimuthal_amplitude,
            {p.t.size(), p.azimuthal_amplitude.size() / p.t.size()});
    f.write("/analysis/history/cell_norm", p.cell_norm, {p.cell_norm.size()});
    f.write("/analysis/history/cell_overlap", p.cell_overlap);
  }
  if (!s.vortex_lines.empty()) {
    write_vortex_lines(f, s.vortex_lines);
  }
}

int write_analysis(ResultsFile& f, const Grid& g, std::span<const Complex> current,
                   std::span<const Complex> initial) {
  const AzimuthalSpectrum spectrum = azimuthal_spectrum(g, current, initial);
  const PlaneSample plane = sample_plane(g, current, initial);
  f.write("/analysis/azimuthal_amplitude", spectrum.amplitude, {spectrum.amplitude.size()});
  f.attribute_of("/analysis/azimuthal_amplitude", "fold", static_cast<double>(spectrum.fold));
  f.write("/analysis/plane/x", plane.x, {plane.x.size()});
  f.write("/analysis/plane/y", plane.y, {plane.y.size()});
  f.write("/analysis/plane/density", plane.density, {plane.density.size()});
  f.write("/analysis/plane/initial_density", plane.initial_density, {plane.initial_density.size()});
  return spectrum.fold;
}

void write_levels(DomainOutput& out, const std::vector<std::string>& names,
                  const std::vector<std::vector<Complex>>& levels) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    out.write("/state/" + names[k], out.owned(levels[k]));
  }
}

void carry_snapshots(DomainOutput& out, const std::filesystem::path& earlier,
                     const std::string& fingerprint, long step) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(earlier, ec)) {
    return;
  }
  const InputFile from(earlier);
  if (from.text_attribute("fingerprint") != fingerprint) {
    return;
  }
  const Grid& g = out.grid();
  const auto offset = static_cast<std::uint64_t>((g.z_offset + g.owned_begin) * g.slice_cells());
  for (const std::string& name : from.members("/snapshots")) {
    if (std::stol(name) <= step) { // ψ as it was; its fields are made from it as before
      const std::string path = "/snapshots/" + name;
      write_snapshot(out, std::stol(name), from.number_attribute("t", path),
                     from.complexes(path, offset, static_cast<std::uint64_t>(g.owned_cells())));
    }
  }
}

std::string snapshot_name(long step) {
  char name[32];
  std::snprintf(name, sizeof name, "%012ld", step);
  return name;
}

void write_snapshot(DomainOutput& out, long step, double t, std::span<const Complex> owned) {
  const std::string name = snapshot_name(step);
  out.write("/snapshots/" + name, owned);
  out.attribute_of("/snapshots/" + name, "t", t);
  write_viz_fields(out, "snapshots/" + name, t, owned);
}

} // namespace decgpe::io
