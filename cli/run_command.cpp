// decgpe run: a case from its file to one HDF5 results file, as a short sequence of named steps.

#include "cli/run_command.hpp"

#include "cli/build_info.hpp"
#include "cli/run_recorder.hpp"
#include "cli/stop_signals.hpp"
#include "io/checkpoint.hpp"
#include "io/output_claim.hpp"
#include "io/visualisation.hpp"
#include "setup/case_setup.hpp"
#include "setup/grid_scaling.hpp"
#include "setup/lattice_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/nvtx.hpp"
#include "solvers/scaleout/slab_backend.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stationary_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <sys/resource.h>

namespace decgpe::cli {

using io::ResultsFile;
using setup::CaseConfig;
using setup::RunSetup;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::string case_file;
  std::string backend = "auto";
  std::string scheme;                 ///< overrides the case's time.scheme when set
  std::vector<std::string> overrides; ///< --set KEY=VALUE, in order
  std::string out;
  std::string checkpoint;
  std::string restart;
  double max_hours = 0.0;
  bool force = false;
  bool quiet = false;
  bool no_state = false;
  std::string command_line;
  const scaleout::MpiSession* mpi = nullptr;
};

/// Rank 0 runs `action`; every rank learns whether it failed, and rank 0's message is thrown on
/// all of them.
template <class Action> void on_root(const scaleout::MpiSession& mpi, Action&& action) {
  int ok = 1;
  std::string error;
  if (mpi.rank() == 0) {
    try {
      action();
    } catch (const std::exception& e) {
      ok = 0;
      error = e.what();
    }
  }
  if (mpi.active()) {
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (ok == 0) {
    throw std::runtime_error(mpi.rank() == 0 ? error : "rank 0 failed");
  }
}

/// The ranks a run is split over: all of an MPI launcher's when there are several.
MPI_Comm run_comm(const scaleout::MpiSession& mpi) {
  return mpi.active() && mpi.size() > 1 ? MPI_COMM_WORLD : MPI_COMM_NULL;
}

/// Over several ranks, the slab backend on this rank's part of the set-up; else one process.
std::unique_ptr<Backend> make_run_backend(const std::string& name, const RunSetup& setup) {
  const BackendTuning tuning{setup.config.cuda_block_shape, setup.config.cuda_graphs,
                             setup.config.halo_depth};
  if (!setup.layout.distributed()) {
    return make_backend(name, setup.problem, nullptr, tuning);
  }
  return scaleout::make_slab_backend(name, setup.problem, setup.layout, tuning);
}

/// What a rank of `cells` cells holds, for the memory check.
RunShape run_shape(const CaseConfig& c, const BackendEntry& entry, std::int64_t cells) {
  const SchemeEntry& scheme = find_scheme(c.scheme);
  const bool given_previous = c.start == "paper" && !c.lattice_stationary; // as the set-up samples
  int vectors = scheme.peak_vectors - (given_previous ? scheme.start_vectors : 0) +
                (c.adaptive ? scheme.adaptive_vectors : 0);
  if (c.lattice_stationary) { // the solver's vectors come and go before the scheme's
    StationaryStateSettings solver;
    solver.krylov_dimension = c.stationary_krylov;
    vectors = std::max(vectors, stationary_state_vectors(solver) + 2);
  }
  return {cells,
          vectors,
          scheme.takes_previous_level ? 2 : 1,
          given_previous,
          c.potential_kind == "tabulated",
          entry.memory};
}

/// Measured slab sizes where the case asks for them, or where the ranks' backends differ. A GPU
/// rank takes no more slices than its free memory holds.
setup::SlabBalance slab_balance(const CaseConfig& c, const std::string& backend_name) {
  return [&c, backend_name](const Problem& whole) -> std::optional<scaleout::Calibration> {
    if (c.slab_balance == "even" ||
        (c.slab_balance == "auto" && !scaleout::backends_differ(backend_name, MPI_COMM_WORLD))) {
      return std::nullopt;
    }
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    scaleout::bind_device(backend_name, MPI_COMM_WORLD);
    const BackendEntry& entry = backend_entry(backend_name);
    int most = std::numeric_limits<int>::max();
    if (entry.memory != BackendEntry::Memory::host) { // what fits beside the fixed part
      const auto need = [&](std::int64_t slices) {
        return static_cast<double>(
            memory_need(run_shape(c, entry, slices * whole.grid.slice_cells())).device);
      };
      const double per_slice = std::max(need(1) - need(0), 1.0);
      const double room = static_cast<double>(entry.free_bytes()) * 0.95 - need(0);
      const int halos = 2 * c.halo_depth.value_or(1);
      most = static_cast<int>(
          std::clamp(std::floor(room / per_slice) - halos, 0.0, static_cast<double>(most)));
    }
    const BackendTuning tuning{c.cuda_block_shape, c.cuda_graphs, c.halo_depth};
    return scaleout::calibrate(backend_name, whole, MPI_COMM_WORLD,
                               std::min(8, whole.grid.size[2] / ranks), most, 0.2, tuning);
  };
}

/// The memory check, once the cell count is known and before anything per cell is allocated.
setup::BeforeAllocating memory_check(const CaseConfig& c, const std::string& backend_name,
                                     const scaleout::MpiSession& mpi) {
  return [&c, backend_name, distributed = mpi.active()](std::int64_t cells) {
    const BackendEntry& entry = backend_entry(backend_name);
    MemoryNeed need = memory_need(run_shape(c, entry, cells));
    if (distributed) { // the node's ranks share its memory; their slabs and backends may differ
      need.host = scaleout::sum_on_node(need.host, MPI_COMM_WORLD);
    }
    const bool device = entry.memory != BackendEntry::Memory::host;
    check_memory(need, free_host_memory(),
                 device && entry.unavailable().empty() ? entry.free_bytes() : ~0ULL);
  };
}

void announce(const RunSetup& run, const Backend& backend, long from_step) {
  const Grid& g = run.problem.grid;
  char steps[160];
  if (run.config.adaptive) {
    std::snprintf(steps, sizeof steps, "adaptive steps (%s) to t = %g",
                  std::string(step_control_name(find_scheme(run.config.scheme).adaptive)).c_str(),
                  *run.config.end_time);
  } else {
    std::snprintf(steps, sizeof steps, "%ld steps", run.schedule.steps);
  }
  std::printf("decgpe run %s: %s, S = %dx%dx%d (%lld cells), h = %g, %s, dt %s %.4g (limit %.4g "
              "by %s, eq. 11 %.4g), %s%s, backend %s (%s)\n",
              run.config.name.c_str(), g.lattice.c_str(), g.size[0], g.size[1], g.global_z,
              static_cast<long long>(g.global_cells()), g.h, run.config.scheme.c_str(),
              run.config.adaptive ? "<=" : "=", run.dt, run.limit, run.spectrum.method.c_str(),
              run.eq11_bound, steps,
              from_step > 0 ? (", resumed at step " + std::to_string(from_step)).c_str() : "",
              backend.name().c_str(), backend.device().c_str());
  std::fflush(stdout);
}

void announce_lattice_state(const setup::LatticeStateInfo& l) {
  if (l.cache == "loaded") {
    std::printf("lattice stationary state: mu_h = %.12g (continuum %.12g), residual %.3g, from the "
                "cache\n",
                l.mu, l.continuum_mu, l.residual);
  } else {
    std::printf("lattice stationary state: mu_h = %.12g (continuum %.12g), residual %.3g from "
                "%.3g in %d Newton steps, %ld Krylov iterations, %ld stencil passes, %.1f s\n",
                l.mu, l.continuum_mu, l.residual, l.start_residual, l.newton_steps,
                l.krylov_iterations, l.stencil_passes, l.seconds);
  }
  std::fflush(stdout);
}

/// The last diagnostics sample against the exact evolution ψ₀e^{−iμt}.
struct ExactCheck {
  double t, error, bound, edge;
};

/// Only the g = 0 oscillator eigenstate in its own trap, unperturbed, has an exact evolution,
/// ψ₀e^{−iμt}.
std::optional<ExactCheck> check_against_exact(const RunSetup& run, const io::Series& s) {
  const CaseConfig& c = run.config;
  if (c.initial_kind != "harmonic_vortex" || c.g != 0.0 || c.potential_kind != "harmonic" ||
      c.seed) {
    return std::nullopt;
  }
  // ‖ψ − ψ₀e^{−iμt}‖² = N(t) + N(0) − 2 Re(e^{iμt}⟨ψ₀|ψ⟩), from the diagnostics alone.
  const double t = s.t.back();
  const Complex ov = s.overlap.back();
  const double re = std::cos(run.mu * t) * ov.re - std::sin(run.mu * t) * ov.im;
  const double error = std::sqrt(std::max(0.0, s.norm.back() + s.norm.front() - 2.0 * re));
  // Second order in the mean dual edge d: on all six lattices (d = 0.07 to 0.7, κ = 0 to 3,
  // λ = 0.5 to 2, t ≤ 6, every scheme at its usual step) the error stays below 0.044 μ²d²(1 + t).
  // Held to 0.1 μ²d²(1 + t), a correct run passes by 2.3× or more, while a μ_h off by 1 % fails the
  // default case, as does a split scheme whose step is far too long for the grid.
  const double d = dual_edge_lengths(lattices::cell_complex(c.lattice), c.h)[0];
  return ExactCheck{t, error, 0.1 * run.mu * run.mu * d * d * (1.0 + t), d};
}

/// `steps_run` of the `steps_done` were taken by this process, in `seconds`. Ends with the check
/// against the exact evolution where there is one; throws CheckFailed when it fails.
void summarise(const RunSetup& run, const io::Series& s, const Outcome& outcome, long steps_run,
               double seconds, int fold, const std::string& out) {
  const double t_end = s.t.back();
  const Complex ov = s.overlap.back();
  const double drift =
      std::abs(s.invariant.back() - s.invariant.front()) / std::abs(s.invariant.front());
  std::printf("t = %.4g: norm %.10g  energy %.10g  %s invariant drift %.2e  |<psi0|psi>| = %.10f\n",
              t_end, s.norm.back(), s.energy.back(), run.config.scheme.c_str(), drift,
              std::hypot(ov.re, ov.im));
  if (run.config.g == 0.0 && run.config.potential_kind == "harmonic") {
    // The exact evolution of the eigenstate is ψ₀ e^{−iμt}: the overlap's phase advances by −μt.
    const double error =
        std::remainder(std::atan2(ov.im, ov.re) + run.mu * t_end, 2.0 * std::numbers::pi);
    std::printf("phase error against the exact e^{-i mu t} (mu = %g): %.3e rad\n", run.mu, error);
  }
  if (outcome.error_exceeded) {
    std::printf(
        "stopped at t = %.4g: E = 1 - |<psi0|psi>| passed %g; the density change is %d-fold\n",
        t_end, *run.config.stop_when_error_exceeds, fold);
  }
  const double updates =
      static_cast<double>(run.problem.grid.global_cells()) * static_cast<double>(steps_run);
  if (run.config.adaptive) {
    const auto [shortest, longest] = std::ranges::minmax(std::span(s.dt).subspan(1));
    std::printf("adaptive: %ld steps, dt from %.4g to %.4g (sampled every %ld steps)\n",
                outcome.steps_done, shortest, longest, run.schedule.diagnostics_every);
  }
  std::printf("results: %s  (%.2f s, %.3g M cell-updates/s)\n", out.c_str(), seconds,
              updates / seconds * 1e-6);
  if (const std::optional<ExactCheck> c = check_against_exact(run, s)) {
    // ‖ψ − ψ₀e^{−iμt}‖ ≤ ‖ψ‖ + ‖ψ₀‖: a bound at or above that cannot fail, so it is no check.
    const double farthest = std::sqrt(s.norm.back()) + std::sqrt(s.norm.front());
    if (c->bound >= farthest) {
      std::printf(
          "check: none (the bound 0.1 mu^2 d^2 (1 + t) = %.3e at t = %.4g is not below %.3e, "
          "the farthest psi can be from psi0 e^{-i mu t}: mu = %g is too large for this "
          "grid, d = %.4g, to check; refine h or shorten the run)\n",
          c->bound, c->t, farthest, run.mu, c->edge);
      return;
    }
    const bool pass = c->error <= c->bound;
    std::printf("check: %s (|psi - psi0 e^{-i mu t}| = %.3e at t = %.4g; "
                "bound 0.1 mu^2 d^2 (1 + t) = %.3e, d = %.4g the mean dual edge)\n",
                pass ? "PASS" : "FAIL", c->error, c->t, c->bound, c->edge);
    if (!pass) {
      throw CheckFailed{};
    }
  }
}

/// What identifies the run in its checkpoints; a resumed run's checkpoint as read, else empty.
io::Checkpoint run_state(const RunSetup& setup, const Scheme& scheme, const io::RunIdentity& who,
                         std::optional<io::Checkpoint> resumed) {
  io::Checkpoint state = resumed ? std::move(*resumed) : io::Checkpoint{};
  if (resumed) {
    ++state.restarts;
  }
  state.scheme = setup.config.scheme;
  state.dt = setup.dt;
  state.fingerprint = who.fingerprint;
  state.case_text = who.case_text;
  state.git_commit = git_commit();
  state.level_names = scheme.level_names();
  return state;
}

/// Refuses a checkpoint of another problem, scheme or step.
void check_resumable(const io::Checkpoint& c, const RunSetup& setup,
                     const std::vector<std::string>& level_names, const std::string& path) {
  const auto refuse = [&path](const std::string& why) {
    throw std::runtime_error("cannot resume from '" + path + "': " + why);
  };
  if (c.scheme != setup.config.scheme) {
    refuse("it is a " + c.scheme + " run, this one is " + setup.config.scheme);
  }
  if (c.fingerprint != io::fingerprint(setup)) {
    refuse("it is of another problem (the lattice, grid, potential, g, scheme, start, dt or "
           "initial state differ)");
  }
  if (c.level_names != level_names || c.levels.size() != level_names.size() ||
      std::ranges::any_of(c.levels, [&](const std::vector<Complex>& level) {
        return static_cast<std::int64_t>(level.size()) != setup.problem.grid.cells();
      })) {
    refuse("its levels do not match the grid");
  }
  if (c.step > setup.schedule.steps) {
    refuse("it is at step " + std::to_string(c.step) + ", beyond the case's " +
           std::to_string(setup.schedule.steps));
  }
}

/// The --set flags as given, each quoted for a shell ("" when there are none).
/// `text` in single quotes for a POSIX shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char ch : text) {
    out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  }
  return out + "'";
}

std::string set_flags(const std::vector<std::string>& overrides) {
  std::string flags;
  for (const std::string& o : overrides) {
    flags += (flags.empty() ? "" : " ") + std::string("--set ") + quoted(o);
  }
  return flags;
}

/// The command that continues a stopped run: every option its trajectory and output depend on
/// (the case and its overrides, scheme, backend, checkpoint target, --no-state, --quiet), then the
/// checkpoint to resume from. Paths are quoted only where a shell would split or expand them.
std::string resume_command(const Options& o, const fs::path& checkpoint, const fs::path& out) {
  const auto word = [](const std::string& w) {
    const bool plain =
        !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                          "QRSTUVWXYZ0123456789_-+=.,/:@%") == std::string::npos;
    return plain ? w : quoted(w);
  };
  std::string line = "decgpe run " + word(o.case_file);
  line += o.overrides.empty() ? "" : " " + set_flags(o.overrides);
  line += o.scheme.empty() ? "" : " --scheme " + word(o.scheme);
  line += o.backend == "auto" ? "" : " --backend " + word(o.backend);
  line += o.checkpoint.empty() ? "" : " --checkpoint " + word(o.checkpoint);
  line += o.no_state ? " --no-state" : "";
  line += o.quiet ? " --quiet" : "";
  return line + " --restart " + word(checkpoint.string()) + " --out " + word(out.string()) +
         " --force";
}

/// Each rank's peak resident host memory so far in bytes, on rank 0 in rank order (collective).
std::vector<double> host_peaks(const scaleout::MpiSession& mpi) {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  double mine = static_cast<double>(usage.ru_maxrss) * 1024.0; // Linux counts KiB
  std::vector<double> every(static_cast<std::size_t>(mpi.size()), mine);
  if (mpi.active() && mpi.size() > 1) {
    MPI_Gather(&mine, 1, MPI_DOUBLE, every.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  return every;
}

/// Everything but the levels and the analysis: provenance, how the run ended, grid, series.
void write_record(ResultsFile& f, const RunSetup& setup, const Scheme& scheme,
                  const io::RunIdentity& who, const Recorder& recorder, const Outcome& outcome,
                  const Options& o, const std::string& stop_reason,
                  std::span<const double> host_peak_bytes) {
  io::write_provenance(f, setup, scheme.backend(), who);
  for (const auto& [name, value] : scheme.properties()) {
    f.attribute("scheme_" + name, value);
  }
  for (const auto& [name, value] : scheme.backend().tuning()) {
    f.attribute("tuning_" + name, value);
  }
  f.attribute("mpi_ranks", static_cast<std::int64_t>(o.mpi->size()));
  if (setup.layout.distributed()) {
    std::vector<std::int64_t> slices;
    for (int r = 0; r < setup.layout.ranks(); ++r) {
      slices.push_back(setup.layout.owned_by(r).end - setup.layout.owned_by(r).begin);
    }
    f.attribute("slab_slices", std::span<const std::int64_t>(slices));
    f.attribute("slab_balance", setup.calibration ? std::string("measured") : std::string("even"));
    if (setup.calibration) {
      f.attribute("slab_calibration_cells_per_second",
                  std::span<const double>(setup.calibration->cells_per_second));
      f.attribute("slab_calibration_trial_slices",
                  static_cast<std::int64_t>(setup.calibration->trial_slices));
      f.attribute("slab_calibration_steps", static_cast<std::int64_t>(setup.calibration->steps));
    }
  }
  f.attribute("host_peak_bytes", host_peak_bytes); // per rank, when the results were written
  f.attribute("wall_seconds", recorder.total_seconds());
  f.attribute("steps_done", static_cast<std::int64_t>(outcome.steps_done));
  f.attribute("complete", static_cast<std::int64_t>(stop_reason.empty() ? 1 : 0));
  f.attribute("stop_reason", stop_reason.empty() ? std::string("end") : stop_reason);
  if (!o.restart.empty()) {
    f.attribute("restarted_from", o.restart);
  }
  io::write_grid(f, whole_grid(setup.problem.grid));
  io::write_series(f, recorder.series());
}

void run(const Options& o) {
  const auto process_start = std::chrono::steady_clock::now();
  const scaleout::MpiSession& mpi = *o.mpi;
  const bool root = mpi.rank() == 0;
  const std::string case_text = setup::read_case_text(o.case_file);
  io::RunIdentity who = io::identify_run(o.command_line, o.case_file, case_text);
  const std::string effective =
      o.overrides.empty() ? case_text : setup::apply_overrides(case_text, o.overrides, o.case_file);
  CaseConfig config =
      setup::parse_case(effective, o.overrides.empty() ? o.case_file : o.case_file + " with --set",
                        fs::path(o.case_file).parent_path());
  config.name = fs::path(o.case_file).stem().string();
  if (!o.overrides.empty()) {
    who.overrides = set_flags(o.overrides);
    who.effective_case_text = effective;
  }
  if (!o.scheme.empty()) {
    setup::override_scheme(config, o.scheme);
  }
  const fs::path out = o.out.empty() ? "out/" + config.name + ".h5" : o.out;
  const fs::path checkpoint = o.checkpoint.empty()
                                  ? fs::path(out).replace_extension(".checkpoint.h5")
                                  : fs::path(o.checkpoint);
  std::optional<io::Checkpoint> resumed;
  if (!o.restart.empty()) {
    resumed = io::read_checkpoint(o.restart);
  }
  // Claimed before the set-up, so that a wrong target fails now, not after it.
  std::optional<io::OutputClaim> claim;
  on_root(mpi, [&] {
    std::vector<fs::path> inputs = {o.case_file};
    const bool resumes_in_place =
        !o.restart.empty() && fs::exists(checkpoint) && fs::equivalent(checkpoint, o.restart);
    if (!o.restart.empty() && !resumes_in_place) {
      inputs.emplace_back(o.restart);
    }
    claim.emplace(std::vector<io::OutputTarget>{{out, o.force},
                                                {checkpoint, o.force || resumes_in_place},
                                                // derived from the results: replaced with them
                                                {io::xdmf_path(out), true}},
                  inputs);
  });
  const StopSignals signals;
  if (config.lattice_stationary && mpi.size() > 1) {
    throw std::invalid_argument("initial.lattice_stationary runs in one process, not on " +
                                std::to_string(mpi.size()) + " MPI ranks");
  }
  RunSetup setup = [&] {
    const NvtxRange range("setup");
    return setup::prepare_run(config, memory_check(config, o.backend, mpi), run_comm(mpi),
                              slab_balance(config, o.backend));
  }();
  if (resumed) { // this rank's slices only
    const Grid& g = setup.problem.grid;
    io::read_checkpoint_levels(o.restart, *resumed, static_cast<std::uint64_t>(g.global_cells()),
                               static_cast<std::uint64_t>(g.z_offset * g.slice_cells()),
                               static_cast<std::uint64_t>(g.cells()));
  }
  const std::unique_ptr<Backend> backend = make_run_backend(o.backend, setup);
  if (setup.config.lattice_stationary) {
    const NvtxRange range("lattice stationary state");
    setup::settle_on_lattice(
        setup, *backend, setup::vortex_cache_dir(),
        [quiet = o.quiet](const StationaryStateReport& r) {
          if (!quiet) {
            std::printf("lattice stationary state: Newton step %d, residual "
                        "%.3g, mu_h %.12g\n",
                        r.newton_steps, r.residual, r.mu);
            std::fflush(stdout);
          }
        },
        [] { // a signal: no checkpoint yet, so stop at once
          if (const int signal = StopSignals::received()) {
            std::fprintf(stderr,
                         "decgpe: stopped by %s while solving for the "
                         "lattice stationary state; nothing written\n",
                         signal_name(signal));
            throw Stopped{128 + signal};
          }
        });
    if (!o.quiet) {
      announce_lattice_state(*setup.lattice_state);
    }
  }
  who.fingerprint = io::fingerprint(setup);
  std::optional<ResultsFile> file;
  on_root(mpi, [&] { file.emplace(out); });
  // The whole-domain datasets: each rank writes its slab's beside the results
  // (io/domain_output.hpp).
  io::DomainOutput results(file ? &*file : nullptr, out, setup.problem.grid, setup.layout);
  if (resumed) {
    io::carry_snapshots(results, out, who.fingerprint, resumed->step);
  }
  const std::unique_ptr<Scheme> scheme = make_scheme(setup.config.scheme, *backend, setup.dt);
  if (setup.config.adaptive) {
    scheme->make_adaptive(find_scheme(setup.config.scheme).adaptive, setup.adaptive);
  }
  if (resumed) {
    check_resumable(*resumed, setup, scheme->level_names(), o.restart);
    scheme->set_clock({resumed->step, resumed->t, resumed->last_dt, resumed->next_dt});
  }
  const StartPoint from =
      resumed ? StartPoint{resumed->step, resumed->initial_max_abs} : StartPoint{};
  Recorder recorder({file ? &*file : nullptr, &results, o.quiet, checkpoint,
                     config.checkpoint_minutes, o.max_hours * 3600.0, process_start, &mpi,
                     &setup.layout, setup.current},
                    setup.problem.grid, run_state(setup, *scheme, who, std::move(resumed)));
  if (from.step > 0) {
    scheme->resume(recorder.levels(), setup.current);
  } else {
    scheme->start({setup.current, setup.current, setup.previous});
  }
  if (!o.quiet && root) {
    announce(setup, *backend, from.step);
  }

  recorder.start_clock();
  const Outcome outcome = integrate(*scheme, setup.schedule, recorder, from);
  scheme->synchronize();
  recorder.stop_clock();

  const NvtxRange io_range("write results");
  const std::vector<std::vector<Complex>>& levels = recorder.gather(*scheme);
  const std::vector<double> peaks = host_peaks(mpi);
  const std::string stop_reason = !outcome.stopped ? ""
                                  : recorder.stop_signal() != 0
                                      ? std::string(signal_name(recorder.stop_signal()))
                                      : std::string("max-hours");
  if (root) {
    write_record(*file, setup, *scheme, who, recorder, outcome, o, stop_reason, peaks);
  }
  const int fold = recorder.write_analysis(levels.front());
  if (!o.no_state) {
    io::write_levels(results, scheme->level_names(), levels);
    io::write_viz_fields(results, "state", scheme->clock().time, results.owned(levels.front()));
  }
  // Points for ParaView only where there are fields to show: --no-state runs stay small.
  const bool viewable = !o.no_state || setup.schedule.snapshot_every > 0;
  if (viewable) {
    io::write_viz_points(results);
  }
  results.commit();
  if (root) {
    file->commit();
    results.remove_superseded();
    if (viewable) {
      io::write_xdmf(out);
    }
    if (outcome.stopped) {
      std::fprintf(outcome.stopped && recorder.stop_signal() != 0 ? stderr : stdout,
                   "decgpe: stopped by %s at step %ld (t = %g); results so far in %s; resume "
                   "with: %s\n",
                   stop_reason.c_str(), outcome.steps_done, scheme->clock().time, out.c_str(),
                   resume_command(o, checkpoint, out).c_str());
    } else {
      io::remove_with_parts(checkpoint); // superseded by the complete results
      if (!o.quiet) {
        summarise(setup, recorder.series(), outcome, outcome.steps_done - from.step,
                  recorder.seconds(), fold, out.string());
      }
    }
  }
  if (outcome.stopped) {
    throw Stopped{recorder.stop_signal() != 0 ? 128 + recorder.stop_signal() : 0};
  }
}

/// Every name the backend registry accepts, variants included, with what each runs on.
std::string backend_help() {
  std::string help = "auto: the first usable of these, in this order";
  for (const BackendEntry& e : backend_registry()) {
    help += "; " + std::string(e.name) + ": " + std::string(e.description);
  }
#if !DECGPE_HAVE_CUDA
  help += " (no cuda backends in this build: configure with the cuda preset where nvcc exists)";
#endif
  return help;
}

} // namespace

/// A finite number > 0 (CLI11's PositiveNumber lets NaN and infinity through, and prints its range
/// with 300 digits).
CLI::Validator finite_positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || !(value > 0.0)) {
          return "must be a finite number > 0, got '" + text.substr(0, 32) + "'";
        }
        return {};
      },
      "NUMBER > 0");
}

/// A file name that is not empty (an empty --out would fall back to the default silently).
CLI::Validator file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() || text.back() == '/'
                   ? "must name a file, got '" + text.substr(0, 64) + "'"
                   : std::string{};
      },
      "FILE");
}

void add_run_command(CLI::App& app, int argc, char** argv, const scaleout::MpiSession& mpi) {
  auto o = std::make_shared<Options>();
  o->mpi = &mpi;
  for (int i = 0; i < argc; ++i) {
    o->command_line += (i ? " " : "") + std::string(argv[i]);
  }
  CLI::App* cmd =
      app.add_subcommand("run", "Integrate a case and write its results to one HDF5 file");
  cmd->add_option("case", o->case_file, "TOML case file (see cases/)")->required();
  cmd->add_option("--backend", o->backend, backend_help())->capture_default_str();
  std::string schemes = "overrides the case's time.scheme:";
  for (const SchemeEntry& e : scheme_registry()) {
    schemes += " " + std::string(e.name);
  }
  cmd->add_option("--scheme", o->scheme, schemes)
      ->check(CLI::Validator(
          [](std::string& name) {
            return name.empty() ? std::string("must name a scheme, got ''") : std::string{};
          },
          "SCHEME"));
  cmd->add_option(
         "--set", o->overrides,
         "KEY=VALUE: set a case key (dotted, e.g. time.end_time=10), checked like the file "
         "and recorded in the results; KEY= removes it; may be repeated")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--out", o->out, "results file (default: out/<case name>.h5)")
      ->check(file_name());
  cmd->add_flag("--force", o->force, "replace an existing results file and checkpoint");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "checkpoint file (default: the results file's name with .checkpoint.h5); "
                  "written on the case's [output] cadence and when a signal or --max-hours stops "
                  "the run, removed when the run completes")
      ->check(file_name());
  cmd->add_option("--restart", o->restart,
                  "continue from this checkpoint; the final state is bitwise that of an "
                  "uninterrupted run")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-hours", o->max_hours,
                  "stop cleanly (checkpoint, results marked incomplete, exit 0) before this much "
                  "wall time")
      ->check(finite_positive());
  cmd->add_flag("--quiet", o->quiet,
                "no progress line and no summary (so no check against the exact evolution)");
  cmd->add_flag("--no-state", o->no_state,
                "leave the final state out of the results (the plane z = 0 is always written)");
  cmd->footer(
      "Exit status: 0 done, or stopped by --max-hours; 1 bad input or a failed run (one "
      "line on stderr); 3 the summary's check against the exact evolution failed (the "
      "results are written); 128 + N stopped by signal N (checkpoint and results written).");
  cmd->callback([o] { run(*o); });
}

} // namespace decgpe::cli
