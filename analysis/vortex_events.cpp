#include "analysis/vortex_events.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace decgpe::analysis {

namespace {

/// +1 where the segment a → b crosses z = 0 upwards, −1 downwards; z = 0 itself counts as above,
/// so that a line through a vertex on the plane crosses once.
int crossing(const lattices::Vec3& a, const lattices::Vec3& b) {
  if (a.z < 0.0 && b.z >= 0.0) {
    return 1;
  }
  return b.z < 0.0 && a.z >= 0.0 ? -1 : 0;
}

int flux_through_z0(const VortexLine& line) {
  const std::size_t n = line.points.size();
  int crossings = 0;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    crossings += crossing(line.points[k], line.points[k + 1]);
  }
  if (line.closed && n > 1) {
    crossings += crossing(line.points[n - 1], line.points.front());
  }
  return line.charge * crossings;
}

/// The connectivity the events compare: (closed, charge) of every line, sorted.
std::vector<std::pair<bool, int>> connectivity(std::span<const VortexLine> lines) {
  std::vector<std::pair<bool, int>> kinds;
  for (const VortexLine& line : lines) {
    kinds.emplace_back(line.closed, line.charge);
  }
  std::ranges::sort(kinds);
  return kinds;
}

} // namespace

LineSummary summarise(std::span<const VortexLine> lines) {
  LineSummary s;
  s.lines = static_cast<int>(lines.size());
  for (const VortexLine& line : lines) {
    s.total_length += length(line);
    s.largest_charge = std::max(s.largest_charge, line.charge);
    s.net_flux_z0 += flux_through_z0(line);
  }
  return s;
}

LineEvent event_between(std::span<const VortexLine> before, std::span<const VortexLine> after) {
  if (connectivity(before) == connectivity(after)) {
    return LineEvent::none;
  }
  const LineSummary a = summarise(before), b = summarise(after);
  const bool separated =
      a.largest_charge > 1 && b.largest_charge < a.largest_charge && a.net_flux_z0 == b.net_flux_z0;
  return separated ? LineEvent::separation : LineEvent::reconnection;
}

std::string event_name(LineEvent event) {
  switch (event) {
  case LineEvent::separation:
    return "separation";
  case LineEvent::reconnection:
    return "reconnection";
  default:
    return "none";
  }
}

} // namespace decgpe::analysis
