#include "solvers/splitting.hpp"

#include <algorithm>
#include <cmath>

namespace decgpe {

namespace {

/// Calls f(i, r) for every cell within half a structure of z = 0.
template <class F> void for_each_plane_cell(const Grid& grid, F&& f) {
  const double half = 0.5 * grid.box.z;
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const lattices::Vec3 r = grid.position(i);
    if (std::abs(r.z) < half) {
      f(i, r);
    }
  }
}

} // namespace

AzimuthalSpectrum azimuthal_spectrum(const Grid& grid, std::span<const Complex> psi,
                                     std::span<const Complex> psi0, int max_m) {
  std::vector<Complex> c(static_cast<std::size_t>(max_m + 1), Complex{0.0, 0.0});
  for_each_plane_cell(grid, [&](std::int64_t i, const lattices::Vec3& r) {
    const auto k = static_cast<std::size_t>(i);
    const double weight =
        grid.volume[k % static_cast<std::size_t>(grid.ms)] * (norm2(psi[k]) - norm2(psi0[k]));
    const double phi = std::atan2(r.y, r.x);
    for (int m = 0; m <= max_m; ++m) {
      c[static_cast<std::size_t>(m)] =
          c[static_cast<std::size_t>(m)] + weight * Complex{std::cos(m * phi), -std::sin(m * phi)};
    }
  });
  AzimuthalSpectrum s;
  for (const Complex& cm : c) {
    s.amplitude.push_back(std::sqrt(norm2(cm)));
  }
  s.fold = 2;
  for (int m = 3; m <= max_m; ++m) {
    if (s.amplitude[static_cast<std::size_t>(m)] > s.amplitude[static_cast<std::size_t>(s.fold)]) {
      s.fold = m;
    }
  }
  return s;
}

std::pair<int, int> plane_slices(const Grid& grid) {
  // Slice sz spans z from origin + sz·box (its cells' centres lie within it, give or take the
  // rounding): one slice more on each side is enough.
  const double half = 0.5 * grid.box.z;
  const int first = static_cast<int>(std::floor((-half - grid.origin.z) / grid.box.z)) - 1;
  const int last = static_cast<int>(std::ceil((half - grid.origin.z) / grid.box.z)) + 1;
  return {std::clamp(first, 0, grid.global_z), std::clamp(last, 0, grid.global_z)};
}

PlaneSample sample_plane(const Grid& grid, std::span<const Complex> psi,
                         std::span<const Complex> psi0) {
  PlaneSample p;
  for_each_plane_cell(grid, [&](std::int64_t i, const lattices::Vec3& r) {
    const auto k = static_cast<std::size_t>(i);
    p.x.push_back(r.x);
    p.y.push_back(r.y);
    p.density.push_back(norm2(psi[k]));
    p.initial_density.push_back(norm2(psi0[k]));
  });
  return p;
}

} // namespace decgpe
