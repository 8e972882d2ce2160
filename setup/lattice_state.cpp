#include "setup/lattice_state.hpp"

#include "hdf5/fnv1a.hpp"
#include "hdf5/hdf5_file.hpp"
#include "solvers/schemes/scheme.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace decgpe::setup {

namespace {

/// What the state depends on: the grid, the potential, g and the sampled state it starts from.
std::string cache_name(const RunSetup& run) {
  io::Fnv1a h;
  h.problem(run.problem);
  h.values(std::span<const double>(run.problem.potential.values));
  h.value(run.config.stationary_residual);
  h.values(std::span<const Complex>(run.current));
  return "lattice_state_" + h.hex() + ".h5";
}

/// The cached state, when the file exists, fits the grid and is stationary to the tolerance here.
std::optional<std::vector<Complex>> load(const std::filesystem::path& file, const RunSetup& run,
                                         Backend& backend, VectorId psi, VectorId scratch,
                                         LatticeStateInfo& info) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return std::nullopt;
  }
  try {
    std::vector<Complex> state = io::InputFile(file).complexes("/psi");
    if (static_cast<std::int64_t>(state.size()) != run.problem.grid.cells()) {
      return std::nullopt;
    }
    backend.upload(psi, state);
    std::tie(info.residual, info.mu) = stationary_residual(backend, psi, scratch);
    if (!(info.residual <= run.config.stationary_residual)) {
      return std::nullopt;
    }
    info.cache = "loaded";
    return state;
  } catch (const std::runtime_error&) {
    return std::nullopt; // unreadable: solved again and replaced
  }
}

void store(const std::filesystem::path& file, std::span<const Complex> state,
           const LatticeStateInfo& info) {
  io::ResultsFile f(file);
  f.write("/psi", state);
  f.attribute("mu", info.mu);
  f.attribute("residual", info.residual);
  f.attribute("newton_steps", static_cast<std::int64_t>(info.newton_steps));
  f.attribute("stencil_passes", static_cast<std::int64_t>(info.stencil_passes));
  f.commit();
}

std::vector<Complex> solve(const RunSetup& run, Backend& backend, VectorId psi,
                           LatticeStateInfo& info,
                           const std::function<void(const StationaryStateReport&)>& progress,
                           const std::function<void()>& poll) {
  const auto start = std::chrono::steady_clock::now();
  backend.upload(psi, run.current);
  StationaryStateSettings settings;
  settings.residual_tolerance = run.config.stationary_residual;
  settings.krylov_dimension = run.config.stationary_krylov;
  settings.spectral_radius = run.spectrum.frozen_radius;
  settings.on_newton_step = progress;
  settings.poll = poll;
  const StationaryStateReport r = solve_stationary_state(backend, psi, settings);
  if (!r.converged) {
    char line[240];
    std::snprintf(line, sizeof line,
                  "the lattice stationary state did not converge: residual %.3g after %d Newton "
                  "steps (tolerance %.3g, from %.3g)",
                  r.residual, r.newton_steps, settings.residual_tolerance, r.start_residual);
    throw std::runtime_error(line);
  }
  info.mu = r.mu;
  info.residual = r.residual;
  info.start_residual = r.start_residual;
  info.newton_steps = r.newton_steps;
  info.krylov_iterations = r.krylov_iterations;
  info.stencil_passes = r.stencil_passes;
  std::vector<Complex> state(run.current.size());
  backend.download(psi, state);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return state;
}

} // namespace

void settle_on_lattice(RunSetup& run, Backend& backend, const std::filesystem::path& cache_dir,
                       const std::function<void(const StationaryStateReport&)>& progress,
                       const std::function<void()>& poll) {
  const OwnedVector psi(backend), scratch(backend);
  const std::filesystem::path file = cache_dir / cache_name(run);
  LatticeStateInfo info;
  std::optional<std::vector<Complex>> state =
      load(file, run, backend, psi.id(), scratch.id(), info);
  if (!state) {
    state = solve(run, backend, psi.id(), info, progress, poll);
    store(file, *state, info);
    info.cache = "written";
  }
  info.continuum_mu = run.mu;
  run.mu = info.mu;
  run.current = std::move(*state);
  if (run.seed) {
    apply_seed(run.problem.grid, *run.seed, run.current);
    const double scale = 1.0 / std::sqrt(grid_norm(run.problem.grid, run.current));
    for (Complex& z : run.current) {
      z = scale * z;
    }
  }
  if (run.config.start == LeapfrogStart::paper) { // ψ^{−1} = ψ⁰ e^{+iμ_h Δt}, seeded alike
    const Complex turn{std::cos(run.mu * run.dt), std::sin(run.mu * run.dt)};
    run.previous.resize(run.current.size());
    for (std::size_t i = 0; i < run.current.size(); ++i) {
      run.previous[i] = mul(turn, run.current[i]);
    }
  }
  run.lattice_state = info;
}

} // namespace decgpe::setup
