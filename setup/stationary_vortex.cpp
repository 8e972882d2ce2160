#include "setup/stationary_vortex.hpp"

#include "setup/stationary_vortex_io.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <system_error>

namespace decgpe {

namespace {

constexpr double kResidualTolerance = 1e-12; ///< relaxation stops below this relative residual
constexpr double kTailTolerance = 1e-10; ///< the default resolution's bound on the highest modes
constexpr int kTailModes = 2;            ///< how many highest modes spectral_tail() looks at
// The outermost Gauss node sits near s = 4n, where the modes carry e^{−s/2}; this keeps it well
// inside the double range.
constexpr int kMaxModes = 320;
constexpr int kMaxIterations = 20000;
constexpr int kCheckEvery = 10;   ///< iterations between max-norm residual checks
constexpr int kResyncEvery = 100; ///< iterations between recomputing the nodal state from the modes
constexpr int kStencil = 8;       ///< interpolation points per direction
constexpr int kPad = kStencil / 2;
constexpr double kCut = 1e-15; ///< f/max f beyond the tabulated domain
const double kNorm = 1.0 / std::sqrt(4.0 * std::numbers::pi); ///< f = kNorm · (normalised state)

/// One direction's oscillator basis on x ≥ 0 with measure x^{dim−1} dx: the modes
/// φ_k = √(2ω^{dim/2}) s^{ell/2} e^{−s/2} p_k(s), s = ωx², where p_k are the orthonormal Laguerre
/// polynomials of weight s^α e^{−s}, α = ell + dim/2 − 1, and the mode energy is ω(2k + α + 1).
/// Radially: the 2D oscillator of angular momentum κ. Axially: the even 1D oscillator functions.
struct Shape {
  double omega;
  double ell;
  double dim;
  double alpha() const { return ell + 0.5 * dim - 1.0; }
};

Shape radial_shape(const VortexParameters& p) {
  return {1.0, static_cast<double>(p.kappa), 2.0};
}
Shape axial_shape(const VortexParameters& p) {
  return {p.lambda, 0.0, 1.0};
}

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

/// Zeros of p_n: Sturm-count bisection on the Jacobi matrix, then Newton steps on the recurrence,
/// which restore full relative accuracy to the small zeros.
std::vector<double> laguerre_zeros(double alpha, int n) {
  const auto a = [&](int k) { return 2.0 * k + alpha + 1.0; };
  const auto b = [&](int k) { return k * (k + alpha); };
  const auto count_below = [&](double s) {
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
  };
  double upper = 0.0; // Gershgorin
  for (int k = 0; k < n; ++k) {
    upper = std::max(upper, a(k) + std::sqrt(b(k)) + std::sqrt(b(k + 1)));
  }
  std::vector<double> zeros(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    double lo = 0.0, hi = upper;
    for (;;) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) {
        break;
      }
      (count_below(mid) > i ? hi : lo) = mid;
    }
    double s = 0.5 * (lo + hi);
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
    zeros[static_cast<std::size_t>(i)] = s;
  }
  return zeros;
}

/// One direction as a discrete variable representation: the functions θ_i = Σ_k u_ki φ_k are 1 at
/// their own Gauss node x_i (up to the factor b_i) and 0 at the others, so a state Σ_i c_i θ_i has
/// f(x_i) = c_i b_i, ∫f² x^{dim−1}dx = Σ c_i², and u (orthogonal) maps nodes to modes.
struct Dvr {
  Shape shape;
  int n = 0;
  std::vector<double> x, b, u, ut, energy; ///< u[k n + i] = φ_k(x_i) / b_i; ut its transpose
};

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

/// The 2D problem in the tensor product of both directions. A state y (nodes, radial index
/// slowest) is normalised, Σ y² = 1, and f = kNorm · y_ij b_i b_j. Modal coefficients a = U_ρ y
/// U_zᵀ.
struct Discretisation {
  Discretisation(const VortexParameters& p, VortexResolution r)
      : rho(make_dvr(radial_shape(p), r.radial)), z(make_dvr(axial_shape(p), r.axial)),
        nr(r.radial), nz(r.axial) {
    const std::size_t size = std::size_t(nr) * nz;
    energy.resize(size), scale.resize(size), coupling.resize(size), potential.resize(size);
    for (int i = 0; i < nr; ++i) {
      for (int j = 0; j < nz; ++j) {
        const std::size_t ij = std::size_t(i) * nz + j;
        energy[ij] = rho.energy[i] + z.energy[j];
        scale[ij] = kNorm * rho.b[i] * z.b[j];
        coupling[ij] = p.g * scale[ij] * scale[ij];
        potential[ij] = 0.5 * (rho.x[i] * rho.x[i] + p.lambda * p.lambda * z.x[j] * z.x[j]);
      }
    }
  }

  std::vector<double> to_modal(const std::vector<double>& nodal) const {
    std::vector<double> tmp(nodal.size()), out(nodal.size());
    matmul(rho.u.data(), nodal.data(), tmp.data(), nr, nr, nz);
    matmul(tmp.data(), z.ut.data(), out.data(), nr, nz, nz);
    return out;
  }
  std::vector<double> to_nodal(const std::vector<double>& modal) const {
    std::vector<double> tmp(modal.size()), out(modal.size());
    matmul(rho.ut.data(), modal.data(), tmp.data(), nr, nr, nz);
    matmul(tmp.data(), z.u.data(), out.data(), nr, nz, nz);
    return out;
  }
  /// max |r f-values| / (μ max |f|): eq. 14's relative residual on the nodes.
  double relative_residual(const std::vector<double>& r_modal, const std::vector<double>& y,
                           double mu) const {
    const std::vector<double> r = to_nodal(r_modal);
    double rmax = 0.0, fmax = 0.0;
    for (std::size_t ij = 0; ij < r.size(); ++ij) {
      rmax = std::max(rmax, std::abs(r[ij] * scale[ij]));
      fmax = std::max(fmax, std::abs(y[ij] * scale[ij]));
    }
    return rmax / (std::abs(mu) * fmax);
  }

  Dvr rho, z;
  int nr, nz;
  std::vector<double> energy;    ///< modal: the g = 0 operator's eigenvalues
  std::vector<double> scale;     ///< nodal: f / y
  std::vector<double> coupling;  ///< nodal: g f² / y²
  std::vector<double> potential; ///< nodal: V
};

/// The gradient of the energy E(y) = ⟨y, H₀y⟩ + ½ Σ coupling y⁴ at a normalised state: H(y)y in
/// modes, and μ = ⟨y, H(y)y⟩.
struct Gradient {
  std::vector<double> hy;
  double mu;
};
Gradient gradient(const Discretisation& d, const std::vector<double>& a,
                  const std::vector<double>& y) {
  std::vector<double> cubic(y.size());
  for (std::size_t ij = 0; ij < y.size(); ++ij) {
    cubic[ij] = d.coupling[ij] * y[ij] * y[ij] * y[ij];
  }
  std::vector<double> hy = d.to_modal(cubic);
  for (std::size_t ij = 0; ij < hy.size(); ++ij) {
    hy[ij] += d.energy[ij] * a[ij];
  }
  const double mu = dot(a, hy);
  return {std::move(hy), mu};
}

/// The minimiser of E(cos θ y + sin θ p) over θ ∈ (0, π/2], for a unit tangent direction p along
/// which E decreases. `quad` = ⟨y,H₀y⟩, ⟨y,H₀p⟩, ⟨p,H₀p⟩; `quart[m]` = Σ coupling y^{4−m} p^m.
double line_search(const std::array<double, 3>& quad, const std::array<double, 5>& quart) {
  const auto slope = [&](double t) {
    const double c = std::cos(t), s = std::sin(t);
    const double dq_dc = 4.0 * c * c * c * quart[0] + 12.0 * c * c * s * quart[1] +
                         12.0 * c * s * s * quart[2] + 4.0 * s * s * s * quart[3];
    const double dq_ds = 4.0 * c * c * c * quart[1] + 12.0 * c * c * s * quart[2] +
                         12.0 * c * s * s * quart[3] + 4.0 * s * s * s * quart[4];
    return 2.0 * c * s * (quad[2] - quad[0]) + 2.0 * (c * c - s * s) * quad[1] +
           0.5 * (c * dq_ds - s * dq_dc);
  };
  // A first guess from the second-order model at θ = 0, then a bracket and regula falsi.
  const double slope0 = slope(0.0);
  const double curvature0 = 2.0 * (quad[2] - quad[0]) - 2.0 * quart[0] + 6.0 * quart[2];
  const double half_pi = 0.5 * std::numbers::pi;
  double lo = 0.0, slope_lo = slope0;
  double hi = curvature0 > 0.0 ? std::min(-slope0 / curvature0, half_pi) : 0.125 * half_pi;
  double slope_hi = slope(hi);
  while (slope_hi < 0.0 && hi < half_pi) {
    lo = hi, slope_lo = slope_hi;
    hi = std::min(2.0 * hi, half_pi);
    slope_hi = slope(hi);
  }
  if (slope_hi <= 0.0) {
    return hi;
  }
  int kept_side = 0; // Illinois: halve the slope of an end that stays twice
  for (int it = 0; it < 100 && hi - lo > 1e-15 * hi; ++it) {
    const double t = (lo * slope_hi - hi * slope_lo) / (slope_hi - slope_lo);
    const double st = slope(t);
    if (st == 0.0 || t <= lo || t >= hi) {
      return std::clamp(t, lo, hi);
    }
    if (st < 0.0) {
      lo = t, slope_lo = st;
      slope_hi *= kept_side == -1 ? 0.5 : 1.0;
      kept_side = -1;
    } else {
      hi = t, slope_hi = st;
      slope_lo *= kept_side == 1 ? 0.5 : 1.0;
      kept_side = 1;
    }
  }
  return 0.5 * (lo + hi);
}

/// Minimises the GP energy over normalised states from `a` (modes) by preconditioned nonlinear
/// conjugate gradients on the sphere (Polak–Ribière, restarted when not a descent direction). The
/// preconditioner (H₀ + σ)⁻¹ is diagonal in the modes; σ of the order of max g f² makes it
/// approximate the energy's Hessian both where the interaction dominates (smooth modes) and where
/// the kinetic energy does (high modes). Returns the modes of the minimiser.
std::vector<double> relax(const Discretisation& d, std::vector<double> a) {
  const double norm_a = std::sqrt(dot(a, a));
  for (double& v : a) {
    v /= norm_a;
  }
  std::vector<double> y = d.to_nodal(a);
  const double e0 = *std::min_element(d.energy.begin(), d.energy.end());
  std::vector<double> r_old, z_old, p_old;
  const std::size_t size = a.size();
  for (int it = 0;; ++it) {
    if (it > 0 && it % kResyncEvery == 0) {
      const double norm = std::sqrt(dot(a, a));
      for (double& v : a) {
        v /= norm;
      }
      y = d.to_nodal(a);
    }
    Gradient grad = gradient(d, a, y);
    std::vector<double>& r = grad.hy;
    for (std::size_t ij = 0; ij < size; ++ij) {
      r[ij] -= grad.mu * a[ij];
    }
    if (it % kCheckEvery == 0) {
      const double residual = d.relative_residual(r, y, grad.mu);
      if (residual < kResidualTolerance) {
        return a;
      }
      if (it >= kMaxIterations || !std::isfinite(residual)) {
        throw std::runtime_error("stationary vortex: no convergence (relative residual " +
                                 std::to_string(residual) + " after " + std::to_string(it) +
                                 " iterations)");
      }
    }
    double sigma = 0.0;
    for (std::size_t ij = 0; ij < size; ++ij) {
      sigma = std::max(sigma, d.coupling[ij] * y[ij] * y[ij]);
    }
    sigma = std::max(sigma, 1.0);
    std::vector<double> z(size);
    for (std::size_t ij = 0; ij < size; ++ij) {
      z[ij] = r[ij] / (d.energy[ij] - e0 + sigma);
    }
    const double za = dot(z, a);
    for (std::size_t ij = 0; ij < size; ++ij) {
      z[ij] -= za * a[ij];
    }
    double beta = 0.0;
    if (!p_old.empty()) {
      double num = 0.0;
      for (std::size_t ij = 0; ij < size; ++ij) {
        num += (r[ij] - r_old[ij]) * z[ij];
      }
      beta = std::max(0.0, num / dot(r_old, z_old));
    }
    std::vector<double> p(size);
    for (std::size_t ij = 0; ij < size; ++ij) {
      p[ij] = -z[ij] + (beta != 0.0 ? beta * p_old[ij] : 0.0);
    }
    const double pa = dot(p, a);
    for (std::size_t ij = 0; ij < size; ++ij) {
      p[ij] -= pa * a[ij];
    }
    if (dot(p, r) >= 0.0) {
      for (std::size_t ij = 0; ij < size; ++ij) {
        p[ij] = -z[ij];
      }
    }
    const double p_norm = std::sqrt(dot(p, p));
    if (p_norm == 0.0) { // already exact
      return a;
    }
    std::vector<double> ph(size);
    for (std::size_t ij = 0; ij < size; ++ij) {
      ph[ij] = p[ij] / p_norm;
    }
    const std::vector<double> pn = d.to_nodal(ph);
    std::array<double, 3> quad{};
    std::array<double, 5> quart{};
    for (std::size_t ij = 0; ij < size; ++ij) {
      quad[0] += d.energy[ij] * a[ij] * a[ij];
      quad[1] += d.energy[ij] * a[ij] * ph[ij];
      quad[2] += d.energy[ij] * ph[ij] * ph[ij];
      const double u = y[ij], v = pn[ij], w = d.coupling[ij];
      quart[0] += w * u * u * u * u;
      quart[1] += w * u * u * u * v;
      quart[2] += w * u * u * v * v;
      quart[3] += w * u * v * v * v;
      quart[4] += w * v * v * v * v;
    }
    const double theta = line_search(quad, quart);
    const double c = std::cos(theta), s = std::sin(theta);
    for (std::size_t ij = 0; ij < size; ++ij) {
      const double a_new = c * a[ij] + s * ph[ij];
      ph[ij] = (c * ph[ij] - s * a[ij]) * p_norm; // p transported along the great circle
      a[ij] = a_new;
      y[ij] = c * y[ij] + s * pn[ij];
    }
    p_old = std::move(ph);
    r_old = std::move(r);
    z_old = std::move(z);
  }
}

/// μ of the Thomas–Fermi profile g f² = (μ − κ²/2ρ² − ρ²/2 − λ²z²/2)₊, normalised. With u = ρ²
/// and the z-integral done, 1 = (4π/g)(√2/(3λ)) ∫ (μ − κ²/2u − u/2)₊^{3/2} du.
double thomas_fermi_mu(const VortexParameters& p) {
  const double kappa = p.kappa;
  const auto norm = [&](double mu) {
    const double root = std::sqrt(std::max(mu * mu - kappa * kappa, 0.0));
    const double u0 = mu - root, u1 = mu + root;
    const int n = 2000; // midpoint rule: the profile's guess needs no more
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
      const double u = u0 + (u1 - u0) * (i + 0.5) / n;
      const double w = mu - (u > 0.0 ? 0.5 * kappa * kappa / u : 0.0) - 0.5 * u;
      sum += w > 0.0 ? std::pow(w, 1.5) : 0.0;
    }
    return 4.0 * std::numbers::pi / p.g * std::sqrt(2.0) / (3.0 * p.lambda) * sum * (u1 - u0) / n;
  };
  double lo = kappa, hi = kappa + 1.0;
  while (norm(hi) < 1.0) {
    lo = hi, hi *= 2.0;
  }
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (norm(mid) < 1.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

/// A first state: the g = 0 ground mode plus, for g > 0, the Thomas–Fermi profile, each normalised.
std::vector<double> initial_modes(const Discretisation& d, const VortexParameters& p) {
  std::vector<double> a(std::size_t(d.nr) * d.nz, 0.0);
  if (p.g > 0.0) {
    const double mu = thomas_fermi_mu(p);
    std::vector<double> y(a.size());
    for (int i = 0; i < d.nr; ++i) {
      for (int j = 0; j < d.nz; ++j) {
        const std::size_t ij = std::size_t(i) * d.nz + j;
        const double rho = d.rho.x[i];
        const double w = mu - 0.5 * p.kappa * p.kappa / (rho * rho) - d.potential[ij];
        y[ij] = w > 0.0 ? std::sqrt(w / p.g) / d.scale[ij] : 0.0;
      }
    }
    const double norm = std::sqrt(dot(y, y));
    if (norm > 0.0) {
      a = d.to_modal(y);
      for (double& v : a) {
        v /= norm;
      }
    }
  }
  a[0] += 1.0;
  return a;
}

/// The truncation error's size in each direction: the largest sum of |modal coefficients| over the
/// other direction's modes, among the highest kTailModes of this direction, relative to the largest
/// such sum. Sums, since the modes are O(1) at their maxima and their errors add up pointwise.
std::pair<double, double> tails(const std::vector<double>& a, VortexResolution r) {
  std::vector<double> radial(static_cast<std::size_t>(r.radial), 0.0);
  std::vector<double> axial(static_cast<std::size_t>(r.axial), 0.0);
  for (int i = 0; i < r.radial; ++i) {
    for (int j = 0; j < r.axial; ++j) {
      const double v = std::abs(a[std::size_t(i) * r.axial + j]);
      radial[std::size_t(i)] += v;
      axial[std::size_t(j)] += v;
    }
  }
  const auto relative_tail = [](const std::vector<double>& sums) {
    const std::size_t first = sums.size() - std::min<std::size_t>(kTailModes, sums.size());
    return *std::max_element(sums.begin() + first, sums.end()) /
           *std::max_element(sums.begin(), sums.end());
  };
  return {relative_tail(radial), relative_tail(axial)};
}

/// A starting resolution from the energy scale: in each direction, modes up to about μ + 16ω, with
/// μ the Thomas–Fermi (or g = 0) estimate. The adaptive solve adds modes where they are needed.
VortexResolution starting_resolution(const VortexParameters& p) {
  const double mu = std::max(p.g > 0.0 ? thomas_fermi_mu(p) : 0.0, p.kappa + 1.0 + 0.5 * p.lambda);
  const double radial = (mu - p.kappa - 1.0) / 2.0;
  const double axial = mu / (2.0 * p.lambda);
  return {std::clamp(int(std::ceil(8.0 + radial)), 8, kMaxModes),
          std::clamp(int(std::ceil(8.0 + axial)), 8, kMaxModes)};
}

void check_parameters(const VortexParameters& p) {
  if (!std::isfinite(p.lambda) || p.lambda <= 0.0) {
    throw std::invalid_argument("stationary vortex: λ must be finite and > 0, got " +
                                std::to_string(p.lambda));
  }
  if (!std::isfinite(p.g) || p.g < 0.0) {
    throw std::invalid_argument("stationary vortex: g must be finite and ≥ 0, got " +
                                std::to_string(p.g));
  }
  if (p.kappa < 0) {
    throw std::invalid_argument("stationary vortex: κ must be ≥ 0, got " + std::to_string(p.kappa));
  }
}

void check_resolution(VortexResolution r) {
  if (r.radial < 1 || r.axial < 1 || r.radial > kMaxModes || r.axial > kMaxModes) {
    throw std::invalid_argument("stationary vortex: mode counts must lie in [1, " +
                                std::to_string(kMaxModes) + "], got " + std::to_string(r.radial) +
                                " × " + std::to_string(r.axial));
  }
}

/// Golden-section search for a maximum of f on [lo, hi].
template <typename F> double maximise(const F& f, double lo, double hi) {
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  const double width = hi - lo;
  double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
  double f1 = f(m1), f2 = f(m2);
  for (int it = 0; it < 60 && hi - lo > 1e-12 * width; ++it) {
    if (f1 < f2) {
      lo = m1, m1 = m2, f1 = f2;
      m2 = lo + ratio * (hi - lo), f2 = f(m2);
    } else {
      hi = m2, m2 = m1, f2 = f1;
      m1 = hi - ratio * (hi - lo), f1 = f(m1);
    }
  }
  return f1 < f2 ? m2 : m1;
}

/// The shortest representation that reads back as the same double.
std::string exact(double v) {
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::to_string(v);
}

} // namespace

struct StationaryVortex::Builder {
  /// Everything derived from modal_ and the discretisation: μ, residual, energies, node values,
  /// the interpolation table.
  static void finish(StationaryVortex& v, const Discretisation& d) {
    const std::vector<double> y = d.to_nodal(v.modal_);
    Gradient grad = gradient(d, v.modal_, y);
    v.mu_ = grad.mu;
    for (std::size_t ij = 0; ij < y.size(); ++ij) {
      grad.hy[ij] -= grad.mu * v.modal_[ij];
    }
    v.residual_ = d.relative_residual(grad.hy, y, grad.mu);
    const auto [radial, axial] = tails(v.modal_, v.resolution_);
    v.tail_ = std::max(radial, axial);

    double h0 = 0.0, potential = 0.0, interaction = 0.0;
    for (std::size_t ij = 0; ij < y.size(); ++ij) {
      h0 += d.energy[ij] * v.modal_[ij] * v.modal_[ij];
      potential += d.potential[ij] * y[ij] * y[ij];
      interaction += 0.5 * d.coupling[ij] * y[ij] * y[ij] * y[ij] * y[ij];
    }
    v.energies_ = {h0 - potential, potential, interaction};

    v.rho_nodes_ = d.rho.x;
    v.z_nodes_ = d.z.x;
    v.node_values_.resize(y.size());
    for (std::size_t ij = 0; ij < y.size(); ++ij) {
      v.node_values_[ij] = y[ij] * d.scale[ij];
    }
    tabulate(v, d);
  }

  /// f at ρ_i = i h_rho (i < rows), z_j = j h_z (j < columns), summed from the modes.
  static std::vector<double> sample(const StationaryVortex& v, const Discretisation& d,
                                    double h_rho, int rows, double h_z, int columns) {
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

  /// The interpolation table. Its spacing resolves the highest mode's local wavenumber √(2E) with
  /// 3 nodes per unit of 1/k (interpolation errors ~1e-13 max f). Its extent, where f falls below
  /// kCut max f, comes from a grid kCoarse times coarser that reaches to where every mode has
  /// decayed (e^{−s/2} < 1e-17 beyond the outermost Gauss node, s = ωx²).
  static void tabulate(StationaryVortex& v, const Discretisation& d) {
    constexpr int kCoarse = 8;
    v.h_rho_ = 1.0 / (3.0 * std::sqrt(2.0 * d.rho.energy.back()));
    v.h_z_ = 1.0 / (3.0 * std::sqrt(2.0 * d.z.energy.back()));
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
    const int cut_rho = (last_rho + 1) * kCoarse, cut_z = (last_z + 1) * kCoarse;
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

  /// Relaxes on a ladder of resolutions, each level's state (padded with zero modes, which nest)
  /// starting the next: far fewer iterations than a cold start at the final resolution. Adaptive:
  /// from `target`, adding modes where the highest ones still matter. Otherwise: from the default
  /// start (where smaller) up to exactly `target`.
  static StationaryVortex solve(const VortexParameters& p, VortexResolution target, bool adaptive) {
    const VortexResolution start = starting_resolution(p);
    VortexResolution resolution = adaptive ? target
                                           : VortexResolution{std::min(start.radial, target.radial),
                                                              std::min(start.axial, target.axial)};
    const auto grow = [](int n) { return n + std::max(4, n / 4); };
    std::vector<double> modal;
    for (;;) {
      const Discretisation d(p, resolution);
      std::vector<double> relaxed =
          relax(d, modal.empty() ? initial_modes(d, p) : std::move(modal));
      // The energy is even in the state; the ground state is the one with f ≥ 0.
      const std::vector<double> y = d.to_nodal(relaxed);
      if (*std::max_element(y.begin(), y.end()) < -*std::min_element(y.begin(), y.end())) {
        for (double& a : relaxed) {
          a = -a;
        }
      }
      VortexResolution next{std::min(grow(resolution.radial), target.radial),
                            std::min(grow(resolution.axial), target.axial)};
      if (adaptive) {
        const auto [radial, axial] = tails(relaxed, resolution);
        next.radial = radial > kTailTolerance ? grow(resolution.radial) : resolution.radial;
        next.axial = axial > kTailTolerance ? grow(resolution.axial) : resolution.axial;
        if (next.radial > kMaxModes || next.axial > kMaxModes) {
          throw std::runtime_error("stationary vortex: not resolved with " +
                                   std::to_string(kMaxModes) + " modes per direction");
        }
      }
      if (next == resolution) {
        StationaryVortex v;
        v.parameters_ = p;
        v.resolution_ = resolution;
        v.modal_ = std::move(relaxed);
        finish(v, d);
        return v;
      }
      modal.assign(std::size_t(next.radial) * next.axial, 0.0);
      for (int i = 0; i < resolution.radial; ++i) {
        for (int j = 0; j < resolution.axial; ++j) {
          modal[std::size_t(i) * next.axial + j] = relaxed[std::size_t(i) * resolution.axial + j];
        }
      }
      resolution = next;
    }
  }

  /// The cached profile when `file` holds one for these parameters and this discretisation that
  /// solves eq. 14; otherwise throws std::runtime_error saying why not.
  static StationaryVortex load(const std::filesystem::path& file, const VortexParameters& p,
                               const std::string& key, VortexResolution resolution, bool adaptive) {
    const vortex_cache::Record r = vortex_cache::read(file);
    const auto reject = [](const std::string& why) { throw std::runtime_error(why); };
    if (r.lambda != p.lambda) {
      reject("it holds λ = " + exact(r.lambda));
    }
    if (r.g != p.g) {
      reject("it holds g = " + exact(r.g));
    }
    if (r.kappa != p.kappa) {
      reject("it holds κ = " + std::to_string(r.kappa));
    }
    if (r.key != key) {
      reject("its resolution key is '" + r.key + "'");
    }
    const VortexResolution stored{int(r.radial), int(r.axial)};
    if (stored.radial < 1 || stored.axial < 1 || stored.radial > kMaxModes ||
        stored.axial > kMaxModes || (!adaptive && !(stored == resolution))) {
      reject("its resolution is " + std::to_string(r.radial) + " × " + std::to_string(r.axial));
    }
    const std::size_t size = std::size_t(stored.radial) * stored.axial;
    if (r.rho.size() != std::size_t(stored.radial) || r.z.size() != std::size_t(stored.axial) ||
        r.f.size() != size || r.modal.size() != size) {
      reject("its data sizes are inconsistent");
    }
    const Discretisation d(p, stored);
    for (int i = 0; i < d.nr; ++i) {
      if (!(std::abs(r.rho[i] - d.rho.x[i]) <= 1e-12 * d.rho.x[i])) {
        reject("its radial nodes are not this discretisation's");
      }
    }
    for (int j = 0; j < d.nz; ++j) {
      if (!(std::abs(r.z[j] - d.z.x[j]) <= 1e-12 * d.z.x[j])) {
        reject("its axial nodes are not this discretisation's");
      }
    }
    StationaryVortex v;
    v.parameters_ = p;
    v.resolution_ = stored;
    v.modal_ = r.modal;
    if (!(std::abs(dot(v.modal_, v.modal_) - 1.0) <= 1e-12)) {
      reject("its state is not normalised");
    }
    finish(v, d);
    for (std::size_t ij = 0; ij < size; ++ij) {
      if (!(std::abs(v.node_values_[ij] - r.f[ij]) <= 1e-12 * v.max_f_)) {
        reject("its f and modal coefficients disagree");
      }
    }
    if (!(v.residual_ <= kResidualTolerance)) {
      reject("its profile does not solve eq. 14 (relative residual " + std::to_string(v.residual_) +
             ")");
    }
    if (!(std::abs(v.mu_ - r.mu) <= 1e-12 * std::abs(r.mu))) {
      reject("its μ = " + exact(r.mu) + " is not its profile's " + exact(v.mu_));
    }
    return v;
  }

  static StationaryVortex solve_or_load(const VortexParameters& p, VortexResolution resolution,
                                        bool adaptive, const std::filesystem::path& cache_dir) {
    check_parameters(p);
    check_resolution(resolution);
    if (cache_dir.empty()) {
      return solve(p, resolution, adaptive);
    }
    const std::string key =
        adaptive ? "auto"
                 : "n" + std::to_string(resolution.radial) + "x" + std::to_string(resolution.axial);
    const std::filesystem::path file =
        cache_dir / ("vortex_l" + exact(p.lambda) + "_g" + exact(p.g) + "_k" +
                     std::to_string(p.kappa) + "_" + key + ".h5");
    std::string note;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) {
      try {
        StationaryVortex v = load(file, p, key, resolution, adaptive);
        v.cache_use_ = VortexCacheUse::loaded;
        v.cache_note_ = "loaded " + file.string();
        return v;
      } catch (const std::runtime_error& e) {
        note = "ignored " + file.string() + ": " + e.what() + "; solved again and replaced it";
      }
    }
    StationaryVortex v = solve(p, resolution, adaptive);
    vortex_cache::write(file,
                        {p.lambda, p.g, p.kappa, key, v.resolution_.radial, v.resolution_.axial,
                         v.mu_, v.residual_, v.rho_nodes_, v.z_nodes_, v.node_values_, v.modal_});
    v.cache_use_ = note.empty() ? VortexCacheUse::written : VortexCacheUse::rewritten;
    v.cache_note_ = note.empty() ? "wrote " + file.string() : note;
    return v;
  }
};

StationaryVortex StationaryVortex::solve(const VortexParameters& parameters,
                                         const std::filesystem::path& cache_dir) {
  check_parameters(parameters);
  return Builder::solve_or_load(parameters, starting_resolution(parameters), true, cache_dir);
}

StationaryVortex StationaryVortex::solve(const VortexParameters& parameters,
                                         VortexResolution resolution,
                                         const std::filesystem::path& cache_dir) {
  return Builder::solve_or_load(parameters, resolution, false, cache_dir);
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
