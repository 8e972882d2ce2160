// decgpe run: a case from its file to one HDF5 results file, as a short sequence of named steps.

#include "cli/run_command.hpp"

#include "io/results.hpp"
#include "setup/case_setup.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/nvtx.hpp"
#include "solvers/scaleout/slab_backend.hpp"
#include "solvers/schemes/registry.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <optional>
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

  void on_diagnostics(const Sample& s) override { series.add(s.step, s.t, s.d); }

  void on_snapshot(long at_step, double at_t, Scheme& scheme) override {
    std::vector<Complex> current(static_cast<std::size_t>(grid_.cells()));
    scheme.download(0, current); // collective over ranks: every rank takes part
    if (file_ != nullptr) {
      io::write_snapshot(*file_, at_step, at_t, current);
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
                 tty_ ? "\r" : "", at_step, total, series.t.empty() ? 0.0 : series.t.back(),
                 rate * static_cast<double>(grid_.cells()) * 1e-6, eta,
                 tty_ && !done ? "   " : "\n");
    std::fflush(stderr);
  }

  io::Series series;

private:
  ResultsFile* file_;
  const Grid& grid_;
  bool quiet_;
  bool tty_ = isatty(fileno(stderr)) != 0;
  Clock::time_point start_ = Clock::now();
  double last_print_ = 0.0;
};

RunSetup prepare(const Options& o) {
  const NvtxRange range("setup");
  CaseConfig config = setup::read_case_file(o.case_file);
  if (!o.scheme.empty()) {
    setup::override_scheme(config, o.scheme);
  }
  return setup::prepare_run(config);
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

void announce(const RunSetup& run, const Backend& backend) {
  const Grid& g = run.problem.grid;
  std::printf("decgpe run %s: %s, S = %dx%dx%d (%lld cells), h = %g, %s, dt = %.4g (limit %.4g by "
              "%s, eq. 11 %.4g), %ld steps, backend %s (%s)\n",
              run.config.name.c_str(), g.lattice.c_str(), g.size[0], g.size[1], g.size[2],
              static_cast<long long>(g.cells()), g.h, run.config.scheme.c_str(), run.dt, run.limit,
              run.spectrum.method.c_str(), run.eq11_bound, run.schedule.steps,
              backend.name().c_str(), backend.device().c_str());
  std::fflush(stdout);
}

/// Every level of the scheme, whole domain (on rank 0; collective over ranks).
std::vector<std::vector<Complex>> gather_levels(Scheme& scheme, const Grid& g) {
  std::vector<std::vector<Complex>> levels(scheme.level_names().size());
  for (std::size_t k = 0; k < levels.size(); ++k) {
    levels[k].resize(static_cast<std::size_t>(g.cells()));
    scheme.download(static_cast<int>(k), levels[k]);
  }
  return levels;
}

void summarise(const RunSetup& run, const io::Series& s, long steps_done, double seconds, int fold,
               const std::string& out) {
  const double t_end = s.t.back();
  const Complex ov = s.overlap.back();
  const double drift =
      std::abs(s.invariant.back() - s.invariant.front()) / std::abs(s.invariant.front());
  std::printf("t = %.4g: norm %.10f  energy %.10f  %s invariant drift %.2e  |<psi0|psi>| = %.10f\n",
              t_end, s.norm.back(), s.energy.back(), run.config.scheme.c_str(), drift,
              std::hypot(ov.re, ov.im));
  if (run.config.g == 0.0 && run.config.potential_kind == "harmonic") {
    // The exact evolution of the eigenstate is ψ₀ e^{−iμt}: the overlap's phase advances by −μt.
    const double error =
        std::remainder(std::atan2(ov.im, ov.re) + run.mu * t_end, 2.0 * std::numbers::pi);
    std::printf("phase error against the exact e^{-i mu t} (mu = %g): %.3e rad\n", run.mu, error);
  }
  if (steps_done < run.schedule.steps) {
    std::printf(
        "stopped at t = %.4g: E = 1 - |<psi0|psi>| passed %g; the density change is %d-fold\n",
        t_end, *run.config.stop_when_error_exceeds, fold);
  }
  const double updates =
      static_cast<double>(run.problem.grid.cells()) * static_cast<double>(steps_done);
  std::printf("results: %s  (%.2f s, %.3g M cell-updates/s)\n", out.c_str(), seconds,
              updates / seconds * 1e-6);
}

void run(const Options& o) {
  const io::RunIdentity who = io::identify_run(o.command_line, o.case_file);
  const RunSetup setup = prepare(o);
  const Grid& grid = setup.problem.grid;
  const std::string out = o.out.empty() ? "out/" + setup.config.name + ".h5" : o.out;
  const bool root = o.mpi->rank() == 0;
  // Opened before the run, so that an unwritable path fails now, not after it; rank 0 writes.
  std::optional<ResultsFile> file;
  open_on_root(file, out, *o.mpi);
  const std::unique_ptr<Backend> backend = make_run_backend(o.backend, setup.problem, *o.mpi);
  const std::unique_ptr<Scheme> scheme = make_scheme(setup.config.scheme, *backend, setup.dt);
  scheme->start({setup.current, setup.current, setup.previous});
  if (!o.quiet && root) {
    announce(setup, *backend);
  }

  Recorder recorder(file ? &*file : nullptr, grid, o.quiet);
  const auto start = Clock::now();
  const long steps_done = integrate(*scheme, setup.schedule, recorder);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  const NvtxRange io_range("write results");
  const std::vector<std::vector<Complex>> levels = gather_levels(*scheme, grid);
  if (!root) {
    return;
  }
  ResultsFile& f = *file;
  io::write_provenance(f, setup, *backend, who);
  f.attribute("mpi_ranks", static_cast<std::int64_t>(o.mpi->size()));
  f.attribute("wall_seconds", seconds);
  f.attribute("steps_done", static_cast<std::int64_t>(steps_done));
  io::write_grid(f, grid);
  io::write_series(f, recorder.series);
  const int fold = io::write_analysis(f, grid, levels.front(), setup.current);
  if (!o.no_state) {
    io::write_levels(f, scheme->level_names(), levels);
  }
  f.commit();
  if (!o.quiet) {
    summarise(setup, recorder.series, steps_done, seconds, fold, out);
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
