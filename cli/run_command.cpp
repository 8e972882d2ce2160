#include "cli/run_command.hpp"

#include "cli/build_info.hpp"
#include "io/hdf5_file.hpp"
#include "setup/case_setup.hpp"
#include "setup/grid_scaling.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/nvtx.hpp"
#include "solvers/scaleout/slab_backend.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/splitting.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <numbers>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace decgpe::cli {

using io::ResultsFile;
using setup::CaseConfig;
using setup::RunSetup;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string case_file;
  std::string backend = "auto";
  std::string scheme; ///< overrides the case's time.scheme when set
  std::string out;
  bool quiet = false;
  bool no_state = false;
  std::string command_line;
  const scaleout::MpiSession* mpi = nullptr;
};

/// Collects the time series, writes snapshots as they come, and keeps a progress line on stderr.
class Recorder final : public RunObserver {
public:
  /// `file` is null on the ranks that do not write (all but rank 0).
  Recorder(ResultsFile* file, const Grid& grid, bool quiet)
      : file_(file), grid_(grid), quiet_(quiet || file == nullptr) {}

  void on_diagnostics(const Sample& s) override {
    step.push_back(s.step);
    t.push_back(s.t);
    norm.push_back(s.d.norm);
    energy.push_back(s.d.energy);
    invariant.push_back(s.d.invariant);
    overlap.push_back(s.d.overlap);
    max_abs.push_back(s.d.max_abs);
    max_diagonal.push_back(s.d.max_diagonal);
  }

  void on_snapshot(long at_step, double at_t, Scheme& scheme) override {
    std::vector<Complex> current(static_cast<std::size_t>(grid_.cells()));
    scheme.download(0, current); // collective over ranks: every rank takes part
    if (file_ != nullptr) {
      const std::string name = "/snapshots/" + std::to_string(at_step);
      file_->write(name, current);
      file_->attribute_of(name, "t", at_t);
    }
  }

  void on_progress(long at_step, long total) override {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const bool done = at_step == total;
    if (quiet_ || elapsed < 3.0 || (!done && elapsed - last_print_ < (tty_ ? 0.5 : 10.0))) {
      return;
    }
    last_print_ = elapsed;
    const double rate = static_cast<double>(at_step) / elapsed;
    const double eta = static_cast<double>(total - at_step) / rate;
    std::fprintf(stderr, "%sstep %ld/%ld  t = %.4g  %.3g M cell-updates/s  ETA %.0f s%s",
                 tty_ ? "\r" : "", at_step, total, t.empty() ? 0.0 : t.back(),
                 rate * static_cast<double>(grid_.cells()) * 1e-6, eta,
                 tty_ && !done ? "   " : "\n");
    std::fflush(stderr);
  }

  std::vector<std::int64_t> step;
  std::vector<double> t, norm, energy, invariant, max_abs, max_diagonal;
  std::vector<Complex> overlap;

private:
  ResultsFile* file_;
  const Grid& grid_;
  bool quiet_;
  bool tty_ = isatty(fileno(stderr)) != 0;
  Clock::time_point start_ = Clock::now();
  double last_print_ = 0.0;
};

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

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_provenance(ResultsFile& f, const RunSetup& run, const Backend& backend,
                      const Options& o) {
  const SchemeEntry& scheme = find_scheme(run.config.scheme);
  const CaseConfig& c = run.config;
  const Problem& p = run.problem;
  f.attribute("decgpe_version", std::string(version()));
  f.attribute("git_commit", std::string(git_commit()));
  f.attribute("command_line", o.command_line);
  f.attribute("date", utc_now());
  f.attribute("host", host_name());
  f.attribute("backend", backend.name());
  f.attribute("device", backend.device());
  f.attribute("case_name", c.name);
  f.attribute("case_file", o.case_file);
  f.attribute("case_toml", read_text(o.case_file));
  f.attribute("lattice", c.lattice);
  f.attribute("h", c.h);
  const std::array<std::int64_t, 3> size = {p.grid.size[0], p.grid.size[1], p.grid.size[2]};
  f.attribute("structures", std::span<const std::int64_t>(size));
  f.attribute("cells", static_cast<std::int64_t>(p.grid.cells()));
  f.attribute("cells_per_structure", static_cast<std::int64_t>(p.grid.ms));
  f.attribute("potential", c.potential_kind);
  f.attribute("lambda", c.lambda);
  f.attribute("g", c.g);
  f.attribute("scheme", run.config.scheme);
  f.attribute("start", run.config.start);
  f.attribute("invariant_meaning", std::string(scheme.invariant));
  f.attribute("dt", run.dt);
  f.attribute("dt_limit", run.limit);
  f.attribute("dt_limit_factor", scheme.limit_factor);
  f.attribute("dt_limit_method", run.spectrum.method);
  f.attribute("dt_fraction_of", run.config.dt_fraction_of);
  f.attribute("spectral_radius", run.spectrum.radius);
  f.attribute("spectral_radius_gershgorin", run.spectrum.gershgorin);
  f.attribute("spectral_radius_lanczos", run.spectrum.lanczos_upper);
  f.attribute("lanczos_lambda_max", run.spectrum.lambda_max);
  f.attribute("lanczos_lambda_min", run.spectrum.lambda_min);
  f.attribute("lanczos_iterations", static_cast<std::int64_t>(run.spectrum.iterations));
  f.attribute("stability_bound", run.eq11_bound); // the paper's eq. 11, for comparison
  f.attribute("steps", static_cast<std::int64_t>(run.schedule.steps));
  f.attribute("end_time", static_cast<double>(run.schedule.steps) * run.dt);
  f.attribute("diagnostics_every", static_cast<std::int64_t>(run.schedule.diagnostics_every));
  f.attribute("snapshot_every", static_cast<std::int64_t>(run.schedule.snapshot_every));
  f.attribute("initial_state", c.initial_kind);
  f.attribute("kappa", static_cast<std::int64_t>(c.kappa));
  f.attribute("mu", run.mu);
  f.attribute("operations_per_time", run.operations_per_time);
  const std::array<double, 3> shift = c.shift;
  f.attribute("shift", std::span<const double>(shift));
  if (run.effective_wavelength > 0.0) {
    f.attribute("effective_wavelength", run.effective_wavelength);
  }
  const std::array<double, 2> edges = dual_edge_lengths(lattices::cell_complex(c.lattice), c.h);
  f.attribute("dual_edge_mean", edges[0]);
  f.attribute("dual_edge_max", edges[1]);
  f.attribute("domain_volume",
              static_cast<double>(p.grid.instances()) * p.grid.box.x * p.grid.box.y * p.grid.box.z);
}

/// Per local index: circumcentre and volume; with `origin` and `box` these give every cell's
/// position.
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

/// Opens the results file on rank 0 and tells every rank whether that worked.
void open_on_root(std::optional<ResultsFile>& file, const std::string& out,
                  const scaleout::MpiSession& mpi) {
  int ok = 1;
  std::string error;
  if (mpi.rank() == 0) {
    try {
      file.emplace(out);
    } catch (const std::exception& e) {
      ok = 0;
      error = e.what();
    }
  }
  if (mpi.active()) {
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (ok == 0) {
    throw std::runtime_error(mpi.rank() == 0 ? error : "rank 0 cannot write the output");
  }
}

/// Under an MPI launcher with several ranks, the slab backend over all of them; else one process.
std::unique_ptr<Backend> make_run_backend(const std::string& name, const Problem& p,
                                          const scaleout::MpiSession& mpi) {
  if (!mpi.active() || mpi.size() == 1) {
    return make_backend(name, p);
  }
  return scaleout::make_slab_backend(name, p, MPI_COMM_WORLD);
}

void run(const Options& o) {
  const RunSetup setup = [&] {
    const NvtxRange range("setup");
    CaseConfig config = setup::read_case_file(o.case_file);
    if (!o.scheme.empty()) {
      setup::override_scheme(config, o.scheme);
    }
    return setup::prepare_run(config);
  }();
  const Problem& p = setup.problem;
  const std::string out = o.out.empty() ? "out/" + setup.config.name + ".h5" : o.out;
  const bool root = o.mpi->rank() == 0;
  // Opened before the run, so that an unwritable path fails now, not after it; rank 0 writes.
  std::optional<ResultsFile> file;
  open_on_root(file, out, *o.mpi);
  const std::unique_ptr<Backend> backend = make_run_backend(o.backend, p, *o.mpi);
  const std::unique_ptr<Scheme> scheme = make_scheme(setup.config.scheme, *backend, setup.dt);
  scheme->start({setup.current, setup.current, setup.previous});
  if (!o.quiet && root) {
    std::printf("decgpe run %s: %s, S = %dx%dx%d (%lld cells), h = %g, %s, dt = %.4g (limit %.4g "
                "by %s, eq. 11 %.4g), %ld steps, backend %s (%s)\n",
                setup.config.name.c_str(), p.grid.lattice.c_str(), p.grid.size[0], p.grid.size[1],
                p.grid.size[2], static_cast<long long>(p.grid.cells()), p.grid.h,
                setup.config.scheme.c_str(), setup.dt, setup.limit, setup.spectrum.method.c_str(),
                setup.eq11_bound, setup.schedule.steps, backend->name().c_str(),
                backend->device().c_str());
    std::fflush(stdout);
  }
  Recorder recorder(file ? &*file : nullptr, p.grid, o.quiet);
  const auto start = Clock::now();
  const long steps_done = integrate(*scheme, setup.schedule, recorder);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  const NvtxRange io_range("write results");
  const std::vector<std::string> levels = scheme->level_names();
  std::vector<std::vector<Complex>> state(levels.size());
  for (std::size_t k = 0; k < levels.size(); ++k) {
    state[k].resize(static_cast<std::size_t>(p.grid.cells()));
    scheme->download(static_cast<int>(k), state[k]);
  }
  const std::vector<Complex>& current = state.front();
  if (!root) {
    return;
  }
  ResultsFile& f = *file;
  write_provenance(f, setup, *backend, o);
  f.attribute("mpi_ranks", static_cast<std::int64_t>(o.mpi->size()));
  f.attribute("wall_seconds", seconds);
  f.attribute("steps_done", static_cast<std::int64_t>(steps_done));
  write_grid(f, p.grid);
  f.write("/diagnostics/step", recorder.step);
  f.write("/diagnostics/t", recorder.t, {recorder.t.size()});
  f.write("/diagnostics/norm", recorder.norm, {recorder.norm.size()});
  f.write("/diagnostics/energy", recorder.energy, {recorder.energy.size()});
  f.write("/diagnostics/invariant", recorder.invariant, {recorder.invariant.size()});
  f.write("/diagnostics/max_abs", recorder.max_abs, {recorder.max_abs.size()});
  f.write("/diagnostics/max_diagonal", recorder.max_diagonal, {recorder.max_diagonal.size()});
  f.write("/diagnostics/overlap", recorder.overlap);
  // The plane z = 0 and its azimuthal spectrum (how the vortex splits): small, always written.
  const AzimuthalSpectrum spectrum = azimuthal_spectrum(p.grid, current, setup.current);
  const PlaneSample plane = sample_plane(p.grid, current, setup.current);
  f.write("/analysis/azimuthal_amplitude", spectrum.amplitude, {spectrum.amplitude.size()});
  f.attribute_of("/analysis/azimuthal_amplitude", "fold", static_cast<double>(spectrum.fold));
  f.write("/analysis/plane/x", plane.x, {plane.x.size()});
  f.write("/analysis/plane/y", plane.y, {plane.y.size()});
  f.write("/analysis/plane/density", plane.density, {plane.density.size()});
  f.write("/analysis/plane/initial_density", plane.initial_density, {plane.initial_density.size()});
  if (!o.no_state) {
    for (std::size_t k = 0; k < levels.size(); ++k) {
      f.write("/state/" + levels[k], state[k]);
    }
  }
  f.commit();

  if (!o.quiet) {
    const double t_end = recorder.t.back();
    const Complex ov = recorder.overlap.back();
    const double drift = std::abs(recorder.invariant.back() - recorder.invariant.front()) /
                         std::abs(recorder.invariant.front());
    std::printf(
        "t = %.4g: norm %.10f  energy %.10f  %s invariant drift %.2e  |<psi0|psi>| = %.10f\n",
        t_end, recorder.norm.back(), recorder.energy.back(), setup.config.scheme.c_str(), drift,
        std::hypot(ov.re, ov.im));
    if (setup.config.g == 0.0 && setup.config.potential_kind == "harmonic") {
      // The exact evolution of the eigenstate is ψ₀ e^{−iμt}: the overlap's phase should advance by
      // −μt.
      double error = std::atan2(ov.im, ov.re) + setup.mu * t_end;
      error = std::remainder(error, 2.0 * std::numbers::pi);
      std::printf("phase error against the exact e^{-i mu t} (mu = %g): %.3e rad\n", setup.mu,
                  error);
    }
    const double updates = static_cast<double>(p.grid.cells()) * static_cast<double>(steps_done);
    if (steps_done < setup.schedule.steps) {
      std::printf(
          "stopped at t = %.4g: E = 1 - |<psi0|psi>| passed %g; the density change is %d-fold\n",
          t_end, *setup.config.stop_when_error_exceeds, spectrum.fold);
    }
    std::printf("results: %s  (%.2f s, %.3g M cell-updates/s)\n", out.c_str(), seconds,
                updates / seconds * 1e-6);
  }
}

} // namespace

void add_run_command(CLI::App& app, int argc, char** argv, const scaleout::MpiSession& mpi) {
  auto o = std::make_shared<Options>();
  o->mpi = &mpi;
  for (int i = 0; i < argc; ++i) {
    o->command_line += (i ? " " : "") + std::string(argv[i]);
  }
  CLI::App* cmd =
      app.add_subcommand("run", "Integrate a case and write its results to one HDF5 file");
  cmd->add_option("case", o->case_file, "TOML case file (see cases/)")->required();
  std::string backends = "auto (the first usable of";
  for (const BackendEntry& e : backend_registry()) {
    backends += std::string(" ") + std::string(e.name);
  }
  cmd->add_option("--backend", o->backend, backends + ")")->capture_default_str();
  std::string schemes = "overrides the case's time.scheme:";
  for (const SchemeEntry& e : scheme_registry()) {
    schemes += " " + std::string(e.name);
  }
  cmd->add_option("--scheme", o->scheme, schemes);
  cmd->add_option("--out", o->out, "results file (default: out/<case name>.h5)");
  cmd->add_flag("--quiet", o->quiet, "no progress line and no summary");
  cmd->add_flag("--no-state", o->no_state,
                "leave the final state out of the results (the plane z = 0 is always written)");
  cmd->callback([o] { run(*o); });
}

} // namespace decgpe::cli
