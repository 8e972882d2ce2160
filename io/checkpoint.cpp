#include "io/checkpoint.hpp"

#include "build_info/build_info.hpp"
#include "hdf5/fnv1a.hpp"
#include "io/domain_output.hpp"

#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace decgpe::io {

namespace {

/// Format 2 added the step clock of adaptive runs (last_dt, next_dt) and /diagnostics/dt; format 3
/// hashes the fingerprint's states slice by slice, and its levels may join per-rank parts.
// 4: the levels carry Fletcher-32 checksums; 5: the series holds the energy by term (kinetic,
// trap, interaction; and rotation since rotating frames, read as zeros where it is absent).
constexpr const char* kFormat = "decgpe checkpoint 5";

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ",") + n;
  }
  return out;
}

/// The checkpoint's precision: "double" when it records none (it was written before there was a
/// choice).
Precision read_precision(const InputFile& f, const std::filesystem::path& path) {
  if (!f.has_attribute("precision")) {
    return Precision::double_;
  }
  const std::string name = f.text_attribute("precision");
  if (const std::optional<Precision> p = precision_named(name)) {
    return *p;
  }
  throw std::runtime_error("cannot resume from '" + path.string() + "': its precision '" + name +
                           "' is none of double, single, mixed");
}

std::vector<std::string> split(const std::string& joined) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= joined.size()) {
    const std::size_t end = std::min(joined.find(',', begin), joined.size());
    out.push_back(joined.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

Series read_series(const InputFile& f) {
  Series s;
  s.step = f.integers("/diagnostics/step");
  s.t = f.doubles("/diagnostics/t");
  s.dt = f.doubles("/diagnostics/dt");
  for (std::size_t k = 0; k < kDiagnosticFields.size(); ++k) {
    const std::string path = "/diagnostics/" + std::string(kDiagnosticFields[k].name);
    // Absent from checkpoints written before rotating frames: the lab frame's zeros.
    const bool before_rotation =
        kDiagnosticFields[k].value == &Diagnostics::rotation && !f.has(path);
    s.fields[k] = before_rotation ? std::vector<double>(s.t.size(), 0.0) : f.doubles(path);
  }
  s.overlap = f.complexes("/diagnostics/overlap");
  for (const std::string& name : split(f.text_attribute("step_report"))) {
    if (!name.empty()) {
      s.report.emplace_back(name, f.doubles("/diagnostics/" + name));
    }
  }
  if (f.has("/analysis/history")) {
    ProbeSeries& p = s.probes;
    p.step = f.integers("/analysis/history/step");
    p.t = f.doubles("/analysis/history/t");
    p.azimuthal_amplitude = f.matrix("/analysis/history/azimuthal_amplitude");
    p.cell_norm = f.doubles("/analysis/history/cell_norm");
    p.cell_overlap = f.complexes("/analysis/history/cell_overlap");
  }
  s.vortex_lines = read_vortex_lines(f);
  return s;
}

/// Each owned z-slice of `values` (a whole-domain array's stored slices) hashed on its own, the
/// hashes of every rank in slice order: the same on any number of ranks.
template <class T>
std::vector<std::uint64_t> slice_hashes(const setup::RunSetup& run, std::span<const T> values) {
  const Grid& g = run.problem.grid;
  std::vector<std::uint64_t> owned;
  if (values.empty()) {
    return owned;
  }
  const auto n = static_cast<std::size_t>(g.slice_cells());
  for (int z = g.owned_begin; z < g.owned_end; ++z) {
    Fnv1a h;
    h.values(values.subspan(static_cast<std::size_t>(z) * n, n));
    owned.push_back(h.digest());
  }
  return run.layout.all_slices(owned);
}

} // namespace

std::string fingerprint(const setup::RunSetup& run) {
  const setup::CaseConfig& c = run.config;
  Fnv1a h;
  h.problem(run.problem);
  h.text(c.scheme);
  h.text(std::string(setup::option_name(c.start)));
  h.value(run.dt);
  h.value(c.adaptive);
  if (c.adaptive) { // not end_time: it only cuts the last step
    h.value(run.adaptive.theta);
    h.value(run.adaptive.density_floor);
    h.value(run.adaptive.tolerance);
  }
  for (const auto& hashes :
       {slice_hashes(run, std::span<const double>(run.problem.potential.values)),
        slice_hashes(run, std::span<const Complex>(run.current)),
        slice_hashes(run, std::span<const Complex>(run.previous))}) {
    h.values(std::span<const std::uint64_t>(hashes));
  }
  return h.hex();
}

void write_checkpoint(const std::filesystem::path& path, const Checkpoint& c, const Grid& grid,
                      const scaleout::Decomposition& layout) {
  std::optional<ResultsFile> first;
  if (layout.rank() == 0) {
    first.emplace(path);
  }
  DomainOutput out(first ? &*first : nullptr, path, grid, layout);
  for (std::size_t k = 0; k < c.levels.size(); ++k) {
    out.write("/levels/" + c.level_names[k], out.owned(c.levels[k]),
              ResultsFile::Checksum::fletcher32);
  }
  out.commit();
  if (!first) {
    return;
  }
  ResultsFile& f = *first;
  f.attribute("format", std::string(kFormat));
  f.attribute("decgpe_version", std::string(version()));
  f.attribute("git_commit", c.git_commit);
  f.attribute("scheme", c.scheme);
  f.attribute("precision", std::string(precision_name(c.precision)));
  f.attribute("step", c.step);
  f.attribute("t", c.t);
  f.attribute("dt", c.dt);
  f.attribute("last_dt", c.last_dt);
  f.attribute("next_dt", c.next_dt);
  f.attribute("initial_max_abs", c.initial_max_abs);
  f.attribute("wall_seconds", c.wall_seconds);
  f.attribute("restarts", c.restarts);
  f.attribute("fingerprint", c.fingerprint);
  f.attribute("levels", join(c.level_names));
  std::vector<std::string> report_names;
  for (const auto& column : c.series.report) {
    report_names.push_back(column.first);
  }
  f.attribute("step_report", join(report_names));
  f.write_text("/case_toml", c.case_text);
  write_series(f, c.series);
  f.commit();
  out.remove_superseded();
}

Checkpoint read_checkpoint(const std::filesystem::path& path) {
  const InputFile f(path);
  if (!f.has("/levels")) {
    throw std::runtime_error("'" + path.string() + "' is not a decgpe checkpoint");
  }
  if (const std::string format = f.text_attribute("format"); format != kFormat) {
    throw std::runtime_error("cannot resume from '" + path.string() + "': its format is '" +
                             format + "', this decgpe reads '" + kFormat +
                             "' (resume it with the decgpe that wrote it, " +
                             f.text_attribute("git_commit") + ")");
  }
  Checkpoint c;
  c.git_commit = f.text_attribute("git_commit");
  c.scheme = f.text_attribute("scheme");
  c.precision = read_precision(f, path);
  c.step = f.integer_attribute("step");
  c.t = f.number_attribute("t");
  c.dt = f.number_attribute("dt");
  c.last_dt = f.number_attribute("last_dt");
  c.next_dt = f.number_attribute("next_dt");
  c.initial_max_abs = f.number_attribute("initial_max_abs");
  c.wall_seconds = f.number_attribute("wall_seconds");
  c.restarts = f.integer_attribute("restarts");
  c.fingerprint = f.text_attribute("fingerprint");
  c.case_text = f.text("/case_toml");
  c.level_names = split(f.text_attribute("levels"));
  c.series = read_series(f);
  return c;
}

void read_checkpoint_levels(const std::filesystem::path& path, Checkpoint& c, std::uint64_t whole,
                            std::uint64_t offset, std::uint64_t count) {
  const InputFile f(path);
  c.levels.clear();
  for (const std::string& name : c.level_names) {
    if (!f.has("/levels/" + name) || f.size("/levels/" + name) != whole) {
      throw std::runtime_error("cannot resume from '" + path.string() +
                               "': its levels do not match the grid");
    }
    try {
      c.levels.push_back(f.complexes("/levels/" + name, offset, count));
    } catch (const std::runtime_error&) {
      // The levels' sizes were right: a read that fails now is a chunk whose checksum does not
      // match (or a part that cannot be read), never values to go on from.
      throw std::runtime_error("cannot resume from '" + path.string() + "': its level '" + name +
                               "' fails its checksum or cannot be read (the file is damaged)");
    }
  }
}

} // namespace decgpe::io
