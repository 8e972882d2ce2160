#pragma once
// Each stencil entry's neighbour as an offset from its cell's stored index, j = i + delta[e]: valid
// for the instances whose neighbours are all inside the domain (every entry's dx, dy, dz is −1, 0
// or 1, so those away from the domain's faces). The CPU stencils' fast path and the spectrum's
// estimate read their neighbours by it.

#include "solvers/grid.hpp"

#include <cstdint>
#include <vector>

namespace decgpe {

inline std::vector<std::int64_t> neighbour_offsets(const Grid& g) {
  std::vector<std::int64_t> delta;
  for (int l = 0; l < g.ms; ++l) {
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      const StencilEntry& s = g.stencil[e];
      delta.push_back(g.ms * ((std::int64_t{s.dz} * g.size[1] + s.dy) * g.size[0] + s.dx) +
                      s.neighbour - l);
    }
  }
  return delta;
}

} // namespace decgpe
