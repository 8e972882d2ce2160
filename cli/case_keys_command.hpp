#pragma once

#include <CLI/CLI.hpp>

namespace decgpe::cli {
/// `decgpe case-keys`: prints the case file's key reference, generated from the schema
/// (setup/case_schema.hpp), as the Markdown that docs/cases.md holds.
void add_case_keys_command(CLI::App& app);
} // namespace decgpe::cli
