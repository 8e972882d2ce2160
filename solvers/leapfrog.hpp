#pragma once
// The arithmetic of one leapfrog update of one dual 0-cell (paper eq. 7), shared by every backend
// so that they agree bit for bit where their compilers do not contract a·b + c into a fused
// multiply-add.

#include "solvers/complex.hpp"

namespace decgpe {

/// One face's contribution to Σ_F w_F (ψ_i − ψ_j); faces are always summed in stencil-table order.
DECGPE_HD Complex add_face(Complex laplacian, double weight, Complex psi_i, Complex psi_j) {
  return laplacian + weight * (psi_i - psi_j);
}

/// ψ^{n+1}_i = ψ^{n−1}_i − 2iΔt [½ Σ_F w_F (ψ_i − ψ_j) + (V_i + g|ψ_i|²) ψ_i], all at level n.
DECGPE_HD Complex leapfrog_update(Complex previous, Complex psi, Complex laplacian, double v,
                                  double g, double two_dt) {
  const double u = v + g * norm2(psi);
  const Complex m_psi = 0.5 * laplacian + u * psi;
  return {previous.re + two_dt * m_psi.im, previous.im - two_dt * m_psi.re};
}

} // namespace decgpe
