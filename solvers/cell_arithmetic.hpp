#pragma once
// The arithmetic of one dual 0-cell, written once for every backend and every scheme. Backends call
// these in the same order with the same operands, and none of them contracts a·b + c into a fused
// multiply-add (the CUDA sources build with --fmad=false), so their states agree bit for bit.

#include "solvers/complex.hpp"

#include <cmath>

namespace decgpe {

/// V(r) = ½(x² + y² + λ²z²), the trap of the paper's cases.
DECGPE_HD double harmonic_potential(double x, double y, double z, double lambda) {
  return 0.5 * (x * x + y * y + lambda * lambda * (z * z));
}

/// One face's contribution to Σ_F w_F (ψ_i − ψ_j); faces are always summed in stencil-table order,
/// with ψ_j = 0 beyond the domain (Dirichlet).
DECGPE_HD Complex add_face(Complex laplacian, double weight, Complex psi_i, Complex psi_j) {
  return laplacian + weight * (psi_i - psi_j);
}

/// (M(ψ)ψ)_i = ½ Σ_F w_F (ψ_i − ψ_j) + (V_i + g|ψ_i|²) ψ_i: the discrete Hamiltonian (paper eq. 6).
DECGPE_HD Complex apply_m(Complex psi, Complex laplacian, double v, double g) {
  const double u = v + g * norm2(psi);
  return 0.5 * laplacian + u * psi;
}

/// base − iτ m: one explicit move along the flow ψ' = −i M(ψ)ψ with m = M(ψ)ψ. The leapfrog step is
/// step_along(ψ^{n−1}, 2Δt, Mψ^n); each RK4 stage is two of these.
DECGPE_HD Complex step_along(Complex base, double tau, Complex m) {
  return {base.re + tau * m.im, base.im - tau * m.re};
}

/// a x + b y with complex a, b.
DECGPE_HD Complex axpby(Complex a, Complex x, Complex b, Complex y) {
  return mul(a, x) + mul(b, y);
}

/// exp(−iτ(V + g|ψ|²)) ψ: the exact flow of the potential and the nonlinearity over τ (|ψ| is
/// constant along it). sin and cos round differently in glibc and CUDA's libdevice, so this kernel
/// agrees across CPU and GPU to an ulp, not bitwise.
DECGPE_HD Complex rotate_phase(Complex psi, double v, double g, double tau) {
  const double angle = -tau * (v + g * norm2(psi));
  return mul(Complex{cos(angle), sin(angle)}, psi);
}

DECGPE_HD bool finite(double x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

/// Partial sums of the diagnostics over some cells. Partial sums of slabs, blocks or threads
/// combine by adding (max for the maxima). Trivial, so that it can live in CUDA shared memory:
/// value-initialise it (CellSums s{}) for zeros.
struct CellSums {
  double norm;         ///< Σ|B_i| |ψ_i|²
  double energy;       ///< Σ|B_i| [conj(ψ_i) (½Lψ)_i + V_i|ψ_i|² + ½g|ψ_i|⁴]
  double invariant;    ///< Re Σ|B_i| conj(ψ^{n−1}_i) ψ_i (leapfrog's conserved quantity)
  double overlap_re;   ///< Re Σ|B_i| conj(ψ₀_i) ψ_i
  double overlap_im;   ///< Im of the same
  double max_abs;      ///< max |ψ_i|
  double max_diagonal; ///< max (½ Σ_F w_F + V_i + g|ψ_i|²), eq. 11's diagonal
  double nonfinite;    ///< cells with a non-finite ψ_i
};

/// Cell i's terms; `previous` is ψ^{n−1}_i, or zero for schemes with one level.
DECGPE_HD void accumulate(CellSums& s, double volume, double weight_sum, Complex previous,
                          Complex psi, Complex reference, Complex laplacian, double v, double g) {
  const double rho = norm2(psi);
  const Complex overlap = conj_mul(reference, psi);
  s.norm += volume * rho;
  s.energy += volume * (0.5 * conj_mul(psi, laplacian).re + v * rho + 0.5 * g * rho * rho);
  s.invariant += volume * conj_mul(previous, psi).re;
  s.overlap_re += volume * overlap.re;
  s.overlap_im += volume * overlap.im;
  s.max_abs = fmax(s.max_abs, sqrt(rho));
  s.max_diagonal = fmax(s.max_diagonal, 0.5 * weight_sum + v + g * rho);
  s.nonfinite += (finite(psi.re) && finite(psi.im)) ? 0.0 : 1.0;
}

DECGPE_HD CellSums combine(const CellSums& a, const CellSums& b) {
  return {a.norm + b.norm,
          a.energy + b.energy,
          a.invariant + b.invariant,
          a.overlap_re + b.overlap_re,
          a.overlap_im + b.overlap_im,
          fmax(a.max_abs, b.max_abs),
          fmax(a.max_diagonal, b.max_diagonal),
          a.nonfinite + b.nonfinite};
}

} // namespace decgpe
