// The schemes layer on the CPU backends: temporal orders, conserved quantities, stability limits
// from the spectrum, the kernels' arithmetic (every backend against the reference oracle is
// test_conformance.cpp).

#include "solvers/integrator.hpp"
#include "verify/counting_backend.hpp"
#include "verify/lattice_params.hpp"
#include "verify/scheme_runs.hpp"

#include <gtest/gtest.h>
#include <limits>

namespace decgpe {
namespace {

using verify::distance;
using verify::LiveScheme;
using verify::scheme_limit;
using verify::trap_problem;
using verify::vortex;

// ---------------------------------------------------------------------------------------------
// Temporal convergence: a fixed grid, Δt halved three times, the reference solution RK4 at Δt/64.

struct OrderCase {
  std::string_view lattice;
  std::string_view scheme;
  bool paper_start;
};

void PrintTo(const OrderCase& c, std::ostream* os) {
  *os << c.scheme << (c.paper_start ? " (paper start)" : "") << " on " << c.lattice;
}

/// Errors of the final state at Δt0, Δt0/2, Δt0/4, Δt0/8 over the same time.
std::vector<double> temporal_errors(const OrderCase& c) {
  // Interacting and out of equilibrium (λ = 1.4 trap, λ = 1 vortex), so the nonlinearity counts.
  const Problem p = trap_problem(c.lattice, 14000.0, 1.4, 100.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const double dt0 = 0.5 * scheme_limit(c.scheme, p, psi0);
  constexpr long kSteps = 40;
  LiveScheme reference("openmp", "rk4", p, dt0 / 64.0, psi0);
  reference.scheme->advance(64 * kSteps);
  const std::vector<Complex> exact = reference.level(0, p);
  std::vector<double> errors;
  for (long refine = 1; refine <= 8; refine *= 2) {
    const double dt = dt0 / static_cast<double>(refine);
    // The paper's start: ψ^{−1} from the continuum formula at −Δt, not from the discrete flow.
    const std::vector<Complex> previous =
        c.paper_start ? sample_normalised(p.grid, HarmonicVortex{1, 1.0}, -dt)
                      : std::vector<Complex>{};
    LiveScheme run("openmp", c.scheme, p, dt, psi0, previous);
    run.scheme->advance(kSteps * refine);
    errors.push_back(distance(p.grid, run.level(0, p), exact));
  }
  return errors;
}

class TemporalOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(TemporalOrder, ErrorFallsAtTheSchemesOrder) {
  const OrderCase& c = GetParam();
  const std::vector<double> e = temporal_errors(c);
  std::string orders;
  double lowest = 1e9, highest = -1e9;
  for (std::size_t k = 0; k + 1 < e.size(); ++k) {
    const double order = std::log2(e[k] / e[k + 1]);
    lowest = std::min(lowest, order);
    highest = std::max(highest, order);
    orders += std::to_string(order) + " ";
  }
  RecordProperty("orders", orders);
  RecordProperty("first_error", std::to_string(e.front()));
  RecordProperty("last_error", std::to_string(e.back()));
  if (c.paper_start) {
    // The continuum ψ^{−1} differs from the discrete flow by O(Δt): first order at best.
    EXPECT_LT(highest, 1.5) << "orders " << orders;
  } else if (c.scheme == "rk4") {
    EXPECT_GE(lowest, 3.8) << "orders " << orders;
  } else {
    EXPECT_GE(lowest, 1.9) << "orders " << orders;
  }
}

INSTANTIATE_TEST_SUITE_P(
    CubicAndBcc, TemporalOrder,
    ::testing::Values(OrderCase{"cubic", "leapfrog", false}, OrderCase{"bcc", "leapfrog", false},
                      OrderCase{"cubic", "rk4", false}, OrderCase{"bcc", "rk4", false},
                      OrderCase{"cubic", "leapfrog", true}, OrderCase{"bcc", "leapfrog", true}),
    [](const auto& param) {
      return std::string(param.param.lattice) + "_" + std::string(param.param.scheme) +
             (param.param.paper_start ? "_paper_start" : "");
    });

// ---------------------------------------------------------------------------------------------
// Conserved quantities.

class Conservation : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Conservation, LeapfrogInvariantIsConservedOverTenThousandSteps) {
  const Problem p = trap_problem(GetParam(), 12000.0, 1.4, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  LiveScheme run("openmp", "leapfrog", p, 0.9 * scheme_limit("leapfrog", p, psi0), psi0);
  const Diagnostics before = run.scheme->diagnostics();
  run.scheme->advance(10000);
  const Diagnostics after = run.scheme->diagnostics();
  ASSERT_TRUE(after.finite);
  // The state really moved (non-stationary, interacting), yet the invariant did not.
  EXPECT_LT(std::hypot(after.overlap.re, after.overlap.im), 0.999);
  const double drift = std::abs(after.invariant - before.invariant) / std::abs(before.invariant);
  RecordProperty("invariant_relative_drift", std::to_string(drift));
  EXPECT_LE(drift, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(AllSix, Conservation, verify::all_lattices(), verify::lattice_name);

/// Relative norm loss of RK4 over `steps` steps of dt.
double rk4_norm_loss(const Problem& p, const std::vector<Complex>& psi0, double dt, long steps) {
  LiveScheme run("openmp", "rk4", p, dt, psi0);
  const double before = run.scheme->diagnostics().invariant;
  run.scheme->advance(steps);
  return (before - run.scheme->diagnostics().invariant) / before;
}

TEST(Rk4Norm, LinearLossIsBoundedByTheAmplificationFactor) {
  // g = 0: each eigenmode's amplitude is multiplied per step by |R(iy)|, y = Δt λ, with
  // |R(iy)|² = 1 − y⁶/72 + y⁸/576 ≥ 1 − y⁶/72. So the norm never grows, and after n steps it has
  // lost at most n (Δt ρ)⁶ / 72 of itself.
  for (std::string_view lattice : {"cubic", "bcc"}) {
    const Problem p = trap_problem(lattice, 12000.0, 1.4, 0.0);
    const std::vector<Complex> psi0 = vortex(p.grid);
    const double rho = gershgorin_radius(p.grid, p.potential, p.g, psi0);
    const double dt = 0.8 * scheme_limit("rk4", p, psi0);
    constexpr long kSteps = 2000;
    const double loss = rk4_norm_loss(p, psi0, dt, kSteps);
    const double bound = kSteps * std::pow(dt * rho, 6) / 72.0;
    RecordProperty(std::string(lattice) + "_loss", std::to_string(loss));
    EXPECT_GT(loss, 0.0) << lattice << ": RK4 dissipates; a norm that did not fall is suspect";
    EXPECT_LE(loss, bound) << lattice;
  }
}

TEST(Rk4Norm, NonlinearLossFallsAtLeastAsDtToTheFourth) {
  for (std::string_view lattice : {"cubic", "bcc"}) {
    const Problem p = trap_problem(lattice, 12000.0, 1.4, 100.0);
    const std::vector<Complex> psi0 = vortex(p.grid);
    // Well inside the limit, where even the stencil's fastest modes are in the asymptotic regime.
    const double dt = 0.25 * scheme_limit("rk4", p, psi0);
    // The same time span at Δt and Δt/2: per unit time the loss is O(Δt⁴) or smaller.
    const double coarse = rk4_norm_loss(p, psi0, dt, 500);
    const double fine = rk4_norm_loss(p, psi0, 0.5 * dt, 1000);
    const double order = std::log2(coarse / fine);
    RecordProperty(std::string(lattice) + "_norm_loss_order", std::to_string(order));
    EXPECT_GT(fine, 0.0) << lattice;
    EXPECT_GE(order, 3.8) << lattice << ": loss " << coarse << " -> " << fine;
  }
}

// ---------------------------------------------------------------------------------------------
// Stability: the limit from the spectrum is sharp for every scheme, lattice and sign of V and g.

struct StabilityCase {
  std::string_view lattice;
  std::string_view scheme;
  std::string_view physics; ///< "trap", "negative_v", "negative_g"
};

// Which mode goes unstable decides the design: the guard (max|ψ| grown 10×) sees a mode that grows
// from small amplitude, so the extreme eigenmode must not be the one the state lives in.
//   trap:       V ≥ 0, g = 100; the top of the spectrum, at the domain's corners (ψ ≈ 0 there).
//   negative_v: the trap lowered by 50 (V < 0 over most of the domain, a constant that is only a
//               phase, and where eq. 11's bound is unsafe); g = 0, because here the extreme mode is
//               the bottom one, the smooth mode that carries the state, and with g ≠ 0 the
//               nonlinear leapfrog is not stable up to the frozen-spectrum limit (its two roots
//               nearly coincide as |Δtλ| → 1 on that mode).
//   negative_g: the trap with a well of depth 150 at one corner, far from the condensate, and
//               g = −5: the extreme mode is the well's bound state, and the attraction deepens it
//               as it grows.
Problem stability_problem(const StabilityCase& c) {
  const double g = c.physics == "trap" ? 100.0 : c.physics == "negative_v" ? 0.0 : -5.0;
  Problem p = trap_problem(c.lattice, 5000.0, 1.4, g);
  if (c.physics == "trap") {
    return p;
  }
  p.potential.kind = Potential::Kind::tabulated;
  const lattices::Vec3 far_corner = p.grid.origin * -1.0;
  for (std::int64_t i = 0; i < p.grid.cells(); ++i) {
    const lattices::Vec3 r = p.grid.position(i);
    const lattices::Vec3 d = r - far_corner;
    const bool in_well = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z) < 2.5;
    const double shift = c.physics == "negative_v" ? -50.0 : in_well ? -150.0 : 0.0;
    p.potential.values.push_back(harmonic_potential(r.x, r.y, r.z, 1.4) + shift);
  }
  return p;
}

/// Runs at `fraction` of the scheme's limit; true when the guard stopped it.
bool guard_trips(const StabilityCase& c, double fraction, long steps) {
  const Problem p = stability_problem(c);
  const std::vector<Complex> psi0 = vortex(p.grid);
  LiveScheme run("openmp", c.scheme, p, fraction * scheme_limit(c.scheme, p, psi0), psi0);
  RunObserver quiet;
  try {
    integrate(*run.scheme, Schedule{steps, 100, 0}, quiet);
  } catch (const InstabilityError&) {
    return true;
  }
  return false;
}

class Stability : public ::testing::TestWithParam<StabilityCase> {};

TEST_P(Stability, BoundedAtNinetyNinePercentOfTheLimitAndStoppedAtOneHundredFive) {
  EXPECT_FALSE(guard_trips(GetParam(), 0.99, 10000)) << "unstable below the limit";
  EXPECT_TRUE(guard_trips(GetParam(), 1.05, 10000)) << "stable above the limit: it is too low";
}

std::vector<StabilityCase> stability_cases() {
  std::vector<StabilityCase> out;
  for (std::string_view lattice : lattices::crystal_names()) {
    for (std::string_view scheme : {"leapfrog", "rk4"}) {
      for (std::string_view physics : {"trap", "negative_v", "negative_g"}) {
        out.push_back({lattice, scheme, physics});
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllSix, Stability, ::testing::ValuesIn(stability_cases()),
                         [](const auto& param) {
                           return std::string(param.param.lattice) + "_" +
                                  std::string(param.param.scheme) + "_" +
                                  std::string(param.param.physics);
                         });

TEST(StabilityLimit, LanczosIsSharpAndGershgorinIsSafe) {
  for (std::string_view lattice : lattices::crystal_names()) {
    for (std::string_view physics : {"trap", "negative_v", "negative_g"}) {
      const Problem p = stability_problem({lattice, "leapfrog", physics});
      const std::vector<Complex> psi0 = vortex(p.grid);
      const SpectrumEstimate fast = estimate_spectrum(p.grid, p.potential, p.g, psi0);
      const SpectrumEstimate converged = estimate_m_spectrum(p.grid, p.potential, p.g, psi0, 250);
      const double rho = std::max(converged.lambda_max, -converged.lambda_min);
      EXPECT_EQ(fast.method.rfind(p.g == 0.0 ? "lanczos" : "linearised", 0), 0)
          << lattice << " " << physics << ": " << fast.method;
      EXPECT_GE(fast.frozen_radius, rho * (1.0 - 1e-9)) << lattice << " " << physics;
      EXPECT_LE(fast.frozen_radius, 1.02 * rho) << lattice << " " << physics;
      EXPECT_GE(fast.gershgorin, rho) << lattice << " " << physics;
      if (physics == "negative_v") {
        // V < 0 almost everywhere: eq. 11's 1/(2 max M_ii) is above the true limit 1/ρ, unsafe.
        EXPECT_GT(stability_bound(p.grid, p.potential, p.g, psi0), 1.0 / rho) << lattice;
      }
    }
  }
}

TEST(StabilityLimit, LanczosAgreesWithPowerIterationOnTheSchemesOperator) {
  // An independent check of stability.cpp's own M: ρ by power iteration through the reference
  // backend's apply_m (g = 0, so M does not depend on the vector), on small grids.
  for (std::string_view lattice : {"cubic", "fcc", "bcc"}) {
    const Problem p = trap_problem(lattice, 300.0, 1.4, 0.0);
    const std::vector<Complex> psi0 = vortex(p.grid);
    const std::unique_ptr<Backend> b = make_backend("reference", p);
    const VectorId x = b->create_vector(), y = b->create_vector();
    std::vector<Complex> v(psi0.size()), mv(psi0.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = {std::cos(0.7 * static_cast<double>(i)), 0.0}; // every mode present
    }
    double rayleigh = 0.0;
    for (int k = 0; k < 8000; ++k) {
      b->upload(x, v);
      b->apply_m(x, y);
      b->download(y, mv);
      const double vv = b->diagnostics(x, kNoVector, x).norm;
      double vmv = 0.0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        vmv += p.grid.volume[i % static_cast<std::size_t>(p.grid.ms)] * conj_mul(v[i], mv[i]).re;
      }
      rayleigh = vmv / vv;
      const double scale = 1.0 / std::sqrt(b->diagnostics(y, kNoVector, y).norm);
      for (std::size_t i = 0; i < v.size(); ++i) {
        v[i] = scale * mv[i];
      }
    }
    const SpectrumEstimate e = estimate_spectrum(p.grid, p.potential, p.g, psi0);
    EXPECT_NEAR(e.lambda_max, rayleigh, 1e-7 * rayleigh) << lattice;
    EXPECT_GE(e.radius, rayleigh * (1.0 - 1e-12)) << lattice;
  }
}

TEST(Kernels, ApplyMIsTheHamiltonianAndThePhaseIsExact) {
  // ⟨ψ, Mψ⟩ is the energy functional without the ½ on the interaction; the phase keeps |ψ|.
  const Problem p = trap_problem("bcc", 8000.0, 1.0, 50.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const std::unique_ptr<Backend> b = make_backend("reference", p);
  const VectorId x = b->create_vector(), y = b->create_vector(), x0 = b->create_vector();
  b->upload(x, psi0);
  b->upload(x0, psi0);
  b->apply_m(x, y);
  std::vector<Complex> m(psi0.size());
  b->download(y, m);
  double expectation = 0.0, quartic = 0.0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double vol = p.grid.volume[i % static_cast<std::size_t>(p.grid.ms)];
    expectation += vol * conj_mul(psi0[i], m[i]).re;
    quartic += vol * norm2(psi0[i]) * norm2(psi0[i]);
  }
  const Diagnostics d = b->diagnostics(x, kNoVector, x);
  EXPECT_NEAR(expectation - 0.5 * p.g * quartic, d.energy, 1e-12 * d.energy);
  // The energy by term, summed beside it: the interaction is ½g Σ|B||ψ|⁴, and the kinetic and trap
  // terms are the rest of ⟨ψ, Mψ⟩, which counts the interaction twice.
  EXPECT_NEAR(d.interaction, 0.5 * p.g * quartic, 1e-12 * d.interaction);
  EXPECT_NEAR(d.kinetic + d.trap + 2.0 * d.interaction, expectation, 1e-12 * expectation);
  EXPECT_NEAR(d.kinetic + d.trap + d.interaction, d.energy, 1e-13 * d.energy);
  EXPECT_GT(d.kinetic, 0.0);
  EXPECT_GT(d.trap, 0.0);
  b->rotate_phase(x, 0.8);
  const Diagnostics rotated = b->diagnostics(x, kNoVector, x0);
  EXPECT_NEAR(rotated.norm, d.norm, 1e-14);
  EXPECT_LT(rotated.overlap.im, -0.1) << "the phase turned by -τU, U > 0";
}

// ---------------------------------------------------------------------------------------------
// The registries.

TEST(Registry, UnknownNamesAreRefusedWithTheKnownOnes) {
  try {
    find_scheme("euler");
    FAIL() << "an unknown scheme was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("leapfrog, rk4"), std::string::npos) << e.what();
  }
  const Problem p = trap_problem("cubic", 2000.0, 1.0, 0.0);
  try {
    make_backend("fortran", p);
    FAIL() << "an unknown backend was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("openmp, reference"), std::string::npos) << e.what();
  }
}

TEST(Registry, AutoPicksAUsableBackendAndEveryEntryIsNamedOnce) {
  EXPECT_TRUE(backend_unavailable("auto").empty());
  std::vector<std::string_view> names;
  for (const BackendEntry& e : backend_registry()) {
    EXPECT_EQ(std::count(names.begin(), names.end(), e.name), 0) << e.name;
    names.push_back(e.name);
  }
  EXPECT_NE(std::find(names.begin(), names.end(), "reference"), names.end());
}

/// The most vectors a scheme holds while it starts, steps (adaptively too) and reports: what the
/// memory check counts per cell.
int most_live_vectors(const SchemeEntry& e, const Problem& p, const std::vector<Complex>& psi0,
                      bool given_previous, bool adaptive) {
  verify::CountingBackend counting(make_backend("reference", p));
  {
    const double dt = verify::test_step(e.name, p, psi0);
    const std::unique_ptr<Scheme> scheme = make_scheme(e.name, counting, dt);
    scheme->start({psi0, psi0, given_previous ? psi0 : std::vector<Complex>{}});
    if (adaptive) {
      scheme->make_adaptive(e.adaptive, {4.0 * dt, dt, 0.05, 1e-6, 1e-7});
    }
    scheme->advance(4);
    scheme->diagnostics();
  }
  EXPECT_EQ(counting.live_vectors, 0) << e.name << ": vectors left behind";
  return counting.most_live_vectors;
}

TEST(Registry, VectorCountsAreWhatTheSchemesHold) {
  const Problem p = trap_problem("bcc", 2000.0, 1.4, 100.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  for (const SchemeEntry& e : scheme_registry()) {
    EXPECT_EQ(most_live_vectors(e, p, psi0, false, false), e.peak_vectors) << e.name;
    if (e.takes_previous_level) {
      EXPECT_EQ(most_live_vectors(e, p, psi0, true, false), e.peak_vectors - e.start_vectors)
          << e.name << ", the previous level given";
    } else {
      EXPECT_EQ(e.start_vectors, 0) << e.name;
    }
    if (e.adaptive != StepControl::fixed) {
      EXPECT_EQ(most_live_vectors(e, p, psi0, false, true), e.peak_vectors + e.adaptive_vectors)
          << e.name << ", adaptive";
    }
  }
}

// advance(0) is no step: the split schemes fuse their half-steps across the steps of one call
// and close them at its end, and once closed an empty call's opening half-step (a colour-0 sweep,
// a potential half-kick) on its own, which a harness sampling from step 0 ran into.
TEST(Registry, AdvancingZeroStepsLeavesTheStateAsItIs) {
  const Problem p = trap_problem("cubic", 2000.0, 1.4, 100.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  for (const SchemeEntry& e : scheme_registry()) {
    LiveScheme run("openmp", e.name, p, verify::test_step(e.name, p, psi0), psi0);
    const std::vector<Complex> before = run.level(0, p);
    EXPECT_EQ(run.scheme->advance(0), 0) << e.name;
    EXPECT_EQ(distance(p.grid, run.level(0, p), before), 0.0) << e.name;
    EXPECT_EQ(run.scheme->clock().steps, 0) << e.name;
  }
}

TEST(Registry, SchemesRefuseANonPositiveOrNonFiniteStep) {
  const Problem p = trap_problem("cubic", 2000.0, 1.0, 0.0);
  const std::unique_ptr<Backend> b = make_backend("reference", p);
  for (double dt : {0.0, -1e-3, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(make_scheme("leapfrog", *b, dt), std::invalid_argument) << dt;
  }
}

} // namespace
} // namespace decgpe
