#include "solvers/grid.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace decgpe {

lattices::Vec3 Grid::position(std::int64_t i) const {
  const std::int64_t s = i / ms;
  const int l = static_cast<int>(i % ms);
  const std::int64_t sx = s % size[0];
  const std::int64_t sy = (s / size[0]) % size[1];
  const std::int64_t sz = s / (std::int64_t{size[0]} * size[1]);
  return position(sx, sy, sz, l);
}

Grid make_grid(const lattices::CellComplex& complex, std::array<int, 3> size, double h) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw std::invalid_argument("structure edge h must be finite and > 0, got " +
                                std::to_string(h));
  }
  for (int s : size) {
    if (s < 1) {
      throw std::invalid_argument("domain size must be at least 1 structure per axis, got " +
                                  std::to_string(s));
    }
  }
  Grid g;
  g.lattice = complex.name;
  g.ms = complex.cells_per_structure();
  g.size = size;
  g.h = h;
  g.box = complex.box * h;
  g.origin = lattices::Vec3{size[0] * g.box.x, size[1] * g.box.y, size[2] * g.box.z} * -0.5;
  g.global_z = size[2];
  g.owned_end = size[2];
  if (static_cast<double>(g.cells()) >
      static_cast<double>(std::numeric_limits<std::int64_t>::max() / 64)) {
    throw std::invalid_argument("domain too large");
  }
  const double inv_h2 = 1.0 / (h * h);
  g.row_begin.push_back(0);
  for (const lattices::Cell& cell : complex.cells) {
    double sum = 0.0;
    for (const lattices::Face& f : cell.faces) {
      // The kernels assume neighbours lie in adjacent instances (true for all six lattices).
      for (int o : f.offset) {
        if (o < -1 || o > 1) {
          throw std::invalid_argument("lattice '" + complex.name +
                                      "': neighbour offset beyond adjacent instances");
        }
      }
      g.stencil.push_back({f.neighbour, static_cast<std::int8_t>(f.offset[0]),
                           static_cast<std::int8_t>(f.offset[1]),
                           static_cast<std::int8_t>(f.offset[2]), f.weight * inv_h2});
      sum += f.weight * inv_h2;
    }
    g.row_begin.push_back(static_cast<int>(g.stencil.size()));
    g.centre.push_back(cell.circumcentre * h);
    g.volume.push_back(cell.volume * h * h * h);
    g.weight_sum.push_back(sum);
  }
  return g;
}

Grid make_slab(const Grid& global, int first, int last, int owned_first, int owned_last) {
  if (!(0 <= first && first <= owned_first && owned_first < owned_last && owned_last <= last &&
        last <= global.global_z)) {
    throw std::invalid_argument("invalid slab");
  }
  Grid slab = global;
  slab.size[2] = last - first;
  slab.z_offset = global.z_offset + first;
  slab.owned_begin = owned_first - first;
  slab.owned_end = owned_last - first;
  return slab;
}

Grid whole_grid(const Grid& part) {
  Grid whole = part;
  whole.size[2] = part.global_z;
  whole.z_offset = 0;
  whole.owned_begin = 0;
  whole.owned_end = part.global_z;
  return whole;
}

std::array<int, 3> structures_covering(const lattices::CellComplex& complex,
                                       std::array<double, 3> extent, double h) {
  std::array<int, 3> s{};
  for (int a = 0; a < 3; ++a) {
    if (!(extent[a] > 0.0) || !std::isfinite(extent[a])) {
      throw std::invalid_argument("domain extent must be finite and > 0");
    }
    const double n = std::ceil(extent[a] / (complex.box[a] * h) - 1e-9);
    if (n > 1e6) {
      throw std::invalid_argument("domain of " + std::to_string(n) +
                                  " structures per axis is too large");
    }
    s[a] = static_cast<int>(n);
  }
  return s;
}

} // namespace decgpe
