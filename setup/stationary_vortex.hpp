#pragma once
// The stationary vortex of the paper's eq. 14: ψ = f(ρ, z) e^{iκφ − iμt} with f ≥ 0 solving
//   [½(κ²/ρ² − ∂²_ρ − ρ⁻¹∂_ρ − ∂²_z) + V + g f²] f = μ f,   V = ½(ρ² + λ²z²),
// normalised to ∫|ψ|² d³r = 1.
//
// f is expanded in the eigenmodes of the g = 0 problem: radially the 2D oscillator functions of
// angular momentum κ, ρ^κ e^{−ρ²/2} × (polynomials in ρ²), axially the even oscillator functions of
// frequency λ. Each direction is used as a discrete variable representation on its Gauss nodes, so
// the kinetic and trap energy is diagonal in the modes and the interaction is diagonal on the
// nodes. The axis regularity f ~ ρ^κ and the Gaussian tails are built in, g = 0 is solved exactly,
// and the error falls faster than any power of the mode counts. The nonlinear eigenproblem is
// solved by minimising the GP energy on the unit sphere (preconditioned nonlinear conjugate
// gradients with an exact line search along the great circle). The default resolution grows until
// the two highest modes of each direction weigh < 1e-10 of the largest (paper cases: μ converged to
// ~1e-14 relative, f to ~1e-9 of max f); past 320 modes per direction (reached near μ ~ 100 with a
// thin vortex core) solve() gives up. For evaluation at arbitrary points the profile is tabulated
// on a fine uniform (ρ, z) grid and interpolated with 8-point Lagrange stencils in each direction
// (errors ~1e-13 of max f).

#include "lattices/vec3.hpp"
#include "solvers/complex.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace decgpe {

struct VortexParameters {
  double lambda = 1.0; ///< trap anisotropy: V = ½(ρ² + λ²z²)
  double g = 0.0;      ///< interaction strength
  int kappa = 0;       ///< winding number
};

/// Mode counts of the profile's discretisation: radial modes and even axial modes.
struct VortexResolution {
  int radial = 0;
  int axial = 0;
  bool operator==(const VortexResolution&) const = default;
};

/// The GP energy's parts per particle (ψ normalised): E_kin = ½∫|∇ψ|² (centrifugal term included),
/// E_pot = ∫V|ψ|², E_int = (g/2)∫|ψ|⁴.
struct VortexEnergies {
  double kinetic = 0.0;
  double potential = 0.0;
  double interaction = 0.0;
};

/// What solve() did with its cache folder.
enum class VortexCacheUse {
  none,     ///< no cache folder given
  loaded,   ///< a matching file was read; nothing was solved
  written,  ///< no file existed: solved and written
  rewritten ///< a file existed but was unreadable or did not match: solved and replaced
};

class StationaryVortex {
public:
  /// Solves at the default resolution (modes added until the highest ones are negligible), or loads
  /// `<cache_dir>/vortex_l<λ>_g<g>_k<κ>_auto.h5` (numbers in their shortest exact decimal form)
  /// when it exists and matches. A cache file that cannot be read, was written for other
  /// parameters or a different discretisation, or whose profile does not solve eq. 14 is never
  /// used: the profile is solved again and the file replaced (cache_use() says so and cache_note()
  /// why). Throws std::invalid_argument for bad parameters, std::runtime_error when the solver does
  /// not converge or the cache cannot be written. `poll` (may be empty) is called before each
  /// iteration of the relaxation and may throw to abandon the solve (nothing is cached then).
  static StationaryVortex solve(const VortexParameters& parameters,
                                const std::filesystem::path& cache_dir = {},
                                const std::function<void()>& poll = {});
  /// Solves at exactly `resolution` (cache file suffix `_n<radial>x<axial>`); for convergence
  /// studies.
  static StationaryVortex solve(const VortexParameters& parameters, VortexResolution resolution,
                                const std::filesystem::path& cache_dir = {});

  double mu() const { return mu_; }
  /// max over the profile grid of |eq. 14's left side − μf| / (μ max f).
  double residual() const { return residual_; }
  const VortexParameters& parameters() const { return parameters_; }
  VortexResolution resolution() const { return resolution_; }
  VortexEnergies energies() const { return energies_; }
  /// The truncation error's size relative to max f: the weight of the two highest modes of either
  /// direction (summed over the other direction's modes), relative to the largest mode's.
  double spectral_tail() const { return tail_; }

  /// f(ρ, z) ≥ 0, interpolated from the fine table; 0 beyond the tabulated domain, where
  /// f < 1e-15 max f.
  double profile(double rho, double z) const;
  /// f(ρ, z) summed from the modes: exact for the discretisation but O(modes) per point; for
  /// checking profile().
  double profile_spectral(double rho, double z) const;
  /// ψ(r, t) = f(ρ, z) e^{iκφ − iμt}. Thread-safe, like every const member.
  Complex value(const lattices::Vec3& r, double t) const;
  double max_profile() const { return max_f_; }
  /// Half-extents (ρ_max, z_max) of the region where f > threshold · max f (the paper's eq. 15).
  std::pair<double, double> extent(double threshold) const;

  /// The profile grid (the Gauss nodes of both directions) and f on it, radial index slowest.
  const std::vector<double>& rho_nodes() const { return rho_nodes_; }
  const std::vector<double>& z_nodes() const { return z_nodes_; }
  const std::vector<double>& node_values() const { return node_values_; }

  VortexCacheUse cache_use() const { return cache_use_; }
  const std::string& cache_note() const { return cache_note_; }

private:
  struct Builder; ///< solving, loading and tabulating, in the .cpp
  StationaryVortex() = default;
  double table_sum(double rho, double z) const;
  /// max over the tabulated nodes of the other coordinate, refined between them, at fixed ρ (axis
  /// 0) or z (axis 1).
  double line_max(int axis, double at) const;

  VortexParameters parameters_;
  VortexResolution resolution_;
  double mu_ = 0.0;
  double residual_ = 0.0;
  double tail_ = 0.0;
  double max_f_ = 0.0;
  VortexEnergies energies_;
  std::vector<double> modal_; ///< coefficients of the normalised modes, radial index slowest
  std::vector<double> rho_nodes_, z_nodes_, node_values_;

  // f on ρ_i = i h_rho, z_j = j h_z, with `pad` rows beyond each end (mirrored at ρ = 0 and z = 0
  // by f's parities) so that every stencil inside [0, rho_cut) × [0, z_cut) is complete.
  std::vector<double> table_;
  double h_rho_ = 0.0, h_z_ = 0.0, rho_cut_ = 0.0, z_cut_ = 0.0;
  int table_rho_ = 0, table_z_ = 0; ///< rows, pads included
  /// max f over the table's z nodes at each ρ node inside the cut, and over its ρ nodes at each z.
  std::vector<double> rho_line_max_, z_line_max_;

  VortexCacheUse cache_use_ = VortexCacheUse::none;
  std::string cache_note_;
};

} // namespace decgpe
