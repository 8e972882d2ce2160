#include "io/vortex_output.hpp"

#include "io/results.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace decgpe::io {

namespace {

using analysis::LineEnd;
using analysis::LineEvent;
using analysis::VortexLine;

constexpr const char* kRoot = "/vortex_lines/";

void write_sample(ResultsFile& f, const VortexSample& s) {
  std::vector<double> points;
  std::vector<std::int64_t> offsets = {0}, charges, closed, ends;
  for (const VortexLine& line : s.lines) {
    for (const lattices::Vec3& p : line.points) {
      points.insert(points.end(), {p.x, p.y, p.z});
    }
    offsets.push_back(offsets.back() + static_cast<std::int64_t>(line.points.size()));
    charges.push_back(line.charge);
    closed.push_back(line.closed ? 1 : 0);
    for (const LineEnd end : line.ends) {
      ends.push_back(line.closed ? 0 : static_cast<std::int64_t>(end));
    }
  }
  const std::string group = kRoot + snapshot_name(s.step);
  f.write(group + "/points", points, {points.size() / 3, 3});
  f.attribute_of(group + "/points", "units", std::string("a_ho"));
  f.write(group + "/offsets", offsets);
  f.write(group + "/charges", charges);
  f.write(group + "/closed", closed);
  f.write(group + "/ends", ends);
  f.attribute_of(group + "/ends", "meaning",
                 std::string("0: the boundary, 1: a junction, 2: the edge of the region measured"));
  f.attribute_of(group, "t", s.t);
}

void write_series(ResultsFile& f, std::span<const VortexSample> samples) {
  std::vector<std::int64_t> step, lines, largest, flux;
  std::vector<double> t, length;
  for (const VortexSample& s : samples) {
    const analysis::LineSummary sum = analysis::summarise(s.lines);
    step.push_back(s.step);
    t.push_back(s.t);
    lines.push_back(sum.lines);
    length.push_back(sum.total_length);
    largest.push_back(sum.largest_charge);
    flux.push_back(sum.net_flux_z0);
  }
  const std::string series = std::string(kRoot) + "series/";
  f.write(series + "step", step);
  f.write(series + "t", t, {t.size()});
  f.write(series + "lines", lines);
  f.write(series + "total_length", length, {length.size()});
  f.write(series + "largest_charge", largest);
  f.write(series + "net_flux_z0", flux);
}

void write_events(ResultsFile& f, std::span<const VortexSample> samples) {
  std::vector<std::int64_t> step, after, kind;
  std::vector<double> t;
  for (const VortexEvent& e : vortex_events(samples)) {
    step.push_back(e.step);
    after.push_back(e.after_step);
    t.push_back(e.t);
    kind.push_back(e.kind == LineEvent::separation ? kSeparationCode : kReconnectionCode);
  }
  const std::string events = std::string(kRoot) + "events/";
  f.write(events + "step", step);
  f.write(events + "after_step", after);
  f.write(events + "t", t, {t.size()});
  f.write(events + "kind", kind);
  f.attribute_of(events + "kind", "meaning",
                 std::string("1: separation, 2: reconnection (docs/cases.md, Vortex lines)"));
}

VortexSample read_sample(const InputFile& f, const std::string& name) {
  const std::string group = kRoot + name;
  VortexSample s{std::stol(name), f.number_attribute("t", group), {}};
  const std::vector<double> points = f.matrix(group + "/points");
  const std::vector<std::int64_t> offsets = f.integers(group + "/offsets");
  const std::vector<std::int64_t> charges = f.integers(group + "/charges");
  const std::vector<std::int64_t> closed = f.integers(group + "/closed");
  const std::vector<std::int64_t> ends = f.integers(group + "/ends");
  for (std::size_t k = 0; k < charges.size(); ++k) {
    VortexLine line;
    for (auto p = offsets[k]; p < offsets[k + 1]; ++p) {
      const auto at = static_cast<std::size_t>(3 * p);
      line.points.push_back({points[at], points[at + 1], points[at + 2]});
    }
    line.charge = static_cast<int>(charges[k]);
    line.closed = closed[k] != 0;
    for (std::size_t e = 0; e < 2; ++e) {
      const std::int64_t code = ends[2 * k + e];
      if (code < 0 || code > static_cast<std::int64_t>(LineEnd::region)) {
        throw std::runtime_error(group + "/ends holds " + std::to_string(code) +
                                 ", not an end's code (0, 1 or 2)");
      }
      line.ends[e] = static_cast<LineEnd>(code);
    }
    s.lines.push_back(std::move(line));
  }
  return s;
}

} // namespace

std::vector<VortexEvent> vortex_events(std::span<const VortexSample> samples) {
  std::vector<VortexEvent> events;
  for (std::size_t k = 1; k < samples.size(); ++k) {
    const LineEvent kind = analysis::event_between(samples[k - 1].lines, samples[k].lines);
    if (kind != LineEvent::none) {
      events.push_back({samples[k].step, samples[k - 1].step, samples[k].t, kind});
    }
  }
  return events;
}

void write_vortex_lines(ResultsFile& f, std::span<const VortexSample> samples) {
  for (const VortexSample& s : samples) {
    write_sample(f, s);
  }
  write_series(f, samples);
  write_events(f, samples);
}

std::vector<VortexSample> read_vortex_lines(const InputFile& f) {
  std::vector<VortexSample> samples;
  for (const std::string& name : f.members("/vortex_lines")) { // zero-padded: in step order
    if (std::ranges::all_of(name, [](char c) { return c >= '0' && c <= '9'; })) {
      samples.push_back(read_sample(f, name));
    }
  }
  return samples;
}

} // namespace decgpe::io
