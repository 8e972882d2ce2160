// decgpe: one executable, one subcommand per job.

#include "cli/build_info.hpp"
#include "cli/isotropy_command.hpp"
#include "cli/lattice_command.hpp"
#include "cli/run_command.hpp"
#include "solvers/scaleout/mpi_session.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
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
  decgpe::cli::add_run_command(app, argc, argv, mpi);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // One line naming the problem, non-zero exit: the contract for every bad input. With several
    // ranks every failing rank says so, and the abort stops ranks waiting in a collective.
    if (mpi.size() > 1) {
      std::fprintf(stderr, "decgpe: error (rank %d): %s\n", mpi.rank(), e.what());
      mpi.abort(1);
    }
    std::fprintf(stderr, "decgpe: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
