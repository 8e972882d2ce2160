#pragma once
// The paper's leapfrog (eq. 7, Algorithm 1): ψ^{n+1} = ψ^{n−1} − 2iΔt M(ψ^n)ψ^n on two buffers that
// swap roles, one fused kernel per step. It conserves Re⟨ψ^{n−1}, ψ^n⟩ exactly.
//
// Start-up: ψ^{−1} by one backward RK4 step of the discrete operator (local error O(Δt⁵)), so the
// scheme is second order in time. The paper's start, ψ^{−1} sampled from the continuum state at
// −Δt, differs from the discrete flow by O(Δt·h²) and excites the (−1)ⁿ mode: first order in time;
// it stays available (StartLevels::previous) to reproduce the paper's numbers.

#include "solvers/schemes/scheme.hpp"

namespace decgpe {

std::unique_ptr<Scheme> make_leapfrog(Backend& backend, double dt);

} // namespace decgpe
