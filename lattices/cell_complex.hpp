#pragma once
// The periodic primal complex (Delaunay cells of a crystal) and its circumcentric dual, for one
// replicable structure.
//
// ψ lives on the dual 0-cells, i.e. the circumcentres of the primal 3-cells. For the DEC Laplacian
// every primal cell B needs its volume |B| and, per boundary face F, the area |F|, the dual-edge
// length |E*| to the neighbouring circumcentre, and which cell (local index + structure offset)
// that neighbour is. Lengths are in units of the structure edge; a solver at scale h multiplies
// lengths by h, areas by h², volumes by h³ and weights by 1/h².

#include "crystal.hpp"

#include <array>
#include <span>
#include <string_view>
#include <vector>

namespace decgpe::lattices {

struct Face {
  double area = 0.0;        ///< |F|
  double dual_length = 0.0; ///< |E*| = (c_neighbour − c_self)·n, signed; > 0 for these lattices
  int neighbour = -1;       ///< local index of the cell across F
  std::array<int, 3> offset{}; ///< structure offset (dx, dy, dz) of that neighbour
  Vec3 normal;                 ///< unit outward normal of F
  double weight = 0.0;         ///< |F| / (|E*| |B|): the Hodge weight of the DEC Laplacian
};

struct Cell {
  Vec3 circumcentre; ///< in [0, box)
  double circumradius = 0.0;
  double volume = 0.0;        ///< |B|
  std::vector<Vec3> vertices; ///< primal 0-cells, absolute positions around the circumcentre
  std::vector<Face> faces;
};

struct CellComplex {
  std::string name;
  Vec3 box;
  int point_count = 0;
  std::vector<Cell> cells; ///< ordered by circumcentre: z, then y, then x

  int cells_per_structure() const { return static_cast<int>(cells.size()); } ///< m_s
  double structure_volume() const { return box.x * box.y * box.z; }
};

/// Distances within this of each other are treated as equal when merging cospherical cells and
/// matching faces. Why it is safe: the point coordinates are rationals with denominators ≤ 8 (times
/// √3 along y for Z), so distinct squared distances between points and circumcentres differ by far
/// more (the builder's tests check that the merged cells tile the structure exactly and share every
/// face pairwise); rounding errors are ~1e-15.
inline constexpr double kGeometryTolerance = 1e-9;

/// Builds the complex; throws std::runtime_error if the cells found do not tile the structure.
CellComplex build_cell_complex(const Crystal& crystal);

/// What a case's `lattice` may name: the six crystals and `cubic4`, the cubic grid with a
/// fourth-order operator (lattices/cubic4.hpp).
std::span<const std::string_view> lattice_names();

/// The complex of a named lattice (lattice_names()), built once per process and cached
/// (thread-safe).
const CellComplex& cell_complex(std::string_view name);

} // namespace decgpe::lattices
