#pragma once
// What a run measures of ψ on the host at its own cadence (time.spectrum_every), beside the
// backend's diagnostics: the azimuthal spectrum of the density change on z = 0 (how a split grows,
// mode by mode) and the per-cell sums of the paper's RMSE, (1/m Σ_i |Ψ_i − ψ_i|²)^½, whose cells
// count equally whatever their volume (the backend's norm and overlap weigh them by volume).

#include "solvers/splitting.hpp"

#include <cstdint>

namespace decgpe {

struct ProbeSample {
  std::int64_t step = 0;
  double t = 0.0;
  std::vector<double> azimuthal_amplitude; ///< |c_m|, m = 0 … 12 (azimuthal_spectrum)
  double cell_norm = 0.0;                  ///< Σ_i |ψ_i|²
  Complex cell_overlap{0.0, 0.0};          ///< Σ_i conj(ψ₀_i) ψ_i
};

/// The sample of the whole domain `grid`.
ProbeSample probe(const Grid& grid, std::span<const Complex> psi, std::span<const Complex> psi0,
                  std::int64_t step, double t);

/// Σ_i |ψ_i|² and Σ_i conj(ψ₀_i) ψ_i over each owned z-slice of `grid`, in slice order: added in
/// order (over ranks, Decomposition::sum_slices) they are ProbeSample's cell sums, the same bits
/// for every split.
struct SliceSums {
  std::vector<double> norm, overlap_re, overlap_im;
};
SliceSums cell_sums_by_slice(const Grid& grid, std::span<const Complex> psi,
                             std::span<const Complex> psi0);

} // namespace decgpe
