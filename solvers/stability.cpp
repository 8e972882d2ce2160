#include "solvers/stability.hpp"

#include "solvers/neighbour_offsets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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
        potential.in_frame(grid, i) + g * norm2(psi[static_cast<std::size_t>(i)]);
  }
  return u;
}

/// Σ_F w_F (v_i − v_j) of cell l of instance (sx, sy, local sz), index i, each neighbour tested:
/// v_j = 0 beyond the domain.
template <class T>
T face_sum_checked(const Grid& g, const std::vector<T>& v, std::int64_t sx, std::int64_t sy,
                   std::int64_t sz, int l, std::int64_t i) {
  const std::int64_t nx = g.size[0], ny = g.size[1];
  T lap{};
  for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
    const StencilEntry& s = g.stencil[e];
    const std::int64_t x = sx + s.dx, y = sy + s.dy, z = sz + s.dz;
    const bool inside = x >= 0 && y >= 0 && x < nx && y < ny && g.z_inside(z + g.z_offset);
    lap =
        lap + s.weight * (v[i] - (inside ? v[g.ms * ((z * ny + y) * nx + x) + s.neighbour] : T{}));
  }
  return lap;
}

/// out = M v on the owned slices: ½ Σ_F w_F (v_i − v_j) + U_i v_i, v_j = 0 beyond the domain (v's
/// halo slices hold the neighbouring slabs' values). T is double (M's Lanczos) or Complex (J's).
/// Instances away from the domain's faces read v_j at i + delta without the tests: the same v_j,
/// so the same bits, at a fraction of the instructions (the estimate's passes are most of a run's
/// set-up).
template <class T>
void apply(const Grid& g, const std::vector<double>& u, const std::vector<T>& v,
           std::vector<T>& out) {
  const std::int64_t nx = g.size[0], ny = g.size[1];
  const std::vector<std::int64_t> delta = neighbour_offsets(g);
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t sz = g.owned_begin; sz < g.owned_end; ++sz) {
    for (std::int64_t sy = 0; sy < ny; ++sy) {
      const bool row_inside = sy > 0 && sy + 1 < ny && g.z_inside(sz - 1 + g.z_offset) &&
                              g.z_inside(sz + 1 + g.z_offset);
      std::int64_t i = g.ms * ((sz * ny + sy) * nx);
      for (std::int64_t sx = 0; sx < nx; ++sx) {
        const bool inside = row_inside && sx > 0 && sx + 1 < nx;
        for (int l = 0; l < g.ms; ++l, ++i) {
          T lap{};
          if (inside) {
            for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
              lap = lap + g.stencil[e].weight * (v[i] - v[i + delta[e]]);
            }
          } else {
            lap = face_sum_checked(g, v, sx, sy, sz, l, i);
          }
          out[i] = 0.5 * lap + u[i] * v[i];
        }
      }
    }
  }
}

/// out = M v with M's magnetic Laplacian (a rotating frame): ½ Σ_F w_F (v_i − e^{−iθ_ij} v_j) + U_i
/// v_i, the phases as the backends take them (solvers/cpu/cell_ops.hpp, magnetic_laplacian).
void apply_magnetic(const Grid& g, const Rotation& r, const std::vector<double>& u,
                    const std::vector<Complex>& v, std::vector<Complex>& out) {
  const std::int64_t nx = g.size[0], ny = g.size[1];
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t sz = g.owned_begin; sz < g.owned_end; ++sz) {
    for (std::int64_t sy = 0; sy < ny; ++sy) {
      std::int64_t i = g.ms * ((sz * ny + sy) * nx);
      for (std::int64_t sx = 0; sx < nx; ++sx) {
        for (int l = 0; l < g.ms; ++l, ++i) {
          const lattices::Vec3 c_i = g.position(sx, sy, sz, l);
          Complex lap{};
          for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
            const StencilEntry& s = g.stencil[e];
            const std::int64_t x = sx + s.dx, y = sy + s.dy, z = sz + s.dz;
            Complex v_j{};
            if (x >= 0 && y >= 0 && x < nx && y < ny && g.z_inside(z + g.z_offset)) {
              const lattices::Vec3 c_j = g.position(x, y, z, s.neighbour);
              v_j = transported(
                  v[g.ms * ((z * ny + y) * nx + x) + s.neighbour],
                  rotating_phase(r.omega, c_i.x - r.x0, c_i.y - r.y0, c_j.x - r.x0, c_j.y - r.y0));
            }
            lap = add_face(lap, s.weight, v[i], v_j);
          }
          out[i] = 0.5 * lap + u[i] * v[i];
        }
      }
    }
  }
}

/// M v in the frame of `r`: the magnetic M where it rotates (complex vectors only).
void apply_in_frame(const Grid& g, const Rotation& r, const std::vector<double>& u,
                    const std::vector<Complex>& v, std::vector<Complex>& out) {
  if (r.active()) {
    apply_magnetic(g, r, u, v, out);
  } else {
    apply(g, u, v, out);
  }
}

/// |B_i| a_i b_i for real entries, |B_i| Re(conj(a_i) b_i) for complex ones (the real product in
/// the order the Lanczos bits depend on).
double weighted(double volume, double a, double b) {
  return volume * a * b;
}
double weighted(double volume, Complex a, Complex b) {
  return volume * conj_mul(a, b).re;
}

/// Σ_i weighted(|B_i|, a_i, b_i) over the owned cells, slice by slice: the same sum for any thread
/// count and any split over ranks.
template <class T>
double dot(const Grid& g, const DomainReduction& layout, const std::vector<T>& a,
           const std::vector<T>& b) {
  const std::int64_t n = g.slice_cells();
  std::vector<double> partial(static_cast<std::size_t>(g.owned_end - g.owned_begin));
#pragma omp parallel for schedule(static)
  for (std::size_t s = 0; s < partial.size(); ++s) {
    const std::int64_t begin = (g.owned_begin + static_cast<std::int64_t>(s)) * n;
    double sum = 0.0;
    for (std::int64_t i = begin; i < begin + n; ++i) {
      sum += weighted(g.volume[static_cast<std::size_t>(i % g.ms)], a[i], b[i]);
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

/// The one process's policy when there is no layout.
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

/// max_i |ψ_i|² over the whole domain (a max: the same for any thread count and split).
double max_density(const Grid& grid, std::span<const Complex> psi, const DomainReduction& layout) {
  double most = 0.0;
  const std::int64_t n = grid.slice_cells();
#pragma omp parallel for schedule(static) reduction(max : most)
  for (std::int64_t i = grid.owned_begin * n; i < grid.owned_end * n; ++i) {
    most = std::max(most, norm2(psi[static_cast<std::size_t>(i)]));
  }
  return layout.max(most);
}

/// min_i V_i over the whole domain.
double lowest_potential(const Grid& grid, const Potential& potential,
                        const DomainReduction& layout) {
  double most_negative = -std::numeric_limits<double>::infinity(); // max of −V: ranks reduce maxima
  const std::int64_t n = grid.slice_cells();
  for (std::int64_t i = grid.owned_begin * n; i < grid.owned_end * n; ++i) {
    most_negative = std::max(most_negative, -potential.in_frame(grid, i));
  }
  return -layout.max(most_negative);
}

/// `values` pseudo-random numbers in [−1, 1) per cell of this rank's stored slices, from a fixed
/// seed taken in global cell order: the same start on every run and every split.
std::vector<double> random_start(const Grid& grid, int values) {
  std::vector<double> q(static_cast<std::size_t>(grid.cells() * values));
  std::uint64_t state =
      lcg_advance(0x9e3779b97f4a7c15ULL,
                  static_cast<std::uint64_t>(grid.z_offset * grid.slice_cells() * values));
  for (double& x : q) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  return q;
}

/// The extreme Ritz values of a Lanczos run (α on T's diagonal, β beside it) and their residual
/// norms |β_m s_{m,j}| (s_{m,j}: the last component of T's eigenvector j).
struct RitzEnds {
  double top = 0.0, bottom = 0.0, residual_top = 0.0, residual_bottom = 0.0;
};

RitzEnds ritz_ends(const std::vector<double>& alpha, const std::vector<double>& beta) {
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
  return {t[top * m + top], t[bottom * m + bottom], std::abs(beta.back() * s[(m - 1) * m + top]),
          std::abs(beta.back() * s[(m - 1) * m + bottom])};
}

/// x / s, for both kinds of vector entry (a division, not a product with 1/s: the same bits as
/// before the Lanczos runs were shared).
double divided(double x, double s) {
  return x / s;
}
Complex divided(Complex x, double s) {
  return {x.re / s, x.im / s};
}

/// `iterations` Lanczos steps from q (normalised here) on an operator self-adjoint in the
/// |B|-weighted inner product: its extreme Ritz values. `apply(v, out)` is out = A v (it may
/// exchange v's halos); T is double or Complex (a real-linear A on pairs of reals).
template <class T, class Apply>
RitzEnds lanczos(const Grid& grid, const DomainReduction& layout, std::vector<T> q, Apply&& apply,
                 int iterations, int& taken, const std::function<void()>& poll) {
  std::vector<T> q_prev(q.size(), T{}), w(q.size());
  const double start_norm = std::sqrt(dot(grid, layout, q, q));
  for (T& x : q) {
    x = divided(x, start_norm);
  }
  std::vector<double> alpha, beta;
  const std::int64_t dimension = grid.global_cells() * static_cast<std::int64_t>(sizeof(T) / 8);
  const int k_max = static_cast<int>(std::min<std::int64_t>(iterations, dimension));
  for (int k = 0; k < k_max; ++k) {
    if (poll) {
      poll();
    }
    apply(q, w);
    const double b_prev = beta.empty() ? 0.0 : beta.back();
    const double a = dot(grid, layout, w, q);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(q.size()); ++i) {
      w[i] = w[i] - (a * q[i] + b_prev * q_prev[i]);
    }
    alpha.push_back(a);
    const double b = std::sqrt(dot(grid, layout, w, w));
    beta.push_back(b);
    if (!(b > 1e-12 * std::abs(a))) {
      break; // an invariant subspace: the Ritz values are eigenvalues
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(q.size()); ++i) {
      q_prev[i] = q[i];
      q[i] = divided(w[i], b);
    }
  }
  taken = static_cast<int>(alpha.size());
  return ritz_ends(alpha, beta);
}

std::vector<Complex> complex_start(const Grid& grid) {
  const std::vector<double> start = random_start(grid, 2);
  std::vector<Complex> q(start.size() / 2);
  for (std::size_t i = 0; i < q.size(); ++i) {
    q[i] = {start[2 * i], start[2 * i + 1]};
  }
  return q;
}

void exchange_complex_halos(const Grid& grid, const DomainReduction& layout,
                            std::vector<Complex>& v) {
  layout.exchange_halos(std::span<double>(reinterpret_cast<double*>(v.data()), 2 * v.size()),
                        2 * grid.slice_cells());
}

/// The linearisation of ψ ↦ M(ψ)ψ: J δ = M(ψ)δ + g(|ψ|²δ + ψ²δ̄) (real-linear, self-adjoint in
/// Re⟨·,·⟩_B). A perturbation of a run's ψ evolves by δ' = −iJδ, so the explicit schemes' limits
/// are set by the spectral radius of −iJ, not of M(ψ): where g|ψ|² dominates, ω_max ≈ √3 g|ψ|²
/// against ρ(M) ≈ g|ψ|² (the Bogoliubov frequencies in the lab frame).
void apply_linearised(const Grid& grid, const Rotation& rotation, const DomainReduction& layout,
                      const std::vector<double>& u, std::span<const Complex> psi, double g,
                      std::vector<Complex>& v, std::vector<Complex>& out) {
  exchange_complex_halos(grid, layout, v);
  apply_in_frame(grid, rotation, u, v, out);
  const std::int64_t n = grid.slice_cells();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = grid.owned_begin * n; i < grid.owned_end * n; ++i) {
    const Complex p = psi[static_cast<std::size_t>(i)];
    const Complex conj_v{v[i].re, -v[i].im};
    out[i] = out[i] + g * (norm2(p) * v[i] + mul(mul(p, p), conj_v));
  }
}

/// (re, im) → i (re, im) when `sign` is +1, → −i (re, im) when −1.
void times_i(std::vector<Complex>& v, double sign) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(v.size()); ++i) {
    v[i] = {-sign * v[i].im, sign * v[i].re};
  }
}

/// ω_max² of −iJ for a positive definite J: the largest eigenvalue of K = (−iJ)ᵀ(−iJ)… written
/// K δ = i J(−i J δ), self-adjoint in the J inner product ⟨a, b⟩_J = Re⟨a, J b⟩_B, by Lanczos in
/// that product (two applications of J a step). Returns θ_top + its residual.
double linearised_top(const Grid& grid, const Rotation& rotation, const DomainReduction& layout,
                      const std::vector<double>& u, std::span<const Complex> psi, double g,
                      int iterations, const std::function<void()>& poll) {
  std::vector<Complex> q = complex_start(grid), q_prev(q.size(), Complex{0.0, 0.0}), jq(q.size()),
                       w(q.size()), jw(q.size()), t(q.size());
  apply_linearised(grid, rotation, layout, u, psi, g, q, jq);
  const double start_norm = std::sqrt(dot(grid, layout, q, jq));
  for (std::size_t i = 0; i < q.size(); ++i) {
    q[i] = (1.0 / start_norm) * q[i];
    jq[i] = (1.0 / start_norm) * jq[i];
  }
  std::vector<double> alpha, beta;
  const int k_max = static_cast<int>(
      std::min<std::int64_t>(static_cast<std::int64_t>(iterations), 2 * grid.global_cells()));
  for (int k = 0; k < k_max; ++k) {
    if (poll) {
      poll();
    }
    t = jq; // into the storage it has: a fresh vector a step paid its page faults
    times_i(t, -1.0);
    apply_linearised(grid, rotation, layout, u, psi, g, t, w);
    times_i(w, 1.0);
    const double b_prev = beta.empty() ? 0.0 : beta.back();
    const double a = dot(grid, layout, jq, w);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(q.size()); ++i) {
      w[i] = w[i] - (a * q[i] + b_prev * q_prev[i]);
    }
    apply_linearised(grid, rotation, layout, u, psi, g, w, jw);
    alpha.push_back(a);
    const double b = std::sqrt(std::max(0.0, dot(grid, layout, w, jw)));
    beta.push_back(b);
    if (!(b > 1e-12 * std::abs(a))) {
      break;
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(q.size()); ++i) {
      q_prev[i] = q[i];
      q[i] = (1.0 / b) * w[i];
      jq[i] = (1.0 / b) * jw[i];
    }
  }
  const RitzEnds ends = ritz_ends(alpha, beta);
  return ends.top + ends.residual_top;
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
    const double u = potential.in_frame(grid, i) + g * norm2(psi[static_cast<std::size_t>(i)]);
    best = std::max(best, row_bound[static_cast<std::size_t>(i % grid.ms)] + std::abs(u));
  }
  return layout != nullptr ? layout->max(best) : best;
}

SpectrumEstimate estimate_m_spectrum(const Grid& grid, const Potential& potential, double g,
                                     std::span<const Complex> psi, int iterations,
                                     const DomainReduction* given_layout,
                                     const std::function<void()>& poll) {
  const DomainReduction& layout = or_whole(given_layout);
  SpectrumEstimate e;
  e.gershgorin = gershgorin_radius(grid, potential, g, psi, &layout);
  const std::vector<double> u = frozen_potential(grid, potential, g, psi);
  const auto apply_m = [&](std::vector<double>& v, std::vector<double>& out) {
    layout.exchange_halos(v, grid.slice_cells());
    apply(grid, u, v, out);
  };
  // A rotating frame's M is complex Hermitian: Lanczos on complex vectors in Re⟨·,·⟩_B, where it is
  // a real symmetric operator of twice the size with the same eigenvalues.
  const auto apply_magnetic_m = [&](std::vector<Complex>& v, std::vector<Complex>& out) {
    exchange_complex_halos(grid, layout, v);
    apply_magnetic(grid, potential.rotation, u, v, out);
  };
  const RitzEnds m =
      potential.rotation.active()
          ? lanczos(grid, layout, complex_start(grid), apply_magnetic_m, iterations, e.iterations,
                    poll)
          : lanczos(grid, layout, random_start(grid, 1), apply_m, iterations, e.iterations, poll);
  e.lambda_max = m.top;
  e.lambda_min = m.bottom;
  e.lanczos_upper =
      std::max(std::abs(m.top) + m.residual_top, std::abs(m.bottom) + m.residual_bottom);
  const bool lanczos_won = e.lanczos_upper < e.gershgorin;
  e.frozen_radius = lanczos_won ? e.lanczos_upper : e.gershgorin;
  e.method = lanczos_won ? "lanczos" : "gershgorin";
  e.radius = e.frozen_radius;
  e.max_density = max_density(grid, psi, layout);
  return e;
}

double kinetic_top(const Grid& grid, int iterations, const DomainReduction* given_layout,
                   const std::function<void()>& poll) {
  const DomainReduction& layout = or_whole(given_layout);
  const std::vector<double> none(static_cast<std::size_t>(grid.cells()), 0.0);
  const auto apply_half_l = [&](std::vector<double>& v, std::vector<double>& out) {
    layout.exchange_halos(v, grid.slice_cells());
    apply(grid, none, v, out);
  };
  int taken = 0;
  const RitzEnds l =
      lanczos(grid, layout, random_start(grid, 1), apply_half_l, iterations, taken, poll);
  return l.top + l.residual_top;
}

double kinetic_top(const Grid& grid, const Rotation& rotation, int iterations,
                   const DomainReduction* given_layout, const std::function<void()>& poll) {
  if (!rotation.active()) {
    return kinetic_top(grid, iterations, given_layout, poll);
  }
  const DomainReduction& layout = or_whole(given_layout);
  const std::vector<double> none(static_cast<std::size_t>(grid.cells()), 0.0);
  const auto apply_half_l = [&](std::vector<Complex>& v, std::vector<Complex>& out) {
    exchange_complex_halos(grid, layout, v);
    apply_magnetic(grid, rotation, none, v, out);
  };
  int taken = 0;
  const RitzEnds l =
      lanczos(grid, layout, complex_start(grid), apply_half_l, iterations, taken, poll);
  return l.top + l.residual_top;
}

SpectrumEstimate estimate_spectrum(const Grid& grid, const Potential& potential, double g,
                                   std::span<const Complex> psi, int iterations,
                                   const DomainReduction* given_layout,
                                   const std::function<void()>& poll) {
  SpectrumEstimate e = estimate_m_spectrum(grid, potential, g, psi, iterations, given_layout, poll);
  if (g == 0.0) {
    return e; // J = M
  }
  const DomainReduction& layout = or_whole(given_layout);
  const std::vector<double> u = frozen_potential(grid, potential, g, psi);
  // J ≥ ½L + V for g > 0 (its pointwise part is ≥ 0) and ½L is positive definite with ψ = 0
  // beyond the domain, so V ≥ 0 makes J positive definite and K's Lanczos sharp; otherwise
  // ρ(−iJ) ≤ ‖J‖, by Lanczos on J. Both are capped by J's Gershgorin bound, M's widened by the
  // pointwise part's 2|g| max|ψ|².
  const double j_gershgorin = e.gershgorin + 2.0 * std::abs(g) * e.max_density;
  double radius = 0.0;
  if (g > 0.0 && lowest_potential(grid, potential, layout) >= 0.0) {
    radius = std::sqrt(std::max(
        0.0, linearised_top(grid, potential.rotation, layout, u, psi, g, iterations, poll)));
    e.method = "linearised, by lanczos";
  } else {
    const auto apply_j = [&](std::vector<Complex>& v, std::vector<Complex>& out) {
      apply_linearised(grid, potential.rotation, layout, u, psi, g, v, out);
    };
    int taken = 0;
    const RitzEnds j = lanczos(grid, layout, complex_start(grid), apply_j, iterations, taken, poll);
    radius = std::max(std::abs(j.top) + j.residual_top, std::abs(j.bottom) + j.residual_bottom);
    e.method = "linearised, |J| by lanczos";
  }
  if (!(radius < j_gershgorin)) {
    radius = j_gershgorin;
    e.method = "linearised, by gershgorin";
  }
  e.radius = radius;
  return e;
}

} // namespace decgpe
