#pragma once
// What a run records of the vortex lines from one sample to the next (issue 33, docs/cases.md
// "Vortex lines"): each sample's summary, and the events between consecutive samples, defined on
// the lines alone so that they are the same on every backend and rank count.
//
// - separation: the largest charge was above 1 and is now smaller, while the net flux through
//   z = 0 is unchanged: a line of charge q > 1 has come apart into lines of smaller charge that
//   still carry its circulation.
// - reconnection: any other change of the lines' connectivity, the multiset of (closed, charge)
//   over the lines (lines joined or cut, rings formed or gone, lines leaving the domain).

#include "analysis/vortex_lines.hpp"

#include <span>
#include <string>

namespace decgpe::analysis {

struct LineSummary {
  int lines = 0;
  double total_length = 0.0; ///< physical units
  int largest_charge = 0;    ///< 0 without lines
  int net_flux_z0 = 0;       ///< Σ charge × signed crossings of the plane z = 0 (upwards > 0)
};

LineSummary summarise(std::span<const VortexLine> lines);

enum class LineEvent { none, separation, reconnection };

/// The event between the lines of two consecutive samples (see above).
LineEvent event_between(std::span<const VortexLine> before, std::span<const VortexLine> after);

/// "separation", "reconnection" ("none" for none).
std::string event_name(LineEvent event);

} // namespace decgpe::analysis
