#include "solvers/host_probe.hpp"

namespace decgpe {

namespace {

double in_order(const std::vector<double>& values) {
  double sum = 0.0;
  for (const double v : values) {
    sum += v;
  }
  return sum;
}

} // namespace

SliceSums cell_sums_by_slice(const Grid& grid, std::span<const Complex> psi,
                             std::span<const Complex> psi0) {
  const auto n = static_cast<std::size_t>(grid.slice_cells());
  SliceSums s;
  for (int z = grid.owned_begin; z < grid.owned_end; ++z) {
    double norm = 0.0;
    Complex overlap{0.0, 0.0};
    for (std::size_t i = static_cast<std::size_t>(z) * n; i < static_cast<std::size_t>(z + 1) * n;
         ++i) {
      norm += norm2(psi[i]);
      overlap = overlap + conj_mul(psi0[i], psi[i]);
    }
    s.norm.push_back(norm);
    s.overlap_re.push_back(overlap.re);
    s.overlap_im.push_back(overlap.im);
  }
  return s;
}

ProbeSample probe(const Grid& grid, std::span<const Complex> psi, std::span<const Complex> psi0,
                  std::int64_t step, double t) {
  ProbeSample p;
  p.step = step;
  p.t = t;
  p.azimuthal_amplitude = azimuthal_spectrum(grid, psi, psi0).amplitude;
  const SliceSums sums = cell_sums_by_slice(grid, psi, psi0);
  p.cell_norm = in_order(sums.norm);
  p.cell_overlap = {in_order(sums.overlap_re), in_order(sums.overlap_im)};
  return p;
}

} // namespace decgpe
