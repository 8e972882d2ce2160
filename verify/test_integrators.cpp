// The integrators of the literature on the DEC lattices: the face colouring behind Trotter–Suzuki,
// its unitarity at any Δt, the Chebyshev exponential against a dense one, the portable sin and cos,
// and the temporal orders of the split schemes.

#include "setup/case_file.hpp"
#include "setup/case_setup.hpp"
#include "solvers/face_colouring.hpp"
#include "solvers/schemes/exponential/exponential.hpp"
#include "verify/lattice_params.hpp"
#include "verify/scheme_runs.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <numbers>
#include <random>

namespace decgpe {
namespace {

using verify::distance;
using verify::LiveScheme;
using verify::trap_problem;
using verify::vortex;

std::string scientific(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3e", x);
  return buffer;
}

// ---------------------------------------------------------------------------------------------
// The colouring: every face of the infinite lattice in exactly one colour, both its cells agreeing.

class Colouring : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Colouring, EachColourIsAMatchingAndEveryFaceIsColouredOnce) {
  const Problem p = trap_problem(GetParam(), 2000.0, 1.0, 0.0);
  const Grid& g = p.grid;
  const FaceColouring& c = face_colouring(g);
  int most_faces = 0;
  for (int l = 0; l < g.ms; ++l) {
    most_faces = std::max(most_faces, g.row_begin[l + 1] - g.row_begin[l]);
  }
  RecordProperty("colours", c.colours);
  EXPECT_GE(c.colours, most_faces); // a proper edge colouring needs at least the degree
  EXPECT_LE(c.colours, most_faces + 1) << "more colours than Vizing's bound";
  for (int parity = 0; parity < kParities; ++parity) {
    for (int l = 0; l < g.ms; ++l) {
      const int faces = g.row_begin[l + 1] - g.row_begin[l];
      std::vector<int> times_coloured(static_cast<std::size_t>(faces), 0);
      for (int colour = 0; colour < c.colours; ++colour) {
        const int f = c.face_of(colour, parity, l);
        if (f < 0) {
          continue;
        }
        ASSERT_LT(f, faces);
        ++times_coloured[static_cast<std::size_t>(f)];
        // The cell across holds the same face in the same colour: the pair is matched.
        const int e = g.row_begin[l] + f;
        const StencilEntry& s = g.stencil[static_cast<std::size_t>(e)];
        const int across = cell_parity((parity & 1) + s.dx, ((parity >> 1) & 1) + s.dy,
                                       ((parity >> 2) & 1) + s.dz);
        EXPECT_EQ(c.face_of(colour, across, s.neighbour), reverse_face(g, l, e))
            << "colour " << colour << ", parity " << parity << ", cell " << l;
      }
      for (int f = 0; f < faces; ++f) {
        EXPECT_EQ(times_coloured[static_cast<std::size_t>(f)], 1)
            << "cell " << l << " face " << f << " parity " << parity;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Colouring, verify::every_stencil(), verify::lattice_name);

TEST(Colouring, OneSweepOfEveryColourIsTheKineticExponentialToSecondOrder) {
  // K_0(τ)…K_{C−1}(τ) − exp(−iτ½L) = O(τ²): the error falls 4× when τ halves.
  const Problem p = trap_problem("bcc", 3000.0, 1.0, 0.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const int colours = face_colouring(p.grid).colours;
  std::vector<double> errors;
  for (double tau : {0.02, 0.01, 0.005}) {
    const std::unique_ptr<Backend> b = make_backend("reference", p);
    const VectorId x = b->create_vector(), y = b->create_vector(), acc = b->create_vector();
    b->upload(x, psi0);
    for (int c = 0; c < colours; ++c) {
      b->rotate_faces({c % 2 == 0 ? x : y, c % 2 == 0 ? y : x, c, tau});
    }
    std::vector<Complex> swept(psi0.size()), exact(psi0.size());
    b->download(colours % 2 == 0 ? x : y, swept);
    b->upload(x, psi0);
    apply_chebyshev(*b, plan_chebyshev(p.grid, tau, 1e-14), x, y, acc);
    b->download(acc, exact);
    errors.push_back(distance(p.grid, swept, exact));
  }
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.15);
  EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.15);
}

TEST(Colouring, TheFusedPhaseIsBitwiseTheSweepThenThePhase) {
  const Problem p = trap_problem("c15", 3000.0, 1.4, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  for (const char* name : {"reference", "openmp"}) {
    const std::unique_ptr<Backend> b = make_backend(name, p);
    const VectorId x = b->create_vector(), y = b->create_vector();
    std::vector<Complex> fused(psi0.size()), separate(psi0.size());
    b->upload(x, psi0);
    b->rotate_faces({x, y, 1, 0.03, 0.07});
    b->download(y, fused);
    b->rotate_faces({x, y, 1, 0.03});
    b->rotate_phase(y, 0.07);
    b->download(y, separate);
    EXPECT_TRUE(verify::bitwise_equal(fused, separate)) << name;
  }
}

// ---------------------------------------------------------------------------------------------
// Trotter–Suzuki: unitary at any step.

class TrotterSuzukiNorm : public ::testing::TestWithParam<std::string_view> {};

TEST_P(TrotterSuzukiNorm, ConservedToRoundOffOverTenThousandStepsAtFiveTimesTheLeapfrogLimit) {
  const Problem p = trap_problem(GetParam(), 3000.0, 1.4, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const double dt = 5.0 * verify::scheme_limit("leapfrog", p, psi0);
  LiveScheme run("openmp", "trotter_suzuki", p, dt, psi0);
  const double before = run.scheme->diagnostics().norm;
  run.scheme->advance(10000);
  const Diagnostics after = run.scheme->diagnostics();
  RecordProperty("norm_drift", scientific(std::abs(after.norm - before) / before));
  EXPECT_TRUE(after.finite);
  EXPECT_LE(std::abs(after.norm - before), 1e-13 * before);
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, TrotterSuzukiNorm, ::testing::Values("cubic", "bcc"),
                         verify::lattice_name);

TEST(TrotterSuzuki, CasesTakeTheStepBelowTheLimitForDynamicsUnlessAskedPastIt) {
  const std::string grid = "lattice = \"bcc\"\nh = 0.8\nstructures = [5, 4, 6]\ng = 100.0\n"
                           "[initial]\nkappa = 1\n";
  const auto setup = [&](const std::string& time) {
    return setup::prepare_run(setup::parse_case(grid + time, "cases/x.toml"));
  };
  // A fraction of π/λ_max(½L).
  const setup::RunSetup half =
      setup("[time]\nscheme = \"trotter_suzuki\"\ndt_fraction = 0.5\nsteps = 3\n");
  EXPECT_NEAR(half.limit * half.kinetic_top, std::numbers::pi, 1e-12);
  EXPECT_EQ(half.dt, 0.5 * half.limit);
  EXPECT_EQ(half.limit_method, "pi / lambda_max(L/2), for dynamics");
  // Past it (the kinetic phase wraps in a step): refused, unless asked for; then run as given.
  const std::string past =
      "[time]\nscheme = \"trotter_suzuki\"\ndt = " + std::to_string(1.5 * half.limit) +
      "\nsteps = 3\n";
  try {
    setup(past);
    ADD_FAILURE() << "a step past the limit for dynamics was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("time.beyond_limit = true"), std::string::npos)
        << e.what();
  }
  const setup::RunSetup run = setup(past + "beyond_limit = true\n");
  EXPECT_GT(run.dt, run.limit);
}

// ---------------------------------------------------------------------------------------------
// The Chebyshev exponential against a dense exp(−iτ½L) (scaling and squaring of a Taylor series).

using Dense = std::vector<std::vector<Complex>>;

Dense multiply(const Dense& a, const Dense& b) {
  const std::size_t n = a.size();
  Dense c(n, std::vector<Complex>(n, Complex{0.0, 0.0}));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      for (std::size_t j = 0; j < n; ++j) {
        c[i][j] = c[i][j] + mul(a[i][k], b[k][j]);
      }
    }
  }
  return c;
}

/// ½L of the whole (small) grid as a dense matrix, Dirichlet faces included.
Dense dense_half_laplacian(const Grid& g) {
  const auto n = static_cast<std::size_t>(g.cells());
  Dense a(n, std::vector<Complex>(n, Complex{0.0, 0.0}));
  for (std::int64_t i = 0; i < g.cells(); ++i) {
    const std::int64_t s = i / g.ms;
    const int l = static_cast<int>(i % g.ms);
    const std::int64_t sx = s % g.size[0], sy = (s / g.size[0]) % g.size[1],
                       sz = s / (std::int64_t{g.size[0]} * g.size[1]);
    for (int e = g.row_begin[l]; e < g.row_begin[l + 1]; ++e) {
      const StencilEntry& f = g.stencil[static_cast<std::size_t>(e)];
      a[i][i].re += 0.5 * f.weight;
      const std::int64_t nx = sx + f.dx, ny = sy + f.dy, nz = sz + f.dz;
      if (nx >= 0 && ny >= 0 && nz >= 0 && nx < g.size[0] && ny < g.size[1] && nz < g.size[2]) {
        a[i]
         [static_cast<std::size_t>(g.ms * ((nz * g.size[1] + ny) * g.size[0] + nx) + f.neighbour)]
             .re -= 0.5 * f.weight;
      }
    }
  }
  return a;
}

/// The largest row sum of |Re a_ij|: the ∞-norm of a real matrix.
double max_row_sum(const Dense& a) {
  double norm = 0.0;
  for (const auto& row : a) {
    double sum = 0.0;
    for (const Complex& v : row) {
      sum += std::abs(v.re);
    }
    norm = std::max(norm, sum);
  }
  return norm;
}

/// exp(−iτ ½L) of the whole (small) grid, Dirichlet faces included.
Dense dense_kinetic_exponential(const Grid& g, double tau) {
  const auto n = static_cast<std::size_t>(g.cells());
  const Dense a = dense_half_laplacian(g);
  // −iτA / 2^k small enough for 24 Taylor terms, then squared k times.
  const double norm = max_row_sum(a);
  const int squarings = std::max(0, static_cast<int>(std::ceil(std::log2(tau * norm / 0.25))));
  const double scale = tau / std::ldexp(1.0, squarings);
  Dense x(n, std::vector<Complex>(n)), term(n, std::vector<Complex>(n, Complex{0.0, 0.0})),
      result(n, std::vector<Complex>(n, Complex{0.0, 0.0}));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      x[i][j] = Complex{0.0, -scale * a[i][j].re};
    }
    term[i][i] = result[i][i] = Complex{1.0, 0.0};
  }
  for (int k = 1; k <= 24; ++k) {
    term = multiply(term, x);
    for (auto& row : term) {
      for (Complex& v : row) {
        v = (1.0 / k) * v;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        result[i][j] = result[i][j] + term[i][j];
      }
    }
  }
  for (int k = 0; k < squarings; ++k) {
    result = multiply(result, result);
  }
  return result;
}

TEST(Chebyshev, ApproximatesTheKineticExponentialToItsTolerance) {
  Problem p;
  p.grid = make_grid(lattices::cell_complex("bcc"), {2, 2, 3}, 0.5); // 144 cells
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  std::vector<Complex> v(static_cast<std::size_t>(p.grid.cells()));
  for (Complex& c : v) {
    c = {normal(random), normal(random)};
  }
  const double weight = std::sqrt(distance(p.grid, v, std::vector<Complex>(v.size())));
  for (const double tau : {0.01, 0.3, 2.0}) {
    for (const double tolerance : {1e-6, 1e-12}) {
      const ChebyshevPlan plan = plan_chebyshev(p.grid, tau, tolerance);
      const std::unique_ptr<Backend> b = make_backend("reference", p);
      const VectorId x = b->create_vector(), t = b->create_vector(), acc = b->create_vector();
      b->upload(x, v);
      apply_chebyshev(*b, plan, x, t, acc);
      std::vector<Complex> approx(v.size()), exact(v.size(), Complex{0.0, 0.0});
      b->download(acc, approx);
      const Dense e = dense_kinetic_exponential(p.grid, tau);
      for (std::size_t i = 0; i < v.size(); ++i) {
        for (std::size_t j = 0; j < v.size(); ++j) {
          exact[i] = exact[i] + mul(e[i][j], v[j]);
        }
      }
      const double error = distance(p.grid, approx, exact) / (weight * weight);
      RecordProperty("degree_tau_" + std::to_string(tau) + "_tol_" + std::to_string(tolerance),
                     plan.degree());
      EXPECT_LE(plan.error_bound, tolerance);
      EXPECT_LE(error, tolerance + 1e-14) << "tau " << tau << ", degree " << plan.degree();
    }
  }
}

TEST(Chebyshev, DegreeGrowsWithTheStepAsTheBoundSays) {
  const Problem p = trap_problem("cubic", 4000.0, 1.0, 0.0);
  int previous = 0;
  for (const double tau : {0.001, 0.01, 0.1, 1.0}) {
    const ChebyshevPlan plan = plan_chebyshev(p.grid, tau, 1e-12);
    EXPECT_GT(plan.degree(), previous);
    EXPECT_GE(plan.degree(), static_cast<int>(tau * plan.half_width)); // at least ~τ·r terms
    previous = plan.degree();
  }
}

// ---------------------------------------------------------------------------------------------
// cubic4: NLSEmagic's fourth-order operator on the cubic grid.

/// |⟨ψ, Mψ⟩/⟨ψ, ψ⟩ − μ| for the sampled κ = 1 oscillator eigenstate (μ = 2.5 at λ = 1, g = 0): the
/// error of the phase velocity, which falls at the operator's spatial order.
double oscillator_phase_rate_error(std::string_view lattice, double spacing) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const double h = spacing * (lattice == "cubic4" ? 2.0 : 1.0); // cubic4: two cells per edge
  const int n = static_cast<int>(std::lround(12.0 / h)); // ±6 trap units: e^{−18} at the edge
  Problem p;
  p.grid = make_grid(c, {n, n, n}, h);
  p.potential.lambda = 1.0;
  const std::vector<Complex> psi = vortex(p.grid);
  const std::unique_ptr<Backend> b = make_backend("openmp", p);
  const VectorId v = b->create_vector();
  b->upload(v, psi);
  const Diagnostics d = b->diagnostics(v, kNoVector, v);
  return std::abs(d.energy / d.norm - 2.5);
}

TEST(Cubic4, OscillatorPhaseConvergesAtFourthOrderInSpace) {
  for (const std::string_view lattice : {"cubic", "cubic4"}) {
    const double coarse = oscillator_phase_rate_error(lattice, 0.4);
    const double middle = oscillator_phase_rate_error(lattice, 0.2);
    const double fine = oscillator_phase_rate_error(lattice, 0.1);
    const double first = std::log2(coarse / middle), second = std::log2(middle / fine);
    RecordProperty(std::string(lattice) + "_orders",
                   std::to_string(first) + " " + std::to_string(second));
    RecordProperty(std::string(lattice) + "_errors", scientific(coarse) + " " + scientific(fine));
    if (lattice == "cubic4") {
      EXPECT_GE(std::min(first, second), 3.8) << lattice;
    } else {
      EXPECT_NEAR(first, 2.0, 0.15) << lattice;
      EXPECT_NEAR(second, 2.0, 0.15) << lattice;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The portable sin and cos of the phase kernel.

TEST(CosSin, WithinTwoUlpsOfTheLibrary) {
  double worst = 0.0;
  for (int k = -200000; k <= 200000; ++k) {
    const double x = 1e-3 * k + 1e-7 * (k % 13);
    const Complex cs = cos_sin(x);
    worst = std::max({worst, std::abs(cs.re - std::cos(x)), std::abs(cs.im - std::sin(x))});
  }
  RecordProperty("worst_absolute_error", scientific(worst));
  EXPECT_LE(worst, 4.5e-16);
  for (const double x : {0.0, 1e-300, 1e-8, 0.785398163397448, 1e4, -1e5}) {
    const Complex cs = cos_sin(x);
    EXPECT_NEAR(cs.re, std::cos(x), 1e-15 * (1.0 + std::abs(x) * 1e-5)) << x;
    EXPECT_NEAR(cs.im, std::sin(x), 1e-15 * (1.0 + std::abs(x) * 1e-5)) << x;
    EXPECT_NEAR(cs.re * cs.re + cs.im * cs.im, 1.0, 4e-16) << x;
  }
}

// ---------------------------------------------------------------------------------------------
// Temporal orders of the split schemes: a fixed grid, Δt halved three times, the reference
// solution RK4 (another scheme) at Δt/128, its error far below the others'.

struct SplitOrder {
  std::string_view lattice;
  std::string_view scheme;
  double order;
};

class SplitTemporalOrder : public ::testing::TestWithParam<SplitOrder> {};

TEST_P(SplitTemporalOrder, ErrorFallsAtTheSchemesOrder) {
  const SplitOrder& c = GetParam();
  const Problem p = trap_problem(c.lattice, 8000.0, 1.4, 100.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  // Past the leapfrog's limit, where these schemes are meant to be used, yet in the asymptotic
  // range of every one of them.
  const double dt0 = 1.0 * verify::scheme_limit("leapfrog", p, psi0);
  constexpr long kSteps = 16;
  LiveScheme reference("openmp", "rk4", p, dt0 / 128.0, psi0);
  reference.scheme->advance(128 * kSteps);
  const std::vector<Complex> exact = reference.level(0, p);
  std::vector<double> errors;
  std::string orders;
  for (long refine = 1; refine <= 8; refine *= 2) {
    LiveScheme run("openmp", c.scheme, p, dt0 / static_cast<double>(refine), psi0);
    run.scheme->advance(kSteps * refine);
    errors.push_back(distance(p.grid, run.level(0, p), exact));
  }
  double lowest = 1e9;
  for (std::size_t k = 0; k + 1 < errors.size(); ++k) {
    const double order = std::log2(errors[k] / errors[k + 1]);
    lowest = std::min(lowest, order);
    orders += std::to_string(order) + " ";
  }
  RecordProperty("orders", orders);
  RecordProperty("errors", scientific(errors.front()) + " .. " + scientific(errors.back()));
  EXPECT_GE(lowest, c.order - 0.1) << "orders " << orders;
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, SplitTemporalOrder,
                         ::testing::Values(SplitOrder{"cubic", "trotter_suzuki", 2.0},
                                           SplitOrder{"bcc", "trotter_suzuki", 2.0},
                                           SplitOrder{"cubic", "trotter_suzuki4", 3.9},
                                           SplitOrder{"bcc", "trotter_suzuki4", 3.9},
                                           SplitOrder{"cubic", "exponential", 2.0},
                                           SplitOrder{"bcc", "exponential", 2.0}),
                         [](const auto& param) {
                           return std::string(param.param.lattice) + "_" +
                                  std::string(param.param.scheme);
                         });

} // namespace
} // namespace decgpe
