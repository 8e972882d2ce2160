#pragma once
// How large a time step the operator allows. An explicit scheme for ψ' = −i M(ψ)ψ is stable while
// Δt·ω stays inside its stability interval on the imaginary axis (leapfrog 1, RK4 2√2), with ω the
// spectral radius of the linearisation a perturbation of ψ feels: −iJ, J δ = M(ψ)δ + g(|ψ|²δ +
// ψ²δ̄), M(ψ) = ½L + V + g|ψ|² (at ψ⁰ when the run starts; at the current state in the stability
// watch). With g = 0, J = M and ω = ρ(M). Where g|ψ|² dominates, ω approaches √3 g max|ψ|² while
// ρ(M) is g max|ψ|²: a limit from M alone is up to 1.73× too long. M is self-adjoint in the
// |B|-weighted inner product, so its spectrum is real (in a rotating frame, M's magnetic Laplacian
// is complex Hermitian: its Lanczos runs on complex vectors); V < 0 or g < 0 can make it negative,
// which is why the spectrum's ends, not max M_ii, set the limit.

#include "solvers/domain_reduction.hpp"
#include "solvers/problem.hpp"

#include <functional>
#include <span>
#include <string>

namespace decgpe {

struct SpectrumEstimate {
  double radius = 0.0;        ///< the ω the limits use (see `method`)
  double frozen_radius = 0.0; ///< ρ(M(ψ)): min(lanczos_upper, gershgorin)
  double max_density = 0.0;   ///< max_i |ψ_i|²
  double gershgorin = 0.0;    ///< max_i (½Σ_F (w_F + |w_F|) + |U_i|), U = V + g|ψ|²: rigorous
  double lanczos_upper = 0.0; ///< max over both ends of |Ritz value| + its residual norm
  double lambda_max = 0.0;    ///< largest Ritz value (≤ λ_max(M))
  double lambda_min = 0.0;    ///< smallest Ritz value (≥ λ_min(M))
  int iterations = 0;         ///< Lanczos steps taken
  /// What set `radius`: "lanczos" or "gershgorin" (g = 0, ω = ρ(M)); with g ≠ 0 "linearised, by
  /// lanczos" (J positive definite: Lanczos on K δ = iJ(−iJδ) in J's inner product, ω = √(θ_max
  /// + its residual), sharp), "linearised, |J| by lanczos" (ω ≤ ‖J‖, sharp where the extreme mode
  /// lives where ψ ≈ 0) or "linearised, by gershgorin" (ω ≤ M's Gershgorin bound + 2|g| max|ψ|²).
  std::string method;
};

/// The Gershgorin bound alone: safe for any sign of V and g, up to (Σw + |U|)/(Σw/2 + U) × too
/// cautious. With a layout, `grid` and ψ are this rank's part and the bound is the whole domain's.
double gershgorin_radius(const Grid& grid, const Potential& potential, double g,
                         std::span<const Complex> psi, const DomainReduction* layout = nullptr);

/// `iterations` Lanczos steps on M(ψ) (and as many on J's K when g > 0 and M is positive
/// definite) from a fixed pseudo-random start. The result depends neither
/// on the thread count nor on the split over ranks (`layout`, with `grid` and ψ this rank's part;
/// null: the whole domain here). Each extreme Ritz value θ with residual norm r has an eigenvalue
/// within r of it; θ + r estimates the spectrum's end from outside, and the Gershgorin bound caps
/// it.
/// `poll` (optional) is called at every Lanczos step: a set-up's check for a stop signal, which
/// may throw to leave the estimate.
SpectrumEstimate estimate_spectrum(const Grid& grid, const Potential& potential, double g,
                                   std::span<const Complex> psi, int iterations = 80,
                                   const DomainReduction* layout = nullptr,
                                   const std::function<void()>& poll = {});

/// estimate_spectrum's part for M(ψ) alone (`radius` = `frozen_radius`): what a relaxation on M
/// needs.
SpectrumEstimate estimate_m_spectrum(const Grid& grid, const Potential& potential, double g,
                                     std::span<const Complex> psi, int iterations = 80,
                                     const DomainReduction* layout = nullptr,
                                     const std::function<void()>& poll = {});

/// λ_max(½L) (Ritz value + residual): the fastest kinetic phase rate. The split schemes are stable
/// at any Δt but resolve the dynamics only while Δt·λ_max(½L) < π: beyond it the kinetic phase of
/// the stencil's fastest modes wraps in one step and they heat the state.
inline constexpr double kKineticPhaseLimit = 3.14159265358979323846;
double kinetic_top(const Grid& grid, int iterations = 80, const DomainReduction* layout = nullptr,
                   const std::function<void()>& poll = {});
/// λ_max(½L_A) of the magnetic Laplacian in a rotating frame (kinetic_top() when it does not
/// rotate): its Gershgorin bound is ½L's, but its top can lie above ½L's on a non-bipartite graph.
double kinetic_top(const Grid& grid, const Rotation& rotation, int iterations = 80,
                   const DomainReduction* layout = nullptr, const std::function<void()>& poll = {});

} // namespace decgpe
