// The oscillator bases of the stationary vortex: the modes by their recurrence, the Gauss nodes of
// their Laguerre polynomials, each direction as a discrete variable representation, and the small
// dense linear algebra that moves a state between nodes and modes.

#include "setup/stationary_vortex/internal.hpp"

namespace decgpe::vortex_detail {

namespace {

/// The Jacobi matrix of the normalised Laguerre polynomials p_k of parameter α, k < n: diagonal
/// a_k, off-diagonal squared b_k.
struct LaguerreJacobi {
  double alpha;
  int n;

  double a(int k) const { return 2.0 * k + alpha + 1.0; }
  double b(int k) const { return k * (k + alpha); }

  /// The number of eigenvalues below s (Sturm's count).
  int count_below(double s) const {
    int count = 0;
    double d = 1.0;
    for (int k = 0; k < n; ++k) {
      d = (a(k) - s) - (k > 0 ? b(k) / d : 0.0);
      if (d == 0.0) {
        d = -1e-300;
      }
      count += d < 0.0 ? 1 : 0;
    }
    return count;
  }

  /// Gershgorin's bound above the eigenvalues.
  double upper() const {
    double upper = 0.0;
    for (int k = 0; k < n; ++k) {
      upper = std::max(upper, a(k) + std::sqrt(b(k)) + std::sqrt(b(k + 1)));
    }
    return upper;
  }

  /// The i-th eigenvalue, bisected to the last bit between 0 and `upper`.
  double bisected(int i, double upper) const {
    double lo = 0.0, hi = upper;
    for (;;) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) {
        break;
      }
      (count_below(mid) > i ? hi : lo) = mid;
    }
    return 0.5 * (lo + hi);
  }

  /// The zero of p_n near s after up to three Newton steps on the recurrence.
  double polished(double s) const {
    for (int step = 0; step < 3; ++step) {
      // p_n(s) and p_n'(s); the recurrence is linear, so all four values may be rescaled together.
      double p0 = 0.0, p1 = 1.0, d0 = 0.0, d1 = 0.0;
      for (int k = 0; k < n; ++k) {
        const double root = std::sqrt(b(k + 1));
        const double p2 = ((s - a(k)) * p1 - std::sqrt(b(k)) * p0) / root;
        const double d2 = (p1 + (s - a(k)) * d1 - std::sqrt(b(k)) * d0) / root;
        p0 = p1, p1 = p2, d0 = d1, d1 = d2;
        if (std::abs(p1) > 1e100) {
          p0 *= 1e-100, p1 *= 1e-100, d0 *= 1e-100, d1 *= 1e-100;
        }
      }
      const double delta = p1 / d1;
      if (!std::isfinite(delta) || std::abs(delta) > 1e-8 * (1.0 + s)) {
        break;
      }
      s -= delta;
    }
    return s;
  }
};

/// Zeros of p_n: Sturm-count bisection on the Jacobi matrix, then Newton steps on the recurrence,
/// which restore full relative accuracy to the small zeros.
std::vector<double> laguerre_zeros(double alpha, int n) {
  const LaguerreJacobi jacobi{alpha, n};
  const double upper = jacobi.upper();
  std::vector<double> zeros(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    zeros[static_cast<std::size_t>(i)] = jacobi.polished(jacobi.bisected(i, upper));
  }
  return zeros;
}

} // namespace

/// φ_k(x) for k < n, by the three-term recurrence √b_{k+1} p_{k+1} = (s − a_k) p_k − √b_k p_{k−1}
/// with a_k = 2k + α + 1, b_k = k(k + α).
void modes_at(const Shape& shape, int n, double x, double* out) {
  const double s = shape.omega * x * x;
  const double alpha = shape.alpha();
  const double log0 = 0.5 * std::log(2.0) + 0.25 * shape.dim * std::log(shape.omega) -
                      0.5 * std::lgamma(alpha + 1.0) - 0.5 * s;
  double phi = 0.0;
  if (shape.ell == 0.0) {
    phi = std::exp(log0);
  } else if (s > 0.0) {
    phi = std::exp(log0 + 0.5 * shape.ell * std::log(s));
  }
  double previous = 0.0;
  for (int k = 0; k < n; ++k) {
    out[k] = phi;
    const double next =
        ((s - (2.0 * k + alpha + 1.0)) * phi - std::sqrt(k * (k + alpha)) * previous) /
        std::sqrt((k + 1.0) * (k + 1.0 + alpha));
    previous = phi;
    phi = next;
  }
}

Dvr make_dvr(const Shape& shape, int n) {
  Dvr d{shape, n, {}, {}, {}, {}, {}};
  const std::vector<double> s = laguerre_zeros(shape.alpha(), n);
  const std::size_t nn = static_cast<std::size_t>(n);
  d.x.resize(nn), d.b.resize(nn), d.u.resize(nn * nn), d.ut.resize(nn * nn), d.energy.resize(nn);
  std::vector<double> phi(nn);
  for (std::size_t i = 0; i < nn; ++i) {
    d.x[i] = std::sqrt(s[i] / shape.omega);
    modes_at(shape, n, d.x[i], phi.data());
    double sum = 0.0;
    for (const double v : phi) {
      sum += v * v;
    }
    d.b[i] = std::sqrt(sum); // the Christoffel function: θ_i(x_i)
    for (std::size_t k = 0; k < nn; ++k) {
      d.u[k * nn + i] = d.ut[i * nn + k] = phi[k] / d.b[i];
    }
  }
  for (int k = 0; k < n; ++k) {
    d.energy[static_cast<std::size_t>(k)] = shape.omega * (2.0 * k + shape.alpha() + 1.0);
  }
  return d;
}

/// c = a b with a (m × k), b (k × n), row-major. Column blocks keep a block of b in cache while
/// all rows pass; threads only where the work outweighs their start-up.
void matmul(const double* a, const double* b, double* c, int m, int k, int n) {
  constexpr int kBlock = 128;
  const int blocks = (n + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) collapse(2) if (double(m) * k * n > 1e6)
  for (int jb = 0; jb < blocks; ++jb) {
    for (int i = 0; i < m; ++i) {
      const int j0 = jb * kBlock, j1 = std::min(n, j0 + kBlock);
      double* ci = c + std::size_t(i) * n;
      std::fill(ci + j0, ci + j1, 0.0);
      for (int p = 0; p < k; ++p) {
        const double aip = a[std::size_t(i) * k + p];
        const double* bp = b + std::size_t(p) * n;
        for (int j = j0; j < j1; ++j) {
          ci[j] += aip * bp[j];
        }
      }
    }
  }
}

double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum += x[i] * y[i];
  }
  return sum;
}

} // namespace decgpe::vortex_detail
