// Full size on a GPU (paper Fig 6): Bogoliubov theory predicts a 3-fold split of the κ = 10 vortex;
// BCC reproduces it, the cubic grid splits 4-fold.

#include "verify/run_command.hpp"
#include "verify/split_runs.hpp"
#if DECGPE_HAVE_CUDA
#include "solvers/cuda/cuda_backend.hpp"
#endif

#include <string>

namespace decgpe {
namespace {

class FullSize : public Pipeline,
                 public ::testing::WithParamInterface<std::pair<std::string_view, int>> {};

TEST_P(FullSize, VortexSplitsWithTheExpectedFold) {
#if DECGPE_HAVE_CUDA
  if (!cuda::device_available()) {
    GTEST_SKIP() << "full-size runs need a GPU";
  }
#else
  GTEST_SKIP() << "full-size runs need the CUDA backend";
#endif
  const auto [lattice, expected] = GetParam();
  const fs::path out = dir_ / "full.h5";
  const verify::CommandResult r = verify::run_decgpe(
      std::string("run ") + DECGPE_SOURCE_DIR + "/cases/accuracy/" + std::string(lattice) +
      ".toml --backend cuda --quiet --no-state --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(fold_of(out), expected) << lattice;
}

INSTANTIATE_TEST_SUITE_P(Paper, FullSize,
                         ::testing::Values(std::pair<std::string_view, int>{"bcc", 3},
                                           std::pair<std::string_view, int>{"cubic", 4}),
                         [](const auto& param) { return std::string(param.param.first); });

} // namespace
} // namespace decgpe
