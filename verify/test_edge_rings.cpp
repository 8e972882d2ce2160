// The rings of cells around the primal edges (the vortex detector's loops), checked against the
// cell complex they are built from, on the six crystals and cubic4.

#include "lattices/edge_rings.hpp"
#include "verify/lattice_params.hpp"

#include <algorithm>
#include <gtest/gtest.h>

namespace decgpe::lattices {
namespace {

class Rings : public ::testing::TestWithParam<std::string_view> {
protected:
  const CellComplex& complex() const { return cell_complex(GetParam()); }
  const EdgeRings& rings() const { return edge_rings(GetParam()); }
  Vec3 shift(const std::array<int, 3>& o) const {
    const Vec3& box = complex().box;
    return {o[0] * box.x, o[1] * box.y, o[2] * box.z};
  }
  std::vector<Vec3> corners(const LocalRef& cell) const {
    std::vector<Vec3> out;
    for (const Vec3& v : complex().cells[cell.index].vertices) {
      out.push_back(v + shift(cell.offset));
    }
    return out;
  }
  /// How many corners two cells share: 3 or more when they share a face.
  int shared_corners(const LocalRef& a, const LocalRef& b) const {
    const std::vector<Vec3> cb = corners(b);
    int shared = 0;
    for (const Vec3& v : corners(a)) {
      shared +=
          std::any_of(cb.begin(), cb.end(), [&](const Vec3& w) { return norm(v - w) < 1e-9; });
    }
    return shared;
  }
  /// Whether the face table of a lists b as a neighbour.
  bool face_neighbours(const LocalRef& a, const LocalRef& b) const {
    const std::vector<Face>& faces = complex().cells[a.index].faces;
    return std::any_of(faces.begin(), faces.end(), [&](const Face& f) {
      return f.neighbour == b.index && f.offset[0] == b.offset[0] - a.offset[0] &&
             f.offset[1] == b.offset[1] - a.offset[1] && f.offset[2] == b.offset[2] - a.offset[2];
    });
  }
  /// The faces of one structure: pairs of cells sharing 3 or more corners (cubic4's table also
  /// lists its second neighbours, which share none), each counted once.
  int faces_per_structure() const {
    int ends = 0;
    for (int l = 0; l < complex().cells_per_structure(); ++l) {
      for (const Face& f : complex().cells[l].faces) {
        ends += shared_corners({l, {}}, {f.neighbour, f.offset}) >= 3 ? 1 : 0;
      }
    }
    return ends / 2;
  }
};

TEST_P(Rings, EveryRingClosesThroughFaceNeighbours) {
  for (const EdgeRing& e : rings().edges) {
    ASSERT_GE(e.ring.size(), 3u);
    for (std::size_t k = 0; k < e.ring.size(); ++k) {
      const LocalRef& a = e.ring[k];
      const LocalRef& b = e.ring[(k + 1) % e.ring.size()];
      EXPECT_TRUE(face_neighbours(a, b)) << "edge from " << e.from << ", ring cell " << k;
      EXPECT_GE(shared_corners(a, b), 3) << "edge from " << e.from << ", ring cell " << k;
    }
  }
}

TEST_P(Rings, EveryRingCellHasBothEndsAsCorners) {
  const EdgeRings& r = rings();
  for (const EdgeRing& e : r.edges) {
    const Vec3 a = r.vertices[e.from], b = r.vertices[e.to.index] + shift(e.to.offset);
    for (const LocalRef& cell : e.ring) {
      int ends = 0;
      for (const Vec3& v : corners(cell)) {
        ends += (norm(v - a) < 1e-9 ? 1 : 0) + (norm(v - b) < 1e-9 ? 1 : 0);
      }
      EXPECT_EQ(ends, 2);
    }
  }
}

// Seen from `to`, the ring turns counterclockwise: the centroids' angles about the edge increase.
TEST_P(Rings, RingsTurnRightHandedAboutTheEdge) {
  const EdgeRings& r = rings();
  for (const EdgeRing& e : r.edges) {
    const Vec3 a = r.vertices[e.from], axis = r.vertices[e.to.index] + shift(e.to.offset) - a;
    double turn = 0.0;
    for (std::size_t k = 0; k < e.ring.size(); ++k) {
      const auto centroid = [&](const LocalRef& cell) {
        Vec3 sum;
        for (const Vec3& v : corners(cell)) {
          sum += v;
        }
        return sum * (1.0 / static_cast<double>(corners(cell).size())) - a;
      };
      const Vec3 p = centroid(e.ring[k]), q = centroid(e.ring[(k + 1) % e.ring.size()]);
      const Vec3 pp = p - axis * (dot(p, axis) / dot(axis, axis));
      const Vec3 qq = q - axis * (dot(q, axis) / dot(axis, axis));
      turn += std::atan2(dot(cross(pp, qq), axis) / norm(axis), dot(pp, qq));
    }
    EXPECT_NEAR(turn, 2.0 * std::acos(-1.0), 1e-9);
  }
}

// Per structure of a periodic complex V − E + F − C = 0; and each cell's edges, V_c + F_c − 2 by
// Euler's formula for a polyhedron, are each in exactly one ring.
TEST_P(Rings, EdgeCountsMatchEulerCharacteristics) {
  const CellComplex& c = complex();
  const EdgeRings& r = rings();
  EXPECT_EQ(static_cast<int>(r.vertices.size()), c.point_count);
  EXPECT_EQ(
      c.point_count - r.edges_per_structure() + faces_per_structure() - c.cells_per_structure(), 0);
  std::size_t ring_cells = 0, cell_edges = 0;
  for (const EdgeRing& e : r.edges) {
    ring_cells += e.ring.size();
  }
  for (int l = 0; l < c.cells_per_structure(); ++l) {
    int faces = 0;
    for (const Face& f : c.cells[l].faces) {
      faces += shared_corners({l, {}}, {f.neighbour, f.offset}) >= 3 ? 1 : 0;
    }
    cell_edges += c.cells[l].vertices.size() + static_cast<std::size_t>(faces) - 2;
  }
  EXPECT_EQ(ring_cells, cell_edges);
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Rings, verify::every_stencil(), verify::lattice_name);

} // namespace
} // namespace decgpe::lattices
