#pragma once
// A backend's tunables: they change its speed, never its results (the tests hold every setting
// bitwise to the reference). Each backend declares its own (its folder's tunables file, listed by
// solvers/backend_registry.cpp); the case schema's backend tables, docs/cases.md and bench_step's
// --tune are generated from the declarations, and the backend parses the values it is given.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe {

/// One tunable as a case file sets it: `[section] key = value`.
struct Tunable {
  enum class Type { string, integer, boolean };
  std::string_view key{}; ///< dotted, "cuda.block_shape": the case file's table and key
  Type type = Type::string;
  std::string_view units{};                ///< "—" where the value has none
  std::string_view default_value{};        ///< as the case schema says it ("none": unset)
  std::vector<std::string_view> choices{}; ///< a string's values in a case file; empty: any
  double lo = 0.0, hi = 0.0;               ///< an integer's closed range (lo < hi), else unused
  std::string_view meaning{};              ///< docs/cases.md's text
  /// The variable of the environment read where no case sets it, "" for none; its default and
  /// meaning for docs/cases.md.
  std::string_view environment{}, environment_default{}, environment_meaning{};
  /// What bench_step writes before each value of --tune in a benchmark's name ("k": /k2).
  std::string_view bench_tag{};
  /// The only scheme whose steps it changes (bench_step tunes only that one); "": every scheme.
  std::string_view only_scheme{};
};

/// A backend's table of tunables in the case file (`[cuda]`): its meaning and keys.
struct TunableTable {
  std::string_view name; ///< "cuda"
  std::string_view meaning;
  std::vector<Tunable> keys;
};

/// The tunables a backend is made with: "table.key" → the value's text as the case (or a
/// benchmark) gave it (a boolean "true" or "false"); a key not given takes the backend's default
/// or its environment fallback. Backend::tuning() says which, and the results record it.
struct BackendTuning {
  std::map<std::string, std::string> values;
  /// A slab backend's halo slices per side as the case set them (the Decomposition stores them;
  /// this says where they came from, for the record); unset: the default, 1.
  std::optional<int> halo_depth;

  /// The value of `key` ("cuda.block_shape"), or "" when none is given.
  std::string value(std::string_view key) const {
    const auto it = values.find(std::string(key));
    return it == values.end() ? std::string() : it->second;
  }
};

} // namespace decgpe
