// Full size on a GPU (paper Fig 6): Bogoliubov theory predicts a 3-fold split of the κ = 10 vortex;
// BCC reproduces it, the cubic grid splits 4-fold from the interpolated state. From BCC's own
// stationary state with controlled seeds, the split is 3-fold in every seed, at one growth rate.

#include "verify/run_command.hpp"
#include "verify/split_runs.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <string>

namespace decgpe {
namespace {

/// The splitting pipeline at the paper's size: on a GPU, skipped without one.
class GpuPipeline : public Pipeline {
protected:
  void SetUp() override {
    Pipeline::SetUp();
#if DECGPE_HAVE_CUDA
    if (!cuda::device_available()) {
      GTEST_SKIP() << "full-size runs need a GPU";
    }
#else
    GTEST_SKIP() << "full-size runs need the CUDA backend";
#endif
  }
};

class FullSize : public GpuPipeline,
                 public ::testing::WithParamInterface<std::pair<std::string_view, int>> {};

TEST_P(FullSize, VortexSplitsWithTheExpectedFold) {
  const auto [lattice, expected] = GetParam();
  const fs::path out = dir_ / "full.h5";
  const verify::CommandResult r = verify::run_decgpe(
      std::string("run ") + DECGPE_SOURCE_DIR + "/cases/accuracy/" + std::string(lattice) +
      ".toml --backend cuda --quiet --no-state --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(fold_of(out), expected) << lattice;
}

// What the committed statistics support (reports/data/nvidia-h100-80gb-hbm3/splitting/
// splitting-study-*.json): from the lattice's own stationary state, BCC split 3-fold in every seed
// in both placements, at σ₃ = 0.210 in every run (spread < 0.001). Asserted with margin: 3-fold in
// at least 7 of 8 seeds, σ₃ within 0.20–0.22 over t = 30–50 (where |c₃| grows from ~1e-5 to ~1e-3).
TEST_F(GpuPipeline, BccFromItsStationaryStateSplits3FoldOverSeeds) {
  constexpr int kSeeds = 8;
  int three_fold = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const fs::path out = dir_ / ("seed" + std::to_string(seed) + ".h5");
    const verify::CommandResult r = verify::run_command(
        "DECGPE_CACHE=" + (dir_ / "cache").string() + " " + DECGPE_EXECUTABLE + " run " +
        std::string(DECGPE_SOURCE_DIR) +
        "/cases/accuracy/bcc.toml --set initial.lattice_stationary=true --set "
        "initial.stationary_residual=1e-8 --set initial.stationary_krylov=500 --set "
        "time.spectrum_every=250 --set initial.seed.seed=" +
        std::to_string(seed) + " --backend cuda --quiet --no-state --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    three_fold += fold_of(out) == 3 ? 1 : 0;
    const Growth g = fit_growth(out, 3, 30.0, 50.0);
    EXPECT_NEAR(g.rate, 0.21, 0.01) << "seed " << seed;
    EXPECT_GT(g.r_squared, 0.99) << "seed " << seed;
  }
  EXPECT_GE(three_fold, kSeeds - 1);
}

INSTANTIATE_TEST_SUITE_P(Paper, FullSize,
                         ::testing::Values(std::pair<std::string_view, int>{"bcc", 3},
                                           std::pair<std::string_view, int>{"cubic", 4}),
                         [](const auto& param) { return std::string(param.param.first); });

} // namespace
} // namespace decgpe
