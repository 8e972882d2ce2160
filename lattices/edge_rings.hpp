#pragma once
// The primal edges of one replicable structure and, for each, the ring of cells around it: the
// boundary of its dual 2-cell. ψ lives on the cells' circumcentres, so the phase winding around a
// ring is the vortex flux through that dual 2-cell (the issue-33 detector). Periodic in the
// structure like the face tables: an edge belongs to the instance of its `from` vertex, and its
// ring's cells and its `to` vertex are named by local index + structure offset from there.

#include "lattices/cell_complex.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace decgpe::lattices {

/// A cell or a vertex of another instance: local index and structure offset, each in {−1, 0, 1}.
struct LocalRef {
  int index = -1;
  std::array<int, 3> offset{};
  bool operator==(const LocalRef&) const = default;
};

struct EdgeRing {
  int from = -1; ///< vertex of this instance the edge starts at
  LocalRef to;   ///< the vertex it ends at; to − from is positive in z, then y, then x
  /// The cells around the edge, counterclockwise seen from `to` looking back at `from` (right-
  /// handed about to − from); consecutive cells, the last and the first included, share a face.
  std::vector<LocalRef> ring;
};

struct EdgeRings {
  std::vector<Vec3> vertices; ///< primal 0-cells of one structure, in [0, box), ordered z, y, x
  std::vector<EdgeRing> edges;

  int edges_per_structure() const { return static_cast<int>(edges.size()); }
};

/// Builds the rings from the cells' vertices and faces; throws std::runtime_error when an edge's
/// ring reaches beyond the adjacent instances.
EdgeRings build_edge_rings(const CellComplex& complex);

/// The rings of a named lattice (lattice_names(); cubic4's from its cubic cells), built once per
/// process and cached (thread-safe).
const EdgeRings& edge_rings(std::string_view lattice);

} // namespace decgpe::lattices
