#include "runner/summary.hpp"

#include "runner/run_request.hpp"
#include "setup/grid_scaling.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <span>

namespace decgpe::runner {

using setup::CaseConfig;
using setup::RunSetup;

void announce(const RunSetup& run, const Backend& backend, long from_step) {
  const Grid& g = run.problem.grid;
  char steps[160];
  if (run.config.adaptive) {
    std::snprintf(steps, sizeof steps, "adaptive steps (%s) to t = %g",
                  std::string(step_control_name(find_scheme(run.config.scheme).adaptive)).c_str(),
                  *run.config.end_time);
  } else {
    std::snprintf(steps, sizeof steps, "%ld steps", run.schedule.steps);
  }
  std::printf("decgpe run %s: %s, S = %dx%dx%d (%lld cells), h = %g, %s, dt %s %.4g (limit %.4g "
              "by %s, eq. 11 %.4g), %s%s, backend %s (%s)\n",
              run.config.name.c_str(), g.lattice.c_str(), g.size[0], g.size[1], g.global_z,
              static_cast<long long>(g.global_cells()), g.h, run.config.scheme.c_str(),
              run.config.adaptive ? "<=" : "=", run.dt, run.limit, run.limit_method.c_str(),
              run.eq11_bound, steps,
              from_step > 0 ? (", resumed at step " + std::to_string(from_step)).c_str() : "",
              backend.name().c_str(), backend.device().c_str());
  std::fflush(stdout);
}

void announce_lattice_state(const setup::LatticeStateInfo& l) {
  if (l.cache == "loaded") {
    std::printf("lattice stationary state: mu_h = %.12g (continuum %.12g), residual %.3g, from the "
                "cache\n",
                l.mu, l.continuum_mu, l.residual);
  } else {
    std::printf("lattice stationary state: mu_h = %.12g (continuum %.12g), residual %.3g from "
                "%.3g in %d Newton steps, %ld Krylov iterations, %ld stencil passes, %.1f s\n",
                l.mu, l.continuum_mu, l.residual, l.start_residual, l.newton_steps,
                l.krylov_iterations, l.stencil_passes, l.seconds);
  }
  std::fflush(stdout);
}

void announce_ground_state(const setup::GroundStateInfo& s) {
  std::printf("ground state: mu_h = %.12g, E = %.12g (kinetic %.10g, trap %.10g, interaction "
              "%.10g), residual %.3g from %.3g, energy change %.3g per iteration, %ld iterations, "
              "%.2f s\n",
              s.mu, s.energy, s.kinetic, s.trap, s.interaction, s.residual, s.start_residual,
              s.energy_change, s.iterations, s.seconds);
  std::fflush(stdout);
}

namespace {

/// Whether ψ⁰ is a stationary state of the frame: not when the frame rotates about another axis
/// than the vortex's (the trap's z axis).
bool stationary_in_frame(const CaseConfig& c) {
  return c.omega == 0.0 || (c.rotation_origin[0] == 0.0 && c.rotation_origin[1] == 0.0);
}

/// The last diagnostics sample against the exact evolution ψ₀e^{−iμt}.
struct ExactCheck {
  double t, error, bound, edge;
};

/// Only the g = 0 oscillator eigenstate in its own trap, unperturbed and undamped, has an exact
/// evolution, ψ₀e^{−iμt}.
std::optional<ExactCheck> check_against_exact(const RunSetup& run, const io::Series& s) {
  const CaseConfig& c = run.config;
  if (c.initial_kind != setup::InitialKind::harmonic_vortex || c.g != 0.0 ||
      c.potential_kind != setup::PotentialKind::harmonic || c.seed || c.damping > 0.0 ||
      !setup::is_plain_vortex(c) || !stationary_in_frame(c)) {
    return std::nullopt;
  }
  // ‖ψ − ψ₀e^{−iμt}‖² = N(t) + N(0) − 2 Re(e^{iμt}⟨ψ₀|ψ⟩), from the diagnostics alone.
  const double t = s.t.back();
  const Complex ov = s.overlap.back();
  const double re = std::cos(run.mu * t) * ov.re - std::sin(run.mu * t) * ov.im;
  const std::vector<double>& norm = s[&Diagnostics::norm];
  const double error = std::sqrt(std::max(0.0, norm.back() + norm.front() - 2.0 * re));
  // Second order in the mean dual edge d: on all six lattices (d = 0.07 to 0.7, κ = 0 to 3,
  // λ = 0.5 to 2, t ≤ 6, every scheme at its usual step) the error stays below 0.044 μ²d²(1 + t).
  // Held to 0.1 μ²d²(1 + t), a correct run passes by 2.3× or more, while a μ_h off by 1 % fails the
  // default case, as does a split scheme whose step is far too long for the grid.
  const double d = dual_edge_lengths(lattices::cell_complex(c.lattice), c.h)[0];
  return ExactCheck{t, error, 0.1 * run.mu * run.mu * d * d * (1.0 + t), d};
}

/// The last sample's lines and the events, when the run sampled them.
void report_vortex_lines(std::span<const io::VortexSample> samples) {
  if (samples.empty()) {
    return;
  }
  const analysis::LineSummary last = analysis::summarise(samples.back().lines);
  std::size_t points = 0; // what the host assembled: the lines' cost (docs/gpu.md)
  for (const analysis::VortexLine& line : samples.back().lines) {
    points += line.points.size();
  }
  std::printf("vortex lines at t = %.4g: %d (largest charge %d, length %.4g, net flux through "
              "z = 0 %d, %zu points)",
              samples.back().t, last.lines, last.largest_charge, last.total_length,
              last.net_flux_z0, points);
  const std::vector<io::VortexEvent> events = io::vortex_events(samples);
  const auto separation =
      std::ranges::find(events, analysis::LineEvent::separation, &io::VortexEvent::kind);
  if (separation != events.end()) {
    std::printf("; first separation at t = %.4g (step %ld)", separation->t,
                static_cast<long>(separation->step));
  }
  const auto reconnections =
      std::ranges::count(events, analysis::LineEvent::reconnection, &io::VortexEvent::kind);
  if (reconnections > 0) {
    std::printf("; %ld reconnection%s", static_cast<long>(reconnections),
                reconnections == 1 ? "" : "s");
  }
  std::printf("\n");
}

/// The last sample's state: the norm, the energy and its terms, the invariant's drift, the overlap
/// with ψ⁰ and, for an eigenstate of the frame, the overlap's phase error.
void report_state(const RunSetup& run, const io::Series& s) {
  const double t_end = s.t.back();
  const Complex ov = s.overlap.back();
  const std::vector<double>& invariant = s[&Diagnostics::invariant];
  const double drift = std::abs(invariant.back() - invariant.front()) / std::abs(invariant.front());
  std::printf("t = %.4g: norm %.10g  energy %.10g  %s invariant drift %.2e  |<psi0|psi>| = %.10f\n",
              t_end, s[&Diagnostics::norm].back(), s[&Diagnostics::energy].back(),
              run.config.scheme.c_str(), drift, std::hypot(ov.re, ov.im));
  std::printf("energy by term: kinetic %.10g  trap %.10g  interaction %.10g",
              s[&Diagnostics::kinetic].back(), s[&Diagnostics::trap].back(),
              s[&Diagnostics::interaction].back());
  if (run.config.omega != 0.0) {
    std::printf("  rotation %.10g", s[&Diagnostics::rotation].back());
  }
  std::printf("\n");
  if (run.config.g == 0.0 && run.config.potential_kind == setup::PotentialKind::harmonic &&
      run.config.damping == 0.0 && setup::is_plain_vortex(run.config) &&
      stationary_in_frame(run.config)) {
    // The exact evolution of the eigenstate is ψ₀ e^{−iμt}: the overlap's phase advances by −μt.
    const double error =
        std::remainder(std::atan2(ov.im, ov.re) + run.mu * t_end, 2.0 * std::numbers::pi);
    std::printf("phase error against the exact e^{-i mu t} (mu = %g): %.3e rad\n", run.mu, error);
  }
}

/// The self-check against the exact evolution, where there is one: throws CheckFailed when it
/// fails.
void self_check(const RunSetup& run, const io::Series& s) {
  const std::optional<ExactCheck> c = check_against_exact(run, s);
  if (!c) {
    return;
  }
  // ‖ψ − ψ₀e^{−iμt}‖ ≤ ‖ψ‖ + ‖ψ₀‖: a bound at or above that cannot fail, so it is no check.
  const std::vector<double>& norm = s[&Diagnostics::norm];
  const double farthest = std::sqrt(norm.back()) + std::sqrt(norm.front());
  if (c->bound >= farthest) {
    std::printf("check: none (the bound 0.1 mu^2 d^2 (1 + t) = %.3e at t = %.4g is not below %.3e, "
                "the farthest psi can be from psi0 e^{-i mu t}: mu = %g is too large for this "
                "grid, d = %.4g, to check; refine h or shorten the run)\n",
                c->bound, c->t, farthest, run.mu, c->edge);
    return;
  }
  const bool pass = c->error <= c->bound;
  std::printf("check: %s (|psi - psi0 e^{-i mu t}| = %.3e at t = %.4g; "
              "bound 0.1 mu^2 d^2 (1 + t) = %.3e, d = %.4g the mean dual edge)\n",
              pass ? "PASS" : "FAIL", c->error, c->t, c->bound, c->edge);
  if (!pass) {
    throw CheckFailed{};
  }
}

} // namespace

void summarise(const RunSetup& run, const io::Series& s, const Outcome& outcome, long steps_run,
               double seconds, int fold, const std::string& out) {
  report_state(run, s);
  if (outcome.error_exceeded) {
    std::printf(
        "stopped at t = %.4g: E = 1 - |<psi0|psi>| passed %g; the density change is %d-fold\n",
        s.t.back(), *run.config.stop_when_error_exceeds, fold);
  }
  const double updates =
      static_cast<double>(run.problem.grid.global_cells()) * static_cast<double>(steps_run);
  if (run.config.adaptive) {
    const auto [shortest, longest] = std::ranges::minmax(std::span(s.dt).subspan(1));
    std::printf("adaptive: %ld steps, dt from %.4g to %.4g (sampled every %ld steps)\n",
                outcome.steps_done, shortest, longest, run.schedule.diagnostics_every);
  }
  report_vortex_lines(s.vortex_lines);
  std::printf("results: %s  (%.2f s, %.3g M cell-updates/s)\n", out.c_str(), seconds,
              updates / seconds * 1e-6);
  self_check(run, s);
}

} // namespace decgpe::runner
