#pragma once

#include <CLI/CLI.hpp>

namespace decgpe::cli {
/// `decgpe list lattices|crystals|schemes|backends [--csv|--json]`: the registries, for scripts and
/// reports that would otherwise keep their own lists.
void add_list_command(CLI::App& app);
} // namespace decgpe::cli
