#pragma once
// The discretised domain: S = (Sx, Sy, Sz) replicable-structure instances of one lattice at scale
// h, centred on the origin, with ψ = 0 outside (Dirichlet). Memory order (paper §4): the m_s values
// of one instance are contiguous and instances run x-fastest, so index i = m_s (sz Sx Sy + sy Sx +
// sx) + l.
//
// The stencil is the compressed table of §4: for each local index l the neighbours (local index +
// structure offset) and the weights |F|/(|E*||B|), already scaled by 1/h². It is the only
// lattice-dependent input of the kernels.

#include "lattices/cell_complex.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace decgpe {

struct StencilEntry {
  std::int32_t neighbour; ///< local index of the neighbour in its structure instance
  std::int8_t dx, dy, dz; ///< structure offset of the neighbour, each in {−1, 0, 1}
  double weight;          ///< |F| / (|E*||B|) at scale h
};

struct Grid {
  std::string lattice;
  int ms = 0;                 ///< dual 0-cells per structure instance
  std::array<int, 3> size{};  ///< S
  double h = 0.0;             ///< structure edge length
  lattices::Vec3 box;         ///< replicable structure extent at scale h
  lattices::Vec3 origin;      ///< position of instance (0, 0, 0)'s corner: −S∘box/2 (centred)
  std::vector<int> row_begin; ///< ms + 1 entries into `stencil`
  std::vector<StencilEntry> stencil;
  std::vector<lattices::Vec3>
      centre; ///< circumcentres at scale h, relative to the instance corner, per local index
  std::vector<double> volume;     ///< |B| at scale h, per local index
  std::vector<double> weight_sum; ///< Σ_F weight per local index: the Laplacian's diagonal

  // A z-slab of a larger domain (scale-out) stores slices [z_offset, z_offset + size[2]) of the
  // global domain: its owned slices plus k halo slices per neighbouring slab (deep halos,
  // solvers/halo_schedule.hpp). Memory is indexed
  // with the local z; the potential and the Dirichlet boundary use the global one. For a whole
  // domain, z_offset = 0, global_z = size[2] and every slice is owned.
  int z_offset = 0;
  int global_z = 0;                   ///< Sz of the whole domain
  int owned_begin = 0, owned_end = 0; ///< owned local slices [owned_begin, owned_end)

  std::int64_t instances() const { return std::int64_t{size[0]} * size[1] * size[2]; }
  std::int64_t cells() const { return instances() * ms; } ///< m, the number of DOFs
  std::int64_t slice_cells() const { return std::int64_t{size[0]} * size[1] * ms; } ///< one z-slice
  std::int64_t owned_cells() const { return (owned_end - owned_begin) * slice_cells(); }
  /// k: the halo slices stored towards a neighbouring slab (0 for a whole domain).
  int halo_depth() const { return std::max(owned_begin, size[2] - owned_end); }
  /// Of the whole domain: instances() and cells() when the grid is not a slab.
  std::int64_t global_instances() const { return std::int64_t{size[0]} * size[1] * global_z; }
  std::int64_t global_cells() const { return global_instances() * ms; }
  /// Whether global z-slice `gz` exists (ψ = 0 beyond the domain's faces).
  bool z_inside(std::int64_t gz) const { return gz >= 0 && gz < global_z; }
  lattices::Vec3 position(std::int64_t i) const; ///< circumcentre of global cell i
  /// Circumcentre of local cell l in instance (sx, sy, local sz); the same arithmetic as
  /// position(i), bit for bit, and the same in a slab as in the whole domain.
  lattices::Vec3 position(std::int64_t sx, std::int64_t sy, std::int64_t sz, int l) const {
    return origin + centre[l] +
           lattices::Vec3{static_cast<double>(sx) * box.x, static_cast<double>(sy) * box.y,
                          static_cast<double>(sz + z_offset) * box.z};
  }
};

/// The slab of `global` that stores global slices [first, last) and owns [owned_first, owned_last).
Grid make_slab(const Grid& global, int first, int last, int owned_first, int owned_last);

/// The whole domain's grid of which `part` is a slab (a copy of `part` when it is not one).
Grid whole_grid(const Grid& part);

/// Builds the grid; throws std::invalid_argument for sizes < 1 or h ≤ 0 (or non-finite).
Grid make_grid(const lattices::CellComplex& complex, std::array<int, 3> size, double h);

/// The smallest S that covers a cuboid `extent` at scale h.
std::array<int, 3> structures_covering(const lattices::CellComplex& complex,
                                       std::array<double, 3> extent, double h);

} // namespace decgpe
