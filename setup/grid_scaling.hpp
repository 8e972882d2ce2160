#pragma once
// Choosing the scale h of a lattice the way the paper's accuracy study does (§5.1, Table 1): equal
// work per unit of simulated time across lattices, Σ_i #J_i / Δt, with Δt a fixed fraction of eq.
// 11's bound.

#include "solvers/grid.hpp"

#include <array>

namespace decgpe {

/// Σ_i #J_i over the grid, #J_i = faces of cell i + 1 (its neighbours and itself): the work of one
/// step.
double operations_per_step(const Grid& grid);

/// max_i (½ Σ_F w_F + V_i) for V = ½(x² + y² + λ²z²): eq. 11's diagonal without the density term. V
/// is convex, so the maximum lies in one of the eight corner structure instances, and only those
/// are scanned.
double max_diagonal_without_density(const Grid& grid, double lambda);

struct OperationScale {
  double h;                   ///< structure edge
  std::array<int, 3> size;    ///< S covering the cuboid
  double operations_per_time; ///< Σ_i #J_i / Δt at that h (Δt from the density-free bound)
};

/// The largest h at which Σ_i #J_i / Δt ≥ target on the cuboid `extent` centred on the origin, with
/// Δt = fraction / (2 max_diagonal_without_density). At the domain's corners, where eq. 11's
/// maximum lies for an eq. 15 cuboid, ψ (and with it the density term) is 1e-5 of its peak or less.
OperationScale scale_for_operations(const lattices::CellComplex& complex,
                                    std::array<double, 3> extent, lattices::Vec3 shift,
                                    double lambda, double fraction, double target);

/// Mean and largest dual-edge length |E*| of the lattice at scale h (Table 1's quantity).
std::array<double, 2> dual_edge_lengths(const lattices::CellComplex& complex, double h);

} // namespace decgpe
