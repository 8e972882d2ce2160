// decgpe run: the command line of a run. Its options become a runner::RunRequest; the runner owns
// the run (runner/runner.hpp).

#include "cli/run_command.hpp"

#include "runner/runner.hpp"
#include "runner/stop_signals.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

namespace decgpe::cli {

namespace {

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

/// The case and what overrides it: the backend, the scheme, --set.
void add_case_options(CLI::App& cmd, runner::RunRequest& o) {
  cmd.add_option("case", o.case_file, "TOML case file (see cases/)")->required();
  cmd.add_option("--backend", o.backend, backend_help())->capture_default_str();
  std::string schemes = "overrides the case's time.scheme:";
  for (const SchemeEntry& e : scheme_registry()) {
    schemes += " " + std::string(e.name);
  }
  cmd.add_option("--scheme", o.scheme, schemes)
      ->check(CLI::Validator(
          [](std::string& name) {
            return name.empty() ? std::string("must name a scheme, got ''") : std::string{};
          },
          "SCHEME"));
  cmd.add_option("--set", o.overrides,
                 "KEY=VALUE: set a case key (dotted, e.g. time.end_time=10), checked like the file "
                 "and recorded in the results; KEY= removes it; may be repeated")
      ->take_all()
      ->allow_extra_args(false);
}

/// Where the run writes, when it stops and resumes, and what it says.
void add_output_options(CLI::App& cmd, runner::RunRequest& o) {
  cmd.add_option("--out", o.out, "results file (default: out/<case name>.h5)")->check(file_name());
  cmd.add_flag("--force", o.force, "replace an existing results file and checkpoint");
  cmd.add_option("--checkpoint", o.checkpoint,
                 "checkpoint file (default: the results file's name with .checkpoint.h5); "
                 "written on the case's [output] cadence and when a signal or --max-hours stops "
                 "the run, removed when the run completes")
      ->check(file_name());
  cmd.add_option("--restart", o.restart,
                 "continue from this checkpoint; the final state is bitwise that of an "
                 "uninterrupted run")
      ->check(CLI::ExistingFile);
  cmd.add_option("--max-hours", o.max_hours,
                 "stop cleanly (checkpoint, results marked incomplete, exit 0) before this much "
                 "wall time")
      ->check(finite_positive());
  cmd.add_flag("--quiet", o.quiet,
               "no progress line and no summary (so no check against the exact evolution)");
  cmd.add_flag("--no-state", o.no_state,
               "leave the final state out of the results (the plane z = 0 is always written)");
}

} // namespace

void add_run_command(CLI::App& app, int argc, char** argv, const scaleout::MpiSession& mpi) {
  auto o = std::make_shared<runner::RunRequest>();
  o->mpi = &mpi;
  for (int i = 0; i < argc; ++i) {
    o->command_line += (i ? " " : "") + std::string(argv[i]);
  }
  CLI::App* cmd =
      app.add_subcommand("run", "Integrate a case and write its results to one HDF5 file");
  add_case_options(*cmd, *o);
  add_output_options(*cmd, *o);
  cmd->footer(
      "Exit status: 0 done, or stopped by --max-hours; 1 bad input or a failed run (one "
      "line on stderr); 3 the summary's check against the exact evolution failed (the "
      "results are written); 128 + N stopped by signal N (checkpoint and results written).");
  cmd->callback([o] {
    runner::hold_stop_signals_until_exit(); // a signal once the run has ended must not kill it
    runner::run(*o);
  });
}

} // namespace decgpe::cli
