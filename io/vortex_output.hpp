#pragma once
// The vortex lines of a run in its results and checkpoints (docs/cases.md, "Vortex lines"): per
// sample /vortex_lines/<step> {points (n × 3, a_ho), offsets (lines + 1: line k is points
// [offsets[k], offsets[k + 1])), charges, closed, ends (lines × 2: analysis::LineEnd's code, 0 the
// boundary, 1 a junction, 2 the region's edge; 0 0 for a closed line)} with its time as attribute
// t; /vortex_lines/series {step, t, lines, total_length, largest_charge, net_flux_z0};
// /vortex_lines/events {step, after_step, t, kind}. Only the samples are read back: the series and
// the events are functions of them, so a resumed run writes them as the uninterrupted run does.

#include "analysis/vortex_events.hpp"
#include "hdf5/hdf5_file.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace decgpe::io {

struct VortexSample {
  std::int64_t step = 0;
  double t = 0.0;
  std::vector<analysis::VortexLine> lines;
};

/// What changed between two consecutive samples: after_step's lines and step's.
struct VortexEvent {
  std::int64_t step = 0, after_step = 0;
  double t = 0.0;
  analysis::LineEvent kind = analysis::LineEvent::none;
};

std::vector<VortexEvent> vortex_events(std::span<const VortexSample> samples);

/// The kinds' codes in /vortex_lines/events/kind.
inline constexpr std::int64_t kSeparationCode = 1, kReconnectionCode = 2;

void write_vortex_lines(ResultsFile& f, std::span<const VortexSample> samples);
/// The samples of /vortex_lines (none when it is absent).
std::vector<VortexSample> read_vortex_lines(const InputFile& f);

} // namespace decgpe::io
