// The CUDA backend against the reference oracle (label gpu): both schemes and every kernel of the
// set. Skips with a message where no GPU is usable.

#include "solvers/backend_registry.hpp"
#include "solvers/integrator.hpp"
#include "verify/adaptive_runs.hpp"
#include "verify/counting_backend.hpp"
#include "verify/lattice_params.hpp"
#include "verify/random_phases.hpp"
#include "verify/restart_chain.hpp"
#include "verify/scheme_runs.hpp"

#if DECGPE_HAVE_CUDA
#include "solvers/cuda/kernels.hpp"
#endif

#include <array>
#include <cmath>
#include <cstdint>
#include <future>
#include <gtest/gtest.h>

namespace decgpe {
namespace {

using verify::bitwise_equal;
using verify::LiveScheme;
using verify::scheme_limit;
using verify::vortex;

// GTEST_SKIP returns from the function it is written in, so this must be a macro.
#define SKIP_WITHOUT_GPU()                                                                         \
  if (const std::string why = backend_unavailable_here("cuda"); !why.empty()) {                    \
    GTEST_SKIP() << why;                                                                           \
  }

std::string backend_unavailable_here(std::string_view name) {
  try {
    const std::string why = backend_unavailable(name);
    return why.empty() ? "" : why + ": GPU tests run on the GPU machine (scripts/device-run.sh)";
  } catch (const std::invalid_argument&) {
    return "this build has no CUDA backend (configure with the cuda preset where nvcc exists)";
  }
}

/// Trap-sized, interacting, non-stationary, with boundary and interior cells on every axis.
Problem make_problem(std::string_view lattice, double g) {
  return verify::trap_problem(lattice, 30000.0, 1.4, g);
}

/// A lattice and the block of the CUDA backend: the default (on these small grids, one slice a
/// block: too few chunks for a sweep) or a sweep forced by giving its settings in full.
struct Param {
  std::string_view lattice;
  std::string_view shape;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.lattice << " with block " << p.shape;
}

BackendTuning tuned(const Param& p) {
  BackendTuning t;
  t.values["cuda.block_shape"] = p.shape;
  return t;
}

class CudaVsReference : public ::testing::TestWithParam<Param> {};

TEST_P(CudaVsReference, EverySchemeIsBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam().lattice, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  for (const SchemeEntry& entry : scheme_registry()) {
    const std::string_view scheme = entry.name;
    const long steps = verify::comparison_steps(scheme, 1001);
    const double dt = verify::test_step(scheme, p, psi0);
    LiveScheme ref("reference", scheme, p, dt, psi0);
    LiveScheme gpu("cuda", scheme, p, dt, psi0, {}, tuned(GetParam()));
    ref.scheme->advance(steps);
    gpu.scheme->advance(steps);
    for (int level = 0; level < static_cast<int>(ref.scheme->level_names().size()); ++level) {
      const std::vector<Complex> a = ref.level(level, p), b = gpu.level(level, p);
      // No FMA contraction and the reference's operation order: the states agree to the bit.
      // Report the largest relative difference as well, so a regression shows its size.
      double worst = 0.0, scale = 0.0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::sqrt(norm2(a[i] - b[i])));
        scale = std::max(scale, std::sqrt(norm2(a[i])));
      }
      RecordProperty(std::string(scheme) + "_max_relative_difference",
                     std::to_string(worst / scale));
      EXPECT_TRUE(bitwise_equal(a, b))
          << scheme << " level " << level << ": max relative difference " << worst / scale;
    }
    const Diagnostics dr = ref.scheme->diagnostics(), dg = gpu.scheme->diagnostics();
    EXPECT_NEAR(dg.norm, dr.norm, 1e-13 * dr.norm) << scheme;
    EXPECT_NEAR(dg.energy, dr.energy, 1e-12 * std::abs(dr.energy)) << scheme;
    EXPECT_NEAR(dg.kinetic, dr.kinetic, 1e-12 * std::abs(dr.energy)) << scheme;
    EXPECT_NEAR(dg.trap, dr.trap, 1e-12 * std::abs(dr.energy)) << scheme;
    EXPECT_NEAR(dg.interaction, dr.interaction, 1e-12 * std::abs(dr.energy)) << scheme;
    EXPECT_NEAR(dg.invariant, dr.invariant, 1e-13 * std::abs(dr.invariant)) << scheme;
    EXPECT_NEAR(dg.overlap.re, dr.overlap.re, 1e-12) << scheme;
    EXPECT_NEAR(dg.overlap.im, dr.overlap.im, 1e-12) << scheme;
    EXPECT_EQ(dg.max_abs, dr.max_abs) << scheme;
    EXPECT_NEAR(dg.max_diagonal, dr.max_diagonal, 1e-12 * dr.max_diagonal) << scheme;
    EXPECT_TRUE(dg.finite) << scheme;
  }
}

TEST_P(CudaVsReference, EveryKernelIsBitwiseIdentical) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam().lattice, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const auto reference = verify::kernel_trail(*make_backend("reference", p), psi0);
  const auto gpu = verify::kernel_trail(*make_backend("cuda", p, nullptr, tuned(GetParam())), psi0);
  for (std::size_t k = 0; k < reference.size(); ++k) {
    EXPECT_TRUE(bitwise_equal(reference[k], gpu[k])) << "kernel trail entry " << k;
  }
}

TEST_P(CudaVsReference, LeapfrogInvariantIsConservedOnTheGpu) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam().lattice, 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  LiveScheme gpu("cuda", "leapfrog", p, 0.9 * scheme_limit("leapfrog", p, psi0), psi0, {},
                 tuned(GetParam()));
  const Diagnostics before = gpu.scheme->diagnostics();
  gpu.scheme->advance(10000);
  const Diagnostics after = gpu.scheme->diagnostics();
  EXPECT_LT(std::hypot(after.overlap.re, after.overlap.im), 0.999); // it moved
  EXPECT_LE(std::abs(after.invariant - before.invariant), 1e-12 * std::abs(before.invariant));
}

TEST_P(CudaVsReference, StabilityGuardTripsAboveTheLimitOnTheGpu) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam().lattice, 0.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  for (std::string_view scheme : {"leapfrog", "rk4"}) {
    LiveScheme gpu("cuda", scheme, p, 1.05 * scheme_limit(scheme, p, psi0), psi0, {},
                   tuned(GetParam()));
    RunObserver quiet;
    EXPECT_THROW(integrate(*gpu.scheme, Schedule{20000, 50, 0}, quiet), InstabilityError) << scheme;
  }
}

class CudaAdaptive : public ::testing::TestWithParam<std::string_view> {};

TEST_P(CudaAdaptive, EveryAdaptiveSchemeTakesTheReferencesStepsWithoutCopyingPsi) {
  SKIP_WITHOUT_GPU();
  const Problem p = verify::quench_problem(GetParam(), 8000.0);
  const std::vector<Complex> psi0 = verify::quench_start(p);
  AdaptiveSettings s = verify::quench_settings(psi0, 0.3, 1e-8);
  s.dt_max = std::min(s.dt_max, 0.9 * scheme_limit("rk4", p, psi0));
  for (const SchemeEntry& entry : scheme_registry()) {
    if (entry.adaptive == StepControl::fixed) {
      continue;
    }
    LiveScheme ref("reference", entry.name, p, s.dt_max, psi0);
    verify::CountingBackend gpu(make_backend("cuda", p));
    const std::unique_ptr<Scheme> on_gpu = make_scheme(entry.name, gpu, s.dt_max);
    on_gpu->start({psi0, psi0, {}});
    ref.scheme->make_adaptive(entry.adaptive, s);
    on_gpu->make_adaptive(entry.adaptive, s);
    const long steps = ref.scheme->advance(100000);
    EXPECT_EQ(on_gpu->advance(100000), steps) << entry.name;
    EXPECT_EQ(gpu.downloads, 0) << entry.name << ": an adaptive step copied a vector to the host";
    EXPECT_GE(gpu.step_reductions, steps) << entry.name;
    EXPECT_EQ(on_gpu->clock().time, s.end_time) << entry.name;
    EXPECT_EQ(on_gpu->clock().next_dt, ref.scheme->clock().next_dt) << entry.name;
    std::vector<Complex> b(psi0.size());
    on_gpu->download(0, b);
    EXPECT_TRUE(bitwise_equal(ref.level(0, p), b)) << entry.name;
  }
}

INSTANTIATE_TEST_SUITE_P(CubicAndBcc, CudaAdaptive, ::testing::Values("cubic", "bcc"),
                         verify::lattice_name);

std::vector<Param> all_pairs() {
  std::vector<Param> out;
  for (std::string_view lattice : lattices::lattice_names()) {
    for (std::string_view shape : {"sweep", "1x256z3a2b4f"}) {
      out.push_back({lattice, shape});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaVsReference, ::testing::ValuesIn(all_pairs()),
                         [](const auto& param) {
                           return std::string(param.param.lattice) +
                                  (param.param.shape == "sweep" ? "_default" : "_sweep");
                         });

class CudaPrecision : public ::testing::TestWithParam<std::string_view> {
protected:
  /// The test problem in `precision`, in the conformance suite's rotating frame where `rotating`.
  static Problem in(Precision precision, bool rotating) {
    Problem p = make_problem(GetParam(), 200.0);
    p.precision = precision;
    if (rotating) {
      p.potential.rotation = {0.6, 0.3, -0.2};
    }
    return p;
  }

  /// A block given in full: every pass sweeps, prefetching rows of 8-byte values that start and
  /// end off the 16-byte words the bulk prefetch takes, at `blocks` blocks an SM (4: the passes'
  /// and the rotating frame's cap, 64 registers; 5: the leapfrog's in single and mixed, 48).
  static BackendTuning sweeps(const std::string& blocks) {
    BackendTuning t;
    t.values["cuda.block_shape"] = "1x256z3a2b" + blocks + "f";
    return t;
  }
  /// The caps sweeps() is given: 4 and 5 blocks an SM, and on a lattice of one cell an instance 5
  /// with the leapfrog's threads taking pairs of instances ("5p": Tiling::pairs, where Sx is even).
  static std::vector<std::string> caps() {
    std::vector<std::string> each{"4", "5"};
    if (lattices::cell_complex(GetParam()).cells_per_structure() == 1) {
      each.emplace_back("5p");
    }
    return each;
  }

  static void expect_kernels_match(const Problem& p, const std::string& what) {
    const std::vector<Complex> psi0 = vortex(p.grid);
    const auto reference = verify::kernel_trail(*make_backend("reference", p), psi0);
    for (const std::string& blocks : caps()) {
      const auto gpu =
          verify::kernel_trail(*make_backend("cuda", p, nullptr, sweeps(blocks)), psi0);
      for (std::size_t k = 0; k < reference.size(); ++k) {
        EXPECT_TRUE(bitwise_equal(reference[k], gpu[k]))
            << what << ", " << blocks << " blocks an SM: kernel trail entry " << k;
      }
    }
  }

  static void expect_schemes_match(const Problem& p, const std::string& what) {
    const std::vector<Complex> psi0 = vortex(p.grid);
    for (const SchemeEntry& entry : scheme_registry()) {
      const std::string_view scheme = entry.name;
      const double dt = verify::test_step(scheme, p, psi0);
      LiveScheme ref("reference", scheme, p, dt, psi0);
      ref.scheme->advance(verify::comparison_steps(scheme, 151));
      for (const std::string& blocks : caps()) {
        LiveScheme gpu("cuda", scheme, p, dt, psi0, {}, sweeps(blocks));
        gpu.scheme->advance(verify::comparison_steps(scheme, 151));
        for (int level = 0; level < static_cast<int>(ref.scheme->level_names().size()); ++level) {
          EXPECT_TRUE(bitwise_equal(ref.level(level, p), gpu.level(level, p)))
              << what << ", " << blocks << " blocks an SM: " << scheme << " level " << level;
        }
      }
    }
  }
};

// Single and mixed through the sweeps (the conformance suite's grids take one slice a block): every
// scheme and every kernel bitwise the reference in the same precision, the rotating frame's hops
// kept in the precision's real type.
TEST_P(CudaPrecision, SweepsAreBitwiseTheReferencesInSingleAndMixed) {
  SKIP_WITHOUT_GPU();
  for (const Precision precision : {Precision::single, Precision::mixed}) {
    const std::string what(precision_name(precision));
    expect_kernels_match(in(precision, false), what);
    expect_kernels_match(in(precision, true), what + " rotating");
    expect_schemes_match(in(precision, false), what);
  }
}

// The sweeps' interior tiles sum their faces without the boundary tests, and in single precision
// on lattices of several cells an instance take two slices at once: rows of three tiles and more
// (the grids above have one a row), chunks of 3 slices that mix two slices at once and one, 9
// slices and 8 (where the domain's last inner slice, not the chunk, refuses a pair); on cubic an
// even row too, whose leapfrog takes pairs of instances at "5p" (an odd row cannot); every kernel
// and scheme bitwise the reference in every precision.
TEST_P(CudaPrecision, InteriorTilesAreBitwiseTheReferences) {
  SKIP_WITHOUT_GPU();
  const lattices::CellComplex& c = lattices::cell_complex(GetParam());
  const int row = 3 * std::max(1, 256 / c.cells_per_structure()) + 1; // the sweep's 256 threads
  std::vector<std::array<int, 2>> sizes{{row, 9}, {row, 8}};          // (Sx, Sz)
  if (c.cells_per_structure() == 1) {
    sizes.push_back({row + 1, 9});
  }
  for (const auto& [sx, slices] : sizes) {
    for (const Precision precision : {Precision::double_, Precision::single, Precision::mixed}) {
      Problem p = in(precision, false);
      p.grid = make_grid(c, {sx, 4, slices}, 9.0 / sx);
      const std::string what = std::string(precision_name(precision)) + " interior tiles, Sx " +
                               std::to_string(sx) + ", " + std::to_string(slices) + " slices";
      expect_kernels_match(p, what);
      expect_schemes_match(p, what);
    }
  }
}

// The wavefront and the temporal blocking step in double only: k steps a launch fall back to
// single steps in single and mixed (the same bits), and the tuning says so.
TEST_P(CudaPrecision, KStepsALaunchAreSingleStepsInSingleAndMixed) {
  SKIP_WITHOUT_GPU();
  for (const Precision precision : {Precision::single, Precision::mixed}) {
    const Problem p = in(precision, false);
    const std::vector<Complex> psi0 = vortex(p.grid);
    const double dt = 0.9 * scheme_limit("leapfrog", p, psi0);
    LiveScheme ref("reference", "leapfrog", p, dt, psi0);
    ref.scheme->advance(24);
    BackendTuning given;
    given.values["cuda.steps_per_sweep"] = "3";
    const std::unique_ptr<Backend> gpu = make_backend("cuda:plain", p, nullptr, given);
    EXPECT_EQ(gpu->steps_per_launch(), 1);
    EXPECT_EQ(gpu->tuning()[3].first, "cuda_steps_per_sweep");
    EXPECT_EQ(gpu->tuning()[3].second,
              "1 (" + std::string(precision_name(precision)) + " precision steps one at a time)");
    const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *gpu, dt);
    scheme->start({psi0, psi0, {}});
    scheme->advance(24);
    std::vector<Complex> state(psi0.size());
    scheme->download(0, state);
    EXPECT_TRUE(bitwise_equal(state, ref.level(0, p))) << precision_name(precision);
  }
}

// The staged sweep (shared memory slices, tiles of several rows): tiles cut in x, y and z with a
// last one short in each (Sx even: single and mixed copy 16-byte words of two values), a thread 1,
// 2 and 4 rows, with and without the prefetch; the leapfrog bitwise the reference in every
// precision. On instances of 46 cells and more some shapes take more copies a thread than it holds:
// refused with one line.
TEST_P(CudaPrecision, StagedSweepsAreBitwiseTheReferences) {
  SKIP_WITHOUT_GPU();
  const lattices::CellComplex& c = lattices::cell_complex(GetParam());
  const int ms = c.cells_per_structure();
  const int tile = std::max(1, 64 / ms);
  const int at_once = 256 / (tile * ms); // rows of the tile 256 threads hold
  const auto shape = [&](int rows, const char* rest) {
    return "t" + std::to_string(tile) + "x" + std::to_string(rows) + rest;
  };
  const std::array<std::string, 3> shapes{shape(at_once, "z5a2b8"), shape(at_once + 1, "z3a0b4"),
                                          shape(2 * at_once + 1, "z4a1b6")};
  for (const Precision precision : {Precision::double_, Precision::single, Precision::mixed}) {
    Problem p = in(precision, false);
    const int sx = 2 * tile + 2;
    p.grid = make_grid(c, {sx, 2 * at_once + 4, 11}, 9.0 / sx);
    const std::vector<Complex> psi0 = vortex(p.grid);
    const double dt = 0.9 * scheme_limit("leapfrog", p, psi0);
    LiveScheme ref("reference", "leapfrog", p, dt, psi0);
    ref.scheme->advance(23);
    for (const std::string& s : shapes) {
      BackendTuning given;
      given.values["cuda.block_shape"] = s;
      std::unique_ptr<LiveScheme> gpu;
      try {
        gpu = std::make_unique<LiveScheme>("cuda:plain", "leapfrog", p, dt, psi0,
                                           std::vector<Complex>{}, given);
      } catch (const std::invalid_argument& e) { // only the rims of large instances
        EXPECT_GE(ms, 46) << s << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
        continue;
      }
      EXPECT_EQ(gpu->backend->tuning()[5].second, s);
      gpu->scheme->advance(23);
      EXPECT_TRUE(bitwise_equal(ref.level(0, p), gpu->level(0, p)))
          << precision_name(precision) << ", " << s;
      EXPECT_TRUE(bitwise_equal(ref.level(1, p), gpu->level(1, p)))
          << precision_name(precision) << ", " << s;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaPrecision, verify::every_stencil(),
                         verify::lattice_name);

class CudaVortexFlux : public ::testing::TestWithParam<std::string_view> {};

// Random phases (lines everywhere) and the κ = 10 vortex (windings above 1 at its core): the GPU's
// pierced edges are the reference's, bit for bit; the second call reuses the grown list buffer.
TEST_P(CudaVortexFlux, PiercedEdgesAreTheReferences) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam(), 0.0);
  const std::unique_ptr<Backend> reference = make_backend("reference", p);
  const std::unique_ptr<Backend> gpu = make_backend("cuda", p);
  const VectorId r = reference->create_vector(), v = gpu->create_vector();
  for (const std::vector<Complex>& psi :
       {verify::random_phases(p.grid), sample(p.grid, HarmonicVortex{10, 1.0}, 0.0, 1.0)}) {
    reference->upload(r, psi);
    gpu->upload(v, psi);
    const std::vector<PiercedEdge> expected = reference->vortex_flux(r, kEveryRing);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(gpu->vortex_flux(v, kEveryRing), expected);
    EXPECT_EQ(gpu->vortex_flux(v, kEveryRing), expected);
  }
  // In regions V < cut of the trap (random phases): the rings that leave it are dropped alike,
  // V on the device as the stepping kernels compute it.
  const std::vector<Complex> psi = verify::random_phases(p.grid);
  reference->upload(r, psi);
  gpu->upload(v, psi);
  const double corner = p.potential.at(p.grid, 0);
  for (const double cut : {0.05 * corner, 0.25 * corner}) {
    const std::vector<PiercedEdge> expected = reference->vortex_flux(r, cut);
    ASSERT_FALSE(expected.empty());
    EXPECT_LT(expected.size(), reference->vortex_flux(r, kEveryRing).size());
    EXPECT_EQ(gpu->vortex_flux(v, cut), expected) << "cut " << cut;
  }
  // In a rotating frame the region is V − ½Ω²ρ² < cut, the potential both sides step with.
  Problem rotating = p;
  rotating.potential.rotation.omega = 0.9;
  const std::unique_ptr<Backend> rotating_reference = make_backend("reference", rotating);
  const std::unique_ptr<Backend> rotating_gpu = make_backend("cuda", rotating);
  const VectorId rr = rotating_reference->create_vector(), rv = rotating_gpu->create_vector();
  rotating_reference->upload(rr, psi);
  rotating_gpu->upload(rv, psi);
  const std::vector<PiercedEdge> expected = rotating_reference->vortex_flux(rr, 0.1 * corner);
  EXPECT_GT(expected.size(), reference->vortex_flux(r, 0.1 * corner).size());
  EXPECT_EQ(rotating_gpu->vortex_flux(rv, 0.1 * corner), expected);
}

// The list a run collects later (vortex_flux_later): queued, then ψ overwritten by the next
// kernels, then collected on another thread, it is still the list of the ψ it was asked of.
TEST_P(CudaVortexFlux, AListCollectedLaterIsTheOneAskedFor) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam(), 0.0);
  const std::unique_ptr<Backend> reference = make_backend("reference", p);
  const std::unique_ptr<Backend> gpu = make_backend("cuda", p);
  const VectorId r = reference->create_vector(), v = gpu->create_vector();
  const std::vector<Complex> vortex = sample(p.grid, HarmonicVortex{10, 1.0}, 0.0, 1.0);
  const std::vector<Complex> noise = verify::random_phases(p.grid);
  reference->upload(r, vortex);
  gpu->upload(v, vortex);
  const double cut = 0.25 * p.potential.at(p.grid, 0);
  std::future<std::vector<PiercedEdge>> later = gpu->vortex_flux_later(v, cut);
  gpu->upload(v, noise);
  gpu->axpby(v, Complex{0.5, 0.0}, v, Complex{0.5, 0.0}, v);
  std::vector<PiercedEdge> collected =
      std::async(std::launch::async, [&later] { return later.get(); }).get();
  EXPECT_EQ(collected, reference->vortex_flux(r, cut));
  reference->upload(r, noise);
  EXPECT_EQ(gpu->vortex_flux(v, cut), reference->vortex_flux(r, cut));
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaVortexFlux, verify::every_stencil(),
                         verify::lattice_name);

TEST(CudaBackend, MaxDiagonalMatchesTheHostBound) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem("c15", 300.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const std::unique_ptr<Backend> gpu = make_backend("cuda", p);
  const VectorId x = gpu->create_vector();
  gpu->upload(x, psi0);
  EXPECT_NEAR(gpu->diagnostics(x, kNoVector, x).max_diagonal,
              max_diagonal(p.grid, p.potential, p.g, psi0), 1e-12);
}

TEST(CudaBackend, EveryTuningGivesBitwiseTheReferencesStateAndIsReported) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem("bcc", 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const double dt = 0.9 * scheme_limit("leapfrog", p, psi0);
  LiveScheme ref("reference", "leapfrog", p, dt, psi0);
  ref.scheme->advance(101);
  const std::vector<Complex> expected = ref.level(0, p);
  for (const char* shape : {"sweep", "1x256", "1x512", "2x256"}) {
    for (const bool graphs : {true, false}) {
      BackendTuning given;
      given.values["cuda.block_shape"] = shape;
      given.values["cuda.graphs"] = graphs ? "true" : "false";
      const std::unique_ptr<Backend> gpu = make_backend("cuda:plain", p, nullptr, given);
      const auto tuning = gpu->tuning();
      ASSERT_EQ(tuning.size(), 6U);
      EXPECT_EQ(tuning[0].second, std::string(shape) + " (case)");
      EXPECT_EQ(tuning[1].second, "one slice a block"); // a grid this small has too few chunks
      EXPECT_EQ(tuning[2].second, std::string(graphs ? "on" : "off") + " (case)");
      EXPECT_EQ(tuning[3].second, "1 (default)");
      EXPECT_EQ(tuning[4].second, "1 (default)"); // RK4 pairs by default on cubic alone
      EXPECT_EQ(tuning[5].first, "cuda_leapfrog_block");
      EXPECT_EQ(tuning[5].second, "one slice a block");
      const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *gpu, dt);
      scheme->start({psi0, psi0, {}});
      scheme->advance(101);
      std::vector<Complex> state(psi0.size());
      scheme->download(0, state);
      EXPECT_TRUE(bitwise_equal(state, expected)) << shape << (graphs ? " graphs" : "");
    }
  }
}

class CudaSweep : public ::testing::TestWithParam<std::string_view> {};

// The sweep walks chunks of z-slices (a last chunk shorter than the rest when the slices do not
// divide Sz) and prefetches ahead; none of it may change a bit.
TEST_P(CudaSweep, EverySweepShapeGivesBitwiseTheReferencesState) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam(), 200.0);
  const std::vector<Complex> psi0 = vortex(p.grid);
  const double dt = 0.9 * scheme_limit("leapfrog", p, psi0);
  LiveScheme ref("reference", "leapfrog", p, dt, psi0);
  ref.scheme->advance(41);
  const std::vector<Complex> expected = ref.level(0, p);
  for (const char* shape : {"1x256z1a1", "1x256z2a1", "1x256z3a2b3", "1x256z8b4f", "1x256z4b3",
                            "1x256z5a3b4f", "1x256z4a2b5f"}) {
    BackendTuning given;
    given.values["cuda.block_shape"] = shape;
    const std::unique_ptr<Backend> gpu = make_backend("cuda:plain", p, nullptr, given);
    const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *gpu, dt);
    scheme->start({psi0, psi0, {}});
    scheme->advance(41);
    std::vector<Complex> state(psi0.size());
    scheme->download(0, state);
    EXPECT_TRUE(bitwise_equal(state, expected)) << shape;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaSweep, verify::every_stencil(), verify::lattice_name);

/// p with V tabulated: the trap plus a ripple no position formula gives, so a kernel that computed
/// V from positions instead of reading it would change bits.
Problem rippled(Problem p) {
  p.potential.kind = Potential::Kind::tabulated;
  p.potential.values.resize(static_cast<std::size_t>(p.grid.cells()));
  for (std::size_t i = 0; i < p.potential.values.size(); ++i) {
    const auto at = static_cast<std::int64_t>(i);
    const lattices::Vec3 r = p.grid.position(at);
    p.potential.values[i] =
        harmonic_potential(r.x, r.y, r.z, 1.0) + 0.25 * std::sin(0.7 * static_cast<double>(at));
  }
  return p;
}

class CudaStepsPerSweep : public ::testing::TestWithParam<std::string_view> {
protected:
  /// Runs of single leapfrog steps from a vortex: reference's levels after them all, the GPU's own
  /// diagnostics after each (a reduction's order is the backend's, not reference's).
  struct SingleSteps {
    std::vector<Complex> psi0;
    double dt = 0.0;
    std::vector<long> runs{7, 13, 24};
    std::vector<Complex> level0, level1;
    std::vector<Diagnostics> diagnostics;
  };

  static SingleSteps single_steps(const Problem& p) {
    SingleSteps out;
    out.psi0 = vortex(p.grid);
    out.dt = 0.9 * scheme_limit("leapfrog", p, out.psi0);
    LiveScheme ref("reference", "leapfrog", p, out.dt, out.psi0);
    const std::unique_ptr<Backend> gpu = make_backend("cuda:plain", p);
    const std::unique_ptr<Scheme> steps = make_scheme("leapfrog", *gpu, out.dt);
    steps->start({out.psi0, out.psi0, {}});
    for (const long n : out.runs) {
      ref.scheme->advance(n);
      steps->advance(n);
      out.diagnostics.push_back(steps->diagnostics());
    }
    out.level0 = ref.level(0, p);
    out.level1 = ref.level(1, p);
    return out;
  }

  /// The same runs at k steps a launch on `shape` (bench_step's form of the setting), compared
  /// bit for bit; false where the backend refused the shape (only the temporal blocking's may be:
  /// instances too large, or a grown tile too large for shared memory).
  static bool k_steps_match(const Problem& p, const SingleSteps& single, int k,
                            const std::string& shape) {
    BackendTuning given;
    given.values["cuda.steps_per_sweep"] = std::to_string(k) + shape;
    std::unique_ptr<Backend> gpu;
    try {
      gpu = make_backend("cuda:plain", p, nullptr, given);
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(shape[0], 'x') << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("cuda.steps_per_sweep: ", 0), 0U) << e.what();
      return false;
    }
    EXPECT_EQ(gpu->tuning().back().second, shape + " (case)");
    const std::unique_ptr<Scheme> scheme = make_scheme("leapfrog", *gpu, single.dt);
    scheme->start({single.psi0, single.psi0, {}});
    for (std::size_t r = 0; r < single.runs.size(); ++r) {
      scheme->advance(single.runs[r]);
      EXPECT_EQ(scheme->diagnostics().invariant, single.diagnostics[r].invariant) << k << shape;
    }
    std::vector<Complex> state(single.psi0.size());
    scheme->download(0, state);
    EXPECT_TRUE(bitwise_equal(state, single.level0)) << "k = " << k << ", " << shape;
    scheme->download(1, state);
    EXPECT_TRUE(bitwise_equal(state, single.level1)) << "k = " << k << ", " << shape;
    return true;
  }
};

// k steps a launch: the wavefront's levels between them read back by other blocks of the same
// kernel, the temporal blocking's kept in shared memory and recomputed on the tiles' rims; any
// ordering, visibility or rim fault shows as a changed bit. Runs of steps that are not multiples
// of k (diagnostics in between, both levels compared) end with single steps.
TEST_P(CudaStepsPerSweep, KStepsALaunchAreBitwiseKSingleSteps) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam(), 200.0);
  const SingleSteps single = single_steps(p);
  int blocked = 0;
  for (const int k : {2, 3, 4}) {
    // the wavefront's shapes, then the temporal blocking's: tiles of one instance and chunks of
    // one slice, tiles and chunks that do not divide the grid, a tile larger than it
    for (const char* shape : {"s1l1r1b8", "s2l1r4b2", "s1l2r3b8", "s3l2r2b1", "x1y1z1", "x3y2z4",
                              "x5y7z3", "x32y8z64"}) {
      if (k_steps_match(p, single, k, shape)) {
        blocked += shape[0] == 'x' ? 1 : 0;
      }
    }
  }
  // Every shape fits where an instance is one cell; on BCC, FCC and cubic4 (8-12 cells) some at
  // k = 2 and 3; A15, C15 and Z (46-136 cells) are refused.
  if (p.grid.ms == 1) {
    EXPECT_EQ(blocked, 12);
  } else if (p.grid.ms <= 12) {
    EXPECT_GE(blocked, 3);
  } else {
    EXPECT_EQ(blocked, 0);
  }
}

// A tabulated V is read from its device vector at every level a launch computes (the temporal
// blocking's grown tiles too), not evaluated from positions: the same bits as k single steps.
TEST_P(CudaStepsPerSweep, KStepsALaunchReadATabulatedPotential) {
  SKIP_WITHOUT_GPU();
  const Problem p = rippled(make_problem(GetParam(), 200.0));
  const SingleSteps single = single_steps(p);
  int wavefront = 0, blocked = 0;
  for (const int k : {2, 3}) {
    for (const char* shape : {"s2l1r4b2", "x3y2z4", "x1y1z1"}) {
      if (k_steps_match(p, single, k, shape)) {
        (shape[0] == 'x' ? blocked : wavefront) += 1;
      }
    }
  }
  EXPECT_EQ(wavefront, 2) << "the wavefront takes every stencil";
  if (p.grid.ms == 1) {
    EXPECT_EQ(blocked, 4) << "the temporal blocking takes every shape on cubic";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaStepsPerSweep, verify::every_stencil(),
                         verify::lattice_name);

class CudaRk4Pairs : public ::testing::TestWithParam<std::string_view> {
protected:
  /// Instances of more cells run a stage a pass (cuda::kMostBlockedCells).
  static constexpr int kMostPairedCells = 12;

  /// RK4 from a vortex with the stages two a pass on `tile` ("" the default) against reference's
  /// four a step: bitwise after every run, diagnostics between them on the GPU equal to its own
  /// stage-a-pass run's. False where the backend refused the tile (its slices too large for
  /// shared memory) or ran a stage a pass (instances too large).
  static bool pairs_match(const Problem& p, const std::string& tile) {
    const std::vector<Complex> psi0 = vortex(p.grid);
    const double dt = 0.9 * scheme_limit("rk4", p, psi0);
    LiveScheme ref("reference", "rk4", p, dt, psi0);
    BackendTuning one;
    one.values["cuda.rk4_stages_per_sweep"] = "1";
    LiveScheme stages("cuda:plain", "rk4", p, dt, psi0, {}, one);
    BackendTuning given;
    given.values["cuda.rk4_stages_per_sweep"] = "2" + tile;
    std::unique_ptr<Backend> gpu;
    try {
      gpu = make_backend("cuda:plain", p, nullptr, given);
    } catch (const std::invalid_argument& e) {
      EXPECT_FALSE(tile.empty()) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("cuda.rk4_stages_per_sweep: ", 0), 0U) << e.what();
      return false;
    }
    const std::string recorded = gpu->tuning()[4].second;
    EXPECT_EQ(gpu->tuning()[4].first, "cuda_rk4_stages_per_sweep");
    if (recorded.front() == '1') {
      EXPECT_GT(p.grid.ms, kMostPairedCells) << recorded;
      return false;
    }
    EXPECT_EQ(recorded.rfind("2x", 0), 0U) << recorded;
    const std::unique_ptr<Scheme> pairs = make_scheme("rk4", *gpu, dt);
    pairs->start({psi0, psi0, {}});
    for (const long n : {3L, 5L}) {
      ref.scheme->advance(n);
      stages.scheme->advance(n);
      pairs->advance(n);
      const Diagnostics d = pairs->diagnostics(), e = stages.scheme->diagnostics();
      EXPECT_EQ(d.invariant, e.invariant) << tile;
      EXPECT_EQ(d.energy, e.energy) << tile;
    }
    std::vector<Complex> state(psi0.size());
    pairs->download(0, state);
    EXPECT_TRUE(bitwise_equal(state, ref.level(0, p))) << "tile " << tile;
    return true;
  }
};

// Two RK4 stages a pass: the first stage's y and acc kept in shared memory and recomputed on the
// tiles' rims, the second pass's output swapped into ψ; any rim, slot or ordering fault shows as a
// changed bit. Tiles of one instance and chunks of one slice, tiles and chunks that do not divide
// the grid, a tile larger than it.
TEST_P(CudaRk4Pairs, TwoStagesAPassAreBitwiseFourStagePasses) {
  SKIP_WITHOUT_GPU();
  const Problem p = make_problem(GetParam(), 200.0);
  int paired = 0;
  for (const char* tile : {"", "x1y1z1", "x3y2z4", "x5y7z3", "x32y8z64"}) {
    paired += pairs_match(p, tile) ? 1 : 0;
  }
  if (p.grid.ms == 1) {
    EXPECT_EQ(paired, 5) << "every tile fits where an instance is one cell";
  } else if (p.grid.ms <= kMostPairedCells) {
    EXPECT_GE(paired, 3) << "the default and the small tiles fit";
  } else {
    EXPECT_EQ(paired, 0);
  }
}

// A tabulated V is read at both stages of a pass, the grown rim's too.
TEST_P(CudaRk4Pairs, TwoStagesAPassReadATabulatedPotential) {
  SKIP_WITHOUT_GPU();
  const Problem p = rippled(make_problem(GetParam(), 200.0));
  EXPECT_EQ(pairs_match(p, "x3y2z4"), p.grid.ms <= kMostPairedCells);
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, CudaRk4Pairs, verify::every_stencil(), verify::lattice_name);

#if DECGPE_HAVE_CUDA
// Host code: these run without a GPU.
TEST(CudaTiling, SweepSettingsAreReadAsDocumentedAndOthersRefused) {
  const cuda::PlainShape sweep = cuda::parse_plain_shape("sweep");
  EXPECT_TRUE(sweep.sweep && sweep.by_faces && sweep.fits_grid);
  EXPECT_EQ(sweep.slices, 8);
  EXPECT_EQ(sweep.ahead, 2);
  EXPECT_EQ(sweep.min_blocks, 4);
  const cuda::PlainShape given = cuda::parse_plain_shape("1x256z16a1b3");
  EXPECT_TRUE(given.sweep);
  EXPECT_FALSE(given.by_faces || given.fits_grid);
  EXPECT_EQ(given.slices, 16);
  EXPECT_EQ(given.ahead, 1);
  EXPECT_EQ(given.min_blocks, 3);
  EXPECT_FALSE(cuda::parse_plain_shape("1x256").sweep);
  for (const char* bad : {"1x256z", "1x256b6", "1x256b2", "1x256z0", "1x256z8a9", "1x256q8",
                          "1x256z8x", "1x256z1000", "2x256z8", "sweep2", ""}) {
    EXPECT_THROW(cuda::parse_plain_shape(bad), std::invalid_argument) << bad;
  }
}

TEST(CudaTiling, StagedShapesAreReadAsDocumentedAndOthersRefused) {
  const cuda::PlainShape staged = cuda::parse_plain_shape("t32x8z16a2b8");
  EXPECT_TRUE(staged.staged);
  EXPECT_FALSE(staged.sweep);
  EXPECT_EQ(staged.tile_x, 32);
  EXPECT_EQ(staged.rows, 8);
  EXPECT_EQ(staged.slices, 16);
  EXPECT_EQ(staged.ahead, 2);
  EXPECT_EQ(staged.min_blocks, 8);
  for (const char* bad : {"t32x8z16a2", "t32x8z16d1a2b8", "t32x8z16a2b5", "t0x8z16a2b8",
                          "t32x65z16a2b8", "t32z16x8a2b8", "t32x8z16a2b8q", "t32x8z16a9b8", "t"}) {
    EXPECT_THROW(cuda::parse_plain_shape(bad), std::invalid_argument) << bad;
  }
  cuda::DeviceGrid g{};
  g.ms = 1; // cubic
  g.max_faces = 6;
  g.wide_cells = 1;
  g.sx = g.sy = g.sz = 400;
  const cuda::Tiling t = cuda::make_tiling(g, staged, 132);
  EXPECT_TRUE(t.staged);
  EXPECT_EQ(t.threads, 256); // 32 cells a row, 8 rows at once
  EXPECT_EQ(t.tiles_per_row, 13);
  EXPECT_EQ(t.row_groups, 50);
  EXPECT_EQ(cuda::describe(t), "t32x8z16a2b8");
  // The other passes take the default sweep's calibration.
  EXPECT_EQ(cuda::describe(cuda::make_passes_tiling(g, staged, "cubic", 132)), "one slice a block");
  EXPECT_EQ(cuda::make_tiling(g, cuda::parse_plain_shape("t32x20z16a2b8"), 132).threads, 256);
  g.ms = 12; // 12 · 32 cells a row: more than a block's threads
  EXPECT_THROW(cuda::make_tiling(g, staged, 132), std::invalid_argument);
  g.ms = 1; // 8 rows at once, 40 rows: 5 a thread
  EXPECT_THROW(cuda::make_tiling(g, cuda::parse_plain_shape("t32x40z16a2b8"), 132),
               std::invalid_argument);
}

// "sweep" steps cubic and cubic4 (single, mixed) as a staged sweep where the grid fits it.
TEST(CudaTiling, SweepStagesTheLeapfrogWhereItMeasuredFasterAndTheGridFits) {
  const cuda::PlainShape sweep = cuda::parse_plain_shape("sweep");
  cuda::DeviceGrid g{};
  g.ms = 1; // cubic
  g.max_faces = 6;
  g.wide_cells = 1;
  g.sx = g.sy = g.sz = 400; // 64M cells
  const auto leapfrog = [&](Precision precision, const char* lattice) {
    return cuda::describe(cuda::make_leapfrog_tiling(g, sweep, precision, lattice, 132));
  };
  EXPECT_EQ(leapfrog(Precision::single, "cubic"), "t64x8z32a0b4");
  EXPECT_EQ(leapfrog(Precision::mixed, "cubic"), "t64x8z32a0b4");
  EXPECT_EQ(leapfrog(Precision::double_, "cubic"), "1x256z8a2b4");
  g.sx = 401; // a row of 8-byte values that splits a 16-byte word: the sweep, without pairs
  EXPECT_EQ(leapfrog(Precision::single, "cubic"), "1x256z8a2b5");
  g.sx = g.sy = g.sz = 100; // 1M cells: too few blocks for either sweep
  EXPECT_EQ(leapfrog(Precision::single, "cubic"), "one slice a block");
  g.sx = g.sy = g.sz = 400;
  g.omega = 0.5; // the rotating frame's step is the sweep's
  EXPECT_FALSE(cuda::make_leapfrog_tiling(g, sweep, Precision::single, "cubic", 132).staged);
  g.omega = 0.0;
  g.ms = 8; // cubic4, 64M cells
  g.max_faces = 12;
  g.wide_cells = 8;
  g.sx = g.sy = g.sz = 200;
  EXPECT_EQ(leapfrog(Precision::single, "cubic4"), "t8x8z32a0b4");
  EXPECT_EQ(leapfrog(Precision::mixed, "cubic4"), "t8x8z32a0b4");
  EXPECT_EQ(leapfrog(Precision::double_, "cubic4"), "1x256z8a2b4");
  // A staged sweep given in full is taken as it is, or refused where it does not fit.
  EXPECT_EQ(cuda::describe(cuda::make_leapfrog_tiling(g, cuda::parse_plain_shape("t4x8z16a1b6"),
                                                      Precision::double_, "cubic4", 132)),
            "t4x8z16a1b6");
  g.ms = 1;
  g.max_faces = 6;
  g.wide_cells = 1;
  g.sx = 401;
  EXPECT_THROW(cuda::make_leapfrog_tiling(g, cuda::parse_plain_shape("t64x8z32a0b4"),
                                          Precision::single, "cubic", 132),
               std::invalid_argument);
}

// BCC and FCC (64M cells) take tiles of 8 rows: a thread 4 of them in single, 2 in mixed.
TEST(CudaTiling, SweepStagesBccAndFccInSingleAndMixed) {
  cuda::DeviceGrid g{};
  g.ms = 12;
  g.wide_cells = 12;
  g.sx = g.sy = 176;
  g.sz = 172;
  for (const auto& [lattice, faces] : {std::pair{"bcc", 4}, std::pair{"fcc", 8}}) {
    g.max_faces = faces;
    const auto leapfrog = [&](Precision precision) {
      return cuda::describe(
          cuda::make_leapfrog_tiling(g, cuda::parse_plain_shape("sweep"), precision, lattice, 132));
    };
    EXPECT_EQ(leapfrog(Precision::single), "t8x8z32a0b4") << lattice;
    EXPECT_EQ(leapfrog(Precision::mixed), "t4x8z32a0b4") << lattice;
    EXPECT_EQ(leapfrog(Precision::double_), "1x256z8a2b4") << lattice;
  }
  g.sx = g.sy = g.sz = 40; // too few blocks for four waves: the sweep's choice
  EXPECT_FALSE(
      cuda::make_leapfrog_tiling(g, cuda::parse_plain_shape("sweep"), Precision::single, "bcc", 132)
          .staged);
}

TEST(CudaTiling, TheLeapfrogTakesFiveBlocksAnSmInSingleAndMixedInTheLabFrame) {
  const cuda::PlainShape sweep = cuda::parse_plain_shape("sweep");
  EXPECT_EQ(cuda::leapfrog_shape(sweep, Precision::single, false).min_blocks, 5);
  EXPECT_EQ(cuda::leapfrog_shape(sweep, Precision::mixed, false).min_blocks, 5);
  EXPECT_EQ(cuda::leapfrog_shape(sweep, Precision::double_, false).min_blocks, 4);
  EXPECT_EQ(cuda::leapfrog_shape(sweep, Precision::single, true).min_blocks, 4); // rotating
  const cuda::PlainShape given = cuda::parse_plain_shape("1x256z8a2b4f");
  EXPECT_EQ(cuda::leapfrog_shape(given, Precision::single, false).min_blocks, 4); // as given
  EXPECT_EQ(cuda::parse_plain_shape("1x256z8a2b5").min_blocks, 5);
}

TEST(CudaTiling, TheLeapfrogTakesPairsOfInstancesOfOneCellInSingleAndMixed) {
  const cuda::PlainShape sweep = cuda::parse_plain_shape("sweep");
  EXPECT_FALSE(sweep.pairs);
  EXPECT_TRUE(cuda::leapfrog_shape(sweep, Precision::single, false).pairs);
  EXPECT_TRUE(cuda::leapfrog_shape(sweep, Precision::mixed, false).pairs);
  EXPECT_FALSE(cuda::leapfrog_shape(sweep, Precision::double_, false).pairs);
  EXPECT_FALSE(cuda::leapfrog_shape(sweep, Precision::single, true).pairs); // rotating
  EXPECT_FALSE(cuda::leapfrog_shape(cuda::parse_plain_shape("1x256z8a2b5"), Precision::single,
                                    false)
                   .pairs); // a block given in full: as given
  EXPECT_TRUE(cuda::parse_plain_shape("1x256z8a2b4p").pairs);
  cuda::DeviceGrid g{};
  g.ms = 1; // cubic
  g.max_faces = 6;
  g.wide_cells = 1;
  g.sx = g.sy = g.sz = 400; // 64M cells
  const cuda::PlainShape single = cuda::leapfrog_shape(sweep, Precision::single, false);
  const cuda::Tiling paired = cuda::make_tiling(g, single, 132);
  EXPECT_TRUE(paired.pairs);
  EXPECT_EQ(paired.tile, 400); // 512 instances a block at most: one tile a row
  EXPECT_EQ(paired.threads, 224);
  EXPECT_EQ(paired.tiles_per_row, 1);
  EXPECT_EQ(cuda::describe(paired), "1x256z8a2b5p");
  EXPECT_FALSE(cuda::make_passes_tiling(g, single, "cubic", 132).pairs);
  g.sx = 1001; // an odd row cannot be cut into aligned pairs
  EXPECT_FALSE(cuda::make_tiling(g, single, 132).pairs);
  g.sx = 1002; // two tiles of an even number of instances
  const cuda::Tiling three = cuda::make_tiling(g, single, 132);
  EXPECT_TRUE(three.pairs);
  EXPECT_EQ(three.tiles_per_row, 2);
  EXPECT_EQ(three.tile % 2, 0);
  EXPECT_GE(three.tile * three.tiles_per_row, g.sx);
  g.ms = 12; // BCC: a thread's two cells would not be adjacent
  g.max_faces = 4;
  g.wide_cells = 12;
  g.sx = 176;
  EXPECT_FALSE(cuda::make_tiling(g, single, 132).pairs);
}

TEST(CudaTiling, SweepTakesOneSliceABlockWhereTheGridIsTooSmallForIt) {
  cuda::DeviceGrid g{};
  g.ms = 12; // BCC
  g.max_faces = 4;
  g.wide_cells = 12;
  const auto tiling = [&](int side, const char* shape) {
    g.sx = g.sy = g.sz = side;
    return cuda::make_tiling(g, cuda::parse_plain_shape(shape), 132);
  };
  EXPECT_FALSE(tiling(44, "sweep").sweep);         // 1M cells: 792 blocks, 1.5 waves on 132 SMs
  const cuda::Tiling large = tiling(176, "sweep"); // 64M cells: 66 waves
  EXPECT_TRUE(large.sweep);
  EXPECT_EQ(large.slices, 8);
  EXPECT_FALSE(large.by_faces);                 // every BCC cell has 4 faces
  EXPECT_TRUE(tiling(44, "1x256z8a2b4").sweep); // settings given in full are taken
  g.wide_cells = 4;                             // FCC's octahedra
  EXPECT_TRUE(tiling(176, "sweep").by_faces);
}

TEST(CudaTiling, TheOtherPassesTakeTheCalibrationUnderSweepAndTheBlockGivenOtherwise) {
  cuda::DeviceGrid g{};
  g.ms = 12; // BCC
  g.max_faces = 4;
  g.wide_cells = 12;
  g.sx = g.sy = g.sz = 176; // 64M cells
  const auto passes = [&](const char* shape, std::string_view lattice) {
    return cuda::describe(
        cuda::make_passes_tiling(g, cuda::parse_plain_shape(shape), lattice, 132));
  };
  EXPECT_EQ(passes("sweep", "bcc"), "1x256z4a1b4");
  EXPECT_EQ(passes("sweep", "z"), "1x256z8a0b4");
  EXPECT_EQ(passes("sweep", "cubic"), "one slice a block");
  EXPECT_EQ(passes("sweep", "cubic4"), "one slice a block");
  EXPECT_EQ(passes("1x256z3a2b3", "bcc"), "1x256z3a2b3"); // a block given in full: every pass
  EXPECT_EQ(passes("2x256", "bcc"), "one slice a block");
  g.sx = g.sy = g.sz = 44; // 1M cells: too few chunks for a sweep
  EXPECT_EQ(passes("sweep", "bcc"), "one slice a block");
}
#endif

TEST(CudaBackend, AStateLargerThanTheGpuIsRefusedWithOneLine) {
  SKIP_WITHOUT_GPU();
  // C15 structures enough that one FP64 vector is a quarter larger than the whole card (not its
  // free memory, which the GPU tests running beside this one change): 80 GB and 141 GB cards alike
  // (a fixed 400³, 139 GB, fitted an H200)
  std::uint64_t card_bytes = 0;
  for (const auto& [fact, value] : backend_entry("cuda").device_facts()) {
    card_bytes = fact == "gpu_memory_bytes" ? std::stoull(value) : card_bytes;
  }
  ASSERT_GT(card_bytes, 0U);
  const double bytes_a_structure =
      16.0 * static_cast<double>(make_grid(lattices::cell_complex("c15"), {1, 1, 1}, 0.1).cells());
  const int n = static_cast<int>(
      std::ceil(std::cbrt(1.25 * static_cast<double>(card_bytes) / bytes_a_structure)));
  Problem p;
  p.grid = make_grid(lattices::cell_complex("c15"), {n, n, n}, 0.1);
  try {
    const std::unique_ptr<Backend> gpu = make_backend("cuda", p);
    gpu->create_vector();
    FAIL() << "a vector of " << p.grid.cells() << " cells was allocated";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU out of memory"), std::string::npos) << e.what();
  }
}

namespace fs = std::filesystem;

class CudaRestart : public verify::RestartFixture {
protected:
  /// Each scheme on the GPU, run whole and in three parts: bitwise the same run.
  void expect_resumed_runs_match(const std::string& toml,
                                 std::initializer_list<const char*> schemes) {
    for (const char* scheme : schemes) {
      const std::string flags = std::string("--backend cuda --scheme ") + scheme;
      ASSERT_EQ(run(toml, flags).exit_code, 0) << scheme;
      const fs::path whole = dir_ / "whole.h5";
      fs::rename(out(), whole);
      run_in_parts(toml, flags, {"", "", ""});
      expect_same_run(whole, out());
      fs::remove(out());
    }
  }
};

TEST_F(CudaRestart, BothSchemesResumeBitwiseOnTheGpu) {
  SKIP_WITHOUT_GPU();
  expect_resumed_runs_match(
      "lattice = \"c15\"\nh = 0.9\nstructures = [5, 5, 5]\ng = 10.0\n[time]\n"
      "dt_fraction = 0.5\nsteps = 100\ndiagnostics_every = 10\nsnapshot_every = 20\n"
      "[initial]\nkappa = 1\n",
      {"leapfrog", "rk4"});
}

// Three steps a launch, cut by the checkpoints at steps 10 and 20 (inside a launch's window of
// the uninterrupted run's 0, 3, 6, 9 | 12 …): bitwise the single-step run. The default for three
// steps: the wavefront on BCC, the temporal blocking on cubic.
TEST_F(CudaRestart, KStepsALaunchResumeBitwiseAsSingleSteps) {
  SKIP_WITHOUT_GPU();
  for (const char* lattice : {"bcc", "cubic"}) {
    const std::string toml = std::string("lattice = \"") + lattice +
                             "\"\nh = 0.6\nstructures = [6, 6, 9]\ng = 10.0\n[time]\n"
                             "dt_fraction = 0.5\nsteps = 50\ndiagnostics_every = 10\n"
                             "snapshot_every = 20\n[initial]\nkappa = 1\n";
    const std::string flags = "--backend cuda --scheme leapfrog";
    fs::remove_all(out().parent_path()); // the lattice before's results and checkpoint
    ASSERT_EQ(run(toml, flags).exit_code, 0);
    const fs::path whole = dir_ / "whole.h5";
    fs::rename(out(), whole);
    run_in_parts(toml + "[cuda]\nsteps_per_sweep = 3\n", flags, {"", "", ""});
    expect_same_run(whole, out());
    const io::InputFile file(out());
    EXPECT_EQ(file.text_attribute("tuning_cuda_steps_per_sweep"), "3 (case)");
    EXPECT_EQ(file.has_attribute("tuning_cuda_temporal_blocking"), std::string(lattice) == "cubic");
  }
}

// RK4's stages two a pass, cut by checkpoints: bitwise the run of a stage a pass.
TEST_F(CudaRestart, Rk4PairsResumeBitwiseAsStagesAPass) {
  SKIP_WITHOUT_GPU();
  const std::string toml = "lattice = \"cubic\"\nh = 0.6\nstructures = [13, 10, 9]\ng = 10.0\n"
                           "[time]\ndt_fraction = 0.5\nsteps = 50\ndiagnostics_every = 10\n"
                           "snapshot_every = 20\n[initial]\nkappa = 1\n";
  const std::string flags = "--backend cuda --scheme rk4";
  ASSERT_EQ(run(toml + "[cuda]\nrk4_stages_per_sweep = 1\n", flags).exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  run_in_parts(toml + "[cuda]\nrk4_stages_per_sweep = 2\n", flags, {"", "", ""});
  expect_same_run(whole, out());
  EXPECT_EQ(io::InputFile(whole).text_attribute("tuning_cuda_rk4_stages_per_sweep"), "1 (case)");
  EXPECT_EQ(io::InputFile(out()).text_attribute("tuning_cuda_rk4_stages_per_sweep"),
            "2x32y8z64 (case)");
}

TEST_F(CudaRestart, AdaptiveStepsResumeBitwiseOnTheGpu) {
  SKIP_WITHOUT_GPU();
  expect_resumed_runs_match(
      "lattice = \"c15\"\nh = 0.9\nstructures = [5, 5, 5]\ng = 300.0\n[time]\n"
      "scheme = \"exponential\"\nadaptive = true\ntheta = 0.02\ndt = 0.005\nend_time = 0.3\n"
      "diagnostics_every = 10\n"
      "snapshot_every = 20\n[initial]\nkappa = 1\n",
      {"exponential", "trotter_suzuki", "rk4"});
}

} // namespace
} // namespace decgpe
