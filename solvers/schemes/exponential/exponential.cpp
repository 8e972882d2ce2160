#include "solvers/schemes/exponential/exponential.hpp"

#include "solvers/schemes/one_level.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>
#include <utility>

namespace decgpe {

namespace {

/// J_0(z) … J_n(z) by Miller's backward recurrence from well above n, normalised with
/// J_0 + 2 Σ J_{2k} = 1 (stable for every order; z ≥ 0).
std::vector<double> bessel_j(int n, double z) {
  if (z == 0.0) {
    std::vector<double> j(static_cast<std::size_t>(n) + 1, 0.0);
    j[0] = 1.0;
    return j;
  }
  const int start = n + 20 + static_cast<int>(std::sqrt(40.0 * (n + 1)));
  std::vector<double> j(static_cast<std::size_t>(start) + 2, 0.0);
  j[static_cast<std::size_t>(start)] = 1e-300;
  for (int k = start; k > 0; --k) {
    const auto u = static_cast<std::size_t>(k);
    j[u - 1] = (2.0 * k / z) * j[u] - j[u + 1];
    if (std::abs(j[u - 1]) > 1e250) { // rescale what is computed so far
      for (std::size_t m = u - 1; m <= static_cast<std::size_t>(start); ++m) {
        j[m] *= 1e-250;
      }
    }
  }
  double norm = j[0];
  for (std::size_t k = 2; k <= static_cast<std::size_t>(start); k += 2) {
    norm += 2.0 * j[k];
  }
  j.resize(static_cast<std::size_t>(n) + 1);
  for (double& v : j) {
    v /= norm;
  }
  return j;
}

/// [lower, upper] ⊇ spectrum of ½L: Gershgorin on the rows ½Σ_F w_F (ψ_i − ψ_j).
std::pair<double, double> kinetic_interval(const Grid& g) {
  double lower = 0.0, upper = 0.0;
  for (int l = 0; l < g.ms; ++l) {
    double sum = 0.0, abs_sum = 0.0;
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      sum += g.stencil[static_cast<std::size_t>(e)].weight;
      abs_sum += std::abs(g.stencil[static_cast<std::size_t>(e)].weight);
    }
    lower = std::min(lower, 0.5 * (sum - abs_sum));
    upper = std::max(upper, 0.5 * (sum + abs_sum));
  }
  return {lower, upper};
}

/// The norm, its invariant, is conserved up to the polynomial's error.
class Exponential final : public OneLevelScheme {
public:
  Exponential(Backend& backend, double dt)
      : OneLevelScheme(backend, dt, kNoVector),
        plan_(plan_chebyshev(backend.problem().grid, dt, kChebyshevTolerance)), psi_(backend),
        t_(backend), acc_(backend), spare_(acc_.id()), last_(&plan_) {
    current_ = psi_.id();
  }

  std::string name() const override { return "exponential"; }

  /// One phase pass (the halves of consecutive steps are one; 32 B), the first term (48 B: in read,
  /// out and acc written), then degree − 1 terms of 80 B (in, prev, out, acc read and written);
  /// an adaptive step has both halves and reads ψ once more for its decision.
  StepTraffic fp64_traffic() const override {
    const double degree = plan_.degree();
    const double phases = adaptive() ? 2.0 : 1.0, decision = adaptive() ? 1.0 : 0.0;
    return {phases + decision + degree,
            32.0 * phases + 16.0 * decision + 48.0 + 80.0 * (degree - 1.0)};
  }

  /// The last step's polynomial: its degree and the bound on its error (relative to ‖ψ‖).
  std::vector<std::pair<std::string, double>> step_report() const override {
    return {{"chebyshev_degree", last_->degree()}, {"chebyshev_error_bound", last_->error_bound}};
  }

  std::vector<std::pair<std::string, double>> properties() const override {
    return {{"chebyshev_degree", plan_.degree()},
            {"chebyshev_error_bound", plan_.error_bound},
            {"chebyshev_tolerance", kChebyshevTolerance},
            {"kinetic_lower", plan_.centre - plan_.half_width},
            {"kinetic_upper", plan_.centre + plan_.half_width}};
  }

private:
  /// P(Δt/2) E P(Δt/2) per step; the two halves where one step meets the next are one P(Δt)
  /// (exact: the phase leaves |ψ| and so itself unchanged).
  void advance_fixed(long steps) override { steps_of(steps, dt_, plan_); }

  double advance_adaptive(StepControl, double longest, StepClock&) override {
    const StepMaxima m = backend_.step_maxima(current_, kNoVector, adaptive_.density_floor);
    const double dt = std::min(phase_step(m.phase_rate, adaptive_), longest);
    steps_of(1, dt, plan_for(dt));
    return dt;
  }

  void steps_of(long steps, double dt, const ChebyshevPlan& plan) {
    backend_.rotate_phase(current_, 0.5 * dt);
    for (long n = 0; n < steps; ++n) {
      apply_chebyshev(backend_, plan, current_, t_.id(), spare_);
      std::swap(current_, spare_);
      backend_.rotate_phase(current_, n + 1 < steps ? dt : 0.5 * dt);
    }
    last_ = &plan;
  }

  /// The plan of an adaptive step: the ladder's steps recur, each planned once (a deque, so that
  /// last_ stays valid as plans are added).
  const ChebyshevPlan& plan_for(double dt) {
    if (dt == dt_) {
      return plan_;
    }
    for (const auto& [tau, plan] : adaptive_plans_) {
      if (tau == dt) {
        return plan;
      }
    }
    return adaptive_plans_
        .emplace_back(dt, plan_chebyshev(backend_.problem().grid, dt, kChebyshevTolerance))
        .second;
  }

  ChebyshevPlan plan_;
  OwnedVector psi_, t_, acc_;
  VectorId spare_; ///< psi_ or acc_, whichever current_ is not: they swap roles each step
  std::deque<std::pair<double, ChebyshevPlan>> adaptive_plans_;
  const ChebyshevPlan* last_;
};

} // namespace

ChebyshevPlan plan_chebyshev(const Grid& grid, double tau, double tolerance) {
  const auto [lower, upper] = kinetic_interval(grid);
  ChebyshevPlan plan;
  plan.centre = 0.5 * (lower + upper);
  plan.half_width = 0.5 * (upper - lower);
  const double z = tau * plan.half_width;
  // Beyond n ≈ z the |J_n(z)| fall faster than geometrically; this many always reach 1e-16.
  const int most = static_cast<int>(z + 10.0 * std::cbrt(z + 1.0)) + 40;
  const std::vector<double> j = bessel_j(most, z);
  std::vector<double> tail(j.size() + 1, 0.0); // tail[k] = Σ_{m ≥ k} 2|J_m|
  for (std::size_t k = j.size(); k-- > 0;) {
    tail[k] = tail[k + 1] + 2.0 * std::abs(j[k]);
  }
  std::size_t degree = 1;
  while (degree + 1 < j.size() && tail[degree + 1] > tolerance) {
    ++degree;
  }
  const Complex shift{std::cos(tau * plan.centre), -std::sin(tau * plan.centre)};
  const Complex minus_i_power[4] = {{1.0, 0.0}, {0.0, -1.0}, {-1.0, 0.0}, {0.0, 1.0}};
  for (std::size_t k = 0; k <= degree; ++k) {
    const double weight = (k == 0 ? 1.0 : 2.0) * j[k];
    plan.coefficients.push_back(weight * mul(shift, minus_i_power[k % 4]));
  }
  plan.error_bound = tail[degree + 1];
  return plan;
}

void apply_chebyshev(Backend& backend, const ChebyshevPlan& plan, VectorId psi, VectorId t,
                     VectorId acc) {
  // Y = (½L − centre)/half_width; T_0 = ψ, T_1 = Yψ, T_{k+1} = 2Y T_k − T_{k−1}, each written over
  // T_{k−1}. α multiplies Σ_F w_F(ψ_i − ψ_j) = Lψ, hence the ½.
  const double r = plan.half_width, c = plan.centre;
  const std::vector<Complex>& coef = plan.coefficients;
  const int degree = plan.degree();
  // The first term starts the sum: acc ← c₀ψ + c₁T₁ in its pass.
  backend.polynomial_term(
      {psi, kNoVector, t, acc, 0.5 / r, -c / r, 0.0, coef[1], degree == 1, true, coef[0]});
  VectorId older = psi, newer = t;
  for (int k = 2; k <= degree; ++k) {
    backend.polynomial_term(
        {newer, older, older, acc, 1.0 / r, -2.0 * c / r, -1.0, coef[k], k == degree});
    std::swap(older, newer);
  }
}

std::unique_ptr<Scheme> make_exponential(Backend& backend, double dt) {
  return std::make_unique<Exponential>(backend, dt);
}

} // namespace decgpe
