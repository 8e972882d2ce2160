#include "solvers/host_probe.hpp"

namespace decgpe {

double cell_norm(std::span<const Complex> psi) {
  double sum = 0.0;
  for (const Complex& z : psi) {
    sum += norm2(z);
  }
  return sum;
}

ProbeSample probe(const Grid& grid, std::span<const Complex> psi, std::span<const Complex> psi0,
                  std::int64_t step, double t) {
  ProbeSample p;
  p.step = step;
  p.t = t;
  p.azimuthal_amplitude = azimuthal_spectrum(grid, psi, psi0).amplitude;
  p.cell_norm = cell_norm(psi);
  for (std::size_t i = 0; i < psi.size(); ++i) {
    p.cell_overlap = p.cell_overlap + conj_mul(psi0[i], psi[i]);
  }
  return p;
}

} // namespace decgpe
