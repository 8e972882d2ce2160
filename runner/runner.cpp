// A run from its case file to one HDF5 results file, as a short sequence of named phases: read the
// case, claim the outputs, set up (resources planned before anything per cell is allocated),
// settle on the lattice, open the results, start or resume the scheme, integrate, write, report.

#include "runner/runner.hpp"

#include "hdf5/output_claim.hpp"
#include "io/checkpoint.hpp"
#include "io/visualisation.hpp"
#include "runner/records.hpp"
#include "runner/resources.hpp"
#include "runner/run_recorder.hpp"
#include "runner/stop_signals.hpp"
#include "runner/summary.hpp"
#include "setup/case_setup.hpp"
#include "setup/ground_state.hpp"
#include "setup/lattice_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/memory_budget.hpp"
#include "solvers/nvtx.hpp"
#include "solvers/schemes/registry.hpp"
#include "solvers/stability_watch.hpp"
#include "solvers/stationary_state.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>

namespace decgpe::runner {

using io::ResultsFile;
using setup::CaseConfig;
using setup::RunSetup;
namespace fs = std::filesystem;

namespace {

class Run {
public:
  explicit Run(const RunRequest& o)
      : o_(o), mpi_(*o.mpi), root_(mpi_.rank() == 0),
        process_start_(std::chrono::steady_clock::now()) {}

  void operator()() {
    const StopSignals signals; // from the start: the set-up's first poll honours an early signal
    read_case();
    claim_outputs();
    set_up();
    open_results();
    start_scheme();
    recorder_->prepare(*scheme_);
    recorder_->start_clock();
    const Outcome outcome =
        integrate(*scheme_, setup_.schedule, *recorder_, from_, watch_ ? &*watch_ : nullptr);
    scheme_->synchronize();
    recorder_->stop_clock();
    finish(outcome);
  }

  /// The case read and set up as a run would be (nothing claimed or written), and a short trial.
  RunPlan plan(long trial_steps) {
    read_case();
    set_up();
    RunPlan p;
    const auto fact = [&p](std::string name, std::string value) {
      p.facts.emplace_back(std::move(name), std::move(value));
    };
    const Grid& g = setup_.problem.grid;
    fact("case", o_.case_file + (o_.overrides.empty() ? "" : " " + set_flags(o_.overrides)));
    fact("lattice", config_.lattice);
    fact("h", number(g.h)); // the grid's: operations_per_time chooses it
    fact("structures", std::to_string(g.size[0]) + " x " + std::to_string(g.size[1]) + " x " +
                           std::to_string(g.global_z));
    fact("cells", std::to_string(g.global_cells()));
    fact("backend", backend_->name() + " (" + backend_->device() + ")");
    const MemoryNeed need = planned_memory(config_, o_.backend, g.cells());
    fact("host memory", gib(static_cast<double>(need.host)) + " (" +
                            gib(static_cast<double>(free_host_memory())) + " free)");
    if (need.device > 0) {
      fact("device memory", gib(static_cast<double>(need.device)));
    }
    fact("scheme", config_.scheme + (config_.adaptive ? " (adaptive steps)" : ""));
    fact("dt", number(setup_.dt));
    fact("dt limit", number(setup_.limit) + " (" + setup_.limit_method + "; dt is " +
                         number(setup_.dt / setup_.limit) + " of it)");
    // An adaptive run's schedule counts the most steps a run may take; it ends at end_time.
    const double steps = config_.adaptive ? std::ceil(*config_.end_time / setup_.dt - 1e-12)
                                          : static_cast<double>(setup_.schedule.steps);
    fact("steps", config_.adaptive ? number(steps) + " at the longest step (more where it shrinks)"
                                   : std::to_string(setup_.schedule.steps));
    fact("end time", number(config_.adaptive ? *config_.end_time : steps * setup_.dt));
    const double per_step = trial_seconds(trial_steps);
    fact("trial", number(per_step * 1e3) + " ms a step over " + std::to_string(trial_steps) +
                      " steps on this machine");
    fact("estimated wall time", number(per_step * steps) + " s (the steps alone)");
    fact("results", out_.string());
    fact("checkpoint", checkpoint_.string());
    return p;
  }

private:
  static std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
  }
  static std::string gib(double bytes) {
    return number(bytes / (1024.0 * 1024.0 * 1024.0)) + " GiB";
  }

  /// Seconds a step of the run's scheme takes here, timed over `steps` after one untimed step.
  double trial_seconds(long steps) {
    const std::unique_ptr<Scheme> scheme = new_scheme();
    scheme->start({setup_.current, setup_.current, setup_.previous});
    scheme->advance(1);
    scheme->synchronize();
    const auto start = std::chrono::steady_clock::now();
    scheme->advance(steps);
    scheme->synchronize();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    return took.count() / static_cast<double>(std::max(steps, 1L));
  }

  /// The case with its overrides and scheme, what identifies the run, its output paths and the
  /// checkpoint it resumes (levels read once the set-up knows this rank's slab).
  void read_case() {
    const std::string case_text = setup::read_case_text(o_.case_file);
    who_ = io::identify_run(o_.command_line, o_.case_file, case_text);
    const std::string effective =
        o_.overrides.empty() ? case_text
                             : setup::apply_overrides(case_text, o_.overrides, o_.case_file);
    config_ = setup::parse_case(effective,
                                o_.overrides.empty() ? o_.case_file : o_.case_file + " with --set",
                                fs::path(o_.case_file).parent_path());
    config_.name = fs::path(o_.case_file).stem().string();
    if (!o_.overrides.empty()) {
      who_.overrides = set_flags(o_.overrides);
      who_.effective_case_text = effective;
    }
    if (!o_.scheme.empty()) {
      setup::override_scheme(config_, o_.scheme);
    }
    out_ = o_.out.empty() ? "out/" + config_.name + ".h5" : o_.out;
    checkpoint_ = o_.checkpoint.empty() ? fs::path(out_).replace_extension(".checkpoint.h5")
                                        : fs::path(o_.checkpoint);
    if (!o_.restart.empty()) {
      resumed_ = io::read_checkpoint(o_.restart);
    }
  }

  /// Claimed before the set-up, so that a wrong target fails now, not after it.
  void claim_outputs() {
    on_root(mpi_, [&] {
      std::vector<fs::path> inputs = {o_.case_file};
      const bool resumes_in_place =
          !o_.restart.empty() && fs::exists(checkpoint_) && fs::equivalent(checkpoint_, o_.restart);
      if (!o_.restart.empty() && !resumes_in_place) {
        inputs.emplace_back(o_.restart);
      }
      claim_.emplace(std::vector<io::OutputTarget>{{out_, o_.force},
                                                   {checkpoint_, o_.force || resumes_in_place},
                                                   // derived from the results: replaced with them
                                                   {io::xdmf_path(out_), true},
                                                   {io::lines_xdmf_path(out_), true}},
                     inputs);
    });
  }

  void set_up() {
    if (config_.lattice_stationary && mpi_.size() > 1) {
      throw std::invalid_argument("initial.lattice_stationary runs in one process, not on " +
                                  std::to_string(mpi_.size()) + " MPI ranks");
    }
    {
      const NvtxRange range("setup");
      setup_ = setup::prepare_run(
          config_, memory_check(config_, o_.backend, mpi_), run_comm(mpi_),
          slab_balance(config_, o_.backend), [this, said = false](const char* doing) mutable {
            stop_if_signalled(doing);
            // By text: string literals of two files need not share an
            // address (ASan's builds do not merge them).
            if (std::string_view(doing) == setup::kSolvingStationaryVortex && !said && !o_.quiet &&
                root_) { // the set-up's longest part
              said = true;
              std::printf("set-up: %s (not in the cache %s)\n", doing,
                          setup::vortex_cache_dir().c_str());
              std::fflush(stdout);
            }
          });
    }
    if (resumed_) { // this rank's slices only
      const Grid& g = setup_.problem.grid;
      io::read_checkpoint_levels(o_.restart, *resumed_,
                                 static_cast<std::uint64_t>(g.global_cells()),
                                 static_cast<std::uint64_t>(g.z_offset * g.slice_cells()),
                                 static_cast<std::uint64_t>(g.cells()));
      stop_if_signalled("reading the checkpoint");
    }
    backend_ = make_run_backend(o_.backend, setup_);
    stop_if_signalled("making the backend");
    if (setup_.config.lattice_stationary) {
      settle_on_lattice();
    }
    if (setup_.config.initial_kind == setup::InitialKind::ground_state) {
      settle_on_ground_state();
    }
    who_.fingerprint = io::fingerprint(setup_);
  }

  /// Before the steps there is no checkpoint to keep: a signal stops the run at once, with one line
  /// (the first rank's) and nothing written; the claim's release removes what it made.
  void stop_if_signalled(const char* doing) const {
    if (const int signal = StopSignals::received()) {
      if (root_) {
        std::fprintf(stderr, "decgpe: stopped by %s while %s; nothing written\n",
                     signal_name(signal), doing);
      }
      throw Stopped{128 + signal};
    }
  }

  void settle_on_lattice() {
    const NvtxRange range("lattice stationary state");
    setup::settle_on_lattice(
        setup_, *backend_, setup::vortex_cache_dir(),
        [quiet = o_.quiet](const StationaryStateReport& r) {
          if (!quiet) {
            std::printf("lattice stationary state: Newton step %d, residual %.3g, mu_h %.12g\n",
                        r.newton_steps, r.residual, r.mu);
            std::fflush(stdout);
          }
        },
        [this] { stop_if_signalled("solving for the lattice stationary state"); });
    if (!o_.quiet) {
      announce_lattice_state(*setup_.lattice_state);
    }
  }

  void settle_on_ground_state() {
    const NvtxRange range("ground state");
    setup::settle_on_ground_state(setup_, *backend_,
                                  [this] { stop_if_signalled("relaxing to the ground state"); });
    if (!o_.quiet && root_) {
      announce_ground_state(*setup_.ground_state);
    }
  }

  /// The first rank's file and the whole-domain datasets each rank writes its slab's of beside it
  /// (io/domain_output.hpp); a resumed run's snapshots so far carried over.
  void open_results() {
    on_root(mpi_, [&] { file_.emplace(out_); });
    results_.emplace(file_ ? &*file_ : nullptr, out_, setup_.problem.grid, setup_.layout);
    if (resumed_) {
      io::carry_snapshots(*results_, out_, who_.fingerprint, resumed_->step);
    }
  }

  /// The case's scheme on the backend, damped where the case asks.
  std::unique_ptr<Scheme> new_scheme() {
    std::unique_ptr<Scheme> scheme = make_scheme(setup_.config.scheme, *backend_, setup_.dt);
    if (setup_.config.damping > 0.0) {
      scheme->make_damped(setup_.config.damping);
    }
    return scheme;
  }

  void start_scheme() {
    scheme_ = new_scheme();
    if (setup_.config.adaptive) {
      scheme_->make_adaptive(find_scheme(setup_.config.scheme).adaptive, setup_.adaptive);
    }
    if (resumed_) {
      check_resumable(*resumed_, setup_, scheme_->level_names(), o_.restart);
      scheme_->set_clock({resumed_->step, resumed_->t, resumed_->last_dt, resumed_->next_dt});
      from_ = StartPoint{resumed_->step, resumed_->initial_max_abs};
    }
    recorder_.emplace(RecorderSettings{file_ ? &*file_ : nullptr, &*results_, o_.quiet, checkpoint_,
                                       config_.checkpoint_minutes, o_.max_hours * 3600.0,
                                       process_start_, &mpi_, &setup_.layout, setup_.current,
                                       setup_.schedule.vortex_lines_every > 0,
                                       setup::vortex_potential_cut(setup_)},
                      setup_.problem.grid, run_state(setup_, *scheme_, who_, std::move(resumed_)));
    if (from_.step > 0) {
      scheme_->resume(recorder_->levels(), setup_.current);
    } else {
      scheme_->start({setup_.current, setup_.current, setup_.previous});
    }
    const SchemeEntry& entry = find_scheme(setup_.config.scheme);
    if (entry.limit_factor != kUnconditionallyStable) {
      watch_.emplace(setup_.problem, &setup_.layout, entry.name, entry.limit_factor,
                     setup_.spectrum);
    }
    if (!o_.quiet && root_) {
      announce(setup_, *backend_, from_.step);
    }
  }

  /// The record, the analysis, the levels and the points for ParaView; then the line that says how
  /// the run ended (or the summary), and Stopped for a clean stop.
  void finish(const Outcome& outcome) {
    const NvtxRange io_range("write results");
    const std::vector<std::vector<Complex>>& levels = recorder_->gather(*scheme_);
    const std::vector<double> peaks = host_peaks(mpi_);
    const int signal = recorder_->stop_signal();
    const std::string stop_reason = !outcome.stopped ? ""
                                    : signal != 0    ? std::string(signal_name(signal))
                                                     : std::string("max-hours");
    if (root_) {
      write_record(*file_, setup_, *scheme_, who_, *recorder_, outcome, o_, stop_reason, peaks);
    }
    const int fold = recorder_->write_analysis(levels.front());
    if (!o_.no_state) {
      io::write_levels(*results_, scheme_->level_names(), levels);
      io::write_viz_fields(*results_, "state", scheme_->clock().time,
                           results_->owned(levels.front()));
    }
    // Points for ParaView only where there are fields to show: --no-state runs stay small.
    const bool viewable = !o_.no_state || setup_.schedule.snapshot_every > 0;
    if (viewable) {
      io::write_viz_points(*results_);
      if (root_) {
        io::write_viz_cells(*file_, whole_grid(results_->grid()));
      }
    }
    results_->commit();
    if (root_) {
      commit_and_report(outcome, stop_reason, viewable, fold);
    }
    if (outcome.stopped) {
      throw Stopped{signal != 0 ? 128 + signal : 0};
    }
  }

  void commit_and_report(const Outcome& outcome, const std::string& stop_reason, bool viewable,
                         int fold) {
    file_->commit();
    results_->remove_superseded();
    if (viewable) {
      io::write_xdmf(out_);
    }
    io::write_lines_xdmf(out_);
    if (outcome.stopped) {
      std::fprintf(recorder_->stop_signal() != 0 ? stderr : stdout,
                   "decgpe: stopped by %s at step %ld (t = %g); results so far in %s; resume "
                   "with: %s\n",
                   stop_reason.c_str(), outcome.steps_done, scheme_->clock().time, out_.c_str(),
                   resume_command(o_, checkpoint_, out_).c_str());
    } else {
      io::remove_with_parts(checkpoint_); // superseded by the complete results
      if (!o_.quiet) {
        summarise(setup_, recorder_->series(), outcome, outcome.steps_done - from_.step,
                  recorder_->seconds(), fold, out_.string());
      }
    }
  }

  const RunRequest& o_;
  const scaleout::MpiSession& mpi_;
  const bool root_;
  const std::chrono::steady_clock::time_point process_start_;
  io::RunIdentity who_;
  CaseConfig config_;
  fs::path out_, checkpoint_;
  std::optional<io::Checkpoint> resumed_;
  std::optional<io::OutputClaim> claim_;
  RunSetup setup_;
  std::unique_ptr<Backend> backend_;
  std::optional<ResultsFile> file_;
  std::optional<io::DomainOutput> results_;
  std::unique_ptr<Scheme> scheme_;
  StartPoint from_{};
  std::optional<Recorder> recorder_;
  std::optional<StabilityWatch> watch_;
};

} // namespace

void run(const RunRequest& request) {
  Run{request}();
}

RunPlan plan_run(const RunRequest& request, long trial_steps) {
  return Run{request}.plan(trial_steps);
}

} // namespace decgpe::runner
