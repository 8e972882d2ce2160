#pragma once
// Kohn's theorem, a known answer for the dynamics: in the trap V = ½(x² + y² + λ²z²) the centre of
// mass of any state oscillates at exactly the trap frequencies, 1 along x and y and λ along z,
// whatever g (the dipole modes). The κ = 0 harmonic state displaced by (d, 0, d_z)
// (initial.offset) has ⟨x⟩(t) = d cos t and ⟨z⟩(t) = d_z cos λt in the continuum. A scheme's
// ⟨x⟩(t) and ⟨z⟩(t) over one period of x, fitted, give the grid's ω_h and ω_z,h, whose errors
// measure the DEC Laplacian's order in h and the scheme's in Δt.

#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/frequency_fit.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace decgpe::verify {

inline constexpr double kKohnOffset = 1.0; ///< d, the displacement along x (a_ho)
inline constexpr int kKohnSamples = 64;    ///< samples of the centre over the period of x

/// The bracket of a fitted frequency, as fractions of the expected one: over the period of x the
/// residual has one minimum in it (a 30% detuning of x turns its phase by 1.9 rad, short of the
/// side lobes at a whole turn; z, at λ ≤ 3, turns λ times as far in λ periods).
inline constexpr double kKohnLowest = 0.7, kKohnHighest = 1.3;

struct KohnCase {
  std::string lattice;
  double h = 0.0;
  std::string scheme = "leapfrog";
  double g = 0.0;
  double lambda = 1.0;   ///< the trap's ω_z
  double offset_z = 0.0; ///< d_z; ≠ 0: ⟨z⟩ is fitted too, against λ
  std::array<double, 3> domain = {10.0, 10.0, 10.0};
  double dt_fraction = 0.5; ///< Δt as this fraction of the scheme's limit, when dt is 0
  double dt = 0.0;          ///< > 0: this Δt (below the scheme's limit)
};

struct KohnRun {
  double h = 0.0, dt = 0.0;
  double limit = 0.0; ///< the scheme's limit at this h (stability, or the split schemes' π/λ_max)
  long steps = 0;
  double x0 = 0.0;               ///< ⟨x⟩ of the sampled start
  double omega = 0.0;            ///< fitted from ⟨x⟩(t), against 1
  double omega_z = std::nan(""); ///< fitted from ⟨z⟩(t), against λ (when offset_z ≠ 0)
};

inline std::string kohn_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

inline std::string kohn_toml(const KohnCase& c) {
  const auto n = kohn_number;
  return "lattice = \"" + c.lattice + "\"\nh = " + n(c.h) + "\ndomain = [" + n(c.domain[0]) + ", " +
         n(c.domain[1]) + ", " + n(c.domain[2]) + "]\ng = " + n(c.g) +
         "\n[potential]\nlambda = " + n(c.lambda) + "\n[time]\nscheme = \"" + c.scheme +
         "\"\ndt_fraction = " + n(c.dt > 0.0 ? 0.5 : c.dt_fraction) +
         "\nend_time = " + n(2.0 * std::numbers::pi) + "\n[initial]\nkappa = 0\noffset = [" +
         n(kKohnOffset) + ", 0.0, " + n(c.offset_z) + "]\n";
}

/// The scheme's limit at the case's h (its stability limit, or a split scheme's π/λ_max(½L)).
inline double kohn_limit(const KohnCase& c) {
  return setup::prepare_run(setup::parse_case(kohn_toml(c), "kohn.toml")).limit;
}

/// The step of the run: the one asked for, shortened so that the period of x is a whole number of
/// steps per sample (every run of a Δt ladder samples the same times).
inline long kohn_steps(double requested) {
  const double per_sample = 2.0 * std::numbers::pi / kKohnSamples;
  return kKohnSamples * static_cast<long>(std::ceil(per_sample / requested - 1e-9));
}

/// The displaced state's centre over one period of x on the openmp backend, and its fitted
/// frequencies.
inline KohnRun kohn_run(const KohnCase& c) {
  const setup::RunSetup setup = setup::prepare_run(setup::parse_case(kohn_toml(c), "kohn.toml"));
  KohnRun out{c.h, 0.0, setup.limit, kohn_steps(c.dt > 0.0 ? c.dt : setup.dt)};
  out.dt = 2.0 * std::numbers::pi / static_cast<double>(out.steps);
  if (!(out.dt < setup.limit)) {
    throw std::invalid_argument(c.scheme + " on " + c.lattice + ": dt = " + kohn_number(out.dt) +
                                " is not below the limit " + kohn_number(setup.limit));
  }
  const std::unique_ptr<Backend> backend = make_backend("openmp", setup.problem);
  const std::unique_ptr<Scheme> scheme = make_scheme(c.scheme, *backend, out.dt);
  scheme->start({setup.current, setup.current, {}});
  std::vector<Complex> psi(setup.current.size());
  std::vector<double> t, x, z;
  for (long k = 0, done = 0; k <= kKohnSamples; ++k) {
    const long step = k * out.steps / kKohnSamples;
    scheme->advance(step - done);
    done = step;
    scheme->download(0, psi);
    const lattices::Vec3 centre = centre_of_mass(setup.problem.grid, psi);
    t.push_back(static_cast<double>(step) * out.dt);
    x.push_back(centre.x);
    z.push_back(centre.z);
  }
  out.x0 = x.front();
  out.omega = fit_frequency(t, x, kKohnLowest, kKohnHighest);
  if (c.offset_z != 0.0) {
    out.omega_z = fit_frequency(t, z, kKohnLowest * c.lambda, kKohnHighest * c.lambda);
  }
  return out;
}

} // namespace decgpe::verify
