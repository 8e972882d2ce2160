#include "solvers/vortex_flux.hpp"

#include "lattices/edge_rings.hpp"
#include "solvers/grid.hpp"
#include "solvers/problem.hpp"

namespace decgpe {

RingTable make_ring_table(const Grid& grid) {
  RingTable table;
  table.begin.push_back(0);
  for (const lattices::EdgeRing& edge : lattices::edge_rings(grid.lattice).edges) {
    for (const lattices::LocalRef& cell : edge.ring) {
      table.entries.push_back({cell.index, static_cast<std::int8_t>(cell.offset[0]),
                               static_cast<std::int8_t>(cell.offset[1]),
                               static_cast<std::int8_t>(cell.offset[2])});
    }
    table.begin.push_back(static_cast<std::int32_t>(table.entries.size()));
  }
  return table;
}

RingGrid ring_grid(const Grid& grid) {
  return {grid.size[0], grid.size[1], grid.size[2], grid.z_offset, grid.global_z, grid.ms};
}

namespace {

/// The cells with V < cut: V as the CPU backends step with it, in the frame they step in (V − ½Ω²ρ²
/// when rotating, the frame μ belongs to; the lab's V would cut a rotating condensate short).
struct BelowCut {
  const Problem* problem;
  double cut;
  bool operator()(const RingEntry& r, int sx, int sy, int sz, std::int64_t j) const {
    const Potential& v = problem->potential;
    const int x = sx + r.dx, y = sy + r.dy, z = sz + r.dz;
    return (v.rotation.active() ? v.in_frame(problem->grid, x, y, z, r.cell, j)
                                : v.at(problem->grid, x, y, z, r.cell, j)) < cut;
  }
};

template <class Region, class Value>
void pierced_in(const Grid& grid, const RingTable& rings, const Value* psi, int z_begin, int z_end,
                const Region& region, std::vector<PiercedEdge>& out) {
  const RingGrid g = ring_grid(grid);
  const int edges = rings.edges();
  for (int sz = z_begin; sz < z_end; ++sz) {
    for (int sy = 0; sy < g.sy; ++sy) {
      for (int sx = 0; sx < g.sx; ++sx) {
        const std::int64_t instance =
            (std::int64_t{sz + g.z_offset} * g.sy + sy) * g.sx + sx; // in the whole domain
        for (int e = 0; e < edges; ++e) {
          int flux = 0;
          const RingEntry* ring = rings.entries.data() + rings.begin[e];
          if (edge_flux(g, ring, rings.begin[e + 1] - rings.begin[e], psi, sx, sy, sz, region,
                        flux) &&
              flux != 0) {
            out.push_back({instance * edges + e, flux});
          }
        }
      }
    }
  }
}

} // namespace

template <class Value>
void pierced_edges(const Problem& problem, const RingTable& rings, const Value* psi, int z_begin,
                   int z_end, double potential_cut, std::vector<PiercedEdge>& out) {
  if (potential_cut == kEveryRing) {
    pierced_in(problem.grid, rings, psi, z_begin, z_end, EveryRing{}, out);
  } else {
    pierced_in(problem.grid, rings, psi, z_begin, z_end, BelowCut{&problem, potential_cut}, out);
  }
}

template void pierced_edges(const Problem&, const RingTable&, const Complex*, int, int, double,
                            std::vector<PiercedEdge>&);
template void pierced_edges(const Problem&, const RingTable&, const ComplexFloat*, int, int, double,
                            std::vector<PiercedEdge>&);

bool ring_inside(const Grid& whole, const RingTable& rings, int e, std::int64_t sx, std::int64_t sy,
                 std::int64_t gz) {
  const RingGrid g = ring_grid(whole);
  for (int k = rings.begin[e]; k < rings.begin[e + 1]; ++k) {
    std::int64_t j = 0;
    if (!ring_cell(g, rings.entries[k], static_cast<int>(sx), static_cast<int>(sy),
                   static_cast<int>(gz - g.z_offset), j)) {
      return false;
    }
  }
  return true;
}

} // namespace decgpe
