#include "cli/case_keys_command.hpp"

#include "setup/case_schema.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace decgpe::cli {

using setup::CaseKey;
using setup::CaseTable;
using setup::KeyRange;
using setup::KeyType;

namespace {

// A '|' inside a cell (|ψ|²) would end it.
std::string cell(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    out += ch == '|' ? "\\|" : std::string(1, ch);
  }
  return out;
}

std::string range_cell(const CaseKey& key) {
  const KeyRange& r = key.range;
  const bool array = key.type == KeyType::numbers3 || key.type == KeyType::integers3 ||
                     key.type == KeyType::numbers3_or_auto || key.type == KeyType::integers;
  const bool numeric = array || key.type == KeyType::number || key.type == KeyType::integer;
  std::string text;
  switch (r.kind) {
  case KeyRange::Kind::any:
    return numeric ? "finite" : "—";
  case KeyRange::Kind::non_empty:
    return "not empty";
  case KeyRange::Kind::choices:
    for (const std::string_view choice : r.choices) {
      text += (text.empty() ? "`\"" : ", `\"") + std::string(choice) + "\"`";
    }
    return text;
  case KeyRange::Kind::interval:
    if (std::isfinite(r.lo) && std::isfinite(r.hi)) {
      text = setup::interval_text(r);
    } else if (std::isfinite(r.lo)) {
      text = (r.lo_open ? "> " : "≥ ") + setup::number_text(r.lo);
    } else {
      text = (r.hi_open ? "< " : "≤ ") + setup::number_text(r.hi);
    }
    return array ? text + " each" : text;
  }
  return text;
}

std::string default_cell(std::string_view value) {
  return value == "required" || value == "none" ? std::string(value)
                                                : "`" + std::string(value) + "`";
}

std::string table_section(const CaseTable& table) {
  const std::string brackets = table.array ? "[[" : "[", closing = table.array ? "]]" : "]";
  std::string out = table.name.empty()
                        ? "### Top level"
                        : "### `" + brackets + std::string(table.name) + closing + "` (" +
                              (table.required ? "required" : "optional") + ")";
  out += "\n\n" + std::string(table.meaning) + "\n\n";
  out += "| key | type | units | default | range | meaning |\n";
  out += "| --- | --- | --- | --- | --- | --- |\n";
  for (const CaseKey& key : setup::case_keys()) {
    if (key.table() == table.name) {
      out += "| `" + std::string(key.name()) + "` | " + cell(setup::type_text(key.type)) + " | " +
             cell(key.units) + " | " + cell(default_cell(key.default_value)) + " | " +
             cell(range_cell(key)) + " | " + cell(key.meaning) + " |\n";
    }
  }
  return out + "\n";
}

std::string environment_section() {
  std::string out = "### Environment\n\nFallbacks for settings a case does not give; an empty "
                    "variable counts as unset.\n\n";
  out += "| variable | default | meaning |\n| --- | --- | --- |\n";
  for (const setup::EnvironmentFallback& variable : setup::environment_fallbacks()) {
    out += "| `" + std::string(variable.name) + "` | " + cell(variable.default_value) + " | " +
           cell(variable.meaning) + " |\n";
  }
  return out;
}

} // namespace

void add_case_keys_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "case-keys", "Print every case-file key (type, units, default, range, meaning) as Markdown");
  cmd->callback([] {
    std::string out;
    for (const CaseTable& table : setup::case_tables()) {
      out += table_section(table);
    }
    out += environment_section();
    std::fputs(out.c_str(), stdout);
  });
}

} // namespace decgpe::cli
