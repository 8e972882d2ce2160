// Restart under mpirun: a run stopped on 2 ranks, resumed on 3, stopped again and finished on 2,
// ends in the state of one process running it uninterrupted, bit for bit (the slabs are bitwise
// the whole domain). Each rank writes its slab's cells beside the checkpoint and the results, which
// join them as virtual datasets; a resumed rank reads its slices of them, so the count may change.

#include "verify/restart_chain.hpp"

#include <gtest/gtest.h>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

const std::string kCase = R"(lattice = "fcc"
h = 0.9
structures = [5, 5, 9]
g = 10.0
[time]
dt_fraction = 0.5
steps = 120
diagnostics_every = 10
snapshot_every = 30
spectrum_every = 20
[initial]
kappa = 1
)";

std::string launcher(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
         "OMP_WAIT_POLICY=PASSIVE " DECGPE_MPIEXEC " -np " +
         std::to_string(ranks) + " --oversubscribe ";
}

class MpiRestart : public verify::RestartFixture {};

TEST_F(MpiRestart, StoppedOnTwoRanksResumedOnThreeIsBitwiseOneProcessUninterrupted) {
  for (const char* scheme : {"leapfrog", "rk4"}) {
    const std::string flags = std::string("--backend openmp --scheme ") + scheme;
    ASSERT_EQ(run(kCase, flags).exit_code, 0);
    const fs::path whole = dir_ / "whole.h5";
    fs::rename(out(), whole);
    run_in_parts(kCase, flags, {launcher(2), launcher(3), launcher(2)});
    expect_same_run(whole, out(), false);
    EXPECT_TRUE(fs::is_directory(out().string() + ".parts")) << "2 ranks write their slabs";
    // The results name their parts relative to themselves: the folder moves as one.
    const fs::path moved = dir_ / "moved";
    fs::rename(out().parent_path(), moved);
    expect_same_run(whole, moved / out().filename(), false);
    fs::remove_all(moved);
  }
}

// Deep halos change the messages, never the state: three halo slices per side, stopped on 3 ranks
// and resumed on 2, end bitwise where one process ends; the depth is recorded.
TEST_F(MpiRestart, DeepHalosStoppedAndResumedAreBitwiseOneProcess) {
  const std::string flags = "--backend openmp --scheme leapfrog";
  ASSERT_EQ(run(kCase, flags).exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  run_in_parts(kCase, flags + " --set scaleout.halo_depth=3", {launcher(3), launcher(2)});
  expect_same_run(whole, out(), false);
  EXPECT_EQ(io::InputFile(out()).text_attribute("tuning_halo_depth"), "3 (case)");
}

// Slabs sized by a calibration run (as for hybrid ranks) are uneven, and the state is still the
// one-process run's, also resumed on another rank count with a new calibration.
TEST_F(MpiRestart, MeasuredSlabsStoppedAndResumedAreBitwiseOneProcess) {
  const std::string flags = "--backend openmp --scheme rk4";
  ASSERT_EQ(run(kCase, flags).exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  run_in_parts(kCase, flags + " --set scaleout.balance=measured", {launcher(3), launcher(2)});
  expect_same_run(whole, out(), false);
  const io::InputFile f(out());
  EXPECT_EQ(f.text_attribute("slab_balance"), "measured");
  EXPECT_GT(f.integer_attribute("slab_calibration_steps"), 0);
}

// The slabs gather their pierced edges; rank 0 alone joins and writes the lines, the same as one
// process's, also across a resume on another rank count.
TEST_F(MpiRestart, VortexLinesOnRanksStoppedAndResumedAreOneProcesses) {
  const std::string flags = "--backend openmp --set analysis.vortex_lines_every=20";
  ASSERT_EQ(run(kCase, flags).exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  run_in_parts(kCase, flags, {launcher(2), launcher(3)});
  expect_same_run(whole, out(), false);
  EXPECT_EQ(io::InputFile(out()).integers("/vortex_lines/series/step"),
            (std::vector<std::int64_t>{0, 20, 40, 60, 80, 100, 120}));
  EXPECT_TRUE(fs::exists(lines_sidecar()));
}

TEST_F(MpiRestart, AHaloDeeperThanASlabIsRefusedWithOneLine) {
  // 9 z-slices on 3 ranks: 3 each. (mpiexec adds its own lines about the failed ranks.)
  const verify::CommandResult r = verify::run_command(
      launcher(3) + DECGPE_EXECUTABLE + " run " + write_case(kCase).string() + " --quiet --out " +
      out().string() + " --backend openmp --set scaleout.halo_depth=4");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string line = "decgpe: error: halo_depth 4 with 3 ranks of 9 z-slices";
  const std::size_t at = r.output.find(line);
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("decgpe:", at + 1), std::string::npos) << "one line: " << r.output;
  EXPECT_FALSE(fs::exists(out()));
}

// A refusal that every rank meets ends every rank with exit 1 and MPI finalised, not aborted: under
// mpiexec -q the run's line is all there is; without -q, mpiexec adds only its own note that ranks
// exited non-zero, not MPI_Abort's banner.
TEST_F(MpiRestart, ARefusalEveryRankMeetsEndsThemWithoutAnAbort) {
  const std::string run = std::string(DECGPE_EXECUTABLE) + " run " + write_case(kCase).string() +
                          " --quiet --out " + out().string() +
                          " --backend openmp --set scaleout.halo_depth=4";
  const verify::CommandResult quiet = verify::run_command(launcher(3) + "-q " + run);
  EXPECT_EQ(quiet.exit_code, 1) << quiet.output;
  expect_one_line_error(quiet, "decgpe: error: halo_depth 4 with 3 ranks of 9 z-slices");
  const verify::CommandResult loud = verify::run_command(launcher(3) + run);
  EXPECT_EQ(loud.exit_code, 1) << loud.output;
  EXPECT_EQ(loud.output.find("MPI_ABORT"), std::string::npos) << loud.output;
  EXPECT_FALSE(fs::exists(out()));
}

} // namespace
} // namespace decgpe
