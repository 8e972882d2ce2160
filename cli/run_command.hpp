#pragma once

#include "solvers/scaleout/mpi_session.hpp"

#include <CLI/CLI.hpp>

namespace decgpe::cli {

/// `decgpe run <case.toml> [--backend …] [--out file.h5] [--restart checkpoint.h5] …`: integrates
/// a case and writes one HDF5 file. Under mpirun/srun with several ranks the domain is split into
/// z-slabs over them; rank 0 writes.
void add_run_command(CLI::App& app, int argc, char** argv, const scaleout::MpiSession& mpi);

} // namespace decgpe::cli
