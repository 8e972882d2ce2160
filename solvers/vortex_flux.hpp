#pragma once
// The vortex flux through every primal edge (issue 33): the phase winding of ψ around the ring of
// cells about the edge (lattices/edge_rings.hpp), an integer by construction. No threshold, no
// interpolation: with θ ∈ (−π, π] the phase of a cell, Σ wrap(θ_j − θ_i) over the ring is
// 2π Σ n_ij, n_ij the whole turns wrap() adds, so the flux is Σ n_ij, and n_ij is decided by sign
// tests on ψ_i, ψ_j alone (no atan2, whose last bits differ between host and device).
//
// Two choices the definition leaves open, made here for every backend alike:
// - ψ_i = 0 exactly has no phase; it is given θ = 0 (atan2(0, 0)), so fluxes stay integers and
//   conserved and a line through such a cell runs along one of its edges.
// - wrap() into (−π, π] is not odd at ±π (an exactly antipodal pair): each pair of face
//   neighbours is wrapped from its lower cell index to its higher one, and the reverse step is the
//   negative of that, so the fluxes of a vertex's edges sum to zero exactly.
//
// One choice a run may make ([analysis] vortex_region): a ring is measured only when every cell
// of it lies in a region, as if the rest lay outside the domain. The lines a user wants are in
// the condensate; outside it |ψ| falls to round-off (or to the noise a run leaves there) and its
// phase winds at random about nearly every edge. The condensate's region is the trap's: V < a cut
// (setup::vortex_potential_cut, a margin times μ), V computed as the stepping kernels compute it,
// so every backend keeps the same rings; EveryRing measures every ring.

#include "solvers/complex.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace decgpe {

struct Grid;
struct Problem;

/// An edge whose flux is not zero: its id in the whole domain, e + E·((gz·Sy + sy)·Sx + sx) for
/// edge e (of E per structure) of instance (sx, sy, global gz), and the flux, signed along it.
struct PiercedEdge {
  std::int64_t edge;
  std::int32_t flux;
  bool operator==(const PiercedEdge&) const = default;
};

/// A ring cell as the kernels read it: local index and structure offset.
struct RingEntry {
  std::int32_t cell;
  std::int8_t dx, dy, dz;
};

/// The rings of one structure flattened: ring e is entries [begin[e], begin[e + 1]).
struct RingTable {
  std::vector<std::int32_t> begin;
  std::vector<RingEntry> entries;
  int edges() const { return static_cast<int>(begin.size()) - 1; }
};

/// The rings of the grid's lattice (lattices::edge_rings).
RingTable make_ring_table(const Grid& grid);

/// What a ring needs of the grid: the stored part and where it lies in the domain.
struct RingGrid {
  int sx, sy, sz; ///< S, with sz the slices stored
  int z_offset;   ///< global index of stored slice 0
  int global_z;
  int ms;
};
RingGrid ring_grid(const Grid& grid);

/// Whether ring cell `r` of an edge of instance (sx, sy, local sz) is inside the domain, and then
/// its stored index j.
DECGPE_HD bool ring_cell(const RingGrid& g, const RingEntry& r, int sx, int sy, int sz,
                         std::int64_t& j) {
  const int nx = sx + r.dx, ny = sy + r.dy, nz = sz + r.dz;
  if (nx < 0 || ny < 0 || nx >= g.sx || ny >= g.sy || nz + g.z_offset < 0 ||
      nz + g.z_offset >= g.global_z) {
    return false;
  }
  j = std::int64_t{g.ms} * ((std::int64_t{nz} * g.sy + ny) * g.sx + nx) + r.cell;
  return true;
}

/// Whether θ(a) ∈ (0, π]; a = 0 has θ = 0.
DECGPE_HD bool upper_half(Complex a) {
  return a.im > 0.0 || (a.im == 0.0 && a.re < 0.0);
}

/// n with wrap(θ_b − θ_a) = θ_b − θ_a + 2πn. Only when a and b lie in opposite half-planes can n
/// be ±1, and then the sign of Im(conj(a) b) decides (exactly antipodal: wrap(−π) = π). The two
/// products are compared, never subtracted, so no contraction into an FMA can change the answer.
DECGPE_HD int wrap_turns(Complex a, Complex b) {
  const bool a_upper = upper_half(a);
  if (a_upper == upper_half(b)) {
    return 0;
  }
  const Complex bb = (b.re == 0.0 && b.im == 0.0) ? Complex{1.0, 0.0} : b; // θ = 0
  const Complex aa = (a.re == 0.0 && a.im == 0.0) ? Complex{1.0, 0.0} : a;
  const double p = aa.im * bb.re, q = aa.re * bb.im;
  if (a_upper) {
    return p <= q ? 1 : 0; // θ_a − θ_b ≥ π
  }
  return p > q ? -1 : 0; // θ_b − θ_a > π
}

/// The turns of the step from cell i to cell j, odd in (i, j): wrapped from the lower index.
DECGPE_HD int step_turns(Complex psi_i, std::int64_t i, Complex psi_j, std::int64_t j) {
  return i < j ? wrap_turns(psi_i, psi_j) : -wrap_turns(psi_j, psi_i);
}

/// The region of every ring: the whole domain. A region is asked of each ring cell `r` of an
/// edge of instance (sx, sy, local sz), stored index j, whether the cell lies in it.
struct EveryRing {
  DECGPE_HD bool operator()(const RingEntry&, int, int, int, std::int64_t) const { return true; }
};

/// The flux through the edge whose ring is ring[0..count) in instance (sx, sy, local sz); false
/// when a ring cell lies outside the domain or outside `region` (the edge is not measured; ψ is
/// not read past the first such cell).
template <class Region, class Value>
DECGPE_HD bool edge_flux(const RingGrid& g, const RingEntry* ring, int count, const Value* psi,
                         int sx, int sy, int sz, const Region& region, int& flux) {
  std::int64_t first = 0;
  if (!ring_cell(g, ring[0], sx, sy, sz, first) || !region(ring[0], sx, sy, sz, first)) {
    return false;
  }
  std::int64_t i = first;
  int turns = 0;
  for (int k = 1; k <= count; ++k) {
    std::int64_t j = first;
    if (k < count && !(ring_cell(g, ring[k], sx, sy, sz, j) && region(ring[k], sx, sy, sz, j))) {
      return false;
    }
    turns += step_turns(convert<double>(psi[i]), i, convert<double>(psi[j]), j);
    i = j;
  }
  flux = turns;
  return true;
}

/// The potential cut that measures every ring of the domain.
inline constexpr double kEveryRing = std::numeric_limits<double>::infinity();

/// Appends the pierced edges of the instances of local slices [z_begin, z_end) whose ring cells
/// all have V < potential_cut (kEveryRing: every ring of the domain), in edge-id order. Value is a
/// precision's stored complex (Complex or ComplexFloat), read in FP64.
template <class Value>
void pierced_edges(const Problem& problem, const RingTable& rings, const Value* psi, int z_begin,
                   int z_end, double potential_cut, std::vector<PiercedEdge>& out);

/// Whether every cell of ring e of instance (sx, sy, global gz) lies inside the whole domain.
bool ring_inside(const Grid& whole, const RingTable& rings, int e, std::int64_t sx, std::int64_t sy,
                 std::int64_t gz);

} // namespace decgpe
