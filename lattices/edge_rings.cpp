#include "lattices/edge_rings.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace decgpe::lattices {

namespace {

constexpr double kTol = kGeometryTolerance;
/// Offsets searched for ring cells: one beyond the adjacent instances, so that a ring reaching
/// there is refused instead of silently left open.
constexpr int kSearch = 2;

Vec3 shift(const Vec3& box, const std::array<int, 3>& o) {
  return {o[0] * box.x, o[1] * box.y, o[2] * box.z};
}

/// The instance p lies in, and p relative to it (within the tolerance, so 0.999…9 is 1).
std::pair<std::array<int, 3>, Vec3> split(const Vec3& p, const Vec3& box) {
  std::array<int, 3> instance{};
  for (int a = 0; a < 3; ++a) {
    instance[a] = static_cast<int>(std::floor(p[a] / box[a] + kTol));
  }
  return {instance, p - shift(box, instance)};
}

bool same(const Vec3& a, const Vec3& b) {
  return norm(a - b) < kTol;
}

/// Whether d points up in z, then y, then x: the edges' orientation.
bool positive(const Vec3& d) {
  for (int a = 2; a >= 0; --a) {
    if (std::abs(d[a]) > kTol) {
      return d[a] > 0.0;
    }
  }
  return false;
}

/// The vertices of one structure: every cell's corners, brought into [0, box), each once.
std::vector<Vec3> structure_vertices(const CellComplex& c) {
  std::vector<Vec3> found;
  for (const Cell& cell : c.cells) {
    for (const Vec3& v : cell.vertices) {
      const Vec3 local = split(v, c.box).second;
      if (std::none_of(found.begin(), found.end(), [&](const Vec3& f) { return same(f, local); })) {
        found.push_back(local);
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const Vec3& a, const Vec3& b) {
    return std::tuple(a.z, a.y, a.x) < std::tuple(b.z, b.y, b.x);
  });
  return found;
}

LocalRef locate(const std::vector<Vec3>& vertices, const Vec3& box, const Vec3& p) {
  const auto [instance, local] = split(p, box);
  const auto it =
      std::find_if(vertices.begin(), vertices.end(), [&](const Vec3& v) { return same(v, local); });
  return {static_cast<int>(it - vertices.begin()), instance};
}

/// The pairs of a cell's vertices that are its edges: those on two of its face planes (the faces
/// of cubic4's table repeat planes, so planes are taken once).
std::vector<std::pair<Vec3, Vec3>> cell_edges(const Cell& cell) {
  std::vector<Vec3> normals;
  for (const Face& f : cell.faces) {
    if (std::none_of(normals.begin(), normals.end(),
                     [&](const Vec3& n) { return same(n, f.normal); })) {
      normals.push_back(f.normal);
    }
  }
  const std::size_t n = cell.vertices.size();
  std::vector<int> planes(n * n, 0);
  for (const Vec3& normal : normals) {
    double top = -1e300;
    for (const Vec3& v : cell.vertices) {
      top = std::max(top, dot(v, normal));
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (dot(cell.vertices[i], normal) > top - kTol &&
            dot(cell.vertices[j], normal) > top - kTol) {
          ++planes[i * n + j];
        }
      }
    }
  }
  std::vector<std::pair<Vec3, Vec3>> edges;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (planes[i * n + j] >= 2) {
        edges.emplace_back(cell.vertices[i], cell.vertices[j]);
      }
    }
  }
  return edges;
}

Vec3 centroid(const Cell& cell) {
  Vec3 sum;
  for (const Vec3& v : cell.vertices) {
    sum += v;
  }
  return sum * (1.0 / static_cast<double>(cell.vertices.size()));
}

bool has_vertex(const Cell& cell, const Vec3& at, const Vec3& p) {
  return std::any_of(cell.vertices.begin(), cell.vertices.end(),
                     [&](const Vec3& v) { return same(v + at, p); });
}

/// The cells with both a and b as corners, counterclockwise about b − a (by the angle of their
/// centroids, which lie inside their wedges of the edge's surroundings).
std::vector<LocalRef> ring_around(const CellComplex& c, const Vec3& a, const Vec3& b) {
  const Vec3 axis = (b - a) * (1.0 / norm(b - a));
  std::vector<std::pair<Vec3, LocalRef>> found; // centroid relative to a, cell
  for (int l = 0; l < c.cells_per_structure(); ++l) {
    for (int dz = -kSearch; dz <= kSearch; ++dz) {
      for (int dy = -kSearch; dy <= kSearch; ++dy) {
        for (int dx = -kSearch; dx <= kSearch; ++dx) {
          const std::array<int, 3> o{dx, dy, dz};
          const Vec3 at = shift(c.box, o);
          if (has_vertex(c.cells[l], at, a) && has_vertex(c.cells[l], at, b)) {
            found.emplace_back(centroid(c.cells[l]) + at - a, LocalRef{l, o});
          }
        }
      }
    }
  }
  if (found.empty()) {
    throw std::runtime_error("lattice '" + c.name + "': an edge without cells");
  }
  Vec3 e1 = found.front().first - axis * dot(found.front().first, axis);
  e1 = e1 * (1.0 / norm(e1));
  const Vec3 e2 = cross(axis, e1);
  std::vector<std::pair<double, LocalRef>> by_angle;
  for (const auto& [r, cell] : found) {
    by_angle.emplace_back(std::atan2(dot(r, e2), dot(r, e1)), cell);
  }
  std::sort(by_angle.begin(), by_angle.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<LocalRef> ring;
  for (const auto& [angle, cell] : by_angle) {
    ring.push_back(cell);
  }
  return ring;
}

void check_adjacent(const CellComplex& c, const EdgeRing& edge) {
  const auto far = [](const LocalRef& r) {
    return std::any_of(r.offset.begin(), r.offset.end(), [](int o) { return o < -1 || o > 1; });
  };
  if (far(edge.to) || std::any_of(edge.ring.begin(), edge.ring.end(), far)) {
    throw std::runtime_error("lattice '" + c.name +
                             "': an edge's ring reaches beyond the adjacent instances");
  }
}

} // namespace

EdgeRings build_edge_rings(const CellComplex& c) {
  EdgeRings rings{structure_vertices(c), {}};
  std::set<std::tuple<int, int, std::array<int, 3>>> seen;
  for (const Cell& cell : c.cells) {
    for (auto [a, b] : cell_edges(cell)) {
      if (!positive(b - a)) {
        std::swap(a, b);
      }
      const LocalRef from = locate(rings.vertices, c.box, a);
      const Vec3 back = shift(c.box, from.offset);
      LocalRef to = locate(rings.vertices, c.box, b - back);
      if (!seen.emplace(from.index, to.index, to.offset).second) {
        continue;
      }
      EdgeRing edge{from.index, to, ring_around(c, a - back, b - back)};
      check_adjacent(c, edge);
      rings.edges.push_back(std::move(edge));
    }
  }
  return rings;
}

const EdgeRings& edge_rings(std::string_view lattice) {
  static std::mutex mutex;
  static std::map<std::string, EdgeRings, std::less<>> cache;
  const CellComplex& complex = cell_complex(lattice); // validates the name; locks its own mutex
  const std::lock_guard lock(mutex);
  auto it = cache.find(lattice);
  if (it == cache.end()) {
    it = cache.emplace(std::string(lattice), build_edge_rings(complex)).first;
  }
  return it->second;
}

} // namespace decgpe::lattices
