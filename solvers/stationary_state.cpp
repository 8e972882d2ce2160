#include "solvers/stationary_state.hpp"

#include "solvers/schemes/scheme.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

namespace decgpe {

namespace {

/// The finite-difference step of the Jacobian products: √(double's ε) for unit vectors.
constexpr double kDifferenceStep = 1.5e-8;

/// The kernel-set operations the solver is written in, and the count of stencil passes.
class Ops {
public:
  explicit Ops(Backend& b) : b_(b) {}
  Backend& backend() { return b_; }
  long passes() const { return passes_; }

  /// Re⟨a|x⟩ = Re Σ|B| conj(a_i) x_i.
  double dot(VectorId a, VectorId x) { return b_.diagnostics(x, kNoVector, a).overlap.re; }
  double norm(VectorId x) { return std::sqrt(b_.diagnostics(x, kNoVector, x).norm); }
  void apply_m(VectorId in, VectorId out) {
    b_.apply_m(in, out);
    ++passes_;
  }
  void scale(VectorId x, double a) { b_.axpby(x, {a, 0.0}, x, {0.0, 0.0}, x); }
  void copy(VectorId out, VectorId x) { b_.axpby(out, {1.0, 0.0}, x, {0.0, 0.0}, x); }
  /// out ← a x + b y, real coefficients.
  void combine(VectorId out, double a, VectorId x, double b, VectorId y) {
    b_.axpby(out, {a, 0.0}, x, {b, 0.0}, y);
  }
  /// x ← x/‖x‖; throws when x is not finite.
  void normalise(VectorId x) {
    const Diagnostics d = b_.diagnostics(x, kNoVector, x);
    if (!d.finite || !(d.norm > 0.0) || !std::isfinite(d.norm)) {
      throw std::runtime_error("the stationary-state solver's state is not finite (norm " +
                               std::to_string(d.norm) + ")");
    }
    scale(x, 1.0 / std::sqrt(d.norm));
  }
  /// μ = ⟨x|M(x)x⟩/⟨x|x⟩, with M(x)x left in m.
  double rayleigh(VectorId x, VectorId m) {
    apply_m(x, m);
    const Diagnostics d = b_.diagnostics(m, kNoVector, x);
    return d.overlap.re / b_.diagnostics(x, kNoVector, x).norm;
  }

private:
  Backend& b_;
  long passes_ = 0;
};

/// Φ and its Jacobian's finite differences, with the vectors they need.
class Stepper {
public:
  Stepper(Ops& ops, double tau, long steps, const std::function<void()>& poll)
      : ops_(ops), tau_(tau), steps_(steps), poll_(poll), scratch_(ops.backend()) {}

  /// out ← Φ(x): `steps` imaginary steps of M − μ(x) from x, then normalised.
  void phi(VectorId x, VectorId out) {
    if (poll_) {
      poll_();
    }
    const double mu = ops_.rayleigh(x, scratch_.id());
    ops_.copy(out, x);
    flow(out, mu, steps_);
    ops_.normalise(out);
  }
  /// `steps` steps y ← y − τ(M(y)y − μy).
  void flow(VectorId y, double mu, long steps) {
    for (long k = 0; k < steps; ++k) {
      ops_.apply_m(y, scratch_.id());
      ops_.combine(y, 1.0 + tau_ * mu, y, -tau_, scratch_.id());
    }
  }

private:
  Ops& ops_;
  double tau_;
  long steps_;
  const std::function<void()>& poll_;
  OwnedVector scratch_;
};

/// One Newton step's linear solve (DΦ(x) − I)δ = −G by GMRES over the reals (the Jacobian is only
/// real-linear: |ψ|² is not analytic), no restart: with the budget spent, the best δ so far.
class Gmres {
public:
  Gmres(Ops& ops, Stepper& stepper, int dimension)
      : ops_(ops), stepper_(stepper), dimension_(dimension), probe_(ops.backend()),
        image_(ops.backend()) {
    for (int i = 0; i <= dimension; ++i) {
      basis_.push_back(std::make_unique<OwnedVector>(ops.backend()));
    }
  }

  /// δ for the Jacobian at x (phi_x = Φ(x)) and right side −g; returns the iterations taken.
  int solve(VectorId x, VectorId phi_x, VectorId g, double tolerance, VectorId delta) {
    const double beta = ops_.norm(g);
    ops_.combine(v(0), -1.0 / beta, g, 0.0, g);
    std::vector<std::vector<double>> h(static_cast<std::size_t>(dimension_) + 1,
                                       std::vector<double>(static_cast<std::size_t>(dimension_)));
    std::vector<double> cs, sn, e{beta};
    int j = 0;
    for (; j < dimension_; ++j) {
      jacobian_product(x, phi_x, v(j), v(j + 1));
      for (int i = 0; i <= j; ++i) { // modified Gram–Schmidt
        h[i][j] = ops_.dot(v(i), v(j + 1));
        ops_.combine(v(j + 1), 1.0, v(j + 1), -h[i][j], v(i));
      }
      h[j + 1][j] = ops_.norm(v(j + 1));
      ops_.scale(v(j + 1), 1.0 / h[j + 1][j]);
      for (int i = 0; i < j; ++i) {
        rotate(h[i][j], h[i + 1][j], cs[i], sn[i]);
      }
      const double r = std::hypot(h[j][j], h[j + 1][j]);
      cs.push_back(h[j][j] / r);
      sn.push_back(h[j + 1][j] / r);
      h[j][j] = r;
      h[j + 1][j] = 0.0;
      e.push_back(-sn[j] * e[j]);
      e[j] *= cs[j];
      if (std::abs(e[j + 1]) <= tolerance * beta) {
        ++j;
        break;
      }
    }
    // Back substitution for the coefficients, then δ = Σ y_i v_i.
    std::vector<double> y(static_cast<std::size_t>(j));
    for (int i = j - 1; i >= 0; --i) {
      double s = e[i];
      for (int k = i + 1; k < j; ++k) {
        s -= h[i][k] * y[k];
      }
      y[i] = s / h[i][i];
    }
    ops_.combine(delta, y[0], v(0), 0.0, v(0));
    for (int i = 1; i < j; ++i) {
      ops_.combine(delta, 1.0, delta, y[i], v(i));
    }
    return j;
  }

private:
  VectorId v(int i) const { return basis_[static_cast<std::size_t>(i)]->id(); }

  static void rotate(double& a, double& b, double c, double s) {
    const double t = c * a + s * b;
    b = -s * a + c * b;
    a = t;
  }

  /// out ← (Φ(x + εu) − Φ(x))/ε − u.
  void jacobian_product(VectorId x, VectorId phi_x, VectorId u, VectorId out) {
    ops_.combine(probe_.id(), 1.0, x, kDifferenceStep, u);
    stepper_.phi(probe_.id(), image_.id());
    ops_.combine(out, 1.0 / kDifferenceStep, image_.id(), -1.0 / kDifferenceStep, phi_x);
    ops_.combine(out, 1.0, out, -1.0, u);
  }

  Ops& ops_;
  Stepper& stepper_;
  int dimension_;
  OwnedVector probe_, image_;
  std::vector<std::unique_ptr<OwnedVector>> basis_;
};

} // namespace

int stationary_state_vectors(const StationaryStateSettings& settings) {
  return settings.krylov_dimension + 8; // the basis and two probes, Φ's scratch, four in solve
}

std::pair<double, double> stationary_residual(Backend& backend, VectorId psi, VectorId scratch) {
  Ops ops(backend);
  const double mu = ops.rayleigh(psi, scratch);
  ops.combine(scratch, 1.0, scratch, -mu, psi);
  return {ops.norm(scratch) / ops.norm(psi), mu};
}

StationaryStateReport solve_stationary_state(Backend& backend, VectorId psi,
                                             const StationaryStateSettings& s) {
  if (!(s.spectral_radius > 0.0) || !std::isfinite(s.spectral_radius)) {
    throw std::invalid_argument("the stationary-state solver needs the spectral radius of M");
  }
  Ops ops(backend);
  const double tau = 1.0 / s.spectral_radius;
  const long steps = std::max(1L, std::lround(s.stretch / tau));
  // The polish (64 steps of 1/ρ) damps the modes with λ − μ ≥ ρ/8 by e^{−8} and grows the
  // unstable ones by e^{|λ|·64/ρ}, little next to Φ's own e^{|λ|T}.
  const long polish = 64;
  Stepper stepper(ops, tau, steps, s.poll);
  Gmres gmres(ops, stepper, s.krylov_dimension);
  OwnedVector phi_x(backend), g(backend), delta(backend), scratch(backend);

  StationaryStateReport report;
  ops.normalise(psi);
  std::tie(report.start_residual, report.start_mu) =
      stationary_residual(backend, psi, scratch.id());
  std::tie(report.residual, report.mu) = std::pair{report.start_residual, report.start_mu};
  for (int newton = 0; newton < s.max_newton_steps; ++newton) {
    if (report.residual <= s.residual_tolerance) {
      break;
    }
    stepper.phi(psi, phi_x.id());
    ops.combine(g.id(), 1.0, phi_x.id(), -1.0, psi);
    report.krylov_iterations +=
        gmres.solve(psi, phi_x.id(), g.id(), s.krylov_tolerance, delta.id());
    ops.combine(psi, 1.0, psi, 1.0, delta.id());
    ops.normalise(psi);
    stepper.flow(psi, ops.rayleigh(psi, scratch.id()), polish);
    ops.normalise(psi);
    ++report.newton_steps;
    std::tie(report.residual, report.mu) = stationary_residual(backend, psi, scratch.id());
    if (s.on_newton_step) {
      s.on_newton_step(report);
    }
  }
  report.converged = report.residual <= s.residual_tolerance;
  report.stencil_passes = ops.passes();
  return report;
}

} // namespace decgpe
