#pragma once
// The faces of a lattice split into matchings, for the Trotter–Suzuki scheme: within one colour no
// two faces share a cell, so each face's 2×2 kinetic block can be exponentiated on its own and all
// of a colour at once. The colouring is of the infinite lattice, periodic with two structure
// instances per axis (one is not always possible: on the cubic lattice the x-faces of a row form a
// path), so a domain of any size, whole or a z-slab, inherits it: cell (sx, sy, gz, l) has parity
// (sx & 1) | (sy & 1) << 1 | (gz & 1) << 2, with gz the global z-slice.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace decgpe {

inline constexpr int kParities = 8;

struct FaceColouring {
  int colours = 0;
  int ms = 0;
  /// [(colour · 8 + parity) · ms + l]: the row-relative face index of cell l's face in that colour,
  /// or −1 when the colour has none at that cell.
  std::vector<std::int8_t> face;

  int face_of(int colour, int parity, int l) const {
    return face[static_cast<std::size_t>((colour * kParities + parity) * ms + l)];
  }
};

DECGPE_HD int cell_parity(long long sx, long long sy, long long gz) {
  return static_cast<int>((sx & 1) | (sy & 1) << 1 | (gz & 1) << 2);
}

/// A proper edge colouring of the lattice's faces with few colours (greedy over seeded random
/// orders; deterministic). Throws std::invalid_argument if a face has no reverse in the table.
FaceColouring colour_faces(const Grid& grid);

/// colour_faces() of the grid's lattice, computed once per lattice and process (thread-safe).
const FaceColouring& face_colouring(const Grid& grid);

/// The row-relative index, in the row of the neighbour across stencil entry e of cell l, of the
/// face that leads back to l.
int reverse_face(const Grid& grid, int l, int e);

/// The coefficients of exp(−iτ K_F) for every stencil entry e (row order), K_F = one face's 2×2
/// block of the kinetic operator ½L in the |B|-weighted variables. Across face F = (i, j) with
/// weights w_i = |F|/(|E*||B_i|) and w_j, the block's exponential is
///   ψ_i ← ψ_i + k_i (ψ_i − ψ_j),  k_i = w_i / (w_i + w_j) · (e^{−iτ(w_i + w_j)/2} − 1),
/// which conserves |B_i||ψ_i|² + |B_j||ψ_j|² exactly. A face to a cell beyond the domain (ψ_j = 0)
/// is the diagonal term ½w_i ψ_i alone: the same update with k = e^{−iτw_i/2} − 1. Entry 2e holds
/// the interior k, 2e + 1 the boundary one. Computed on the host so that every backend multiplies
/// by the same numbers.
std::vector<Complex> face_rotations(const Grid& grid, double tau);

/// face_rotations() per τ, each computed once: a scheme sweeps with one to three τ.
class FaceRotationCache {
public:
  const std::vector<Complex>& at(const Grid& grid, double tau);

private:
  std::vector<std::pair<double, std::vector<Complex>>> tables_;
};

} // namespace decgpe
