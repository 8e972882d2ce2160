// Runs that survive: checkpoints and bitwise restart, signals and the wall-clock limit, a full
// disk, too little memory, and output targets that must not be written. Every refusal is one line
// and exit 1; nothing is left behind but the results and, of a stopped run, its checkpoint.

#include "solvers/memory_budget.hpp"
#include "solvers/schemes/registry.hpp"
#include "verify/restart_chain.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <tuple>

namespace decgpe {
namespace {

using verify::CommandResult;
using verify::replace;
namespace fs = std::filesystem;

// 8748 cells: a few hundred steps take a fraction of a second on one core.
const std::string kCase = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 10.0
[time]
dt_fraction = 0.5
steps = 300
diagnostics_every = 10
snapshot_every = 50
spectrum_every = 30
[initial]
kappa = 1
)";

/// Long enough (seconds) that a signal sent after one second arrives mid-run; no snapshots (a run
/// killed with SIGKILL writes no results to carry them over from).
const std::string kLongCase = replace(replace(kCase, "steps = 300", "steps = 20000"),
                                      "snapshot_every = 50", "snapshot_every = 0");

class Survival : public verify::RestartFixture {
protected:
  /// Runs `decgpe <arguments>` in the background, sends `signal` once `file` exists (it waits up to
  /// two minutes, so that a slow machine or a sanitizer build sends it mid-run too), and waits.
  CommandResult interrupt(const std::string& arguments, const char* signal,
                          const fs::path& file) const {
    const std::string line = std::string(DECGPE_EXECUTABLE) + " " + arguments;
    return verify::run_command("{ " + line + " & pid=$!; for i in $(seq 1200); do [ -e " +
                               file.string() + " ] && break; sleep 0.1; done; kill -" + signal +
                               " $pid; { wait $pid; } 2>/dev/null; }");
  }

  /// Runs `decgpe run <arguments>` (not --quiet) in the background, runs the shell commands `kills`
  /// on its $pid once it has announced its steps (the set-up over: a signal then stops it at a step
  /// boundary with a checkpoint; it waits up to two minutes), and waits. The output is stderr's
  /// (grep -s: the first polls may come before the background run has made its stdout file).
  CommandResult signal_when_stepping(const std::string& arguments, const std::string& kills) const {
    const fs::path said = dir_ / "stdout.txt";
    return verify::run_command("{ " + std::string(DECGPE_EXECUTABLE) + " run " + arguments + " >" +
                               said.string() + " & pid=$!; for i in $(seq 1200); do grep -qs " +
                               "'^decgpe run ' " + said.string() + " && break; sleep 0.1; done; " +
                               kills + "{ wait $pid; } 2>/dev/null; }");
  }

  /// Resumes `run <args>` from its checkpoint, runs it again uninterrupted, and compares.
  void resume_and_compare(const std::string& args) const {
    const CommandResult resumed =
        verify::run_decgpe("run " + args + " --force --restart " + checkpoint().string());
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    const fs::path resumed_out = dir_ / "resumed.h5";
    fs::rename(out(), resumed_out);
    ASSERT_EQ(verify::run_decgpe("run " + args).exit_code, 0);
    expect_same_run(out(), resumed_out);
  }
};

class Restart : public Survival,
                public ::testing::WithParamInterface<std::tuple<const char*, const char*>> {};

TEST_F(Survival, TheResumeLineRepeatsEveryOptionTheRunDependsOnAndResumes) {
  const CommandResult stopped = run(kCase, "--set time.steps=50 --scheme rk4 --backend openmp "
                                           "--no-state --max-hours 1e-9");
  ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
  const std::string marker = "resume with: ";
  const std::size_t at = stopped.output.find(marker);
  ASSERT_NE(at, std::string::npos) << stopped.output;
  std::string line = stopped.output.substr(at + marker.size());
  line = line.substr(0, line.find('\n'));
  for (const char* option : {"--set 'time.steps=50'", " --scheme rk4", " --backend openmp",
                             " --no-state", " --quiet", " --restart "}) {
    EXPECT_NE(line.find(option), std::string::npos) << option << " missing from: " << line;
  }
  EXPECT_EQ(line.find("--max-hours"), std::string::npos) << "a batch limit is the job's: " << line;
  ASSERT_EQ(line.rfind("decgpe run ", 0), 0U) << line;
  const CommandResult resumed =
      verify::run_command(std::string(DECGPE_EXECUTABLE) + line.substr(6));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_TRUE(resumed.output.empty()) << "--quiet was repeated: " << resumed.output;
  const io::InputFile results(out());
  EXPECT_EQ(results.integer_attribute("steps_done"), 50);
  EXPECT_EQ(results.integer_attribute("complete"), 1);
  EXPECT_EQ(results.text_attribute("scheme"), "rk4");
  EXPECT_FALSE(results.has("/state")) << "--no-state was repeated";
}

/// Flips one bit in the middle of dataset `path`'s stored bytes (its first chunk), in place.
void flip_a_bit(const fs::path& file, const std::string& path) {
  haddr_t address = HADDR_UNDEF;
  hsize_t bytes = 0;
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t set = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    hsize_t offset = 0;
    unsigned filters = 0;
    const herr_t found = H5Dget_chunk_info(set, space, 0, &offset, &filters, &address, &bytes);
    H5Sclose(space);
    H5Dclose(set);
    H5Fclose(f);
    ASSERT_GE(found, 0) << path << " is not stored in chunks";
  }
  std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
  stream.seekg(static_cast<std::streamoff>(address + bytes / 2));
  const char byte = static_cast<char>(stream.get() ^ 0x10);
  stream.seekp(static_cast<std::streamoff>(address + bytes / 2));
  stream.put(byte);
  ASSERT_TRUE(stream.good());
}

TEST_F(Survival, ACheckpointWithOneBitFlippedInItsLevelsIsRefusedWithOneLine) {
  ASSERT_EQ(run(kCase, "--max-hours 1e-9").exit_code, 0);
  ASSERT_TRUE(fs::exists(checkpoint()));
  const std::string resume = write_case(kCase).string() + " --quiet --force --out " +
                             out().string() + " --restart " + checkpoint().string();
  const fs::path intact = dir_ / "intact.h5";
  fs::copy_file(checkpoint(), intact);
  ASSERT_NO_FATAL_FAILURE(flip_a_bit(checkpoint(), "/levels/previous"));
  expect_one_line_error(verify::run_decgpe("run " + resume),
                        "its level 'previous' fails its checksum or cannot be read");
  fs::copy_file(intact, checkpoint(), fs::copy_options::overwrite_existing);
  ASSERT_EQ(verify::run_decgpe("run " + resume).exit_code, 0) << "the intact copy resumes";
}

TEST_P(Restart, ResumedThreeTimesTheRunIsBitwiseTheUninterruptedOne) {
  const auto [scheme, backend] = GetParam();
  const std::string flags = std::string("--scheme ") + scheme + " --backend " + backend;
  ASSERT_EQ(run(kCase, flags).exit_code, 0);
  const fs::path whole = dir_ / "whole.h5";
  fs::rename(out(), whole);
  run_in_parts(kCase, flags, {"", "", "", ""});
  expect_same_run(whole, out());
}

INSTANTIATE_TEST_SUITE_P(SchemesAndHostBackends, Restart,
                         ::testing::Combine(::testing::Values("leapfrog", "rk4"),
                                            ::testing::Values("reference", "openmp")),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param)) + "_" +
                                  std::get<1>(param_info.param);
                         });

TEST_F(Survival, CheckpointsOnTheCaseCadenceAndRefusesAnotherProblem) {
  const std::string with_cadence = kLongCase + "[output]\ncheckpoint_every = 1000\n";
  const std::string args =
      write_case(with_cadence).string() + " --quiet --backend openmp --out " + out().string();
  // SIGKILL cannot be caught: what is left is the last complete checkpoint, which resumes.
  const CommandResult killed = interrupt("run " + args, "KILL", checkpoint());
  ASSERT_TRUE(fs::exists(checkpoint())) << killed.output;
  const std::int64_t step = io::InputFile(checkpoint()).integer_attribute("step");
  // A killed run may leave its lock and a temporary behind: the next run takes the lock over and
  // removes the temporary.
  std::ofstream(out().string() + ".tmp-999999") << "a killed run's half-written file";
  EXPECT_EQ(step % 1000, 0);
  EXPECT_GT(step, 0);
  // A checkpoint of another problem is refused, one line.
  const fs::path other = write_case(replace(with_cadence, "g = 10.0", "g = 11.0"), "other.toml");
  expect_one_line_error(verify::run_decgpe("run " + other.string() + " --quiet --force --out " +
                                           out().string() + " --restart " + checkpoint().string()),
                        "it is of another problem");
  resume_and_compare(args);
  EXPECT_FALSE(fs::exists(out().string() + ".tmp-999999"));
}

// numerics.precision: a single-precision run's checkpoint holds its FP32 values exactly (in FP64),
// resumes bitwise, and is refused with one line by a run in another precision.
TEST_F(Survival, ASinglePrecisionRunResumesBitwiseAndOnlyInItsPrecision) {
  const std::string single =
      kLongCase + "[output]\ncheckpoint_every = 1000\n[numerics]\nprecision = \"single\"\n";
  const std::string args =
      write_case(single).string() + " --quiet --backend openmp --out " + out().string();
  const CommandResult killed = interrupt("run " + args, "KILL", checkpoint());
  ASSERT_TRUE(fs::exists(checkpoint())) << killed.output;
  EXPECT_EQ(io::InputFile(checkpoint()).text_attribute("precision"), "single");
  expect_one_line_error(verify::run_decgpe("run " + args +
                                           " --force --set numerics.precision=double --restart " +
                                           checkpoint().string()),
                        "it was stepped in single precision, this run is in double");
  resume_and_compare(args);
  EXPECT_EQ(io::InputFile(out()).text_attribute("precision"), "single");
}

TEST_F(Survival, ASecondSignalLetsTheStopFinishItsCheckpointAndAThirdEndsAtOnce) {
  const std::string loud = write_case(kLongCase).string() + " --backend openmp --out " +
                           out().string(),
                    args = loud + " --quiet";
  // Kinds that differ, back to back: a signal pending twice would count once, and the stop, at
  // most 64 steps away, may be over before a signal sent later arrives.
  const auto signalled = [&](const std::string& kills) {
    return signal_when_stepping(loud, kills);
  };
  const CommandResult twice = signalled("kill -TERM $pid; kill -INT $pid; ");
  // Pending signals are delivered lowest number first, whatever order they were sent in.
  const auto stop_signal = [](int code) {
    return code == 128 + SIGHUP || code == 128 + SIGINT || code == 128 + SIGTERM;
  };
  EXPECT_TRUE(stop_signal(twice.exit_code)) << twice.exit_code << twice.output;
  EXPECT_NE(twice.output.find("a second stop signal"), std::string::npos) << twice.output;
  EXPECT_NE(twice.output.find("stopped by SIG"), std::string::npos) << twice.output;
  ASSERT_TRUE(fs::exists(checkpoint())) << twice.output;
  resume_and_compare(args);
  remove_results();
  const CommandResult thrice = signalled("kill -TERM $pid; kill -INT $pid; kill -HUP $pid; ");
  EXPECT_TRUE(stop_signal(thrice.exit_code)) << thrice.exit_code << thrice.output;
  EXPECT_NE(thrice.output.find("a third stop signal: ended at once"), std::string::npos)
      << thrice.output;
}

TEST_F(Survival, SigtermStopsWithOneLineACheckpointAndResumesBitwise) {
  const std::string loud = write_case(kLongCase).string() + " --backend openmp --out " +
                           out().string(),
                    args = loud + " --quiet";
  // Sent once the steps began: the run stops at its first step boundary after it.
  const CommandResult stopped = signal_when_stepping(loud, "kill -TERM $pid; ");
  EXPECT_EQ(stopped.exit_code, 128 + SIGTERM) << stopped.output;
  expect_one_line_error(stopped, "stopped by SIGTERM at step");
  EXPECT_NE(stopped.output.find("--restart " + checkpoint().string()), std::string::npos);
  ASSERT_TRUE(fs::exists(checkpoint()));
  const io::InputFile partial(out());
  EXPECT_EQ(partial.integer_attribute("complete"), 0);
  EXPECT_EQ(partial.text_attribute("stop_reason"), "SIGTERM");
  resume_and_compare(args);
}

TEST_F(Survival, ASignalDuringTheLatticeStationarySolveStopsItWithOneLineAndNothingWritten) {
  // A residual out of reach: the solve (30 Newton steps, some 20 s on two cores) runs until the
  // signal, sent once the run reports its first Newton step (the set-up before it, the spectrum's
  // estimate among it, takes seconds or, sanitized on a loaded machine, many more).
  const std::string toml =
      replace(replace(kCase, "h = 0.9", "h = 0.5"), "kappa = 1\n",
              "kappa = 1\nlattice_stationary = true\nstationary_residual = 1e-15\n");
  const fs::path progress = dir_ / "progress.txt";
  const std::string line = "DECGPE_CACHE=" + (dir_ / "cache").string() + " " + DECGPE_EXECUTABLE +
                           " run " + write_case(toml).string() + " --backend openmp --out " +
                           out().string() + " >" + progress.string();
  const CommandResult stopped = verify::run_command(
      "{ " + line + " & pid=$!; for i in $(seq 6000); do grep -qs 'lattice stationary state: " +
      "Newton step 1,' " + progress.string() + " && break; kill -0 $pid 2>/dev/null || break; " +
      "sleep 0.1; done; kill -TERM $pid; { wait $pid; } 2>/dev/null; }");
  EXPECT_EQ(stopped.exit_code, 128 + SIGTERM) << stopped.output;
  expect_one_line_error(stopped,
                        "stopped by SIGTERM while solving for the lattice stationary state");
  EXPECT_FALSE(fs::exists(out()));
  EXPECT_FALSE(fs::exists(checkpoint()));
}

TEST_F(Survival, ASignalDuringTheSetUpStopsItWithinSecondsWithOneLineAndNothingWritten) {
  // Eq. 14 solved afresh (a private cache) for a thin-cored vortex: some 10 s on two cores, and
  // longer on a loaded machine. The signal goes once the run says it is solving.
  const std::string toml = replace(replace(kCase, "g = 10.0", "g = 20000.0"), "kappa = 1\n",
                                   "kind = \"stationary_vortex\"\nkappa = 20\n");
  const fs::path progress = dir_ / "progress.txt", folder = dir_ / "made" / "for";
  const std::string line = "DECGPE_CACHE=" + (dir_ / "cache").string() + " " + DECGPE_EXECUTABLE +
                           " run " + write_case(toml).string() + " --backend openmp --out " +
                           (folder / "r.h5").string();
  const CommandResult stopped = verify::run_command(
      "{ " + line + " >" + progress.string() + " & pid=$!; for i in $(seq 1200); do grep -qs " +
      "'set-up: solving eq. 14' " + progress.string() + " && break; sleep 0.1; done; " +
      "start=$(date +%s%N); kill -INT $pid; wait $pid; code=$?; " +
      "echo \"exit $code after $(( ($(date +%s%N) - start) / 1000000 )) ms\"; }");
  const std::size_t at = stopped.output.rfind("exit ");
  ASSERT_NE(at, std::string::npos) << stopped.output;
  int code = 0;
  long ms = 0;
  ASSERT_EQ(std::sscanf(stopped.output.c_str() + at, "exit %d after %ld ms", &code, &ms), 2)
      << stopped.output;
  EXPECT_EQ(code, 128 + SIGINT) << stopped.output;
  EXPECT_LT(ms, 10000) << "the signal is honoured within the relaxation's iterations";
  expect_one_line_error({code, stopped.output.substr(0, at)},
                        "stopped by SIGINT while solving eq. 14 for the stationary vortex; nothing "
                        "written");
  EXPECT_FALSE(fs::exists(dir_ / "made")) << "the folders the claim made are removed";
  EXPECT_TRUE(!fs::exists(dir_ / "cache") || fs::is_empty(dir_ / "cache")) << "nothing cached";
}

TEST_F(Survival, AFullDiskIsOneLineAndLeavesNothing) {
  // A file-size limit makes every write past 40 KiB fail with EFBIG, as a full disk fails them.
  const CommandResult r =
      verify::run_command("ulimit -f 40; " + std::string(DECGPE_EXECUTABLE) + " run " +
                          write_case(kCase).string() + " --quiet --out " + out().string());
  expect_rejected(r, "cannot write");
  EXPECT_NE(r.output.find("cannot write output '" + out().string() + "': "), std::string::npos)
      << "the file: " << r.output;
  EXPECT_NE(r.output.find(": File too large"), std::string::npos) << "the cause: " << r.output;
}

TEST_F(Survival, TooLittleMemoryIsRefusedBeforeAnyStepNamingBothNumbers) {
  expect_rejected(
      run(replace(kCase, "domain = [8.0, 8.0, 8.0]", "structures = [4000, 4000, 4000]")),
      "not enough host memory: the run needs");
  expect_rejected(
      run(replace(kCase, "domain = [8.0, 8.0, 8.0]", "structures = [1000000, 1000000, 1000000]")),
      "too large (more than 2^40 cells)");
}

TEST_F(Survival, TheMemoryEstimateBoundsTheMeasuredPeak) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP()
      << "AddressSanitizer's shadow memory, redzones and quarantine are in the measured peak "
         "(600 MB against 572 MB estimated here); the plain build measures the estimate";
#endif
  // 2.1M cells: large enough that the per-cell terms dominate the libraries.
  const std::string toml =
      replace(kCase, "h = 0.9\ndomain = [8.0, 8.0, 8.0]", "h = 0.5\nstructures = [56, 56, 56]");
  ASSERT_EQ(run(toml, "--backend reference").exit_code, 0);
  struct rusage usage {};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  const double peak = static_cast<double>(usage.ru_maxrss) * 1024.0; // the largest child's
  const MemoryNeed need = memory_need({56 * 56 * 56 * 12, find_scheme("leapfrog").peak_vectors, 2,
                                       false, false, MemorySpace::host});
  EXPECT_LE(peak, static_cast<double>(need.host));
  EXPECT_LE(static_cast<double>(need.host), 2.5 * peak) << "the estimate is needlessly cautious";
}

TEST_F(Survival, OutputTargetsThatMustNotBeWrittenAreRefused) {
  ASSERT_EQ(run(kCase).exit_code, 0);
  expect_one_line_error(run(kCase), "exists (--force replaces it)");
  EXPECT_EQ(run(kCase, "--force").exit_code, 0);
  const fs::path case_file = write_case(kCase);
  expect_one_line_error(
      verify::run_decgpe("run " + case_file.string() + " --force --out " + case_file.string()),
      "it is the input");
  expect_one_line_error(
      verify::run_decgpe("run " + case_file.string() + " --force --out /dev/null"),
      "not a regular file");
  expect_one_line_error(verify::run_decgpe("run " + case_file.string() + " --out " + dir_.string()),
                        "is a directory");
  // An empty name would fall back to out/<case>.h5; a name too long for the temporary beside it
  // was "named for two outputs".
  expect_one_line_error(verify::run_decgpe("run " + case_file.string() + " --out ''"),
                        "--out: must name a file, got ''");
  expect_one_line_error(verify::run_decgpe("run " + case_file.string() + " --checkpoint ''"),
                        "--checkpoint: must name a file");
  const fs::path long_name = dir_ / (std::string(250, 'a') + ".h5");
  expect_one_line_error(
      verify::run_decgpe("run " + case_file.string() + " --out " + long_name.string()),
      "its file name is 253 characters, too long for the temporary and lock beside it");
}

TEST_F(Survival, TwoRunsCannotWriteTheSameFile) {
  const std::string args =
      write_case(kLongCase).string() + " --quiet --backend reference --out " + out().string();
  const CommandResult second = verify::run_command(
      "{ " + std::string(DECGPE_EXECUTABLE) + " run " + args +
      " >/dev/null 2>&1 & pid=$!; sleep 0.5; " + DECGPE_EXECUTABLE + " run " + args +
      "; rc=$?; kill -KILL $pid; { wait $pid; } 2>/dev/null; exit $rc; }");
  expect_one_line_error(second, "another run is writing it");
}

TEST_F(Survival, CaseFilesAreReadWithABound) {
  const fs::path fifo = dir_ / "fifo.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_one_line_error(
      verify::run_command("timeout 20 " + std::string(DECGPE_EXECUTABLE) + " run " + fifo.string()),
      "not a regular file");
  expect_one_line_error(verify::run_decgpe("run /dev/zero"), "not a regular file");
  expect_rejected(run(kCase + "#" + std::string(2 << 20, 'x') + "\n"), "larger than 1024 KiB");
  // Over HDF5's 64-KiB attribute limit, the text is stored whole as a dataset.
  const std::string commented = kCase + "#" + std::string(100 << 10, 'x') + "\n";
  ASSERT_EQ(run(commented).exit_code, 0);
  EXPECT_EQ(io::InputFile(out()).text("/case_toml"), commented);
}

TEST_F(Survival, CommandLineErrorsAreOneLineExitOneNamingTheWord) {
  for (const auto& [arguments, word] : std::vector<std::pair<std::string, std::string>>{
           {"frobnicate", "frobnicate"},
           {"frobnicate", "lattice, isotropy, case-keys, run"},
           {"run", "case"},
           {"run x.toml --bogus", "--bogus"},
           {"run x.toml --max-hours -1", "max-hours"},
           {"run x.toml --max-hours nan", "max-hours"},
           {"run x.toml --max-hours inf", "max-hours"},
           {"run x.toml --max-hours 0", "max-hours"},
           {"run x.toml --scheme ''", "--scheme: must name"},
           {"lattice bcc --unknown", "--unknown"}}) {
    const CommandResult r = verify::run_decgpe(arguments);
    EXPECT_EQ(r.exit_code, 1) << arguments;
    expect_one_line_error(r, word);
    EXPECT_LT(r.output.size(), 200u) << r.output; // no 300-digit ranges
  }
  const CommandResult echoed = verify::run_decgpe("run " + write_case(kCase).string() +
                                                  " --backend " + std::string(10000, 'q'));
  expect_one_line_error(echoed, "unknown backend");
  EXPECT_LT(echoed.output.size(), 1000u);
}

TEST_F(Survival, ARefusedRunLeavesNoFolderItMadeAndAFinishedOneKeepsIt) {
  const fs::path nested = dir_ / "new" / "deeper" / "result.h5";
  const std::string too_long = replace(kCase, "dt_fraction = 0.5", "dt = 5.0");
  const CommandResult refused = verify::run_decgpe("run " + write_case(too_long).string() +
                                                   " --quiet --out " + nested.string());
  expect_one_line_error(refused, "stability limit");
  EXPECT_FALSE(fs::exists(dir_ / "new")) << "a refused run left the folders it made";
  const CommandResult finished =
      verify::run_decgpe("run " + write_case(replace(kCase, "steps = 300", "steps = 10")).string() +
                         " --quiet --out " + nested.string());
  ASSERT_EQ(finished.exit_code, 0) << finished.output;
  EXPECT_TRUE(fs::exists(nested));
}

TEST_F(Survival, ThePhysicsHasNoDefaults) {
  expect_rejected(run(replace(kCase, "g = 10.0\n", "")), "missing key 'g'");
  expect_rejected(run(replace(kCase, "kappa = 1\n", "")), "missing key 'initial.kappa'");
  expect_rejected(run(replace(kCase, "[initial]\nkappa = 1\n", "")), "missing key 'initial'");
}

} // namespace
} // namespace decgpe
