// decgpe: one executable, one subcommand per job.

#include "build_info/build_info.hpp"
#include "cli/case_keys_command.hpp"
#include "cli/isotropy_command.hpp"
#include "cli/lattice_command.hpp"
#include "cli/list_command.hpp"
#include "cli/one_line.hpp"
#include "cli/run_command.hpp"
#include "cli/validate_command.hpp"
#include "hdf5/hdf5_file.hpp"
#include "runner/run_request.hpp"
#include "solvers/scaleout/mpi_session.hpp"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

/// Seconds the first rank waits for the others to leave with it before it aborts them: ranks that
/// met the same error or stop get there within a fraction of this.
constexpr double kLeaveSeconds = 5.0;

/// `code` as the process's exit code. With several ranks, where all of them leave with an exit
/// code of their own, MPI finalises cleanly (mpirun says only what its options ask: -q nothing);
/// otherwise a rank is left in the run (its failure was another's, or it waits in a collective)
/// and every rank is aborted, which mpirun reports in a banner of its own.
int leave(const decgpe::scaleout::MpiSession& mpi, int code) {
  if (mpi.size() > 1 && !mpi.all_leave_within(kLeaveSeconds)) {
    mpi.abort(code);
  }
  return code;
}

/// Every failure is one line on stderr and exit 1. With several ranks the first rank speaks for
/// all; another rank speaks only when the first has not ended the job (its failure was local).
int fail(const decgpe::scaleout::MpiSession& mpi, const std::string& what) {
  const auto say = [&] {
    std::fprintf(stderr, "decgpe: error%s: %s\n",
                 mpi.rank() != 0 ? (" (rank " + std::to_string(mpi.rank()) + ")").c_str() : "",
                 decgpe::cli::one_line(what).c_str());
    std::fflush(stderr);
  };
  if (mpi.rank() == 0) {
    say();
  }
  // Another rank waits longer than the first, whose abort ends it if the first failed too.
  if (mpi.size() > 1 && !mpi.all_leave_within(kLeaveSeconds + (mpi.rank() != 0 ? 2.0 : 0.0))) {
    if (mpi.rank() != 0) {
      say();
    }
    mpi.abort(1);
  }
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  // Before any HDF5 call: a file whose close failed (a full disk) must not be closed again by
  // HDF5's exit handler, which crashes on it; decgpe closes every object itself.
  decgpe::io::init_hdf5();
  // A file-size limit then fails the write (EFBIG) with a message instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  // Before anything else: under mpirun/srun, MPI may rewrite argc/argv.
  const decgpe::scaleout::MpiSession mpi(&argc, &argv);
  CLI::App app{
      "decgpe: discrete-exterior-calculus solver for the time-dependent Gross-Pitaevskii equation",
      "decgpe"};
  app.set_version_flag("--version",
                       std::string(decgpe::version()) + " (" + decgpe::git_commit() + ")");
  app.require_subcommand(1);
  decgpe::cli::add_lattice_command(app);
  decgpe::cli::add_isotropy_command(app);
  decgpe::cli::add_case_keys_command(app);
  decgpe::cli::add_run_command(app, argc, argv, mpi);
  decgpe::cli::add_validate_command(app, mpi);
  decgpe::cli::add_list_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      return app.exit(e); // --help, --version
    }
    std::vector<std::string> commands;
    for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
      commands.push_back(command->get_name());
    }
    return fail(mpi, decgpe::cli::command_line_error(e.what(), argc, argv, commands));
  } catch (const decgpe::runner::Stopped& stop) {
    return leave(mpi, stop.exit_code); // a clean stop that has said what it did
  } catch (const decgpe::runner::CheckFailed&) {
    return leave(mpi, decgpe::runner::CheckFailed::exit_code); // the summary has said why
  } catch (const std::exception& e) {
    return fail(mpi, e.what());
  }
  return 0;
}
