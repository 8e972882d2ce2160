#pragma once
// `cubic4`: the cubic grid with NLSEmagic's fourth-order Laplacian instead of the DEC one, as an
// operator alternative for every scheme and backend. NLSEmagic's 2SHOC computes it in two compact
// passes, Δ₄u = Δ₂u − (s²/12) Σ_axes δ⁴u; on a grid that operator is the 13-point stencil with
// weights 16/(12s²) to the six nearest cells and −1/(12s²) to the six at distance 2s, which is
// what the stencil table holds (one pass). The replicable structure is 2×2×2 cells (spacing s =
// h/2) so that the second neighbours lie in adjacent structure instances, as the kernels require.
// Not a DEC complex: the weights are difference coefficients, some negative.

#include "lattices/cell_complex.hpp"

namespace decgpe::lattices {

CellComplex build_cubic4_complex();

} // namespace decgpe::lattices
