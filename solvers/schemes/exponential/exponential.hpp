#pragma once
// Exponential Strang splitting (after Einkemmer & Ostermann's GPU exponential integrators): the
// stiff kinetic part exp(−iτ ½L) by a Chebyshev polynomial of the stencil operator, each term one
// fused pass of the backend (Backend::polynomial_term), and the potential and nonlinear phase
// exactly:  ψ ← P(τ/2) E(τ) P(τ/2) ψ,  P(τ) = exp(−iτ(V + g|ψ|²)),  E(τ) ≈ exp(−iτ ½L).
// Second order; the step is limited by accuracy, not stability, and the degree grows with τ·ρ(½L).

#include "solvers/grid.hpp"
#include "solvers/schemes/scheme.hpp"

#include <vector>

namespace decgpe {

/// exp(−iτx) on the kinetic operator's spectral interval [centre ∓ half_width] (Gershgorin, so
/// rigorous) as Σ_k coefficients[k] T_k((x − centre)/half_width).
struct ChebyshevPlan {
  double centre = 0.0, half_width = 0.0;
  std::vector<Complex> coefficients; ///< degree + 1 of them
  /// Σ_{k > degree} |c_k|: bounds ‖E(τ) − exp(−iτ½L)‖ in the |B|-weighted norm, as |T_k| ≤ 1 on
  /// the interval.
  double error_bound = 0.0;
  int degree() const { return static_cast<int>(coefficients.size()) - 1; }
};

/// The tolerance the exponential scheme asks of its polynomial, per step and relative to ‖ψ‖.
inline constexpr double kChebyshevTolerance = 1e-12;

/// The lowest degree whose truncation bound is at most `tolerance`.
ChebyshevPlan plan_chebyshev(const Grid& grid, double tau, double tolerance);

/// acc ← E(τ)·psi with the plan's polynomial; psi and t are overwritten (work vectors).
void apply_chebyshev(Backend& backend, const ChebyshevPlan& plan, VectorId psi, VectorId t,
                     VectorId acc);

std::unique_ptr<Scheme> make_exponential(Backend& backend, double dt);

} // namespace decgpe
