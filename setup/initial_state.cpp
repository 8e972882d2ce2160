#include "setup/initial_state.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

namespace decgpe {

Complex HarmonicVortex::value(const lattices::Vec3& r, double t) const {
  Complex w{1.0, 0.0}; // (x + iy)^κ
  for (int k = 0; k < kappa; ++k) {
    w = {w.re * r.x - w.im * r.y, w.re * r.y + w.im * r.x};
  }
  const double envelope = std::exp(-0.5 * (r.x * r.x + r.y * r.y + lambda * r.z * r.z));
  const double phase = -mu() * t;
  const Complex e{std::cos(phase), std::sin(phase)};
  return {envelope * (w.re * e.re - w.im * e.im), envelope * (w.re * e.im + w.im * e.re)};
}

double PhaseImprint::phase(const lattices::Vec3& r) const {
  double theta = 0.0;
  for (const LineVortex& v : lines) {
    theta += v.charge * std::atan2(r.y - v.y0, r.x - v.x0);
  }
  if (ring) {
    const double rho = std::hypot(r.x - ring->x0, r.y - ring->y0);
    theta += ring->charge * std::atan2(r.z - ring->z0, ring->radius - rho);
  }
  return theta;
}

void apply_imprint(const Grid& grid, const PhaseImprint& imprint, std::span<Complex> psi) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const double theta = imprint.phase(grid.position(i));
    psi[static_cast<std::size_t>(i)] =
        mul(Complex{std::cos(theta), std::sin(theta)}, psi[static_cast<std::size_t>(i)]);
  }
}

AzimuthalSeed AzimuthalSeed::draw(std::vector<int> modes, double amplitude, std::uint64_t seed) {
  constexpr int kDrawn = 8;
  std::mt19937_64 engine(seed);
  std::array<double, kDrawn + 1> theta{};
  for (int m = 1; m <= kDrawn; ++m) {
    theta[static_cast<std::size_t>(m)] =
        2.0 * std::numbers::pi * static_cast<double>(engine() >> 11) * 0x1.0p-53;
  }
  AzimuthalSeed s{std::move(modes), amplitude, {}};
  for (const int m : s.modes) {
    if (m < 1 || m > kDrawn) {
      throw std::invalid_argument("seed mode " + std::to_string(m) + " is not in 1…8");
    }
    s.phases.push_back(theta[static_cast<std::size_t>(m)]);
  }
  return s;
}

double AzimuthalSeed::factor(const lattices::Vec3& r) const {
  const double phi = std::atan2(r.y, r.x);
  double sum = 0.0;
  for (std::size_t k = 0; k < modes.size(); ++k) {
    sum += std::cos(modes[k] * phi + phases[k]);
  }
  return 1.0 + amplitude * sum;
}

void apply_seed(const Grid& grid, const AzimuthalSeed& seed, std::span<Complex> psi) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    psi[static_cast<std::size_t>(i)] =
        seed.factor(grid.position(i)) * psi[static_cast<std::size_t>(i)];
  }
}

std::vector<double> slice_norms(const Grid& grid, std::span<const Complex> psi) {
  const auto n = static_cast<std::size_t>(grid.slice_cells());
  std::vector<double> sums;
  for (int z = grid.owned_begin; z < grid.owned_end; ++z) {
    double sum = 0.0;
    for (std::size_t i = static_cast<std::size_t>(z) * n; i < static_cast<std::size_t>(z + 1) * n;
         ++i) {
      sum += grid.volume[i % static_cast<std::size_t>(grid.ms)] * norm2(psi[i]);
    }
    sums.push_back(sum);
  }
  return sums;
}

double grid_norm(const Grid& grid, std::span<const Complex> psi) {
  double total = 0.0;
  for (const double s : slice_norms(grid, psi)) {
    total += s;
  }
  return total;
}

std::vector<Complex> sample_normalised(const Grid& grid, const HarmonicVortex& state, double t) {
  std::vector<Complex> psi = sample(grid, state, t, 1.0);
  const double scale = 1.0 / std::sqrt(grid_norm(grid, psi));
  for (Complex& z : psi) {
    z = scale * z;
  }
  return psi;
}

} // namespace decgpe
