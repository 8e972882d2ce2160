// The stationary vortex's interpolation table (8-point Lagrange in ρ and z, mirrored across the
// axes by f's parities) and everything evaluated from it: the profile, ψ(r, t), line maxima and
// the eq. 15 extent.

#include "setup/stationary_vortex/internal.hpp"

#include <array>

namespace decgpe {

using namespace vortex_detail;

std::vector<double> StationaryVortex::Builder::sample(const StationaryVortex& v,
                                                      const Discretisation& d, double h_rho,
                                                      int rows, double h_z, int columns) {
  std::vector<double> phi(std::size_t(rows) * d.nr), chi_t(std::size_t(d.nz) * columns);
  std::vector<double> chi(static_cast<std::size_t>(d.nz));
  for (int i = 0; i < rows; ++i) {
    modes_at(d.rho.shape, d.nr, i * h_rho, phi.data() + std::size_t(i) * d.nr);
  }
  for (int j = 0; j < columns; ++j) {
    modes_at(d.z.shape, d.nz, j * h_z, chi.data());
    for (int m = 0; m < d.nz; ++m) {
      chi_t[std::size_t(m) * columns + j] = chi[std::size_t(m)];
    }
  }
  std::vector<double> tmp(std::size_t(rows) * d.nz), f(std::size_t(rows) * columns);
  matmul(phi.data(), v.modal_.data(), tmp.data(), rows, d.nr, d.nz);
  matmul(tmp.data(), chi_t.data(), f.data(), rows, d.nz, columns);
  for (double& value : f) {
    value *= kNorm;
  }
  return f;
}

std::array<int, 2> StationaryVortex::Builder::table_extent(const StationaryVortex& v,
                                                           const Discretisation& d) {
  constexpr int kCoarse = 8;
  const auto coarse_count = [](const Dvr& dvr, double h) {
    const double s = dvr.shape.omega * dvr.x.back() * dvr.x.back() + 80.0;
    return int(std::ceil(std::sqrt(s / dvr.shape.omega) / (kCoarse * h))) + 1;
  };
  const int coarse_rho = coarse_count(d.rho, v.h_rho_), coarse_z = coarse_count(d.z, v.h_z_);
  const std::vector<double> coarse =
      sample(v, d, kCoarse * v.h_rho_, coarse_rho, kCoarse * v.h_z_, coarse_z);
  const double coarse_max = *std::max_element(coarse.begin(), coarse.end());
  int last_rho = 0, last_z = 0;
  for (int i = 0; i < coarse_rho; ++i) {
    for (int j = 0; j < coarse_z; ++j) {
      if (std::abs(coarse[std::size_t(i) * coarse_z + j]) >= kCut * coarse_max) {
        last_rho = std::max(last_rho, i);
        last_z = std::max(last_z, j);
      }
    }
  }
  return {(last_rho + 1) * kCoarse, (last_z + 1) * kCoarse};
}

void StationaryVortex::Builder::tabulate(StationaryVortex& v, const Discretisation& d) {
  v.h_rho_ = 1.0 / (3.0 * std::sqrt(2.0 * d.rho.energy.back()));
  v.h_z_ = 1.0 / (3.0 * std::sqrt(2.0 * d.z.energy.back()));
  const auto [cut_rho, cut_z] = table_extent(v, d);
  v.rho_cut_ = cut_rho * v.h_rho_;
  v.z_cut_ = cut_z * v.h_z_;
  const int rows = cut_rho + kPad, columns = cut_z + kPad;
  const std::vector<double> fine = sample(v, d, v.h_rho_, rows, v.h_z_, columns);

  v.table_rho_ = cut_rho + 2 * kPad;
  v.table_z_ = cut_z + 2 * kPad;
  v.table_.assign(std::size_t(v.table_rho_) * v.table_z_, 0.0);
  const double rho_parity = v.parameters_.kappa % 2 == 0 ? 1.0 : -1.0;
  for (int i = -kPad; i < rows; ++i) {
    for (int j = -kPad; j < columns; ++j) {
      const double f = fine[std::size_t(std::abs(i)) * columns + std::abs(j)];
      v.table_[std::size_t(i + kPad) * v.table_z_ + (j + kPad)] = i < 0 ? rho_parity * f : f;
    }
  }
  find_maxima(v, fine, cut_rho, cut_z);
}

void StationaryVortex::Builder::find_maxima(StationaryVortex& v, const std::vector<double>& fine,
                                            int cut_rho, int cut_z) {
  const int columns = cut_z + kPad; // fine's
  v.rho_line_max_.assign(std::size_t(cut_rho), 0.0);
  v.z_line_max_.assign(std::size_t(cut_z), 0.0);
  double fmax = 0.0;
  int max_i = 0, max_j = 0;
  for (int i = 0; i < cut_rho; ++i) {
    for (int j = 0; j < cut_z; ++j) {
      const double f = fine[std::size_t(i) * columns + j];
      v.rho_line_max_[std::size_t(i)] = std::max(v.rho_line_max_[std::size_t(i)], f);
      v.z_line_max_[std::size_t(j)] = std::max(v.z_line_max_[std::size_t(j)], f);
      if (f > fmax) {
        fmax = f, max_i = i, max_j = j;
      }
    }
  }
  // The maximum between the nodes: alternating golden-section searches from the largest node.
  double rho = max_i * v.h_rho_, z = max_j * v.h_z_;
  const auto around = [](double x, double h, double cut) {
    return std::pair{std::max(0.0, x - h), std::min(x + h, cut - h)};
  };
  for (int sweep = 0; sweep < 3; ++sweep) {
    const auto [r0, r1] = around(rho, v.h_rho_, v.rho_cut_);
    rho = maximise([&](double r) { return v.table_sum(r, z); }, r0, r1);
    const auto [z0, z1] = around(z, v.h_z_, v.z_cut_);
    z = maximise([&](double s) { return v.table_sum(rho, s); }, z0, z1);
  }
  v.max_f_ = std::max(fmax, v.table_sum(rho, z));
}

double StationaryVortex::table_sum(double rho, double z) const {
  // Lagrange weights of the nodes −3 … 4 around t ∈ [0, 1); the denominators are
  // Π_{j≠k}(k − j) = (−1)^{7−k} k!(7−k)!.
  static constexpr std::array<double, kStencil> inverse_denominator = {
      -1.0 / 5040, 1.0 / 720, -1.0 / 240, 1.0 / 144, -1.0 / 144, 1.0 / 240, -1.0 / 720, 1.0 / 5040};
  const auto weights = [](double t, std::array<double, kStencil>& w) {
    std::array<double, kStencil> left{}, right{};
    left[0] = 1.0;
    right[kStencil - 1] = 1.0;
    for (int k = 1; k < kStencil; ++k) {
      left[k] = left[k - 1] * (t - (k - 1 - (kPad - 1)));
      right[kStencil - 1 - k] = right[kStencil - k] * (t - (kStencil - k - (kPad - 1)));
    }
    for (int k = 0; k < kStencil; ++k) {
      w[k] = left[k] * right[k] * inverse_denominator[k];
    }
  };
  const double x = rho / h_rho_, y = z / h_z_;
  const int i0 = int(x), j0 = int(y);
  std::array<double, kStencil> wr{}, wz{};
  weights(x - i0, wr);
  weights(y - j0, wz);
  double sum = 0.0;
  for (int k = 0; k < kStencil; ++k) {
    // Node i0 − 3 + k sits at table row i0 − 3 + k + kPad.
    const double* row = table_.data() + std::size_t(i0 + k + 1) * table_z_ + (j0 + 1);
    double inner = 0.0;
    for (int m = 0; m < kStencil; ++m) {
      inner += wz[m] * row[m];
    }
    sum += wr[k] * inner;
  }
  return sum;
}

double StationaryVortex::profile(double rho, double z) const {
  z = std::abs(z);
  if (!(rho >= 0.0 && rho < rho_cut_ && z < z_cut_)) {
    return 0.0;
  }
  return std::max(0.0, table_sum(rho, z));
}

double StationaryVortex::profile_spectral(double rho, double z) const {
  const int nr = resolution_.radial, nz = resolution_.axial;
  std::vector<double> phi(static_cast<std::size_t>(nr)), chi(static_cast<std::size_t>(nz));
  modes_at(radial_shape(parameters_), nr, rho, phi.data());
  modes_at(axial_shape(parameters_), nz, z, chi.data());
  double sum = 0.0;
  for (int i = 0; i < nr; ++i) {
    double inner = 0.0;
    for (int j = 0; j < nz; ++j) {
      inner += modal_[std::size_t(i) * nz + j] * chi[std::size_t(j)];
    }
    sum += phi[std::size_t(i)] * inner;
  }
  return kNorm * sum;
}

Complex StationaryVortex::value(const lattices::Vec3& r, double t) const {
  const double f = profile(std::hypot(r.x, r.y), r.z);
  const double phase = parameters_.kappa * std::atan2(r.y, r.x) - mu_ * t;
  return {f * std::cos(phase), f * std::sin(phase)};
}

double StationaryVortex::line_max(int axis, double at) const {
  const double h = axis == 0 ? h_z_ : h_rho_;
  const int n = axis == 0 ? table_z_ - 2 * kPad : table_rho_ - 2 * kPad;
  const auto f = [&](double s) { return axis == 0 ? table_sum(at, s) : table_sum(s, at); };
  int best = 0;
  double best_f = f(0.0);
  for (int k = 1; k < n; ++k) {
    const double fk = f(k * h);
    if (fk > best_f) {
      best = k, best_f = fk;
    }
  }
  return std::max(best_f, f(maximise(f, std::max(0, best - 1) * h, std::min(n - 1, best + 1) * h)));
}

std::pair<double, double> StationaryVortex::extent(double threshold) const {
  if (!(threshold > 0.0 && threshold < 1.0)) {
    throw std::invalid_argument("stationary vortex: extent threshold must lie in (0, 1), got " +
                                std::to_string(threshold));
  }
  const double level = threshold * max_f_;
  std::array<double, 2> out{};
  for (int axis = 0; axis < 2; ++axis) {
    const double h = axis == 0 ? h_rho_ : h_z_;
    const std::vector<double>& lines = axis == 0 ? rho_line_max_ : z_line_max_;
    const int n = int(lines.size());
    int last = n - 1;
    while (last >= 0 && !(lines[std::size_t(last)] > level)) {
      --last;
    }
    if (last < 0) {
      out[axis] = 0.0;
    } else if (last == n - 1) {
      out[axis] = n * h;
    } else {
      // Between the last node line above the level and the next, bisect on the line's maximum.
      double lo = last * h, hi = (last + 1) * h;
      for (int it = 0; it < 40; ++it) {
        const double mid = 0.5 * (lo + hi);
        (line_max(axis, mid) > level ? lo : hi) = mid;
      }
      out[axis] = 0.5 * (lo + hi);
    }
  }
  return {out[0], out[1]};
}

} // namespace decgpe
