#pragma once
// Classical RK4 (the integrator of NLSEmagic) for ψ' = −i M(ψ)ψ, in four fused stages that each
// read and write ψ once: 256 B per cell and step (48 + 80 + 80 + 48).

#include "solvers/schemes/scheme.hpp"

namespace decgpe {

/// The vectors of one RK4 step: ψ (the base), the accumulator, and two stage inputs used in turn.
struct Rk4Vectors {
  VectorId psi, acc, stage_a, stage_b;
};

/// Whether a step's four stages go to the backend together, which may fuse them at the cost of a
/// spare vector (Backend::rk4_stages), or one by one (a single step, as the leapfrog's start).
enum class Rk4Stages { together, one_by_one };

/// One RK4 step of size dt (negative: backwards) from ψ; the result goes to `out`, which may be
/// ψ itself or the accumulator.
void rk4_step(Backend& backend, const Rk4Vectors& v, double dt, VectorId out,
              Rk4Stages stages = Rk4Stages::together);

/// One step of the damped (i − γ)∂ψ/∂t = (M(ψ) − μ)ψ in ψ (v.psi), μ = ⟨ψ, M(ψ)ψ⟩ at the step's
/// start, renormalised to Σ|B||ψ|² = 1, from apply_m, axpby and two reductions (six stencil
/// passes).
void damped_rk4_step(Backend& backend, const Rk4Vectors& v, double dt, double gamma);

std::unique_ptr<Scheme> make_rk4(Backend& backend, double dt);

} // namespace decgpe
