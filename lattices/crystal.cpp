#include "crystal.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace decgpe::lattices {

namespace {

constexpr std::string_view kNames[] = {"cubic", "fcc", "bcc", "a15", "c15", "z"};

const std::array<Vec3, 4> kFccTranslations = {Vec3{0, 0, 0}, Vec3{0, 0.5, 0.5}, Vec3{0.5, 0, 0.5},
                                              Vec3{0.5, 0.5, 0}};

Crystal cubic_crystal(std::string name, const std::vector<Vec3>& fractional) {
  return Crystal{std::move(name), Vec3{1, 1, 1}, fractional};
}

Crystal c15() {
  // MgCu2: the diamond sublattice (0,0,0), (1/4,1/4,1/4) and the pyrochlore tetrahedra around
  // (5/8,5/8,5/8), each under the four FCC translations.
  const std::array<Vec3, 6> basis = {Vec3{0, 0, 0},
                                     Vec3{0.25, 0.25, 0.25},
                                     Vec3{0.625, 0.625, 0.625},
                                     Vec3{0.625, 0.375, 0.375},
                                     Vec3{0.375, 0.625, 0.375},
                                     Vec3{0.375, 0.375, 0.625}};
  std::vector<Vec3> points;
  for (const Vec3& t : kFccTranslations) {
    for (const Vec3& b : basis) {
      Vec3 p = b + t;
      p = {p.x - std::floor(p.x), p.y - std::floor(p.y), p.z - std::floor(p.z)};
      points.push_back(p);
    }
  }
  return cubic_crystal("c15", points);
}

Crystal z_phase() {
  // Zr4Al3: box a x sqrt(3)a x c with a = c = 1; (x, y) given as fractions of a and sqrt(3)a.
  const Vec3 box{1.0, std::sqrt(3.0), 1.0};
  const std::vector<Vec3> fractional = {
      {0, 0, 0},          {0.5, 0.5, 0},        {0, 0, 0.5},
      {0.5, 0.5, 0.5},    {0.5, 1.0 / 6, 0.25}, {0.5, 5.0 / 6, 0.25},
      {0, 1.0 / 3, 0.25}, {0, 2.0 / 3, 0.25},   {0.25, 0.25, 0.75},
      {0.25, 0.75, 0.75}, {0.75, 0.25, 0.75},   {0.75, 0.75, 0.75},
      {0, 0.5, 0.75},     {0.5, 0, 0.75}};
  std::vector<Vec3> points;
  points.reserve(fractional.size());
  for (const Vec3& f : fractional) {
    points.push_back(scale(f, box));
  }
  return Crystal{"z", box, points};
}

} // namespace

std::span<const std::string_view> crystal_names() {
  return kNames;
}

Crystal make_crystal(std::string_view name) {
  if (name == "cubic") {
    return cubic_crystal("cubic", {{0, 0, 0}});
  }
  if (name == "fcc") {
    return cubic_crystal("fcc", {kFccTranslations.begin(), kFccTranslations.end()});
  }
  if (name == "bcc") {
    return cubic_crystal("bcc", {{0, 0, 0}, {0.5, 0.5, 0.5}});
  }
  if (name == "a15") {
    return cubic_crystal("a15", {{0, 0, 0},
                                 {0.5, 0.5, 0.5},
                                 {0.5, 0.25, 0},
                                 {0.5, 0.75, 0},
                                 {0.25, 0, 0.5},
                                 {0.75, 0, 0.5},
                                 {0, 0.5, 0.25},
                                 {0, 0.5, 0.75}});
  }
  if (name == "c15") {
    return c15();
  }
  if (name == "z") {
    return z_phase();
  }
  std::string known;
  for (std::string_view n : kNames) {
    known += known.empty() ? "" : ", ";
    known += n;
  }
  throw std::invalid_argument("unknown lattice '" + std::string(name) + "' (known: " + known + ")");
}

} // namespace decgpe::lattices
