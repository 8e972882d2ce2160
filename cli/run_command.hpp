#pragma once

#include "solvers/scaleout/mpi_session.hpp"

#include <CLI/CLI.hpp>

namespace decgpe::cli {

/// `decgpe run <case.toml> [--backend …] [--out file.h5] [--restart checkpoint.h5] …`: integrates
/// a case and writes one HDF5 file. Under mpirun/srun with several ranks the domain is split into
/// z-slabs over them; rank 0 writes.
void add_run_command(CLI::App& app, int argc, char** argv, const scaleout::MpiSession& mpi);

/// A run that stopped cleanly before its end (a signal, the wall-clock limit) after writing its
/// checkpoint and results and saying so: the process exits with `exit_code`.
struct Stopped {
  int exit_code;
};

/// A complete run whose summary ends `check: FAIL`: it missed the exact evolution of its initial
/// state by more than its bound. Its results are written; the process exits with `exit_code`.
struct CheckFailed {
  static constexpr int exit_code = 3;
};

} // namespace decgpe::cli
