// Eq. 14 solved: the energy's gradient, the relaxation on the unit sphere (preconditioned nonlinear
// conjugate gradients), the first state and the resolution ladder, and the validated HDF5 cache.

#include "setup/stationary_vortex/internal.hpp"
#include "setup/stationary_vortex_io.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <system_error>

namespace decgpe {

using namespace vortex_detail;

namespace {

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

/// The preconditioned residual (H₀ − e0 + σ)⁻¹ r, projected off `a`, with σ = max(max g f², 1).
std::vector<double> preconditioned(const Discretisation& d, const std::vector<double>& r,
                                   const std::vector<double>& a, const std::vector<double>& y,
                                   double e0) {
  const std::size_t size = a.size();
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
  return z;
}

/// Polak–Ribière's direction from the preconditioned residual `z` and the previous step's (none
/// on the first), projected off `a`; steepest descent where it is not a descent direction.
std::vector<double> search_direction(const std::vector<double>& r, const std::vector<double>& z,
                                     const std::vector<double>& a, const std::vector<double>& r_old,
                                     const std::vector<double>& z_old,
                                     const std::vector<double>& p_old) {
  const std::size_t size = a.size();
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
  return p;
}

/// The angle of the step along the great circle from `a` towards the unit `ph` (nodal values `y`
/// and `pn`): the energy there is a polynomial in cos θ and sin θ, minimised by line_search.
double step_angle(const Discretisation& d, const std::vector<double>& a,
                  const std::vector<double>& y, const std::vector<double>& ph,
                  const std::vector<double>& pn) {
  std::array<double, 3> quad{};
  std::array<double, 5> quart{};
  for (std::size_t ij = 0; ij < a.size(); ++ij) {
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
  return line_search(quad, quart);
}

/// Scales the modes `a` to unit norm.
void normalise(std::vector<double>& a) {
  const double norm = std::sqrt(dot(a, a));
  for (double& v : a) {
    v /= norm;
  }
}

/// Whether the relaxation has converged at iteration `it` (residual r of the state y with μ);
/// refuses one that has run out of iterations or diverged.
bool converged(const Discretisation& d, const std::vector<double>& r, const std::vector<double>& y,
               double mu, int it) {
  const double residual = d.relative_residual(r, y, mu);
  if (residual < kResidualTolerance) {
    return true;
  }
  if (it >= kMaxIterations || !std::isfinite(residual)) {
    throw std::runtime_error("stationary vortex: no convergence (relative residual " +
                             std::to_string(residual) + " after " + std::to_string(it) +
                             " iterations)");
  }
  return false;
}

/// Moves the state (modes a, nodal values y) by θ along the great circle towards the unit direction
/// ph (nodal values pn), and transports ph along it, scaled back to the search direction's length
/// p_norm.
void step_on_sphere(std::vector<double>& a, std::vector<double>& y, std::vector<double>& ph,
                    const std::vector<double>& pn, double theta, double p_norm) {
  const double c = std::cos(theta), s = std::sin(theta);
  for (std::size_t ij = 0; ij < a.size(); ++ij) {
    const double a_new = c * a[ij] + s * ph[ij];
    ph[ij] = (c * ph[ij] - s * a[ij]) * p_norm; // p transported along the great circle
    a[ij] = a_new;
    y[ij] = c * y[ij] + s * pn[ij];
  }
}

/// Minimises the GP energy over normalised states from `a` (modes) by preconditioned nonlinear
/// conjugate gradients on the sphere (Polak–Ribière, restarted when not a descent direction). The
/// preconditioner (H₀ + σ)⁻¹ is diagonal in the modes; σ of the order of max g f² makes it
/// approximate the energy's Hessian both where the interaction dominates (smooth modes) and where
/// the kinetic energy does (high modes). Returns the modes of the minimiser. `poll` (may be empty)
/// is called before each iteration and may throw.
std::vector<double> relax(const Discretisation& d, std::vector<double> a,
                          const std::function<void()>& poll) {
  normalise(a);
  std::vector<double> y = d.to_nodal(a);
  const double e0 = *std::min_element(d.energy.begin(), d.energy.end());
  std::vector<double> r_old, z_old, p_old;
  const std::size_t size = a.size();
  for (int it = 0;; ++it) {
    if (poll) {
      poll();
    }
    if (it > 0 && it % kResyncEvery == 0) {
      normalise(a);
      y = d.to_nodal(a);
    }
    Gradient grad = gradient(d, a, y);
    std::vector<double>& r = grad.hy;
    for (std::size_t ij = 0; ij < size; ++ij) {
      r[ij] -= grad.mu * a[ij];
    }
    if (it % kCheckEvery == 0 && converged(d, r, y, grad.mu, it)) {
      return a;
    }
    std::vector<double> z = preconditioned(d, r, a, y, e0);
    std::vector<double> p = search_direction(r, z, a, r_old, z_old, p_old);
    const double p_norm = std::sqrt(dot(p, p));
    if (p_norm == 0.0) { // already exact
      return a;
    }
    std::vector<double> ph(size);
    for (std::size_t ij = 0; ij < size; ++ij) {
      ph[ij] = p[ij] / p_norm;
    }
    const std::vector<double> pn = d.to_nodal(ph);
    step_on_sphere(a, y, ph, pn, step_angle(d, a, y, ph, pn), p_norm);
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

/// The shortest representation that reads back as the same double.
std::string exact(double v) {
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), v);
  return ec == std::errc{} ? std::string(buffer.data(), end) : std::to_string(v);
}

/// A cache file refused: why it is not the one asked for.
[[noreturn]] void reject(const std::string& why) {
  throw std::runtime_error(why);
}

/// The resolution a cache record holds, refused unless the record is of these parameters, key and
/// resolution (any, when adaptive) and its sizes agree.
VortexResolution checked_record(const vortex_cache::Record& r, const VortexParameters& p,
                                const std::string& key, VortexResolution resolution,
                                bool adaptive) {
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
  return stored;
}

/// Refuses a record whose profile grid is not the discretisation's nodes.
void check_nodes(const vortex_cache::Record& r, const Discretisation& d) {
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
}

} // namespace

void StationaryVortex::Builder::finish(StationaryVortex& v, const Discretisation& d) {
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

StationaryVortex StationaryVortex::Builder::solve(const VortexParameters& p,
                                                  VortexResolution target, bool adaptive,
                                                  const std::function<void()>& poll) {
  const VortexResolution start = starting_resolution(p);
  VortexResolution resolution = adaptive ? target
                                         : VortexResolution{std::min(start.radial, target.radial),
                                                            std::min(start.axial, target.axial)};
  const auto grow = [](int n) { return n + std::max(4, n / 4); };
  std::vector<double> modal;
  for (;;) {
    const Discretisation d(p, resolution);
    std::vector<double> relaxed =
        relax(d, modal.empty() ? initial_modes(d, p) : std::move(modal), poll);
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

StationaryVortex StationaryVortex::Builder::load(const std::filesystem::path& file,
                                                 const VortexParameters& p, const std::string& key,
                                                 VortexResolution resolution, bool adaptive) {
  const vortex_cache::Record r = vortex_cache::read(file);
  const VortexResolution stored = checked_record(r, p, key, resolution, adaptive);
  const std::size_t size = std::size_t(stored.radial) * stored.axial;
  const Discretisation d(p, stored);
  check_nodes(r, d);
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

StationaryVortex StationaryVortex::Builder::solve_or_load(const VortexParameters& p,
                                                          VortexResolution resolution,
                                                          bool adaptive,
                                                          const std::filesystem::path& cache_dir,
                                                          const std::function<void()>& poll) {
  check_parameters(p);
  check_resolution(resolution);
  if (cache_dir.empty()) {
    return solve(p, resolution, adaptive, poll);
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
  StationaryVortex v = solve(p, resolution, adaptive, poll);
  vortex_cache::write(file,
                      {p.lambda, p.g, p.kappa, key, v.resolution_.radial, v.resolution_.axial,
                       v.mu_, v.residual_, v.rho_nodes_, v.z_nodes_, v.node_values_, v.modal_});
  v.cache_use_ = note.empty() ? VortexCacheUse::written : VortexCacheUse::rewritten;
  v.cache_note_ = note.empty() ? "wrote " + file.string() : note;
  return v;
}

StationaryVortex StationaryVortex::solve(const VortexParameters& parameters,
                                         const std::filesystem::path& cache_dir,
                                         const std::function<void()>& poll) {
  check_parameters(parameters);
  return Builder::solve_or_load(parameters, starting_resolution(parameters), true, cache_dir, poll);
}

StationaryVortex StationaryVortex::solve(const VortexParameters& parameters,
                                         VortexResolution resolution,
                                         const std::filesystem::path& cache_dir) {
  return Builder::solve_or_load(parameters, resolution, false, cache_dir, {});
}

} // namespace decgpe
