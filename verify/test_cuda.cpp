// The CUDA backend against the reference oracle (label gpu). Skips with a message where no GPU is
// usable.

#include "solvers/backend.hpp"
#include "solvers/initial_state.hpp"
#include "solvers/integrator.hpp"
#include "verify/lattice_params.hpp"

#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace decgpe {
namespace {

/// Why the GPU tests cannot run here, or empty when they can.
std::string why_no_gpu() {
#if DECGPE_HAVE_CUDA
  return cuda::device_available()
             ? ""
             : "no CUDA device on this machine: GPU tests run on the GPU machine "
               "(scripts/device-run.sh)";
#else
  return "this build has no CUDA backend (configure with the cuda preset where nvcc exists)";
#endif
}

// GTEST_SKIP returns from the function it is written in, so this must be a macro.
#define SKIP_WITHOUT_GPU()                                                                         \
  if (const std::string why = why_no_gpu(); !why.empty()) {                                        \
    GTEST_SKIP() << why;                                                                           \
  }

/// A trap-sized, interacting, non-stationary problem with boundary and interior cells on every
/// axis.
Problem make_problem(std::string_view lattice, double g) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const int n =
      std::max(4, static_cast<int>(std::lround(std::cbrt(30000.0 / c.cells_per_structure()))));
  Problem p;
  p.grid =
      make_grid(c, {n, std::max(2, static_cast<int>(std::lround(n / c.box.y))), n + 1}, 9.0 / n);
  p.potential.lambda = 1.4;
  p.g = g;
  return p;
}

std::vector<Complex> initial_state(const Problem& p) {
  return sample_normalised(p.grid, HarmonicVortex{1, 1.0}, 0.0);
}

struct Param {
  std::string_view lattice;
  std::string_view backend;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.lattice << " on " << p.backend;
}

class CudaVsReference : public ::testing::TestWithParam<Param> {};

TEST_P(CudaVsReference, StateIsBitwiseIdenticalAfterAThousandSteps) {
  SKIP_WITHOUT_GPU();
  Problem p = make_problem(GetParam().lattice, 200.0);
  const std::vector<Complex> psi = initial_state(p);
  p.dt = 0.9 * stability_bound(p.grid, p.potential, p.g, psi);
  const auto ref = make_backend("reference", p);
  const auto gpu = make_backend(GetParam().backend, p);
  ref->load(psi, psi, psi);
  gpu->load(psi, psi, psi);
  ref->advance(1000);
  gpu->advance(1000);
  const auto n = static_cast<std::size_t>(p.grid.cells());
  std::vector<Complex> a(n), a_prev(n), b(n), b_prev(n);
  ref->store(a, a_prev);
  gpu->store(b, b_prev);
  // No FMA contraction and the reference's operation order: the states agree to the bit. Report the
  // largest relative difference as well, so a regression shows its size.
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    worst = std::max(worst, std::hypot(a[i].re - b[i].re, a[i].im - b[i].im));
    scale = std::max(scale, std::hypot(a[i].re, a[i].im));
  }
  RecordProperty("max_relative_difference", std::to_string(worst / scale));
  EXPECT_LE(worst / scale, 1e-12);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(Complex)), 0)
      << "max relative difference " << worst / scale;
  EXPECT_EQ(std::memcmp(a_prev.data(), b_prev.data(), n * sizeof(Complex)), 0);

  const Diagnostics dr = ref->diagnostics(), dg = gpu->diagnostics();
  EXPECT_NEAR(dg.norm, dr.norm, 1e-13 * dr.norm);
  EXPECT_NEAR(dg.energy, dr.energy, 1e-12 * std::abs(dr.energy));
  EXPECT_NEAR(dg.invariant, dr.invariant, 1e-13 * std::abs(dr.invariant));
  EXPECT_NEAR(dg.overlap.re, dr.overlap.re, 1e-12);
  EXPECT_NEAR(dg.overlap.im, dr.overlap.im, 1e-12);
  EXPECT_EQ(dg.max_abs, dr.max_abs);
  EXPECT_NEAR(dg.max_diagonal, dr.max_diagonal, 1e-12 * dr.max_diagonal);
  EXPECT_TRUE(dg.finite);
}

TEST_P(CudaVsReference, LeapfrogInvariantIsConservedOnTheGpu) {
  SKIP_WITHOUT_GPU();
  Problem p = make_problem(GetParam().lattice, 200.0);
  const std::vector<Complex> psi = initial_state(p);
  p.dt = 0.9 * stability_bound(p.grid, p.potential, p.g, psi);
  const auto gpu = make_backend(GetParam().backend, p);
  gpu->load(psi, psi, psi);
  const Diagnostics before = gpu->diagnostics();
  gpu->advance(10000);
  const Diagnostics after = gpu->diagnostics();
  EXPECT_LT(std::hypot(after.overlap.re, after.overlap.im), 0.999); // it moved
  EXPECT_LE(std::abs(after.invariant - before.invariant), 1e-12 * std::abs(before.invariant));
}

TEST_P(CudaVsReference, StabilityGuardTripsOnTheGpu) {
  SKIP_WITHOUT_GPU();
  Problem p = make_problem(GetParam().lattice, 0.0);
  const std::vector<Complex> psi = initial_state(p);
  p.dt =
      2.2 * stability_bound(p.grid, p.potential, p.g, psi); // beyond 2× the bound: surely unstable
  const auto gpu = make_backend(GetParam().backend, p);
  gpu->load(psi, psi, psi);
  RunObserver quiet;
  EXPECT_THROW(integrate(*gpu, p.dt, Schedule{20000, 50, 0}, quiet), InstabilityError);
}

std::vector<Param> all_pairs() {
  std::vector<Param> out;
  for (std::string_view lattice : lattices::crystal_names()) {
    for (std::string_view backend : {"cuda:plain", "cuda:shared"}) {
      out.push_back({lattice, backend});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllSix, CudaVsReference, ::testing::ValuesIn(all_pairs()),
                         [](const auto& param) {
                           std::string backend(param.param.backend);
                           return std::string(param.param.lattice) + "_" + backend.substr(5);
                         });

TEST(CudaBackend, MaxDiagonalMatchesTheHostBound) {
  SKIP_WITHOUT_GPU();
  Problem p = make_problem("c15", 300.0);
  const std::vector<Complex> psi = initial_state(p);
  p.dt = 1e-4;
  const auto gpu = make_backend("cuda", p);
  gpu->load(psi, psi, psi);
  EXPECT_NEAR(gpu->diagnostics().max_diagonal, max_diagonal(p.grid, p.potential, p.g, psi), 1e-12);
}

} // namespace
} // namespace decgpe
