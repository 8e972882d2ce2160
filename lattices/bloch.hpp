#pragma once
// Bloch analysis of the DEC Laplacian on a periodic complex: the consistency measure for non-cubic
// lattices, whose pointwise truncation error does not vanish as h → 0 while their dispersion
// converges at second order.

#include "cell_complex.hpp"

#include <complex>
#include <vector>

namespace decgpe::lattices {

/// Lowest eigenvalue λ₀(k) of the DEC Laplacian restricted to plane waves u_j = a_{l(j)} e^{i
/// k·c_j}, at structure edge 1 (k in inverse structure edges). For the exact Laplacian λ₀ = |k|²; k
/// must be non-zero.
double lowest_bloch_eigenvalue(const CellComplex& complex, const Vec3& k);

/// Effective spacing h_eff = (structure volume / m_s)^(1/3): the edge of a cube with one cell's
/// volume.
double effective_spacing(const CellComplex& complex);

/// Quasi-uniform unit directions on the sphere (Fibonacci lattice), deterministic.
std::vector<Vec3> sphere_directions(int count);

} // namespace decgpe::lattices
