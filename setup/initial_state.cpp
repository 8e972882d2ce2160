#include "setup/initial_state.hpp"

#include <cmath>

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

double grid_norm(const Grid& grid, std::span<const Complex> psi) {
  double sum = 0.0;
  for (std::size_t i = 0; i < psi.size(); ++i) {
    sum += grid.volume[i % static_cast<std::size_t>(grid.ms)] * norm2(psi[i]);
  }
  return sum;
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
