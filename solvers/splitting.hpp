#pragma once
// How a vortex splits (paper Fig 6): the azimuthal Fourier spectrum of the density change on the
// plane z = 0.
//
// The spectrum is taken of δρ_i = |ψ_i(t)|² − |ψ₀_i|² over the cells of a slab |z| < half a
// structure around z = 0, with per-cell volumes: c_m = Σ |B_i| δρ_i e^{−imφ_i}. The initial state
// is axisymmetric and sampled on the same cells, so the lattice's own m-fold sampling pattern
// cancels out of δρ; what is left is the perturbation the grid seeded and the instability grew.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <span>
#include <vector>

namespace decgpe {

struct AzimuthalSpectrum {
  std::vector<double> amplitude; ///< |c_m| for m = 0 … max_m
  int fold = 0;                  ///< the dominant m ≥ 2
};

AzimuthalSpectrum azimuthal_spectrum(const Grid& grid, std::span<const Complex> psi,
                                     std::span<const Complex> psi0, int max_m = 12);

/// The global z-slices of structures [first, second) that hold every cell of that slab: what a
/// rank gathers of a domain split over ranks to take the spectrum (the grid's, or its whole
/// domain's when it is a slab).
std::pair<int, int> plane_slices(const Grid& grid);

/// The cells of that slab: positions x, y and the densities |ψ|², |ψ₀|² (for the Fig 6 images).
struct PlaneSample {
  std::vector<double> x, y, density, initial_density;
};
PlaneSample sample_plane(const Grid& grid, std::span<const Complex> psi,
                         std::span<const Complex> psi0);

} // namespace decgpe
