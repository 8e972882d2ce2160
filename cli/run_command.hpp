#pragma once

#include <CLI/CLI.hpp>

namespace decgpe::cli {
/// `decgpe run <case.toml> [--backend …] [--out file.h5] [--quiet]`: integrates a case and writes
/// one HDF5 file.
void add_run_command(CLI::App& app, int argc, char** argv);
} // namespace decgpe::cli
