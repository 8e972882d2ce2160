#pragma once
// How large a time step the operator allows. Every explicit scheme for ψ' = −i M(ψ)ψ is stable
// while Δt·ρ(M) stays inside its stability interval on the imaginary axis (leapfrog 1, RK4 2√2),
// with ρ the spectral radius of M(ψ⁰) = ½L + V + g|ψ⁰|² frozen at the initial state. M is
// self-adjoint in the |B|-weighted inner product, so its spectrum is real; V < 0 or g < 0 can make
// it negative, which is why ρ, not max M_ii, sets the limit.

#include "solvers/domain_reduction.hpp"
#include "solvers/problem.hpp"

#include <span>
#include <string>

namespace decgpe {

struct SpectrumEstimate {
  double radius = 0.0;        ///< the ρ(M) the limits use: min(lanczos_upper, gershgorin)
  double gershgorin = 0.0;    ///< max_i (½Σ_F (w_F + |w_F|) + |U_i|), U = V + g|ψ|²: rigorous
  double lanczos_upper = 0.0; ///< max over both ends of |Ritz value| + its residual norm
  double lambda_max = 0.0;    ///< largest Ritz value (≤ λ_max(M))
  double lambda_min = 0.0;    ///< smallest Ritz value (≥ λ_min(M))
  int iterations = 0;         ///< Lanczos steps taken
  std::string method;         ///< "lanczos" or "gershgorin": which of the two set `radius`
};

/// The Gershgorin bound alone: safe for any sign of V and g, up to (Σw + |U|)/(Σw/2 + U) × too
/// cautious. With a layout, `grid` and ψ are this rank's part and the bound is the whole domain's.
double gershgorin_radius(const Grid& grid, const Potential& potential, double g,
                         std::span<const Complex> psi, const DomainReduction* layout = nullptr);

/// `iterations` Lanczos steps on M(ψ) from a fixed pseudo-random start. The result depends neither
/// on the thread count nor on the split over ranks (`layout`, with `grid` and ψ this rank's part;
/// null: the whole domain here). Each extreme Ritz value θ with residual norm r has an eigenvalue
/// within r of it; θ + r estimates the spectrum's end from outside, and the Gershgorin bound caps
/// it.
SpectrumEstimate estimate_spectrum(const Grid& grid, const Potential& potential, double g,
                                   std::span<const Complex> psi, int iterations = 80,
                                   const DomainReduction* layout = nullptr);

} // namespace decgpe
