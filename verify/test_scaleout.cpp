// Scale-out over MPI ranks (labels mpi and multigpu), run under mpiexec with 1, 2 or 3 ranks: every
// rank checks that the slabs together reproduce the reference oracle bit for bit, for every scheme
// and every halo depth k = 1 … 4.

#include "io/checkpoint.hpp"
#include "setup/case_setup.hpp"
#include "solvers/scaleout/decomposition.hpp"
#include "solvers/scaleout/mpi_session.hpp"
#include "solvers/scaleout/slab_backend.hpp"
#include "verify/lattice_params.hpp"
#include "verify/random_phases.hpp"
#include "verify/scheme_runs.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <unistd.h>

namespace decgpe {
namespace {

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}
int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/// The deepest halo the tests run: slabs carry k = 1 … kMaxDepth halo slices.
constexpr int kMaxDepth = 4;

/// Interacting, non-stationary, with at least kMaxDepth z-slices per rank on up to 3 ranks, so that
/// every slab has boundary and interior slices at every depth.
Problem make_problem(std::string_view lattice) {
  const lattices::CellComplex& c = lattices::cell_complex(lattice);
  const int n =
      std::max(4, static_cast<int>(std::lround(std::cbrt(12000.0 / c.cells_per_structure()))));
  Problem p;
  p.grid = make_grid(
      c, {n, std::max(2, static_cast<int>(std::lround(n / c.box.y))), std::max(n, 3 * kMaxDepth)},
      9.0 / n);
  p.potential.lambda = 1.4;
  p.g = 200.0;
  return p;
}

std::vector<Complex> initial_state(const Problem& p) {
  return sample_normalised(p.grid, HarmonicVortex{1, 1.0}, 0.0);
}

/// The halo depths a domain of `sz` slices allows on this many ranks (one process has no halos).
std::vector<int> halo_depths(int sz) {
  std::vector<int> depths{1};
  for (int k = 2; ranks() > 1 && k <= std::min(kMaxDepth, sz / ranks()); ++k) {
    depths.push_back(k);
  }
  return depths;
}

/// This rank's slab with k halo slices: its problem, and its slices of a whole-domain state.
struct Slab {
  scaleout::Decomposition layout;
  Problem problem;

  Slab(const Problem& whole, int depth, std::span<const double> weights = {})
      : layout(scaleout::Decomposition::slabs(whole.grid.size[2], MPI_COMM_WORLD, depth, weights)),
        problem(layout.local(whole)) {}
  std::vector<Complex> stored(std::span<const Complex> whole) const {
    const auto part = layout.stored(whole, problem.grid.slice_cells());
    return {part.begin(), part.end()};
  }
  /// The owned cells of this slab's stored values (a download's halo slices need not be current).
  std::vector<Complex> owned(std::span<const Complex> mine) const {
    const Grid& g = problem.grid;
    const auto part = mine.subspan(static_cast<std::size_t>(g.owned_begin * g.slice_cells()),
                                   static_cast<std::size_t>(g.owned_cells()));
    return {part.begin(), part.end()};
  }
  /// The owned cells of a whole-domain state.
  std::vector<Complex> owned_of_whole(std::span<const Complex> whole) const {
    return owned(stored(whole));
  }
  std::unique_ptr<Backend> backend(std::string_view local, const BackendTuning& tuning = {}) const {
    return scaleout::make_slab_backend(local, problem, layout, tuning);
  }
};

/// The slabs' diagnostics against the reference's: sums to round-off (their order differs),
/// maxima exactly.
void expect_same_diagnostics(const Diagnostics& ds, const Diagnostics& dr,
                             const std::string& where) {
  EXPECT_NEAR(ds.norm, dr.norm, 1e-13 * dr.norm) << where;
  EXPECT_NEAR(ds.energy, dr.energy, 1e-13 * std::abs(dr.energy)) << where;
  EXPECT_NEAR(ds.kinetic, dr.kinetic, 1e-13 * std::abs(dr.energy)) << where;
  EXPECT_NEAR(ds.trap, dr.trap, 1e-13 * std::abs(dr.energy)) << where;
  EXPECT_NEAR(ds.interaction, dr.interaction, 1e-13 * std::abs(dr.energy)) << where;
  EXPECT_NEAR(ds.rotation, dr.rotation, 1e-13 * std::abs(dr.energy)) << where;
  EXPECT_NEAR(ds.invariant, dr.invariant, 1e-13 * std::abs(dr.invariant)) << where;
  EXPECT_NEAR(ds.overlap.re, dr.overlap.re, 1e-13 * std::hypot(dr.overlap.re, dr.overlap.im));
  EXPECT_NEAR(ds.overlap.im, dr.overlap.im, 1e-13 * std::hypot(dr.overlap.re, dr.overlap.im));
  EXPECT_EQ(ds.max_abs, dr.max_abs) << where;
  EXPECT_EQ(ds.max_diagonal, dr.max_diagonal) << where;
}

/// Runs the reference on each rank and `local` over all ranks with every halo depth, for every
/// scheme; each rank checks its owned cells of every level bitwise against the reference's, and
/// the diagnostics. With `weights`, the slabs are sized by them (as a calibration would); `tuning`
/// is this rank's backend's.
void expect_slabs_match_reference(std::string_view lattice, std::string_view local,
                                  std::span<const double> weights = {},
                                  const Rotation& rotation = {},
                                  Precision precision = Precision::double_,
                                  const BackendTuning& tuning = {}) {
  Problem p = make_problem(lattice);
  p.potential.rotation = rotation;
  p.precision = precision;
  const std::vector<Complex> psi = initial_state(p);
  for (const SchemeEntry& entry : scheme_registry()) {
    const std::string_view scheme = entry.name;
    const long steps = verify::comparison_steps(scheme, 201);
    const double dt = verify::test_step(scheme, p, psi);
    const std::unique_ptr<Backend> reference = make_backend("reference", p);
    const std::unique_ptr<Scheme> on_reference = make_scheme(scheme, *reference, dt);
    on_reference->start({psi, psi, {}});
    on_reference->advance(steps);
    const Diagnostics dr = on_reference->diagnostics();
    for (const int depth : halo_depths(p.grid.size[2])) {
      const Slab slab(p, depth, weights);
      const std::vector<Complex> mine = slab.stored(psi);
      const std::unique_ptr<Backend> slabs = slab.backend(local, tuning);
      const std::unique_ptr<Scheme> on_slabs = make_scheme(scheme, *slabs, dt);
      on_slabs->start({mine, mine, {}});
      on_slabs->advance(steps);
      const std::string where = std::string(scheme) + ", " + std::string(lattice) + " on " +
                                std::to_string(ranks()) + " ranks, halo depth " +
                                std::to_string(depth) + ", " +
                                std::string(precision_name(precision));
      for (int level = 0; level < static_cast<int>(on_reference->level_names().size()); ++level) {
        std::vector<Complex> a(static_cast<std::size_t>(p.grid.cells()));
        std::vector<Complex> b(static_cast<std::size_t>(slab.problem.grid.cells()));
        on_reference->download(level, a);
        on_slabs->download(level, b);
        EXPECT_TRUE(verify::bitwise_equal(slab.owned_of_whole(a), slab.owned(b)))
            << where << ", level " << level;
      }
      expect_same_diagnostics(on_slabs->diagnostics(), dr, where);
    }
  }
}

/// k = 2 and 3 leapfrog steps a launch on the ranks whose `local` is cuda: the temporal blocking
/// over a slab's stored slices, after the exchange of its halos where the single steps would make
/// it; every halo depth (a slab of fewer than k halo slices steps singly, and one of more singly
/// where its exchange would fall inside a launch), bitwise the reference for every scheme.
void expect_k_step_slabs_match_reference(std::string_view lattice, std::string_view local,
                                         std::span<const double> weights = {}) {
  const Problem whole = make_problem(lattice);
  if (whole.grid.ms > 12) {
    GTEST_SKIP() << "the temporal blocking takes instances of at most 12 cells";
  }
  for (const int k : {2, 3}) {
    BackendTuning tuning;
    if (local == "cuda") {
      tuning.values["cuda.steps_per_sweep"] = std::to_string(k) + "x3y2z4";
    }
    const auto recorded = // every rank makes its slab backend: its set-up is collective
        Slab(whole, k, weights).backend(local, tuning)->tuning();
    if (local == "cuda") {
      EXPECT_NE(std::ranges::find(recorded, std::pair<std::string, std::string>(
                                                "cuda_temporal_blocking", "x3y2z4 (case)")),
                recorded.end())
          << "a slab of k halo slices takes k steps a launch";
    }
    expect_slabs_match_reference(lattice, local, weights, {}, Precision::double_, tuning);
  }
}

/// Adaptive steps on slabs of every halo depth: every rank takes the reference's steps (the
/// reduction's maxima are exact in any order), to the same end time and the same state.
void expect_adaptive_slabs_match_reference(std::string_view lattice, std::string_view local) {
  const Problem p = make_problem(lattice);
  const std::vector<Complex> psi = initial_state(p);
  double peak = 0.0;
  for (const Complex& z : psi) {
    peak = std::max(peak, norm2(z));
  }
  for (const SchemeEntry& entry : scheme_registry()) {
    if (entry.adaptive == StepControl::fixed) {
      continue;
    }
    const double dt_max = 0.9 * verify::scheme_limit("rk4", p, psi);
    const AdaptiveSettings settings{0.05, dt_max, 0.05, 1e-2 * peak, 1e-7};
    const std::unique_ptr<Backend> reference = make_backend("reference", p);
    const std::unique_ptr<Scheme> on_reference = make_scheme(entry.name, *reference, dt_max);
    on_reference->start({psi, psi, {}});
    on_reference->make_adaptive(entry.adaptive, settings);
    const long steps = on_reference->advance(100000);
    std::vector<Complex> a(static_cast<std::size_t>(p.grid.cells()));
    on_reference->download(0, a);
    for (const int depth : halo_depths(p.grid.size[2])) {
      const Slab slab(p, depth);
      const std::vector<Complex> mine = slab.stored(psi);
      const std::unique_ptr<Backend> slabs = slab.backend(local);
      const std::unique_ptr<Scheme> on_slabs = make_scheme(entry.name, *slabs, dt_max);
      on_slabs->start({mine, mine, {}});
      on_slabs->make_adaptive(entry.adaptive, settings);
      const std::string where = std::string(entry.name) + " adaptive, " + std::string(lattice) +
                                " on " + std::to_string(ranks()) + " ranks, halo depth " +
                                std::to_string(depth);
      EXPECT_EQ(on_slabs->advance(100000), steps) << where;
      EXPECT_EQ(on_slabs->clock().time, settings.end_time) << where;
      EXPECT_EQ(on_slabs->clock().next_dt, on_reference->clock().next_dt) << where;
      std::vector<Complex> b(static_cast<std::size_t>(slab.problem.grid.cells()));
      on_slabs->download(0, b);
      EXPECT_TRUE(verify::bitwise_equal(slab.owned_of_whole(a), slab.owned(b))) << where;
    }
  }
}

/// The pierced edges of a random-phase field (lines in every slice, rings across every slab
/// boundary) on the slabs of every halo depth, in the whole domain and in a region of the trap
/// (V from the slab's global z): every rank holds the reference's list, bit for bit.
void expect_slabs_find_the_references_vortex_edges(std::string_view lattice,
                                                   std::string_view local) {
  const Problem p = make_problem(lattice);
  const std::vector<Complex> psi = verify::random_phases(p.grid);
  const std::unique_ptr<Backend> reference = make_backend("reference", p);
  const VectorId r = reference->create_vector();
  reference->upload(r, psi);
  const double cut = 0.25 * p.potential.at(p.grid, 0); // a ball of half the distance to a corner
  const std::vector<PiercedEdge> expected = reference->vortex_flux(r, kEveryRing);
  const std::vector<PiercedEdge> in_region = reference->vortex_flux(r, cut);
  ASSERT_FALSE(in_region.empty());
  ASSERT_LT(in_region.size(), expected.size());
  for (const int depth : halo_depths(p.grid.size[2])) {
    const Slab slab(p, depth);
    const std::unique_ptr<Backend> slabs = slab.backend(local);
    // Halo slices uploaded wrong: only the exchange the kernel asks for makes them right.
    std::vector<Complex> mine = slab.stored(psi);
    const Grid& g = slab.problem.grid;
    for (std::int64_t i = 0; i < g.cells(); ++i) {
      const std::int64_t sz = i / g.slice_cells();
      if (sz < g.owned_begin || sz >= g.owned_end) {
        mine[static_cast<std::size_t>(i)] = {-psi[0].im, psi[0].re};
      }
    }
    const VectorId v = slabs->create_vector();
    slabs->upload(v, mine);
    EXPECT_EQ(slabs->vortex_flux(v, kEveryRing), expected)
        << lattice << " on " << ranks() << " ranks, halo depth " << depth;
    EXPECT_EQ(slabs->vortex_flux(v, cut), in_region)
        << lattice << " on " << ranks() << " ranks, halo depth " << depth << ", V < " << cut;
  }
}

class Cpu : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Cpu, OpenMPSlabsAreBitwiseIdenticalToReference) {
  expect_slabs_match_reference(GetParam(), "openmp");
  expect_adaptive_slabs_match_reference(GetParam(), "openmp");
}

// The rotating frame's phases come from global coordinates: a slab's equal the whole domain's.
TEST_P(Cpu, RotatingOpenMPSlabsAreBitwiseIdenticalToReference) {
  expect_slabs_match_reference(GetParam(), "openmp", {}, Rotation{0.6, 0.3, -0.2});
}

// The halos move the precision's values (8 B in single and mixed): bitwise the reference in it.
TEST_P(Cpu, SingleAndMixedOpenMPSlabsAreBitwiseIdenticalToReference) {
  for (const Precision precision : {Precision::single, Precision::mixed}) {
    expect_slabs_match_reference(GetParam(), "openmp", {}, {}, precision);
  }
}

TEST_P(Cpu, OpenMPSlabsFindTheReferencesVortexEdges) {
  expect_slabs_find_the_references_vortex_edges(GetParam(), "openmp");
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Cpu, verify::every_stencil(), verify::lattice_name);

class Gpu : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Gpu, CudaSlabsAreBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (cuda::device_count() < ranks()) {
    GTEST_SKIP() << "needs one GPU per rank (" << ranks() << "); this machine has "
                 << cuda::device_count();
  }
  expect_slabs_match_reference(GetParam(), "cuda");
  expect_adaptive_slabs_match_reference(GetParam(), "cuda");
  expect_slabs_find_the_references_vortex_edges(GetParam(), "cuda");
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

TEST_P(Gpu, RotatingCudaSlabsAreBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (cuda::device_count() < ranks()) {
    GTEST_SKIP() << "needs one GPU per rank (" << ranks() << "); this machine has "
                 << cuda::device_count();
  }
  expect_slabs_match_reference(GetParam(), "cuda", {}, Rotation{0.6, 0.3, -0.2});
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// k leapfrog steps a launch on every GPU rank, the halos through NCCL.
TEST_P(Gpu, KStepsALaunchOnCudaSlabsAreBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (cuda::device_count() < ranks()) {
    GTEST_SKIP() << "needs one GPU per rank (" << ranks() << "); this machine has "
                 << cuda::device_count();
  }
  expect_k_step_slabs_match_reference(GetParam(), "cuda");
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// NCCL moves the precision's 8-byte values between the GPU ranks.
TEST_P(Gpu, SingleAndMixedCudaSlabsAreBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (cuda::device_count() < ranks()) {
    GTEST_SKIP() << "needs one GPU per rank (" << ranks() << "); this machine has "
                 << cuda::device_count();
  }
  for (const Precision precision : {Precision::single, Precision::mixed}) {
    expect_slabs_match_reference(GetParam(), "cuda", {}, {}, precision);
  }
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Gpu, verify::every_stencil(), verify::lattice_name);

#if DECGPE_HAVE_CUDA
/// Whether rank 0 has a GPU beside at least one more rank (every rank gets rank 0's answer).
bool hybrid_ranks_available() {
  int gpu = rank() == 0 && cuda::device_count() > 0 ? 1 : 0;
  MPI_Bcast(&gpu, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return gpu != 0 && ranks() >= 2;
}
#endif

class Hybrid : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Hybrid, OneGpuRankBesideOpenMPRanksIsBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (!hybrid_ranks_available()) {
    GTEST_SKIP() << "needs a GPU for rank 0 and at least 2 ranks";
  }
  // The GPU rank takes the most slices, as a calibration would give it; every halo depth.
  std::vector<double> weights(static_cast<std::size_t>(ranks()), 1.0);
  weights[0] = 3.0;
  expect_slabs_match_reference(GetParam(), rank() == 0 ? "cuda" : "openmp", weights);
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// The GPU rank's rotating kernels take their phases from global coordinates, as the host ranks do.
TEST_P(Hybrid, RotatingGpuRankBesideOpenMPRanksIsBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (!hybrid_ranks_available()) {
    GTEST_SKIP() << "needs a GPU for rank 0 and at least 2 ranks";
  }
  expect_slabs_match_reference(GetParam(), rank() == 0 ? "cuda" : "openmp", {},
                               Rotation{0.6, 0.3, -0.2});
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// The staged halos move the precision's 8-byte values between the GPU rank and the host ranks.
TEST_P(Hybrid, SingleAndMixedGpuRankBesideOpenMPRanksIsBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (!hybrid_ranks_available()) {
    GTEST_SKIP() << "needs a GPU for rank 0 and at least 2 ranks";
  }
  std::vector<double> weights(static_cast<std::size_t>(ranks()), 1.0);
  weights[0] = 3.0;
  for (const Precision precision : {Precision::single, Precision::mixed}) {
    expect_slabs_match_reference(GetParam(), rank() == 0 ? "cuda" : "openmp", weights, {},
                                 precision);
  }
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// The staged sweep (the default leapfrog of large cubic and cubic4 grids in single and mixed) on
// the GPU rank: its slices of ψ in shared memory reach into the halos at the slab's edges. A shape
// given in full with tiles, rows and chunks cut short; in double, where it fits every lattice of
// at most 12 cells an instance.
TEST_P(Hybrid, StagedSweepOnTheGpuRankIsBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (!hybrid_ranks_available()) {
    GTEST_SKIP() << "needs a GPU for rank 0 and at least 2 ranks";
  }
  if (make_problem(GetParam()).grid.ms > 12) {
    GTEST_SKIP() << "the staged sweep's tiles of 46 to 136 cells an instance do not fit a block";
  }
  std::vector<double> weights(static_cast<std::size_t>(ranks()), 1.0);
  weights[0] = 3.0;
  BackendTuning tuning;
  if (rank() == 0) {
    tuning.values["cuda.block_shape"] = "t4x4z3a1b4";
  }
  expect_slabs_match_reference(GetParam(), rank() == 0 ? "cuda" : "openmp", weights, {},
                               Precision::double_, tuning);
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

// k leapfrog steps a launch on the GPU rank beside OpenMP ranks stepping singly (halos staged
// through host memory).
TEST_P(Hybrid, KStepsALaunchOnTheGpuRankAreBitwiseIdenticalToReference) {
#if DECGPE_HAVE_CUDA
  if (!hybrid_ranks_available()) {
    GTEST_SKIP() << "needs a GPU for rank 0 and at least 2 ranks";
  }
  std::vector<double> weights(static_cast<std::size_t>(ranks()), 1.0);
  weights[0] = 3.0;
  expect_k_step_slabs_match_reference(GetParam(), rank() == 0 ? "cuda" : "openmp", weights);
#else
  GTEST_SKIP() << "this build has no CUDA backend";
#endif
}

INSTANTIATE_TEST_SUITE_P(EveryStencil, Hybrid, verify::every_stencil(), verify::lattice_name);

/// A seeded stationary vortex: every set-up quantity that a reduction over the domain makes (the
/// norm, ρ by Lanczos and Gershgorin, eq. 11, the adaptive step's density floor) and the run's
/// fingerprint; with the leapfrog's paper start (ψ^{−1}) or RK4's adaptive steps.
std::string setup_case(const std::string& time) {
  return R"(lattice = "bcc"
h = 0.8
structures = [6, 5, 9]
g = 40.0
[time]
dt_fraction = 0.5
end_time = 0.05
)" + time +
         R"([initial]
kappa = 2
[initial.seed]
seed = 5
amplitude = 1e-3
)";
}

class SetUp : public ::testing::TestWithParam<std::string> {};

TEST_P(SetUp, EachRanksSetUpIsItsSlabOfTheOneProcessSetUpBitForBit) {
  const setup::CaseConfig config = setup::parse_case(setup_case(GetParam()), "setup.toml");
  const setup::RunSetup whole = setup::prepare_run(config);
  const setup::RunSetup mine = setup::prepare_run(config, {}, MPI_COMM_WORLD);
  EXPECT_EQ(mine.layout.ranks(), ranks());
  EXPECT_EQ(mine.problem.grid.global_cells(), whole.problem.grid.cells());
  EXPECT_EQ(mine.normalisation, whole.normalisation);
  EXPECT_EQ(mine.spectrum.radius, whole.spectrum.radius);
  EXPECT_EQ(mine.spectrum.gershgorin, whole.spectrum.gershgorin);
  EXPECT_EQ(mine.eq11_bound, whole.eq11_bound);
  EXPECT_EQ(mine.dt, whole.dt);
  EXPECT_EQ(mine.adaptive.density_floor, whole.adaptive.density_floor);
  EXPECT_EQ(io::fingerprint(mine), io::fingerprint(whole));
  const std::int64_t n = whole.problem.grid.slice_cells();
  const auto part = [&](const std::vector<Complex>& v) {
    const auto s = mine.layout.stored(std::span<const Complex>(v), n);
    return std::vector<Complex>(s.begin(), s.end());
  };
  EXPECT_TRUE(verify::bitwise_equal(mine.current, part(whole.current)));
  ASSERT_EQ(mine.previous.empty(), whole.previous.empty()); // ψ^{−1}: the paper's start only
  if (!whole.previous.empty()) {
    EXPECT_TRUE(verify::bitwise_equal(mine.previous, part(whole.previous)));
  }
  if (ranks() > 1) { // a rank holds its slab only
    EXPECT_LT(mine.current.size(), whole.current.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Decomposition, SetUp,
                         ::testing::Values("start = \"paper\"\n",
                                           "scheme = \"rk4\"\nadaptive = true\n"));

TEST(Decomposition, ATabulatedPotentialIsReadPerSlabAndSetsUpAsInOneProcess) {
  int owner = static_cast<int>(getpid()); // rank 0's: a folder private to this test run
  MPI_Bcast(&owner, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::filesystem::path table = std::filesystem::temp_directory_path() /
                                      ("decgpe_scaleout_tabulated_" + std::to_string(owner)) /
                                      "v.h5";
  const std::string harmonic = setup_case("");
  if (rank() == 0) { // the trap plus a ripple in memory order: a slab read off by a slice shows
    const setup::RunSetup whole = setup::prepare_run(setup::parse_case(harmonic, "setup.toml"));
    const Grid& grid = whole.problem.grid;
    std::vector<double> v(static_cast<std::size_t>(grid.cells()));
    for (std::int64_t i = 0; i < grid.cells(); ++i) {
      const lattices::Vec3 r = grid.position(i);
      v[static_cast<std::size_t>(i)] =
          harmonic_potential(r.x, r.y, r.z, 1.0) + 0.01 * static_cast<double>(i % 7);
    }
    io::ResultsFile file(table);
    file.write("/V", v, {v.size()});
    file.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string tabulated =
      harmonic + "[potential]\nkind = \"tabulated\"\nfile = \"" + table.string() + "\"\n";
  const setup::CaseConfig config = setup::parse_case(tabulated, "tabulated.toml");
  const setup::RunSetup whole = setup::prepare_run(config);
  const setup::RunSetup mine = setup::prepare_run(config, {}, MPI_COMM_WORLD);
  const auto part = mine.layout.stored(std::span<const double>(whole.problem.potential.values),
                                       whole.problem.grid.slice_cells());
  EXPECT_EQ(mine.problem.potential.values, std::vector<double>(part.begin(), part.end()));
  EXPECT_EQ(mine.spectrum.radius, whole.spectrum.radius);
  EXPECT_EQ(mine.dt, whole.dt);
  EXPECT_EQ(io::fingerprint(mine), io::fingerprint(whole));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    std::filesystem::remove_all(table.parent_path());
  }
}

TEST(Decomposition, WeightedSlabsFollowTheWeightsAndKeepTheMinimum) {
  EXPECT_EQ(scaleout::weighted_slab_sizes(12, std::vector<double>{1, 2, 3}, 1),
            std::vector<int>({2, 4, 6}));
  EXPECT_EQ(scaleout::weighted_slab_sizes(10, std::vector<double>{1, 1, 1}, 1),
            std::vector<int>({4, 3, 3})); // the remainder to the lowest rank, like slab_range
  // A GPU 40× a CPU rank: the CPU ranks keep the minimum (the halo depth).
  EXPECT_EQ(scaleout::weighted_slab_sizes(100, std::vector<double>{40, 1, 1}, 3),
            std::vector<int>({94, 3, 3}));
  EXPECT_EQ(scaleout::weighted_slab_sizes(7, std::vector<double>{1e9, 1e-9}, 1),
            std::vector<int>({6, 1}));
  EXPECT_THROW(scaleout::weighted_slab_sizes(5, std::vector<double>{1, 1, 1}, 2),
               std::invalid_argument);
  EXPECT_THROW(scaleout::weighted_slab_sizes(5, std::vector<double>{1, 0}, 1),
               std::invalid_argument);
}

TEST(Decomposition, AGpuRankTakesNoMoreThanItsMemoryHoldsAndTheRestIsShared) {
  constexpr int kHost = std::numeric_limits<int>::max();
  // The GPU would take 94 by throughput but holds 50: the CPU ranks share the rest by theirs.
  EXPECT_EQ(scaleout::weighted_slab_sizes(100, std::vector<double>{40, 1, 3}, 1,
                                          std::vector<int>{50, kHost, kHost}),
            std::vector<int>({50, 13, 37}));
  EXPECT_EQ(scaleout::weighted_slab_sizes(100, std::vector<double>{40, 1, 3}, 1,
                                          std::vector<int>{99, kHost, kHost}),
            std::vector<int>({91, 2, 7})); // it fits: the throughput decides
  EXPECT_THROW(
      scaleout::weighted_slab_sizes(100, std::vector<double>{1, 1}, 1, std::vector<int>{30, 30}),
      std::invalid_argument);
  EXPECT_THROW(
      scaleout::weighted_slab_sizes(100, std::vector<double>{1, 1}, 3, std::vector<int>{2, kHost}),
      std::invalid_argument);
}

TEST(Decomposition, UnevenSlabsAreBitwiseTheReference) {
  // Slabs sized as a calibration of 1 : 2.5 : 4 : … throughput would size them, on every scheme.
  std::vector<double> weights;
  for (int r = 0; r < ranks(); ++r) {
    weights.push_back(1.0 + 1.5 * r);
  }
  expect_slabs_match_reference("bcc", "openmp", weights);
}

TEST(Decomposition, SlabsCoverTheDomainAndDifferByAtMostOne) {
  for (int sz : {3, 7, 10, 302}) {
    for (int n = 1; n <= std::min(sz, 8); ++n) {
      int next = 0, smallest = sz, largest = 0;
      for (int r = 0; r < n; ++r) {
        const scaleout::SlabRange s = scaleout::slab_range(r, n, sz);
        EXPECT_EQ(s.begin, next);
        next = s.end;
        smallest = std::min(smallest, s.end - s.begin);
        largest = std::max(largest, s.end - s.begin);
      }
      EXPECT_EQ(next, sz);
      EXPECT_LE(largest - smallest, 1);
    }
  }
  EXPECT_THROW(scaleout::slab_range(0, 4, 3), std::invalid_argument);
}

} // namespace
} // namespace decgpe

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (decgpe::rank() != 0) {
    // One rank reports; every rank's failures still set its exit status.
    delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  MPI_Finalize();
  return failed;
}
