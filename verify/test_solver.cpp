// The DEC GPE operator and the CPU integrators: exact invariants, backend agreement, convergence,
// stability guard.

#include "cli/case_file.hpp"
#include "cli/case_setup.hpp"
#include "solvers/backend.hpp"
#include "solvers/initial_state.hpp"
#include "solvers/integrator.hpp"
#include "verify/lattice_params.hpp"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <numbers>

namespace decgpe {
namespace {

/// A small problem with a harmonic trap of anisotropy `lambda`; S chosen so that boundary and
/// interior cells exist.
Problem make_problem(std::string_view lattice, std::array<int, 3> size, double h, double lambda,
                     double g) {
  Problem p;
  p.grid = make_grid(lattices::cell_complex(lattice), size, h);
  p.potential.lambda = lambda;
  p.g = g;
  return p;
}

/// A smooth state that is not stationary in the problem's trap: the λ = 1 vortex, normalised, in a
/// trap that is not.
std::vector<Complex> smooth_state(const Grid& grid) {
  return sample_normalised(grid, HarmonicVortex{1, 1.0}, 0.0);
}

struct LiveRun {
  Problem problem;
  std::unique_ptr<Backend> backend;
};

/// Loads ψ^{−1} = ψ^0 = the smooth state at dt = fraction × bound.
LiveRun start(std::string_view backend, Problem problem, double fraction) {
  const std::vector<Complex> psi = smooth_state(problem.grid);
  problem.dt = fraction * stability_bound(problem.grid, problem.potential, problem.g, psi);
  LiveRun r{std::move(problem), nullptr};
  r.backend = make_backend(backend, r.problem);
  r.backend->load(psi, psi, psi);
  return r;
}

/// Grid sizes per lattice for ~5-20k cells with a trap-sized domain.
std::pair<std::array<int, 3>, double> small_grid(std::string_view lattice) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const int n =
      std::max(4, static_cast<int>(std::lround(std::cbrt(12000.0 / c.cells_per_structure()))));
  const double h = 9.0 / (n * c.box.x);
  return {{n, std::max(2, static_cast<int>(std::lround(n / c.box.y))), n + 1}, h};
}

class Solver : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Solver, LeapfrogInvariantIsConservedOverTenThousandSteps) {
  const auto [size, h] = small_grid(GetParam());
  LiveRun r = start("openmp", make_problem(GetParam(), size, h, 1.4, 200.0), 0.9);
  const Diagnostics before = r.backend->diagnostics();
  r.backend->advance(10000);
  const Diagnostics after = r.backend->diagnostics();
  ASSERT_TRUE(after.finite);
  // The state really moved (non-stationary, interacting), yet the invariant did not.
  EXPECT_LT(std::hypot(after.overlap.re, after.overlap.im), 0.999);
  EXPECT_LE(std::abs(after.invariant - before.invariant), 1e-12 * std::abs(before.invariant));
  RecordProperty(
      "invariant_relative_drift",
      std::to_string(std::abs(after.invariant - before.invariant) / std::abs(before.invariant)));
}

TEST_P(Solver, OpenMPStateIsBitwiseIdenticalToReference) {
  const auto [size, h] = small_grid(GetParam());
  LiveRun ref = start("reference", make_problem(GetParam(), size, h, 1.4, 200.0), 0.9);
  LiveRun omp = start("openmp", make_problem(GetParam(), size, h, 1.4, 200.0), 0.9);
  ref.backend->advance(150);
  omp.backend->advance(150);
  const auto n = static_cast<std::size_t>(ref.problem.grid.cells());
  std::vector<Complex> a(n), a_prev(n), b(n), b_prev(n);
  ref.backend->store(a, a_prev);
  omp.backend->store(b, b_prev);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(Complex)), 0);
  EXPECT_EQ(std::memcmp(a_prev.data(), b_prev.data(), n * sizeof(Complex)), 0);
  const Diagnostics da = ref.backend->diagnostics(), db = omp.backend->diagnostics();
  EXPECT_NEAR(da.norm, db.norm, 1e-13 * da.norm);
  EXPECT_NEAR(da.energy, db.energy, 1e-12 * std::abs(da.energy));
  EXPECT_NEAR(da.invariant, db.invariant, 1e-13 * std::abs(da.invariant));
}

TEST_P(Solver, StabilityGuardStopsARunAboveTheBound) {
  const auto [size, h] = small_grid(GetParam());
  LiveRun r = start("openmp", make_problem(GetParam(), size, h, 1.0, 0.0), 2.2);
  RunObserver quiet;
  const Schedule schedule{20000, 50, 0};
  try {
    integrate(*r.backend, r.problem.dt, schedule, quiet);
    FAIL() << "a run at 2.2x the stability bound was not stopped";
  } catch (const InstabilityError& e) {
    EXPECT_NE(std::string(e.what()).find("step "), std::string::npos) << e.what();
  }
}

TEST_P(Solver, BelowTheBoundTheGuardStaysQuiet) {
  const auto [size, h] = small_grid(GetParam());
  LiveRun r = start("openmp", make_problem(GetParam(), size, h, 1.0, 0.0), 0.95);
  RunObserver quiet;
  EXPECT_NO_THROW(integrate(*r.backend, r.problem.dt, Schedule{3000, 50, 0}, quiet));
}

INSTANTIATE_TEST_SUITE_P(AllSix, Solver, verify::all_lattices(), verify::lattice_name);

/// Phase error of the g = 0 vortex eigenstate at t = 1 against the exact e^{−iμt}, via the case
/// pipeline.
double phase_error(std::string_view lattice, double h) {
  const std::string toml =
      "lattice = \"" + std::string(lattice) + "\"\nh = " + std::to_string(h) +
      "\ndomain = [12.0, 12.0, 12.0]\n[time]\ndt_fraction = 0.5\nend_time = 1.0\n"
      "diagnostics_every = 100000\n[initial]\nkappa = 1\n";
  const cli::RunSetup setup = cli::prepare_run(cli::parse_case(toml, "phase.toml"));
  const std::unique_ptr<Backend> backend = make_backend("openmp", setup.problem);
  backend->load(setup.previous, setup.current, setup.current);
  backend->advance(setup.schedule.steps);
  const Diagnostics d = backend->diagnostics();
  // The discrete eigenstate differs from the sampled continuum one by O(h²): |overlap| stays near,
  // not at, 1.
  EXPECT_NEAR(std::hypot(d.overlap.re, d.overlap.im), 1.0, 5e-3) << lattice << " h = " << h;
  const double t = static_cast<double>(setup.schedule.steps) * setup.problem.dt;
  return std::abs(std::remainder(std::atan2(d.overlap.im, d.overlap.re) + setup.mu * t,
                                 2.0 * std::numbers::pi));
}

class PhaseConvergence : public ::testing::TestWithParam<std::string_view> {};

TEST_P(PhaseConvergence, HarmonicVortexPhaseConvergesAtSecondOrderInH) {
  // Equal cell density across lattices: h scales with the structure's cell count.
  const double unit = std::cbrt(lattices::cell_complex(GetParam()).structure_volume() /
                                lattices::cell_complex(GetParam()).cells_per_structure());
  const double coarse = 0.5 / unit, fine = 0.35 / unit;
  const double e_coarse = phase_error(GetParam(), coarse), e_fine = phase_error(GetParam(), fine);
  const double order = std::log(e_coarse / e_fine) / std::log(coarse / fine);
  RecordProperty("phase_order", std::to_string(order));
  EXPECT_LT(e_fine, 0.05);
  EXPECT_GE(order, 1.8) << "errors " << e_coarse << " -> " << e_fine;
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, PhaseConvergence, ::testing::Values("cubic", "bcc"),
                         verify::lattice_name);

} // namespace
} // namespace decgpe
