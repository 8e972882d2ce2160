#pragma once
// Unitary Trotter–Suzuki splitting on the DEC graph (after Wittek & Cucchietti's distributed
// solver): the kinetic operator ½L is a sum of one 2×2 Hermitian block per face; the faces are
// coloured into matchings (solvers/face_colouring.hpp) and each colour's blocks are exponentiated
// exactly at once. One second-order step of size τ is
//   K_0(τ/2) … K_{C−1}(τ/2)  P(τ)  K_{C−1}(τ/2) … K_0(τ/2),   P(τ) = exp(−iτ(V + g|ψ|²)),
// every factor unitary in the |B|-weighted norm: the norm is conserved to round-off and no Δt is
// unstable. The fourth-order scheme is Suzuki's fractal composition of five such steps.

#include "solvers/schemes/scheme.hpp"

namespace decgpe {

std::unique_ptr<Scheme> make_trotter_suzuki(Backend& backend, double dt);
std::unique_ptr<Scheme> make_trotter_suzuki4(Backend& backend, double dt);

} // namespace decgpe
