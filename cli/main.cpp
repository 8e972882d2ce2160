// decgpe: one executable, one subcommand per job.

#include "cli/build_info.hpp"
#include "cli/lattice_command.hpp"
#include "cli/run_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{
      "decgpe: discrete-exterior-calculus solver for the time-dependent Gross-Pitaevskii equation",
      "decgpe"};
  app.set_version_flag("--version",
                       std::string(decgpe::version()) + " (" + decgpe::git_commit() + ")");
  app.require_subcommand(1);
  decgpe::cli::add_lattice_command(app);
  decgpe::cli::add_run_command(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    // One line naming the problem, non-zero exit: the contract for every bad input.
    std::fprintf(stderr, "decgpe: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
