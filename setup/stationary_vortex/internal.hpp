#pragma once
// What the stationary vortex's three parts share: quadrature.cpp (the oscillator bases and their
// Gauss nodes), relaxation.cpp (eq. 14 discretised, relaxed, cached) and table.cpp (the
// interpolation table and everything evaluated from it). Internal to setup/.

#include "setup/stationary_vortex.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

namespace decgpe {

namespace vortex_detail {

constexpr double kResidualTolerance = 1e-12; ///< relaxation stops below this relative residual
constexpr double kTailTolerance = 1e-10; ///< the default resolution's bound on the highest modes
constexpr int kTailModes = 2;            ///< how many highest modes spectral_tail() looks at
// The outermost Gauss node sits near s = 4n, where the modes carry e^{−s/2}; this keeps it well
// inside the double range.
constexpr int kMaxModes = 320;
constexpr int kMaxIterations = 20000;
constexpr int kCheckEvery = 10;   ///< iterations between max-norm residual checks
constexpr int kResyncEvery = 100; ///< iterations between recomputing the nodal state from the modes
constexpr int kStencil = 8;       ///< interpolation points per direction
constexpr int kPad = kStencil / 2;
constexpr double kCut = 1e-15; ///< f/max f beyond the tabulated domain
inline const double kNorm =
    1.0 / std::sqrt(4.0 * std::numbers::pi); ///< f = kNorm · (normalised state)

/// One direction's oscillator basis on x ≥ 0 with measure x^{dim−1} dx: the modes
/// φ_k = √(2ω^{dim/2}) s^{ell/2} e^{−s/2} p_k(s), s = ωx², where p_k are the orthonormal Laguerre
/// polynomials of weight s^α e^{−s}, α = ell + dim/2 − 1, and the mode energy is ω(2k + α + 1).
/// Radially: the 2D oscillator of angular momentum κ. Axially: the even 1D oscillator functions.
struct Shape {
  double omega;
  double ell;
  double dim;
  double alpha() const { return ell + 0.5 * dim - 1.0; }
};

inline Shape radial_shape(const VortexParameters& p) {
  return {1.0, static_cast<double>(p.kappa), 2.0};
}
inline Shape axial_shape(const VortexParameters& p) {
  return {p.lambda, 0.0, 1.0};
}

/// φ_k(x) for k < n, by the three-term recurrence √b_{k+1} p_{k+1} = (s − a_k) p_k − √b_k p_{k−1}
/// with a_k = 2k + α + 1, b_k = k(k + α).
void modes_at(const Shape& shape, int n, double x, double* out);

/// One direction as a discrete variable representation: the functions θ_i = Σ_k u_ki φ_k are 1 at
/// their own Gauss node x_i (up to the factor b_i) and 0 at the others, so a state Σ_i c_i θ_i has
/// f(x_i) = c_i b_i, ∫f² x^{dim−1}dx = Σ c_i², and u (orthogonal) maps nodes to modes.
struct Dvr {
  Shape shape;
  int n = 0;
  std::vector<double> x, b, u, ut, energy; ///< u[k n + i] = φ_k(x_i) / b_i; ut its transpose
};

Dvr make_dvr(const Shape& shape, int n);

/// c = a b with a (m × k), b (k × n), row-major. Column blocks keep a block of b in cache while
/// all rows pass; threads only where the work outweighs their start-up.
void matmul(const double* a, const double* b, double* c, int m, int k, int n);

double dot(const std::vector<double>& x, const std::vector<double>& y);

/// The 2D problem in the tensor product of both directions. A state y (nodes, radial index
/// slowest) is normalised, Σ y² = 1, and f = kNorm · y_ij b_i b_j. Modal coefficients a = U_ρ y
/// U_zᵀ.
struct Discretisation {
  Discretisation(const VortexParameters& p, VortexResolution r)
      : rho(make_dvr(radial_shape(p), r.radial)), z(make_dvr(axial_shape(p), r.axial)),
        nr(r.radial), nz(r.axial) {
    const std::size_t size = std::size_t(nr) * nz;
    energy.resize(size), scale.resize(size), coupling.resize(size), potential.resize(size);
    for (int i = 0; i < nr; ++i) {
      for (int j = 0; j < nz; ++j) {
        const std::size_t ij = std::size_t(i) * nz + j;
        energy[ij] = rho.energy[i] + z.energy[j];
        scale[ij] = kNorm * rho.b[i] * z.b[j];
        coupling[ij] = p.g * scale[ij] * scale[ij];
        potential[ij] = 0.5 * (rho.x[i] * rho.x[i] + p.lambda * p.lambda * z.x[j] * z.x[j]);
      }
    }
  }

  std::vector<double> to_modal(const std::vector<double>& nodal) const {
    std::vector<double> tmp(nodal.size()), out(nodal.size());
    matmul(rho.u.data(), nodal.data(), tmp.data(), nr, nr, nz);
    matmul(tmp.data(), z.ut.data(), out.data(), nr, nz, nz);
    return out;
  }
  std::vector<double> to_nodal(const std::vector<double>& modal) const {
    std::vector<double> tmp(modal.size()), out(modal.size());
    matmul(rho.ut.data(), modal.data(), tmp.data(), nr, nr, nz);
    matmul(tmp.data(), z.u.data(), out.data(), nr, nz, nz);
    return out;
  }
  /// max |r f-values| / (μ max |f|): eq. 14's relative residual on the nodes.
  double relative_residual(const std::vector<double>& r_modal, const std::vector<double>& y,
                           double mu) const {
    const std::vector<double> r = to_nodal(r_modal);
    double rmax = 0.0, fmax = 0.0;
    for (std::size_t ij = 0; ij < r.size(); ++ij) {
      rmax = std::max(rmax, std::abs(r[ij] * scale[ij]));
      fmax = std::max(fmax, std::abs(y[ij] * scale[ij]));
    }
    return rmax / (std::abs(mu) * fmax);
  }

  Dvr rho, z;
  int nr, nz;
  std::vector<double> energy;    ///< modal: the g = 0 operator's eigenvalues
  std::vector<double> scale;     ///< nodal: f / y
  std::vector<double> coupling;  ///< nodal: g f² / y²
  std::vector<double> potential; ///< nodal: V
};

/// Golden-section search for a maximum of f on [lo, hi].
template <typename F> double maximise(const F& f, double lo, double hi) {
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  const double width = hi - lo;
  double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
  double f1 = f(m1), f2 = f(m2);
  for (int it = 0; it < 60 && hi - lo > 1e-12 * width; ++it) {
    if (f1 < f2) {
      lo = m1, m1 = m2, f1 = f2;
      m2 = lo + ratio * (hi - lo), f2 = f(m2);
    } else {
      hi = m2, m2 = m1, f2 = f1;
      m1 = hi - ratio * (hi - lo), f1 = f(m1);
    }
  }
  return f1 < f2 ? m2 : m1;
}

} // namespace vortex_detail

/// Solving, loading and tabulating: the members of StationaryVortex::Builder are defined in
/// relaxation.cpp (finish, solve, load, solve_or_load) and table.cpp (sample, tabulate).
struct StationaryVortex::Builder {
  using Discretisation = vortex_detail::Discretisation;

  /// Everything derived from modal_ and the discretisation: μ, residual, energies, node values,
  /// the interpolation table.
  static void finish(StationaryVortex& v, const Discretisation& d);

  /// f at ρ_i = i h_rho (i < rows), z_j = j h_z (j < columns), summed from the modes.
  static std::vector<double> sample(const StationaryVortex& v, const Discretisation& d,
                                    double h_rho, int rows, double h_z, int columns);

  /// The interpolation table. Its spacing resolves the highest mode's local wavenumber √(2E) with
  /// 3 nodes per unit of 1/k (interpolation errors ~1e-13 max f). Its extent, where f falls below
  /// kCut max f, comes from a grid kCoarse times coarser that reaches to where every mode has
  /// decayed (e^{−s/2} < 1e-17 beyond the outermost Gauss node, s = ωx²).
  static void tabulate(StationaryVortex& v, const Discretisation& d);
  /// The table's extent in fine nodes along ρ and z: where f falls below kCut max f on the coarse
  /// grid.
  static std::array<int, 2> table_extent(const StationaryVortex& v, const Discretisation& d);
  /// The line maxima and max f (the largest of `fine`'s nodes inside the cut, refined between
  /// the nodes); `fine` is f on the table's nodes, cut_z + kPad columns.
  static void find_maxima(StationaryVortex& v, const std::vector<double>& fine, int cut_rho,
                          int cut_z);

  /// Relaxes on a ladder of resolutions, each level's state (padded with zero modes, which nest)
  /// starting the next: far fewer iterations than a cold start at the final resolution. Adaptive:
  /// from `target`, adding modes where the highest ones still matter. Otherwise: from the default
  /// start (where smaller) up to exactly `target`. `poll` (may be empty) is called before each
  /// iteration and may throw to abandon the solve.
  static StationaryVortex solve(const VortexParameters& p, VortexResolution target, bool adaptive,
                                const std::function<void()>& poll);

  /// The cached profile when `file` holds one for these parameters and this discretisation that
  /// solves eq. 14; otherwise throws std::runtime_error saying why not.
  static StationaryVortex load(const std::filesystem::path& file, const VortexParameters& p,
                               const std::string& key, VortexResolution resolution, bool adaptive);

  static StationaryVortex solve_or_load(const VortexParameters& p, VortexResolution resolution,
                                        bool adaptive, const std::filesystem::path& cache_dir,
                                        const std::function<void()>& poll);
};

} // namespace decgpe
