#include "lattices/cubic4.hpp"

#include <array>

namespace decgpe::lattices {

namespace {

constexpr double kSpacing = 0.5; // two cells per structure edge

/// The cell a signed number of spacings from local coordinate `local` ∈ {0, 1} lands in: its
/// local coordinate and the structure offset.
std::array<int, 2> step(int local, int spacings) {
  const int global = local + spacings;
  const int offset = global >= 0 ? global / 2 : -((1 - global) / 2);
  return {global - 2 * offset, offset};
}

} // namespace

CellComplex build_cubic4_complex() {
  CellComplex c;
  c.name = "cubic4";
  c.box = {1.0, 1.0, 1.0};
  c.point_count = 8;
  const double s = kSpacing;
  // −u'' ≈ [16(2u − u₊₁ − u₋₁) − (2u − u₊₂ − u₋₂)] / (12 s²) = Σ_j w_j (u − u_j).
  const double near = 16.0 / (12.0 * s * s), far = -1.0 / (12.0 * s * s);
  for (int z = 0; z < 2; ++z) {
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 2; ++x) {
        Cell cell;
        cell.circumcentre = {(x + 0.5) * s, (y + 0.5) * s, (z + 0.5) * s};
        cell.circumradius = 0.5 * s * std::sqrt(3.0);
        cell.volume = s * s * s;
        for (int corner = 0; corner < 8; ++corner) {
          cell.vertices.push_back(
              cell.circumcentre +
              Vec3{(corner & 1) - 0.5, ((corner >> 1) & 1) - 0.5, ((corner >> 2) & 1) - 0.5} * s);
        }
        const std::array<int, 3> at{x, y, z};
        for (const int spacings : {1, -1, 2, -2}) {
          for (int axis = 0; axis < 3; ++axis) {
            std::array<int, 3> local = at, offset{};
            const auto [moved, shift] = step(at[axis], spacings);
            local[axis] = moved;
            offset[axis] = shift;
            Face f;
            f.area = s * s; // geometry for display; the weight is the difference coefficient
            f.dual_length = std::abs(spacings) * s;
            f.neighbour = local[0] + 2 * local[1] + 4 * local[2];
            f.offset = offset;
            f.normal = Vec3{axis == 0 ? 1.0 : 0.0, axis == 1 ? 1.0 : 0.0, axis == 2 ? 1.0 : 0.0} *
                       (spacings > 0 ? 1.0 : -1.0);
            f.weight = std::abs(spacings) == 1 ? near : far;
            cell.faces.push_back(f);
          }
        }
        c.cells.push_back(cell);
      }
    }
  }
  return c;
}

} // namespace decgpe::lattices
