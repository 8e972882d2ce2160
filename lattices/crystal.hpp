#pragma once
// The six crystal structures of the paper (§2) as periodic point sets in an orthorhombic replicable
// structure.

#include "vec3.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe::lattices {

/// Points of one replicable structure, in units of the structure edge (the x-extent of the box is
/// 1).
struct Crystal {
  std::string name;
  Vec3 box;                 ///< edge lengths of the orthorhombic replicable structure
  std::vector<Vec3> points; ///< positions inside [0, box), absolute (not fractional)
};

/// The lattice names decgpe knows, in the paper's order: cubic, fcc, bcc, a15, c15, z.
std::span<const std::string_view> crystal_names();

/// The named crystal; throws std::invalid_argument naming the known lattices for an unknown name.
Crystal make_crystal(std::string_view name);

} // namespace decgpe::lattices
