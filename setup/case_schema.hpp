#pragma once
// The case file's schema: every key with its type, units, default, range and meaning, written once.
// The parser (setup/case_file.cpp) takes its allowed keys and its per-key range and choice checks
// from here; the rules between keys (exactly one of, needs, applies only to a kind) stay in the
// parser and are told in the keys' meanings. `decgpe case-keys` writes docs/cases.md's key
// reference from here.

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe::setup {

enum class KeyType {
  string,
  number,
  integer,
  boolean,
  numbers3,
  integers3,
  numbers3_or_auto,
  integers ///< an array of one or more integers
};

/// The values a key admits beyond its type (for an array: each entry): any, an interval of
/// numbers, one of a list of strings, or any string but the empty one.
struct KeyRange {
  enum class Kind { any, interval, choices, non_empty };
  Kind kind = Kind::any;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;
  std::vector<std::string_view> choices;
  /// Where the choices come from a registry: what one is called ("lattice", "scheme").
  std::string_view registry;

  bool admits(double value) const;
  bool admits(std::string_view value) const;
};

struct CaseKey {
  std::string_view key; ///< dotted: "lattice", "time.dt"
  KeyType type;
  std::string_view units; ///< "—" where the value has none
  /// "required" (alone, or one of an exactly-one pair: the meaning says which), "none" (unset
  /// unless given) or the default as a TOML value, which is CaseConfig's.
  std::string_view default_value;
  KeyRange range;
  std::string_view meaning; ///< one sentence, with the key's rules involving other keys

  /// "" for the top level, "time" for time.dt, "initial.seed" for initial.seed.modes
  std::string_view table() const;
  std::string_view name() const; ///< the key within its table: "dt" for time.dt
};

struct CaseTable {
  std::string_view name; ///< "" for the top level
  bool required;
  std::string_view meaning;
  bool array = false; ///< an array of tables, `[[name]]`: each entry has the table's keys
};

/// A variable of the environment that stands in for a setting no case gives.
struct EnvironmentFallback {
  std::string_view name;
  std::string_view default_value;
  std::string_view meaning;
};

/// The tables in the order the reference lists them, the top level first.
std::span<const CaseTable> case_tables();
/// Every key, table by table in case_tables()'s order.
const std::vector<CaseKey>& case_keys();
/// The key of that dotted name; throws std::logic_error when the schema has none.
const CaseKey& case_key(std::string_view dotted);
/// Whether `name` may appear in `table` ("" for the top level): a key, or a table inside it.
bool is_case_key(std::string_view table, std::string_view name);
std::span<const EnvironmentFallback> environment_fallbacks();

/// "string", "array of 3 numbers", …
std::string_view type_text(KeyType type);
/// The shortest text that reads back as `value` ("0.1", "30", "1e-06").
std::string number_text(double value);
/// A two-sided interval as "(0, 1)" or "[0, 30]".
std::string interval_text(const KeyRange& range);

} // namespace decgpe::setup
