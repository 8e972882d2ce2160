#pragma once
// The precession of an off-axis vortex, a known answer for the dynamics with and without rotation.
// For g = 0 in the trap V = ½(ρ² + λ²z²) the state (x − d + iy) e^{−(ρ² + λz²)/2} is the
// superposition (x + iy)G − dG of the m = 1 and m = 0 oscillator states, whose energies differ by
// exactly 1 (the radial trap frequency) in the lab frame and by 1 − Ω in the frame rotating at Ω
// (H = H_lab − ΩL_z). Its only zero, a κ = 1 line along z, sits where x + iy = d e^{i(1 − Ω)t}: it
// turns counter-clockwise seen from +z at 1 − Ω (clockwise for Ω > 1, which the harmonic trap
// refuses). The core is found by the vortex-line detector (Backend::vortex_flux, analysis/) where
// its line crosses z = 0, and placed to sub-cell accuracy by the zero of ψ's linear fit about it.

#include "analysis/vortex_lines.hpp"
#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "setup/initial_state.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace decgpe::verify {

struct PrecessionRun {
  double h = 0.0, spacing = 0.0, dt = 0.0;
  double rate = 0.0;          ///< the fitted angular velocity of the core about the axis (> 0: CCW)
  double rate_detector = 0.0; ///< the same from the detector's crossings alone
  double largest_gap = 0.0;   ///< max distance between a detector crossing and the fitted zero
  double radius = 0.0;        ///< the core's mean distance from the axis
  int samples = 0;
};

/// Where a line crosses z = 0, and its charge signed by the direction (upwards > 0).
struct ZCrossing {
  lattices::Vec3 at;
  int charge;
};

/// Where the lines cross z = 0 (each crossing counted once, from the half-open test z < 0),
/// interpolated along the segment.
inline std::vector<ZCrossing> crossings_of_z0(const std::vector<analysis::VortexLine>& lines) {
  std::vector<ZCrossing> found;
  for (const analysis::VortexLine& line : lines) {
    const std::size_t n = line.points.size();
    for (std::size_t k = 0; k + (line.closed ? 0 : 1) < n; ++k) {
      const lattices::Vec3 &a = line.points[k], &b = line.points[(k + 1) % n];
      if ((a.z < 0.0) != (b.z < 0.0)) {
        const double s = a.z / (a.z - b.z);
        found.push_back({{a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), 0.0},
                         b.z < 0.0 ? -line.charge : line.charge});
      }
    }
  }
  return found;
}

/// The zero on z = 0 of the least-squares fit ψ ≈ α + βx + γy + δz over the cells within
/// `reach` of `near`: where Re and Im of α + βx + γy both vanish.
inline lattices::Vec3 fitted_zero(const Grid& grid, const std::vector<Complex>& psi,
                                  const lattices::Vec3& near, double reach) {
  std::array<std::array<double, 4>, 4> a{};
  std::array<Complex, 4> rhs{};
  for (std::int64_t i = 0; i < grid.cells(); ++i) {
    const lattices::Vec3 r = grid.position(i) - near;
    if (r.x * r.x + r.y * r.y + r.z * r.z > reach * reach) {
      continue;
    }
    const std::array<double, 4> f{1.0, r.x, r.y, r.z};
    for (int p = 0; p < 4; ++p) {
      rhs[p] = rhs[p] + f[p] * psi[static_cast<std::size_t>(i)];
      for (int q = 0; q < 4; ++q) {
        a[p][q] += f[p] * f[q];
      }
    }
  }
  // Gaussian elimination (a is symmetric positive definite when the cells span 3D).
  for (int p = 0; p < 4; ++p) {
    for (int q = p + 1; q < 4; ++q) {
      const double m = a[q][p] / a[p][p];
      for (int k = p; k < 4; ++k) {
        a[q][k] -= m * a[p][k];
      }
      rhs[q] = rhs[q] - m * rhs[p];
    }
  }
  std::array<Complex, 4> c{};
  for (int p = 3; p >= 0; --p) {
    Complex sum = rhs[p];
    for (int k = p + 1; k < 4; ++k) {
      sum = sum - a[p][k] * c[k];
    }
    c[p] = (1.0 / a[p][p]) * sum;
  }
  // α + βx + γy = 0: two real equations in x, y.
  const double det = c[1].re * c[2].im - c[2].re * c[1].im;
  const double x = (-c[0].re * c[2].im + c[2].re * c[0].im) / det;
  const double y = (-c[1].re * c[0].im + c[0].re * c[1].im) / det;
  return {near.x + x, near.y + y, 0.0};
}

/// φ(t) = φ₀ + ωt by least squares: ω.
inline double fitted_rate(const std::vector<double>& t, const std::vector<double>& phi) {
  double st = 0.0, sp = 0.0, stt = 0.0, stp = 0.0;
  const double n = static_cast<double>(t.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    st += t[k];
    sp += phi[k];
    stt += t[k] * t[k];
    stp += t[k] * phi[k];
  }
  return (n * stp - st * sp) / (n * stt - st * st);
}

/// The angle of `p` about the z axis, continued from `previous` (no jumps of 2π).
inline double unwrapped_angle(const lattices::Vec3& p, std::optional<double> previous) {
  double phi = std::atan2(p.y, p.x);
  if (previous) {
    phi += 2.0 * std::numbers::pi * std::round((*previous - phi) / (2.0 * std::numbers::pi));
  }
  return phi;
}

/// The case of the precession run: g = 0, λ = 4 (z thin: few cells), the leapfrog at half its
/// limit until one turn of the core, 1/|1 − Ω|.
inline std::string precession_case(const std::string& lattice, double h, double omega) {
  const double turn = 2.0 * std::numbers::pi / std::abs(1.0 - omega);
  return "lattice = \"" + lattice + "\"\nh = " + std::to_string(h) +
         "\ndomain = [9.0, 9.0, 4.0]\ng = 0.0\n[potential]\nlambda = 4.0\n[rotation]\nomega = " +
         std::to_string(omega) + "\n[time]\ndt_fraction = 0.5\nend_time = " + std::to_string(turn) +
         "\n[initial]\nkappa = 1\n";
}

/// The core of (x − d + iy)G over one turn, on `lattice` at mean cell spacing `spacing`, in the
/// frame rotating at `omega`, from `samples` + 1 samples; openmp backend, leapfrog.
inline PrecessionRun precession_run(const std::string& lattice, double spacing, double unit,
                                    double omega, double d = 1.0, int samples = 64) {
  constexpr double kCut =
      4.0; // the lines where V < 4 (ρ < 2.8 on z = 0); |ψ| is far above round-off
  const double h = spacing / unit;
  setup::RunSetup run =
      setup::prepare_run(setup::parse_case(precession_case(lattice, h, omega), "precession.toml"));
  const Grid& grid = run.problem.grid;
  const HarmonicVortex m1{1, run.config.lambda}, m0{0, run.config.lambda};
  std::vector<Complex> psi = sample(grid, m1, 0.0, 1.0);
  const std::vector<Complex> ground = sample(grid, m0, 0.0, 1.0);
  for (std::size_t i = 0; i < psi.size(); ++i) {
    psi[i] = psi[i] - d * ground[i];
  }
  const double scale = 1.0 / std::sqrt(grid_norm(grid, psi));
  for (Complex& z : psi) {
    z = scale * z;
  }
  const std::unique_ptr<Backend> backend = make_backend("openmp", run.problem);
  const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *backend, run.dt);
  scheme->start({psi, psi, {}});
  const analysis::PrimalEdges primal(grid);
  PrecessionRun out{h, spacing, run.dt, 0.0, 0.0, 0.0, 0.0, samples};
  std::vector<double> t, phi, phi_detector;
  for (long k = 0, done = 0; k <= samples; ++k) {
    const long step = k * run.schedule.steps / samples;
    scheme->advance(step - done);
    done = step;
    scheme->download(0, psi);
    const std::vector<ZCrossing> found =
        crossings_of_z0(analysis::vortex_lines(primal, scheme->vortex_flux(kCut).get()));
    if (found.size() != 1 || found[0].charge != 1) {
      throw std::runtime_error(lattice + ": not one upward crossing of z = 0 of charge 1 at step " +
                               std::to_string(step) + " (" + std::to_string(found.size()) +
                               " crossings)");
    }
    const lattices::Vec3 core = fitted_zero(grid, psi, found[0].at, 1.5 * spacing);
    out.largest_gap =
        std::max(out.largest_gap, std::hypot(core.x - found[0].at.x, core.y - found[0].at.y));
    out.radius += std::hypot(core.x, core.y) / (samples + 1);
    t.push_back(static_cast<double>(step) * run.dt);
    phi.push_back(unwrapped_angle(core, phi.empty() ? std::nullopt : std::optional(phi.back())));
    phi_detector.push_back(unwrapped_angle(
        found[0].at, phi_detector.empty() ? std::nullopt : std::optional(phi_detector.back())));
  }
  out.rate = fitted_rate(t, phi);
  out.rate_detector = fitted_rate(t, phi_detector);
  return out;
}

} // namespace decgpe::verify
