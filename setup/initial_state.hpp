#pragma once
// Initial states with known time dependence, sampled at the dual 0-cells.

#include "solvers/complex.hpp"
#include "solvers/grid.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace decgpe {

/// The g = 0 harmonic-oscillator vortex eigenstate ψ ∝ (x + iy)^κ e^{−(ρ² + λz²)/2} e^{−iμt} of
/// V = ½(x² + y² + λ²z²), with μ = κ + 1 + λ/2.
struct HarmonicVortex {
  int kappa = 1;
  double lambda = 1.0;

  double mu() const { return kappa + 1.0 + 0.5 * lambda; }
  Complex value(const lattices::Vec3& r, double t) const; ///< unnormalised
};

/// `state` moved by `offset`, the trap left where it is: value(r, t) = state.value(r − offset, t).
/// Not stationary: in the harmonic trap its centre of mass oscillates at the trap frequencies.
template <class State> struct Displaced {
  State state;
  lattices::Vec3 offset;

  double mu() const { return state.mu(); } ///< the unmoved state's
  Complex value(const lattices::Vec3& r, double t) const { return state.value(r - offset, t); }
};

/// A straight vortex line along z through (x0, y0): the phase q·atan2(y − y0, x − x0), which winds
/// by 2πq counter-clockwise about +z.
struct LineVortex {
  double x0 = 0.0, y0 = 0.0;
  int charge = 1;
};

/// A vortex ring of radius R about the axis through (x0, y0) along z, in the plane z = z0: the
/// phase q·atan2(z − z0, R − ρ), ρ the distance from the axis, which winds by 2πq around the core
/// circle, right-handed about the azimuthal direction φ̂ (counter-clockwise seen from +z). For
/// q > 0 the vorticity runs along φ̂ and the phase grows with z through the ring: the flow runs
/// along +z there, the way the ring moves.
struct VortexRing {
  double x0 = 0.0, y0 = 0.0, z0 = 0.0, radius = 1.0;
  int charge = 1;
};

/// Vortices imprinted as a pure phase, ψ ← ψ e^{iθ(r)}: the density is left as it is (the cores
/// fill in as ψ evolves, as after a phase imprint in the laboratory), so the imprint keeps the norm
/// and needs no length scale for the core.
struct PhaseImprint {
  std::vector<LineVortex> lines;
  std::optional<VortexRing> ring;

  double phase(const lattices::Vec3& r) const; ///< θ(r), the lines' and the ring's summed
};

/// ψ_i ← ψ_i e^{iθ(r_i)} at every cell.
void apply_imprint(const Grid& grid, const PhaseImprint& imprint, std::span<Complex> psi);

/// A perturbation of chosen azimuthal content, the same function of position on every lattice:
/// ψ(r) (1 + ε Σ_m cos(mφ + θ_m)), φ the azimuth about the z axis.
struct AzimuthalSeed {
  std::vector<int> modes;
  double amplitude = 0.0;     ///< ε
  std::vector<double> phases; ///< θ_m, one per entry of `modes`

  /// The phases of m = 1…8 drawn in that order from `seed` (std::mt19937_64, whose sequence the
  /// standard fixes; 53-bit uniforms made here, not by a library distribution), then those of
  /// `modes` picked: a mode's phase is the same whichever other modes are chosen.
  static AzimuthalSeed draw(std::vector<int> modes, double amplitude, std::uint64_t seed);
  double factor(const lattices::Vec3& r) const; ///< 1 + ε Σ_m cos(mφ + θ_m)
};

/// ψ_i ← ψ_i · seed.factor(r_i) at every cell.
void apply_seed(const Grid& grid, const AzimuthalSeed& seed, std::span<Complex> psi);

/// ψ(r_i, t) · scale at every cell of the grid, for any state with value(r, t) (HarmonicVortex,
/// StationaryVortex). `poll` (may be empty) is called before each block of 2¹⁶ cells and may throw
/// to abandon the sampling: a large grid takes seconds.
template <class State>
std::vector<Complex> sample(const Grid& grid, const State& state, double t, double scale,
                            const std::function<void()>& poll = {}) {
  constexpr std::int64_t kBlock = std::int64_t{1} << 16;
  std::vector<Complex> psi(static_cast<std::size_t>(grid.cells()));
  for (std::int64_t begin = 0; begin < grid.cells(); begin += kBlock) {
    if (poll) {
      poll();
    }
    const std::int64_t end = std::min(grid.cells(), begin + kBlock);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = begin; i < end; ++i) {
      psi[static_cast<std::size_t>(i)] = scale * state.value(grid.position(i), t);
    }
  }
  return psi;
}

/// Σ_i |B_i| |ψ_i|² over each owned z-slice of the grid, in slice order.
std::vector<double> slice_norms(const Grid& grid, std::span<const Complex> psi);

/// Σ_i |B_i| |ψ_i|², the discrete norm with per-cell volumes: the slice norms added in order (so a
/// split over ranks, Decomposition::sum_slices, gets the same bits).
double grid_norm(const Grid& grid, std::span<const Complex> psi);

/// ψ(r_i, t) scaled so that its discrete norm is 1: the state the tests and benchmarks start from.
std::vector<Complex> sample_normalised(const Grid& grid, const HarmonicVortex& state, double t);

} // namespace decgpe
