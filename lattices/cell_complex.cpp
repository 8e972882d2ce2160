#include "cell_complex.hpp"

#include "cubic4.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace decgpe::lattices {

namespace {

constexpr double kTol = kGeometryTolerance;

struct Sphere {
  Vec3 centre;
  double radius;
};

/// Circumsphere of four points, or nothing when they are (nearly) coplanar.
std::optional<Sphere> circumsphere(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  // Solve 2 (p − a)·x = |p − a|² for p ∈ {b, c, d}; x is the centre relative to a (Cramer's rule).
  const Vec3 u = b - a, v = c - a, w = d - a;
  const double det = dot(u, cross(v, w));
  const double scale_ref = norm(u) * norm(v) * norm(w);
  if (std::abs(det) < 1e-10 * scale_ref) {
    return std::nullopt;
  }
  const Vec3 x =
      (dot(u, u) * cross(v, w) + dot(v, v) * cross(w, u) + dot(w, w) * cross(u, v)) * (0.5 / det);
  return Sphere{a + x, norm(x)};
}

double wrap(double value, double period) {
  double f = value / period;
  f -= std::floor(f);
  if (f > 1.0 - kTol) {
    f = 0.0;
  }
  return f * period;
}

Vec3 wrap(const Vec3& p, const Vec3& box) {
  return {wrap(p.x, box.x), wrap(p.y, box.y), wrap(p.z, box.z)};
}

/// Orders circumcentres z-major, then y, then x, with equality up to the tolerance.
bool centre_less(const Vec3& a, const Vec3& b) {
  for (int axis = 2; axis >= 0; --axis) {
    if (std::abs(a[axis] - b[axis]) > kTol) {
      return a[axis] < b[axis];
    }
  }
  return false;
}

/// Periodic images of the crystal points in [-reach, box + reach].
std::vector<Vec3> images(const Crystal& crystal, double reach) {
  std::vector<Vec3> out;
  const Vec3& box = crystal.box;
  const int nx = static_cast<int>(std::ceil(reach / box.x)) + 1;
  const int ny = static_cast<int>(std::ceil(reach / box.y)) + 1;
  const int nz = static_cast<int>(std::ceil(reach / box.z)) + 1;
  for (int k = -nz; k <= nz; ++k) {
    for (int j = -ny; j <= ny; ++j) {
      for (int i = -nx; i <= nx; ++i) {
        for (const Vec3& p : crystal.points) {
          const Vec3 q = p + Vec3{i * box.x, j * box.y, k * box.z};
          if (q.x >= -reach && q.y >= -reach && q.z >= -reach && q.x <= box.x + reach &&
              q.y <= box.y + reach && q.z <= box.z + reach) {
            out.push_back(q);
          }
        }
      }
    }
  }
  return out;
}

double nearest_neighbour_distance(const Crystal& crystal) {
  const double reach = std::max({crystal.box.x, crystal.box.y, crystal.box.z});
  double best = std::numeric_limits<double>::max();
  for (const Vec3& p : crystal.points) {
    for (const Vec3& q : images(crystal, reach)) {
      const double d = norm(q - p);
      if (d > kTol) {
        best = std::min(best, d);
      }
    }
  }
  return best;
}

/// Empty circumspheres through at least one point of the structure, found among neighbours within
/// `reach` of it. A Delaunay cell with circumradius r has all its vertices within 2r of each other,
/// so every cell with 2r ≤ reach is found; the caller proves completeness by checking that the
/// cells tile the structure.
std::vector<Sphere> empty_spheres(const Crystal& crystal, double reach) {
  const std::vector<Vec3> all = images(crystal, reach);
  std::vector<Sphere> spheres;
  for (const Vec3& a : crystal.points) {
    std::vector<Vec3> near;
    for (const Vec3& q : all) {
      const double d = norm(q - a);
      if (d > kTol && d <= reach) {
        near.push_back(q);
      }
    }
    const std::size_t n = near.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        for (std::size_t k = j + 1; k < n; ++k) {
          const auto s = circumsphere(a, near[i], near[j], near[k]);
          if (!s || 2.0 * s->radius > reach) {
            continue;
          }
          const bool empty = std::none_of(near.begin(), near.end(), [&](const Vec3& q) {
            return norm(q - s->centre) < s->radius - kTol;
          });
          if (empty) {
            spheres.push_back({wrap(s->centre, crystal.box), s->radius});
          }
        }
      }
    }
  }
  // Cospherical vertex sets give the same centre: merging by centre merges them into one cell.
  std::sort(spheres.begin(), spheres.end(),
            [](const Sphere& a, const Sphere& b) { return centre_less(a.centre, b.centre); });
  spheres.erase(std::unique(spheres.begin(), spheres.end(),
                            [](const Sphere& a, const Sphere& b) {
                              return !centre_less(a.centre, b.centre) &&
                                     !centre_less(b.centre, a.centre);
                            }),
                spheres.end());
  return spheres;
}

struct Polygon {
  std::vector<Vec3> corners;
  Vec3 normal; // outward
};

/// The facet of the points `on` (indices into pts) with outward normal nrm, its corners ordered by
/// angle around their centroid within the facet plane.
Polygon facet_polygon(const std::vector<Vec3>& pts, const std::vector<std::size_t>& on,
                      const Vec3& nrm) {
  Polygon poly{{}, nrm};
  Vec3 centroid;
  for (std::size_t l : on) {
    centroid += pts[l];
  }
  centroid *= 1.0 / static_cast<double>(on.size());
  const Vec3 e1 = (pts[on[0]] - centroid) * (1.0 / norm(pts[on[0]] - centroid));
  const Vec3 e2 = cross(nrm, e1);
  std::vector<std::pair<double, Vec3>> by_angle;
  for (std::size_t l : on) {
    const Vec3 r = pts[l] - centroid;
    by_angle.emplace_back(std::atan2(dot(r, e2), dot(r, e1)), pts[l]);
  }
  std::sort(by_angle.begin(), by_angle.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [angle, p] : by_angle) {
    poly.corners.push_back(p);
  }
  return poly;
}

/// Facets of the convex hull of a handful of cospherical points (brute force over triples: at most
/// 8 points here).
std::vector<Polygon> hull_facets(const std::vector<Vec3>& pts) {
  std::vector<Polygon> facets;
  std::vector<std::vector<std::size_t>> seen;
  const std::size_t n = pts.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      for (std::size_t k = j + 1; k < n; ++k) {
        Vec3 nrm = cross(pts[j] - pts[i], pts[k] - pts[i]);
        const double len = norm(nrm);
        if (len < kTol) {
          continue;
        }
        nrm *= 1.0 / len;
        int above = 0, below = 0;
        std::vector<std::size_t> on;
        for (std::size_t l = 0; l < n; ++l) {
          const double s = dot(pts[l] - pts[i], nrm);
          if (s > kTol) {
            ++above;
          } else if (s < -kTol) {
            ++below;
          } else {
            on.push_back(l);
          }
        }
        if ((above != 0 && below != 0) || std::find(seen.begin(), seen.end(), on) != seen.end()) {
          continue;
        }
        seen.push_back(on);
        if (above != 0) {
          nrm *= -1.0;
        }
        facets.push_back(facet_polygon(pts, on, nrm));
      }
    }
  }
  return facets;
}

double polygon_area(const Polygon& poly) {
  Vec3 sum;
  const std::size_t n = poly.corners.size();
  for (std::size_t i = 0; i < n; ++i) {
    sum += cross(poly.corners[i], poly.corners[(i + 1) % n]);
  }
  return 0.5 * std::abs(dot(sum, poly.normal));
}

bool on_sphere(const Vec3& p, const Vec3& centre, double radius) {
  return std::abs(norm(p - centre) - radius) < kTol;
}

std::vector<Cell> cells_from_spheres(const Crystal& crystal, const std::vector<Sphere>& spheres) {
  double max_radius = 0.0;
  for (const Sphere& s : spheres) {
    max_radius = std::max(max_radius, s.radius);
  }
  const std::vector<Vec3> all = images(crystal, 2.0 * max_radius + kTol);
  std::vector<Cell> cells;
  for (const Sphere& s : spheres) {
    Cell cell;
    cell.circumcentre = s.centre;
    cell.circumradius = s.radius;
    for (const Vec3& q : all) {
      if (on_sphere(q, s.centre, s.radius)) {
        cell.vertices.push_back(q);
      }
    }
    Vec3 inside;
    for (const Vec3& v : cell.vertices) {
      inside += v;
    }
    inside *= 1.0 / static_cast<double>(cell.vertices.size());
    for (const Polygon& poly : hull_facets(cell.vertices)) {
      Face face;
      face.area = polygon_area(poly);
      face.normal = poly.normal;
      cell.volume += face.area * dot(poly.corners[0] - inside, poly.normal) / 3.0;
      cell.faces.push_back(face);
    }
    cells.push_back(std::move(cell));
  }
  return cells;
}

/// Finds, for every face, the cell on the other side: the one other circumsphere through all of the
/// face's corners.
void connect_faces(const Crystal& crystal, std::vector<Cell>& cells) {
  const Vec3& box = crystal.box;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    Cell& cell = cells[c];
    // Recompute facets to get the corner sets back in the same order as the faces.
    const std::vector<Polygon> facets = hull_facets(cell.vertices);
    for (std::size_t f = 0; f < facets.size(); ++f) {
      Face& face = cell.faces[f];
      int matches = 0;
      for (std::size_t other = 0; other < cells.size(); ++other) {
        for (int dz = -1; dz <= 1; ++dz) {
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
              if (other == c && dx == 0 && dy == 0 && dz == 0) {
                continue;
              }
              const Vec3 centre =
                  cells[other].circumcentre + Vec3{dx * box.x, dy * box.y, dz * box.z};
              const bool shares = std::all_of(
                  facets[f].corners.begin(), facets[f].corners.end(),
                  [&](const Vec3& p) { return on_sphere(p, centre, cells[other].circumradius); });
              if (shares) {
                ++matches;
                face.neighbour = static_cast<int>(other);
                face.offset = {dx, dy, dz};
                face.dual_length = dot(centre - cell.circumcentre, face.normal);
              }
            }
          }
        }
      }
      if (matches != 1) {
        throw std::runtime_error("lattice '" + crystal.name + "': a face of cell " +
                                 std::to_string(c) + " has " + std::to_string(matches) +
                                 " neighbours instead of 1");
      }
      face.weight = face.area / (face.dual_length * cell.volume);
    }
  }
}

} // namespace

CellComplex build_cell_complex(const Crystal& crystal) {
  const double structure_volume = crystal.box.x * crystal.box.y * crystal.box.z;
  const double d_nn = nearest_neighbour_distance(crystal);
  // Grow the search radius until the cells found tile the structure; 2 d_nn already suffices for
  // all six lattices.
  for (double factor : {2.0, 2.5, 3.0, 4.0}) {
    std::vector<Cell> cells = cells_from_spheres(crystal, empty_spheres(crystal, factor * d_nn));
    double total = 0.0;
    for (const Cell& cell : cells) {
      total += cell.volume;
    }
    if (std::abs(total - structure_volume) < kTol * structure_volume) {
      connect_faces(crystal, cells);
      return CellComplex{crystal.name, crystal.box, static_cast<int>(crystal.points.size()),
                         std::move(cells)};
    }
  }
  throw std::runtime_error("lattice '" + crystal.name +
                           "': Delaunay cells do not tile the structure");
}

std::span<const std::string_view> lattice_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all(crystal_names().begin(), crystal_names().end());
    all.emplace_back("cubic4");
    return all;
  }();
  return names;
}

const CellComplex& cell_complex(std::string_view name) {
  static std::mutex mutex;
  static std::map<std::string, CellComplex, std::less<>> cache;
  const std::lock_guard lock(mutex);
  auto it = cache.find(name);
  if (it == cache.end() && std::ranges::find(lattice_names(), name) == lattice_names().end()) {
    std::string known; // every name a case may give, cubic4 included
    for (std::string_view n : lattice_names()) {
      known += (known.empty() ? "" : ", ") + std::string(n);
    }
    throw std::invalid_argument("unknown lattice '" + std::string(name) + "' (known: " + known +
                                ")");
  }
  if (it == cache.end()) {
    it = cache
             .emplace(std::string(name), name == "cubic4" ? build_cubic4_complex()
                                                          : build_cell_complex(make_crystal(name)))
             .first;
  }
  return it->second;
}

} // namespace decgpe::lattices
