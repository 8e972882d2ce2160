#pragma once

#include "solvers/scaleout/mpi_session.hpp"

#include <CLI/CLI.hpp>

namespace decgpe::cli {

/// `decgpe validate <case.toml> [--set …] [--scheme …] [--backend …] [--json]`: a dry run. The case
/// is read and set up as `run` would, nothing is claimed or written, and one line per fact is
/// printed (or one JSON object): grid, cells, backend, memory, Δt and its limit, steps, and the
/// wall time a short timed trial on this machine predicts.
void add_validate_command(CLI::App& app, const scaleout::MpiSession& mpi);

} // namespace decgpe::cli
