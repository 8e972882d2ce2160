#include "setup/case_file.hpp"

#include "setup/case_schema.hpp"
#include "setup/one_line.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <system_error>
#include <toml++/toml.h>
#include <utility>

namespace decgpe::setup {

namespace {

namespace fs = std::filesystem;

// The shipped cases are under 2 KiB; anything near this bound is not a case file.
constexpr std::size_t kMaxCaseBytes = 1 << 20;

std::string_view type_name(toml::node_type type) {
  switch (type) {
  case toml::node_type::none:
    return "nothing";
  case toml::node_type::table:
    return "table";
  case toml::node_type::array:
    return "array";
  case toml::node_type::string:
    return "string";
  case toml::node_type::integer:
    return "integer";
  case toml::node_type::floating_point:
    return "float";
  case toml::node_type::boolean:
    return "boolean";
  case toml::node_type::date:
    return "date";
  case toml::node_type::time:
    return "time";
  case toml::node_type::date_time:
    return "date-time";
  }
  return "unknown";
}

/// What a value outside `key`'s interval must be: a number bounded on both sides is told the
/// interval, anything else the bound it crossed.
std::string must_be(const CaseKey& key, double value) {
  const KeyRange& r = key.range;
  const bool integer = key.type == KeyType::integer || key.type == KeyType::integers3 ||
                       key.type == KeyType::integers;
  if (!integer && std::isfinite(r.lo) && std::isfinite(r.hi)) {
    return "in " + interval_text(r);
  }
  if (r.lo_open ? value <= r.lo : value < r.lo) {
    return (r.lo_open ? "> " : ">= ") + number_text(r.lo);
  }
  return (r.hi_open ? "< " : "<= ") + number_text(r.hi);
}

/// "'a', 'b' or 'c'"
std::string alternatives(const std::vector<std::string_view>& choices) {
  std::string text;
  for (std::size_t k = 0; k < choices.size(); ++k) {
    const char* separator = k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ";
    text += separator + ("'" + std::string(choices[k]) + "'");
  }
  return text;
}

/// One TOML table of the case file with its dotted path ("" for the top level, "time." for [time]);
/// every accessor checks type and finiteness and names the key by its full path when it fails.
class Section {
public:
  /// `prefix` names the keys in messages ("initial.vortices[1]."); `schema_prefix`, where it
  /// differs, is the table's in the schema ("initial.vortices.").
  Section(const toml::table& table, std::string prefix, const std::string& source,
          std::string schema_prefix = {})
      : table_(&table), prefix_(std::move(prefix)),
        schema_prefix_(schema_prefix.empty() ? prefix_ : std::move(schema_prefix)),
        source_(&source) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw CaseError(one_line(*source_ + ": " + std::string(what)));
  }

  std::string path(std::string_view key) const { return prefix_ + std::string(key); }

  bool has(std::string_view key) const { return table_->contains(key); }

  // A misspelt key must not silently leave the default in place.
  void allow_only_schema_keys() const {
    const std::string_view table =
        std::string_view(schema_prefix_).substr(0, schema_prefix_.rfind('.'));
    for (const auto& [key, node] : *table_) {
      if (!is_case_key(table, key.str())) {
        fail("unknown key '" + echo(path(key.str())) + "'");
      }
    }
  }

  void exactly_one(std::string_view a, std::string_view b) const {
    if (has(a) == has(b)) {
      fail("give exactly one of '" + path(a) + "' and '" + path(b) + "'");
    }
  }

  template <class T>
  T required(std::optional<T> (Section::*get)(std::string_view) const, std::string_view key) const {
    std::optional<T> value = (this->*get)(key);
    if (!value) {
      fail("missing key '" + path(key) + "'");
    }
    return *std::move(value);
  }

  const toml::node* node(std::string_view key) const { return table_->get(key); }

  // The accessors of values check them against the key's range in the schema.
  std::optional<std::string> string(std::string_view key) const {
    std::optional<std::string> value = typed<std::string>(key, "a string");
    if (value) {
      check_choice(*value, key);
    }
    return value;
  }

  /// The option named under `key` if present (the schema admits only names_of(Option)'s).
  template <class Option> std::optional<Option> option(std::string_view key) const {
    const std::optional<std::string> name = string(key);
    if (!name) {
      return std::nullopt;
    }
    const auto names = names_of(Option{});
    return static_cast<Option>(std::ranges::find(names, *name) - names.begin());
  }

  std::optional<double> number(std::string_view key) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    return check_range(as_number(*node, path(key)), key, path(key));
  }

  std::optional<bool> boolean(std::string_view key) const { return typed<bool>(key, "a boolean"); }

  std::optional<std::int64_t> integer(std::string_view key) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    const std::int64_t value = as_integer(*node, path(key));
    check_range(static_cast<double>(value), key, path(key));
    return value;
  }

  std::optional<Section> section(std::string_view key) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_table()) {
      fail_type(path(key), "a table", *node);
    }
    return Section(*node->as_table(), path(key) + ".", *source_,
                   schema_prefix_ + std::string(key) + ".");
  }

  /// The tables of the array of tables under `key` (`[[key]]`), none when it is absent.
  std::vector<Section> sections(std::string_view key) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return {};
    }
    if (!node->is_array_of_tables()) {
      fail("key '" + path(key) + "' must be an array of tables ([[" + path(key) + "]])");
    }
    std::vector<Section> entries;
    for (std::size_t k = 0; k < node->as_array()->size(); ++k) {
      entries.emplace_back(*node->as_array()->get(k)->as_table(),
                           path(key) + "[" + std::to_string(k) + "].", *source_,
                           schema_prefix_ + std::string(key) + ".");
    }
    return entries;
  }

  /// The integers of the array under `key` if present: at least one, each in the key's range.
  std::optional<std::vector<std::int64_t>> integers(std::string_view key) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is_array() || node->as_array()->empty()) {
      fail("key '" + path(key) + "' must be a non-empty array of integers");
    }
    std::vector<std::int64_t> values;
    for (std::size_t k = 0; k < node->as_array()->size(); ++k) {
      const std::string entry = path(key) + "[" + std::to_string(k) + "]";
      values.push_back(as_integer(*node->as_array()->get(k), entry));
      check_range(static_cast<double>(values.back()), key, entry);
    }
    return values;
  }

  /// The array under `key` if present, checked to hold exactly three entries.
  const toml::array* triple(std::string_view key, std::string_view entries) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return nullptr;
    }
    const std::string what = "an array of 3 " + std::string(entries);
    if (!node->is_array()) {
      fail_type(path(key), what, *node);
    }
    const toml::array& array = *node->as_array();
    if (array.size() != 3) {
      fail("key '" + path(key) + "' must be " + what + ", got " + std::to_string(array.size()) +
           " entries");
    }
    return &array;
  }

  // An integer is a valid number; TOML's inf and nan are not.
  double as_number(const toml::node& node, const std::string& key_path) const {
    double value = 0.0;
    if (node.is_integer()) {
      value = static_cast<double>(node.as_integer()->get());
    } else if (node.is_floating_point()) {
      value = node.as_floating_point()->get();
    } else {
      fail_type(key_path, "a number", node);
    }
    if (!std::isfinite(value)) {
      fail("key '" + key_path + "' must be finite");
    }
    return value;
  }

  // A float is refused even when whole: counts written as 40.0 are more likely a mix-up than
  // intended.
  std::int64_t as_integer(const toml::node& node, const std::string& key_path) const {
    if (!node.is_integer()) {
      fail_type(key_path, "an integer", node);
    }
    return node.as_integer()->get();
  }

  /// `value` of `key`, refused outside the schema's interval; `shown` names it ("domain[1]").
  double check_range(double value, std::string_view key, const std::string& shown) const {
    const CaseKey& entry = case_key(schema_prefix_ + std::string(key));
    if (!entry.range.admits(value)) {
      fail("key '" + shown + "' must be " + must_be(entry, value));
    }
    return value;
  }

private:
  /// Refuses a string outside the schema's choices of `key` (or an empty one where it must not be).
  void check_choice(const std::string& value, std::string_view key) const {
    const KeyRange& range = case_key(schema_prefix_ + std::string(key)).range;
    if (range.admits(value)) {
      return;
    }
    if (range.kind == KeyRange::Kind::non_empty) {
      fail("key '" + path(key) + "' must not be empty");
    }
    if (!range.registry.empty()) {
      std::string known;
      for (const std::string_view name : range.choices) {
        known += (known.empty() ? "" : ", ") + std::string(name);
      }
      fail("key '" + path(key) + "': unknown " + std::string(range.registry) + " '" + echo(value) +
           "' (known: " + known + ")");
    }
    fail("key '" + path(key) + "' must be " + alternatives(range.choices) + ", got '" +
         echo(value) + "'");
  }

  /// The value under `key` if present, which must be a T (TOML's string or boolean).
  template <class T> std::optional<T> typed(std::string_view key, std::string_view expected) const {
    const toml::node* node = table_->get(key);
    if (node == nullptr) {
      return std::nullopt;
    }
    if (!node->is<T>()) {
      fail_type(path(key), expected, *node);
    }
    return node->value<T>();
  }

  [[noreturn]] void fail_type(const std::string& key_path, std::string_view expected,
                              const toml::node& node) const {
    fail("key '" + key_path + "' must be " + std::string(expected) + ", got " +
         std::string(type_name(node.type())));
  }

  const toml::table* table_;
  std::string prefix_;
  std::string schema_prefix_;
  const std::string* source_;
};

void read_grid(const Section& top, CaseConfig& c) {
  top.exactly_one("h", "operations_per_time");
  c.h = top.number("h").value_or(c.h);
  c.operations_per_time = top.number("operations_per_time");
  top.exactly_one("domain", "structures");
  if (const toml::array* shift = top.triple("shift", "numbers")) {
    for (std::size_t i = 0; i < 3; ++i) {
      c.shift[i] = top.as_number(*shift->get(i), "shift[" + std::to_string(i) + "]");
    }
  }
  if (const toml::node* node = top.node("domain"); node != nullptr && node->is_string()) {
    if (node->as_string()->get() != "auto") {
      top.fail("key 'domain' must be \"auto\" or an array of 3 numbers, got \"" +
               echo(node->as_string()->get()) + "\"");
    }
    c.domain_auto = true;
  } else if (const toml::array* domain = top.triple("domain", "numbers")) {
    std::array<double, 3> extent{};
    for (std::size_t i = 0; i < 3; ++i) {
      const std::string key = "domain[" + std::to_string(i) + "]";
      extent[i] = top.check_range(top.as_number(*domain->get(i), key), "domain", key);
    }
    c.domain = extent;
  }
  if (const toml::array* structures = top.triple("structures", "integers")) {
    std::array<int, 3> counts{};
    for (std::size_t i = 0; i < 3; ++i) {
      const std::string key = "structures[" + std::to_string(i) + "]";
      const std::int64_t count = top.as_integer(*structures->get(i), key);
      top.check_range(static_cast<double>(count), "structures", key);
      counts[i] = static_cast<int>(count);
    }
    c.structures = counts;
  }
}

void read_potential(const Section& p, CaseConfig& c, const fs::path& base_dir) {
  p.allow_only_schema_keys();
  c.potential_kind = p.option<PotentialKind>("kind").value_or(c.potential_kind);
  // A key of the other kind would be silently ignored, so it is refused like an unknown key.
  const auto only_for = [&p](std::string_view key, std::string_view kind) {
    if (p.has(key)) {
      p.fail("key '" + p.path(key) + "' applies only to kind '" + std::string(kind) + "'");
    }
  };
  if (c.potential_kind == PotentialKind::harmonic) {
    only_for("file", "tabulated");
    only_for("dataset", "tabulated");
    c.lambda = p.number("lambda").value_or(c.lambda);
  } else {
    only_for("lambda", "harmonic");
    const fs::path file = p.required(&Section::string, "file");
    c.potential_file = (file.is_relative() ? base_dir / file : file).string();
    c.potential_dataset = p.string("dataset").value_or(c.potential_dataset);
  }
}

void read_rotation(const Section& r, CaseConfig& c) {
  r.allow_only_schema_keys();
  c.omega = r.number("omega").value_or(c.omega);
  if (const toml::array* origin = r.triple("origin", "numbers")) {
    for (std::size_t k = 0; k < 3; ++k) {
      c.rotation_origin[k] =
          r.as_number(*origin->get(k), r.path("origin") + "[" + std::to_string(k) + "]");
    }
  }
  // In the rotating frame the harmonic trap's radial part is ½(1 − Ω²)ρ²: bounded below only for
  // |Ω| < 1 (a tabulated potential's confinement is its own).
  if (c.potential_kind == PotentialKind::harmonic && std::abs(c.omega) >= 1.0) {
    r.fail("key '" + r.path("omega") + "' = " + number_text(c.omega) +
           " does not confine the harmonic trap (its radial frequency is 1): |omega| must be < 1");
  }
}

/// The registered schemes of which `has` holds, in the registry's order, comma-separated.
std::string schemes_that(bool (*has)(const SchemeEntry&)) {
  std::string names;
  for (const SchemeEntry& s : scheme_registry()) {
    if (has(s)) {
      names += (names.empty() ? "" : ", ") + std::string(s.name);
    }
  }
  return names;
}

/// One line when the case's adaptive steps do not fit its scheme; empty when they do.
std::string adaptive_mismatch(const CaseConfig& c) {
  if (!c.adaptive) {
    return {};
  }
  const SchemeEntry& scheme = find_scheme(c.scheme);
  if (scheme.adaptive != StepControl::fixed) {
    return {};
  }
  return "scheme '" + c.scheme +
         "' is fixed-step (a changed step breaks the leapfrog's invariant Re<psi^{n-1}, "
         "psi^n> and its two-level start): drop time.adaptive or choose one of " +
         schemes_that([](const SchemeEntry& s) { return s.adaptive != StepControl::fixed; });
}

/// Why c's scheme cannot take c's damping, or "".
std::string damping_mismatch(const CaseConfig& c) {
  if (c.damping == 0.0) {
    return {};
  }
  const SchemeEntry& scheme = find_scheme(c.scheme);
  if (!scheme.no_damped_form.empty()) {
    return "scheme '" + c.scheme + "' is not damped: " + std::string(scheme.no_damped_form) +
           "; choose one of " +
           schemes_that([](const SchemeEntry& s) { return s.no_damped_form.empty(); });
  }
  return c.adaptive ? "damped steps are fixed: drop time.adaptive" : "";
}

/// time.adaptive and the keys of the step controls (solvers/schemes/step_control.hpp).
void read_adaptive(const Section& t, CaseConfig& c) {
  c.adaptive = t.boolean("adaptive").value_or(false);
  for (const std::string_view key : {"theta", "density_floor", "tolerance"}) {
    if (t.has(key) && !c.adaptive) {
      t.fail("key '" + t.path(key) + "' needs 'time.adaptive = true'");
    }
  }
  if (!c.adaptive) {
    return;
  }
  if (!c.end_time) {
    t.fail("key '" + t.path("adaptive") + "' needs 'time.end_time' (the step count is not known)");
  }
  if (const std::string why = adaptive_mismatch(c); !why.empty()) {
    t.fail("key '" + t.path("adaptive") + "': " + why);
  }
  c.theta = t.number("theta").value_or(c.theta);
  c.tolerance = t.number("tolerance").value_or(c.tolerance);
  c.density_floor = t.number("density_floor").value_or(c.density_floor);
}

void read_time(const Section& t, CaseConfig& c) {
  t.allow_only_schema_keys();
  c.scheme = t.string("scheme").value_or(c.scheme);
  c.start = t.option<LeapfrogStart>("start").value_or(c.start);
  if (c.start == LeapfrogStart::paper && !find_scheme(c.scheme).takes_previous_level) {
    t.fail("key '" + t.path("start") + "' = 'paper' sets the leapfrog's second level; scheme '" +
           c.scheme + "' has one level");
  }
  c.stop_when_error_exceeds = t.number("stop_when_error_exceeds");
  t.exactly_one("dt", "dt_fraction");
  c.dt = t.number("dt");
  c.dt_fraction = t.number("dt_fraction");
  c.dt_fraction_of = t.option<DtBound>("dt_fraction_of").value_or(c.dt_fraction_of);
  if (t.has("dt_fraction_of") && !c.dt_fraction) {
    t.fail("key '" + t.path("dt_fraction_of") + "' needs 'time.dt_fraction'");
  }
  c.beyond_limit = t.boolean("beyond_limit").value_or(false);
  if (c.beyond_limit && find_scheme(c.scheme).limit_factor != kUnconditionallyStable) {
    t.fail("key '" + t.path("beyond_limit") + "' is for the split schemes; '" + c.scheme +
           "' is unstable beyond its limit");
  }
  t.exactly_one("end_time", "steps");
  c.end_time = t.number("end_time");
  c.steps = t.integer("steps");
  c.diagnostics_every = t.integer("diagnostics_every").value_or(c.diagnostics_every);
  c.snapshot_every = t.integer("snapshot_every").value_or(c.snapshot_every);
  c.spectrum_every = t.integer("spectrum_every").value_or(c.spectrum_every);
  read_adaptive(t, c);
  c.damping = t.number("damping").value_or(c.damping);
  if (const std::string why = damping_mismatch(c); !why.empty()) {
    t.fail("key '" + t.path("damping") + "': " + why);
  }
}

void read_seed(const Section& s, CaseConfig& c) {
  s.allow_only_schema_keys();
  SeedConfig seed;
  if (const std::optional<std::vector<std::int64_t>> modes = s.integers("modes")) {
    seed.modes.assign(modes->begin(), modes->end());
    std::vector<int> sorted = seed.modes;
    std::ranges::sort(sorted);
    if (std::ranges::adjacent_find(sorted) != sorted.end()) {
      s.fail("key '" + s.path("modes") + "' names a mode twice");
    }
  }
  seed.amplitude = s.number("amplitude").value_or(seed.amplitude);
  seed.seed = s.integer("seed").value_or(seed.seed);
  c.seed = seed;
}

/// [[initial.vortices]]: each entry's position and charge, all required.
void read_vortices(const Section& i, CaseConfig& c) {
  for (const Section& v : i.sections("vortices")) {
    v.allow_only_schema_keys();
    c.vortices.push_back({v.required(&Section::number, "x"), v.required(&Section::number, "y"),
                          static_cast<int>(v.required(&Section::integer, "charge"))});
  }
}

void read_ring(const Section& r, CaseConfig& c) {
  r.allow_only_schema_keys();
  RingConfig ring;
  ring.x = r.number("x").value_or(ring.x);
  ring.y = r.number("y").value_or(ring.y);
  ring.z = r.number("z").value_or(ring.z);
  ring.radius = r.required(&Section::number, "radius");
  ring.charge = static_cast<int>(r.required(&Section::integer, "charge"));
  c.ring = ring;
}

/// kind = "file": the file and dataset of ψ⁰, and no key of the vortex kinds.
void read_initial_file(const Section& i, CaseConfig& c, const fs::path& base_dir) {
  for (const std::string_view key : {"kappa", "offset"}) {
    if (i.has(key)) {
      i.fail("key '" + i.path(key) + "' applies only to the vortex kinds, not to kind 'file'");
    }
  }
  const fs::path file = i.required(&Section::string, "file");
  c.initial_file = (file.is_relative() ? base_dir / file : file).string();
  c.initial_dataset = i.string("dataset").value_or(c.initial_dataset);
}

/// The vortex kinds: κ, and the offset of their state.
void read_vortex_kind(const Section& i, CaseConfig& c) {
  for (const std::string_view key : {"file", "dataset"}) {
    if (i.has(key)) {
      i.fail("key '" + i.path(key) + "' applies only to kind 'file'");
    }
  }
  c.kappa = static_cast<int>(i.required(&Section::integer, "kappa"));
  if (const toml::array* offset = i.triple("offset", "numbers")) {
    for (std::size_t k = 0; k < 3; ++k) {
      c.offset[k] = i.as_number(*offset->get(k), i.path("offset") + "[" + std::to_string(k) + "]");
    }
  }
}

/// The lattice's stationary state is solved near the sampled vortex, which must then be as it is.
void read_lattice_stationary(const Section& i, CaseConfig& c) {
  c.lattice_stationary = i.boolean("lattice_stationary").value_or(false);
  if (c.lattice_stationary && !is_plain_vortex(c)) {
    i.fail("key '" + i.path("lattice_stationary") +
           "' solves for the centred vortex: not with kind 'file' or 'ground_state', an offset, "
           "vortices or a ring");
  }
  if (i.has("stationary_residual") && !c.lattice_stationary) {
    i.fail("key '" + i.path("stationary_residual") + "' needs 'initial.lattice_stationary = true'");
  }
  c.stationary_residual = i.number("stationary_residual").value_or(c.stationary_residual);
  if (i.has("stationary_krylov") && !c.lattice_stationary) {
    i.fail("key '" + i.path("stationary_krylov") + "' needs 'initial.lattice_stationary = true'");
  }
  c.stationary_krylov =
      static_cast<int>(i.integer("stationary_krylov").value_or(c.stationary_krylov));
}

/// [initial.ground_state]: the relaxation's stopping rule, only with kind = "ground_state".
void read_ground_state(const Section& i, CaseConfig& c) {
  const std::optional<Section> g = i.section("ground_state");
  if (!g) {
    return;
  }
  if (c.initial_kind != InitialKind::ground_state) {
    i.fail("table '" + i.path("ground_state") + "' needs 'initial.kind = \"ground_state\"'");
  }
  g->allow_only_schema_keys();
  GroundStateConfig& s = c.ground_state;
  s.residual = g->number("residual").value_or(s.residual);
  s.energy_change = g->number("energy_change").value_or(s.energy_change);
  s.max_iterations = g->integer("max_iterations").value_or(s.max_iterations);
}

void read_initial(const Section& i, CaseConfig& c, const fs::path& base_dir) {
  i.allow_only_schema_keys();
  c.initial_kind = i.option<InitialKind>("kind").value_or(c.initial_kind);
  if (c.initial_kind == InitialKind::file) {
    read_initial_file(i, c, base_dir);
  } else {
    read_vortex_kind(i, c);
  }
  read_vortices(i, c);
  if (const std::optional<Section> ring = i.section("ring")) {
    read_ring(*ring, c);
  }
  read_lattice_stationary(i, c);
  read_ground_state(i, c);
  if (const std::optional<Section> seed = i.section("seed")) {
    read_seed(*seed, c);
  }
  // ψ^{−1} sampled from the continuum is known only for the vortex as it is.
  if (c.start == LeapfrogStart::paper && !is_plain_vortex(c)) {
    i.fail("time.start = 'paper' samples the vortex's known evolution at -dt: not with kind "
           "'file' or 'ground_state', an offset, vortices or a ring");
  }
  if (c.start == LeapfrogStart::paper && c.omega != 0.0) {
    i.fail("time.start = 'paper' samples the lab frame's evolution at -dt: not with "
           "rotation.omega");
  }
}

/// A backend's table of tunables: each key given, checked against the schema, as its text.
void read_tunables(const Section& s, const TunableTable& table, CaseConfig& c) {
  s.allow_only_schema_keys();
  for (const Tunable& t : table.keys) {
    const std::string_view name = t.key.substr(table.name.size() + 1);
    std::optional<std::string> text;
    switch (t.type) {
    case Tunable::Type::string:
      text = s.string(name);
      break;
    case Tunable::Type::integer:
      if (const std::optional<std::int64_t> k = s.integer(name)) {
        text = std::to_string(*k);
      }
      break;
    case Tunable::Type::boolean:
      if (const std::optional<bool> on = s.boolean(name)) {
        text = *on ? "true" : "false";
      }
      break;
    }
    if (text) {
      c.backend_tuning.emplace(t.key, *text);
    }
  }
}

void read_scaleout(const Section& s, CaseConfig& c) {
  s.allow_only_schema_keys();
  if (const std::optional<std::int64_t> k = s.integer("halo_depth")) {
    c.halo_depth = static_cast<int>(*k);
  }
  c.slab_balance = s.option<SlabBalanceMode>("balance").value_or(c.slab_balance);
}

void read_numerics(const Section& s, CaseConfig& c) {
  s.allow_only_schema_keys();
  c.precision = s.option<Precision>("precision").value_or(c.precision);
}

void read_analysis(const Section& a, CaseConfig& c) {
  a.allow_only_schema_keys();
  c.vortex_lines_every = a.integer("vortex_lines_every").value_or(c.vortex_lines_every);
  c.vortex_region = a.option<VortexRegion>("vortex_region").value_or(c.vortex_region);
  c.vortex_region_margin = a.number("vortex_region_margin").value_or(c.vortex_region_margin);
  if (c.vortex_region == VortexRegion::condensate && c.initial_kind == InitialKind::file) {
    a.fail("key '" + a.path("vortex_region") +
           "' = 'condensate' needs the chemical potential of a vortex kind's state; kind 'file' "
           "has none: set 'domain'");
  }
}

void read_output(const Section& o, CaseConfig& c) {
  o.allow_only_schema_keys();
  c.checkpoint_every = o.integer("checkpoint_every").value_or(c.checkpoint_every);
  c.checkpoint_minutes = o.number("checkpoint_minutes").value_or(c.checkpoint_minutes);
}

/// The TOML of a case, its syntax errors a CaseError at the line and column.
toml::table parse_toml(std::string_view toml, const std::string& source_name) {
  try {
    return toml::parse(toml);
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    throw CaseError(one_line(source_name + ":" + std::to_string(at.line) + ":" +
                             std::to_string(at.column) + ": " + std::string(e.description())));
  }
}

/// The rules between keys of different tables.
void check_across_tables(const Section& top, const CaseConfig& c) {
  // What eq. 15 and Table 1 need: a stationary state to measure the domain and the step on.
  if (c.operations_per_time && c.dt_fraction_of != DtBound::eq11) {
    top.fail("operations_per_time fixes dt by eq. 11 (the paper's Table 1 criterion): set "
             "time.dt_fraction_of = 'eq11'");
  }
  if ((c.domain_auto || c.operations_per_time) &&
      c.initial_kind != InitialKind::stationary_vortex) {
    top.fail("domain = \"auto\" and operations_per_time need initial.kind = 'stationary_vortex'");
  }
  if (c.stop_when_error_exceeds && !c.end_time) {
    top.fail("key 'time.stop_when_error_exceeds' needs 'time.end_time' (the longest run)");
  }
  // Their tolerances (1e-8 and below) lie under the residual of a state rounded to FP32.
  if (c.precision != Precision::double_ &&
      (c.initial_kind == InitialKind::ground_state || c.lattice_stationary)) {
    top.fail("numerics.precision = '" + std::string(option_name(c.precision)) +
             "': the ground state and initial.lattice_stationary solve to FP64 tolerances; solve "
             "in double and start this run from its results (initial.kind = 'file')");
  }
}

} // namespace

bool is_plain_vortex(const CaseConfig& c) {
  return c.initial_kind != InitialKind::file && c.initial_kind != InitialKind::ground_state &&
         c.offset == std::array<double, 3>{} && c.vortices.empty() && !c.ring;
}

CaseConfig parse_case(std::string_view toml, std::string_view source, const fs::path& base_dir) {
  const std::string source_name(source);
  const toml::table root = parse_toml(toml, source_name);
  const Section top(root, "", source_name);
  top.allow_only_schema_keys();
  CaseConfig c;
  c.name = fs::path(source).stem().string();
  c.lattice = top.required(&Section::string, "lattice");
  read_grid(top, c);
  // The physics has no defaults: a dropped g or κ would silently be another problem.
  c.g = top.required(&Section::number, "g");
  if (const std::optional<Section> potential = top.section("potential")) {
    read_potential(*potential, c, base_dir);
  }
  if (const std::optional<Section> rotation = top.section("rotation")) {
    read_rotation(*rotation, c);
  }
  read_time(top.required(&Section::section, "time"), c);
  read_initial(top.required(&Section::section, "initial"), c, base_dir);
  if (c.initial_kind == InitialKind::file) {
    c.vortex_region = VortexRegion::domain; // no μ to cut at
  }
  if (const std::optional<Section> analysis = top.section("analysis")) {
    read_analysis(*analysis, c);
  }
  if (const std::optional<Section> output = top.section("output")) {
    read_output(*output, c);
  }
  for (const TunableTable& table : backend_tunables()) {
    if (const std::optional<Section> section = top.section(table.name)) {
      read_tunables(*section, table, c);
    }
  }
  if (const std::optional<Section> scaleout = top.section("scaleout")) {
    read_scaleout(*scaleout, c);
  }
  if (const std::optional<Section> numerics = top.section("numerics")) {
    read_numerics(*numerics, c);
  }
  check_across_tables(top, c);
  return c;
}

namespace {

/// "a.b.c" as its segments; each a bare TOML key (letters, digits, '_', '-').
std::vector<std::string> key_path(std::string_view dotted, const std::string& what) {
  std::vector<std::string> segments;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(dotted.find('.', begin), dotted.size());
    const std::string_view segment = dotted.substr(begin, end - begin);
    const bool bare = !segment.empty() && std::ranges::all_of(segment, [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '-';
    });
    if (!bare) {
      throw CaseError(what + ": '" + echo(std::string(dotted)) + "' is not a dotted key");
    }
    segments.emplace_back(segment);
    if (end == dotted.size()) {
      return segments;
    }
    begin = end + 1;
  }
}

/// VALUE as a TOML value, or as a string when it is not one (so that --set lattice=bcc works).
toml::table value_of(const std::string& value) {
  try {
    return toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    toml::table t;
    t.insert("v", value);
    return t;
  }
}

/// toml++ writes a float with 17 digits (h = 0.34999999999999998); each becomes the shortest text
/// that reads back as the same double (h = 0.35).
std::string shortest_floats(const std::string& text) {
  static const std::regex long_float("(= |\\[ |, )(-?[0-9]+\\.[0-9]{15,}(e[+-]?[0-9]+)?)");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator m(text.begin(), text.end(), long_float), end; m != end; ++m) {
    const double value = std::strtod((*m)[2].str().c_str(), nullptr);
    char shortest[32];
    const auto [tail, ec] = std::to_chars(shortest, shortest + sizeof shortest, value);
    std::string number(shortest, ec == std::errc{} ? tail : shortest);
    if (number.find_first_of(".en") == std::string::npos) {
      number += ".0"; // still a TOML float
    }
    out.append(last, (*m)[2].first).append(number);
    last = (*m)[2].second;
  }
  return out.append(last, text.cend());
}

} // namespace

std::string apply_overrides(std::string_view text, std::span<const std::string> overrides,
                            std::string_view source) {
  toml::table root;
  try {
    root = toml::parse(text);
  } catch (const toml::parse_error& e) {
    throw CaseError(one_line(std::string(source) + ": " + std::string(e.description())));
  }
  for (const std::string& o : overrides) {
    const std::string what = "--set " + echo(o);
    const std::size_t equals = o.find('=');
    if (equals == std::string::npos) {
      throw CaseError(one_line(what + ": expected KEY=VALUE"));
    }
    const std::vector<std::string> path = key_path(std::string_view(o).substr(0, equals), what);
    toml::table* table = &root;
    for (std::size_t k = 0; k + 1 < path.size(); ++k) {
      toml::node* node = table->get(path[k]);
      if (node == nullptr) {
        node = table->insert(path[k], toml::table{}).first->second.as_table();
      }
      if (!node->is_table()) {
        throw CaseError(
            one_line(what + ": '" + path[k] + "' is not a table in " + std::string(source)));
      }
      table = node->as_table();
    }
    const std::string value = o.substr(equals + 1);
    if (value.empty()) {
      table->erase(path.back());
    } else {
      table->insert_or_assign(path.back(), *value_of(value).get("v"));
    }
  }
  std::ostringstream out;
  out << root;
  return shortest_floats(out.str());
}

void override_scheme(CaseConfig& config, const std::string& scheme) {
  try {
    find_scheme(scheme);
  } catch (const std::invalid_argument& e) {
    throw CaseError(std::string("--scheme: ") + e.what());
  }
  if (config.start == LeapfrogStart::paper && !find_scheme(scheme).takes_previous_level) {
    throw CaseError("--scheme " + scheme.substr(0, 64) +
                    ": the case's time.start = 'paper' sets "
                    "the leapfrog's second level; '" +
                    scheme.substr(0, 64) + "' has one level");
  }
  CaseConfig changed = config;
  changed.scheme = scheme;
  if (const std::string why = adaptive_mismatch(changed); !why.empty()) {
    throw CaseError("--scheme " + scheme.substr(0, 64) + ": the case asks for adaptive steps; " +
                    why);
  }
  if (const std::string why = damping_mismatch(changed); !why.empty()) {
    throw CaseError("--scheme " + scheme.substr(0, 64) + ": the case asks for time.damping; " +
                    why);
  }
  config.scheme = scheme;
}

std::string read_case_text(const fs::path& path) {
  const auto cannot_read = [&path](const std::string& reason) {
    return CaseError(one_line("cannot read case file '" + path.string() + "': " + reason));
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) {
    throw cannot_read(ec.message());
  }
  // Only a regular file: a FIFO would block and a device (/dev/zero) never end.
  if (fs::is_directory(status)) {
    throw cannot_read("is a directory");
  }
  if (!fs::is_regular_file(status)) {
    throw cannot_read("not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw cannot_read(std::strerror(errno));
  }
  std::string text(kMaxCaseBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    throw cannot_read("read error");
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxCaseBytes) {
    throw cannot_read("larger than " + std::to_string(kMaxCaseBytes / 1024) +
                      " KiB; a case is a few keys (tabulated potentials go in an HDF5 file)");
  }
  return text;
}

CaseConfig read_case_file(const fs::path& path) {
  return parse_case(read_case_text(path), path.string(), path.parent_path());
}

} // namespace decgpe::setup
