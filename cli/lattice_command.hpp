#pragma once

#include <CLI/CLI.hpp>

namespace decgpe::cli {
/// `decgpe lattice <name> [--json]`: prints a lattice's replicable structure and its Hodge weights.
void add_lattice_command(CLI::App& app);
} // namespace decgpe::cli
