#include "solvers/stability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace decgpe {

namespace {

/// U_i = V_i + g|ψ_i|², the diagonal part of M beyond ½Σw.
std::vector<double> frozen_potential(const Grid& grid, const Potential& potential, double g,
                                     std::span<const Complex> psi) {
  std::vector<double> u(static_cast<std::size_t>(grid.cells()));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    u[static_cast<std::size_t>(i)] =
        potential.at(grid, i) + g * norm2(psi[static_cast<std::size_t>(i)]);
  }
  return u;
}

/// out = M v for a real v on the owned slices: ½ Σ_F w_F (v_i − v_j) + U_i v_i, v_j = 0 beyond
/// the domain (v's halo slices hold the neighbouring slabs' values).
void apply(const Grid& g, const std::vector<double>& u, const std::vector<double>& v,
           std::vector<double>& out) {
  const std::int64_t nx = g.size[0], ny = g.size[1];
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t sz = g.owned_begin; sz < g.owned_end; ++sz) {
    for (std::int64_t sy = 0; sy < ny; ++sy) {
      std::int64_t i = g.ms * ((sz * ny + sy) * nx);
      for (std::int64_t sx = 0; sx < nx; ++sx) {
        for (int l = 0; l < g.ms; ++l, ++i) {
          double lap = 0.0;
          for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
            const StencilEntry& s = g.stencil[e];
            const std::int64_t x = sx + s.dx, y = sy + s.dy, z = sz + s.dz;
            const bool inside = x >= 0 && y >= 0 && x < nx && y < ny && g.z_inside(z + g.z_offset);
            lap += s.weight *
                   (v[i] - (inside ? v[g.ms * ((z * ny + y) * nx + x) + s.neighbour] : 0.0));
          }
          out[i] = 0.5 * lap + u[i] * v[i];
        }
      }
    }
  }
}

/// Σ_i |B_i| a_i b_i over the owned cells, slice by slice: the same sum for any thread count and
/// any split over ranks.
double dot(const Grid& g, const DomainReduction& layout, const std::vector<double>& a,
           const std::vector<double>& b) {
  const std::int64_t n = g.slice_cells();
  std::vector<double> partial(static_cast<std::size_t>(g.owned_end - g.owned_begin));
#pragma omp parallel for schedule(static)
  for (std::size_t s = 0; s < partial.size(); ++s) {
    const std::int64_t begin = (g.owned_begin + static_cast<std::int64_t>(s)) * n;
    double sum = 0.0;
    for (std::int64_t i = begin; i < begin + n; ++i) {
      sum += g.volume[static_cast<std::size_t>(i % g.ms)] * a[i] * b[i];
    }
    partial[s] = sum;
  }
  return layout.sum_slices(partial);
}

/// The LCG's state after `steps` more steps from `state` (x ← a x + c, composed by squaring).
std::uint64_t lcg_advance(std::uint64_t state, std::uint64_t steps) {
  std::uint64_t a = 6364136223846793005ULL, c = 1442695040888963407ULL;
  std::uint64_t total_a = 1, total_c = 0;
  for (; steps > 0; steps >>= 1) {
    if ((steps & 1) != 0) {
      total_a *= a;
      total_c = total_c * a + c;
    }
    c *= a + 1;
    a *= a;
  }
  return total_a * state + total_c;
}

/// The whole domain's process when there is no layout.
const DomainReduction& or_whole(const DomainReduction* layout) {
  static const WholeDomain whole;
  return layout != nullptr ? *layout : whole;
}

/// Eigenvalues and eigenvectors of a small symmetric matrix (row-major, n × n) by cyclic Jacobi
/// rotations; on return `a` holds the eigenvalues on its diagonal and `vectors` the eigenvectors
/// as columns.
void jacobi_eigen(std::vector<double>& a, std::vector<double>& vectors, int n) {
  vectors.assign(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    vectors[i * n + i] = 1.0;
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        (i == j ? scale : off) += a[i * n + j] * a[i * n + j];
      }
    }
    if (off <= 1e-30 * scale) {
      return;
    }
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0.0) {
          continue;
        }
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t = std::copysign(1.0, theta) / (std::abs(theta) + std::hypot(1.0, theta));
        const double c = 1.0 / std::hypot(1.0, t), s = t * c;
        for (int k = 0; k < n; ++k) { // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) { // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; ++k) {
          const double vkp = vectors[k * n + p], vkq = vectors[k * n + q];
          vectors[k * n + p] = c * vkp - s * vkq;
          vectors[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
}

} // namespace

double gershgorin_radius(const Grid& grid, const Potential& potential, double g,
                         std::span<const Complex> psi, const DomainReduction* layout) {
  // Row l of ½L: diagonal ½Σw, off-diagonal magnitudes ½Σ|w| (= Σw for the DEC lattices' positive
  // weights; cubic4's second neighbours have negative ones).
  std::vector<double> row_bound(static_cast<std::size_t>(grid.ms));
  for (int l = 0; l < grid.ms; ++l) {
    double abs_sum = 0.0;
    for (int e = grid.row_begin[l]; e < grid.row_begin[l + 1]; ++e) {
      abs_sum += std::abs(grid.stencil[static_cast<std::size_t>(e)].weight);
    }
    row_bound[static_cast<std::size_t>(l)] =
        0.5 * (grid.weight_sum[static_cast<std::size_t>(l)] + abs_sum);
  }
  double best = 0.0; // a max: the same for any thread count and any split
  const std::int64_t n = grid.slice_cells();
#pragma omp parallel for schedule(static) reduction(max : best)
  for (std::int64_t i = grid.owned_begin * n; i < grid.owned_end * n; ++i) {
    const double u = potential.at(grid, i) + g * norm2(psi[static_cast<std::size_t>(i)]);
    best = std::max(best, row_bound[static_cast<std::size_t>(i % grid.ms)] + std::abs(u));
  }
  return layout != nullptr ? layout->max(best) : best;
}

SpectrumEstimate estimate_spectrum(const Grid& grid, const Potential& potential, double g,
                                   std::span<const Complex> psi, int iterations,
                                   const DomainReduction* given_layout) {
  const DomainReduction& layout = or_whole(given_layout);
  SpectrumEstimate e;
  e.gershgorin = gershgorin_radius(grid, potential, g, psi, &layout);
  const std::vector<double> u = frozen_potential(grid, potential, g, psi);
  const auto n = static_cast<std::size_t>(grid.cells());
  std::vector<double> q(n), q_prev(n, 0.0), w(n);
  // A fixed seed, the sequence in global cell order: the same start on every run and every split.
  std::uint64_t state = lcg_advance(0x9e3779b97f4a7c15ULL,
                                    static_cast<std::uint64_t>(grid.z_offset * grid.slice_cells()));
  for (double& x : q) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  const double start_norm = std::sqrt(dot(grid, layout, q, q));
  for (double& x : q) {
    x /= start_norm;
  }
  std::vector<double> alpha, beta;
  const int k_max = static_cast<int>(
      std::min<std::int64_t>(static_cast<std::int64_t>(iterations), grid.global_cells()));
  for (int k = 0; k < k_max; ++k) {
    layout.exchange_halos(q, grid.slice_cells());
    apply(grid, u, q, w);
    const double b_prev = beta.empty() ? 0.0 : beta.back();
    const double a = dot(grid, layout, w, q);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      w[i] -= a * q[i] + b_prev * q_prev[i];
    }
    alpha.push_back(a);
    const double b = std::sqrt(dot(grid, layout, w, w));
    beta.push_back(b);
    if (!(b > 1e-12 * std::abs(a))) {
      break; // an invariant subspace: the Ritz values are eigenvalues
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
      q_prev[i] = q[i];
      q[i] = w[i] / b;
    }
  }
  const int m = static_cast<int>(alpha.size());
  std::vector<double> t(static_cast<std::size_t>(m) * m, 0.0), s;
  for (int i = 0; i < m; ++i) {
    t[i * m + i] = alpha[i];
    if (i + 1 < m) {
      t[i * m + i + 1] = t[(i + 1) * m + i] = beta[i];
    }
  }
  jacobi_eigen(t, s, m);
  int top = 0, bottom = 0;
  for (int i = 1; i < m; ++i) {
    top = t[i * m + i] > t[top * m + top] ? i : top;
    bottom = t[i * m + i] < t[bottom * m + bottom] ? i : bottom;
  }
  // The residual of Ritz pair j is |β_m s_{m,j}| (the last component of its eigenvector of T).
  const double residual_top = std::abs(beta.back() * s[(m - 1) * m + top]);
  const double residual_bottom = std::abs(beta.back() * s[(m - 1) * m + bottom]);
  e.lambda_max = t[top * m + top];
  e.lambda_min = t[bottom * m + bottom];
  e.iterations = m;
  e.lanczos_upper =
      std::max(std::abs(e.lambda_max) + residual_top, std::abs(e.lambda_min) + residual_bottom);
  const bool lanczos = e.lanczos_upper < e.gershgorin;
  e.radius = lanczos ? e.lanczos_upper : e.gershgorin;
  e.method = lanczos ? "lanczos" : "gershgorin";
  return e;
}

} // namespace decgpe
