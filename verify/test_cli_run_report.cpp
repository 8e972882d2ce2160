// What `decgpe run` tells its user: a CUDA backend that cannot run, the backends --help offers, the
// progress line's E = 1 − |⟨ψ₀|ψ⟩|, and the check against the exact evolution that ends a summary.

#include "hdf5/hdf5_file.hpp"
#include "solvers/backend_registry.hpp"
#include "verify/run_fixture.hpp"

#include <algorithm>
#include <cmath>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sstream>

namespace decgpe {
namespace {

namespace fs = std::filesystem;
using verify::CommandResult;
using verify::replace;

/// The g = 0 oscillator eigenstate in its own trap: its exact evolution is ψ₀e^{−iμt}.
const std::string kExact = R"(lattice = "bcc"
h = 0.9
domain = [8.0, 8.0, 8.0]
g = 0.0
[time]
dt_fraction = 0.8
steps = 40
diagnostics_every = 10
[initial]
kappa = 1
)";

class RunReport : public verify::RunFixture {
protected:
  /// `decgpe run` without --quiet, as a user sees it.
  CommandResult run_loud(const std::string& toml, const std::string& extra = "") const {
    return verify::run_decgpe("run " + write_case(toml).string() + " --out " + out().string() +
                              " " + extra);
  }
};

class RunCommandBackend : public RunReport {};
class RunCommandReport : public RunReport {};

/// The line of `output` that starts with `prefix` ("" when none does).
std::string line_starting(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(prefix)) {
      return line;
    }
  }
  return "";
}

/// The number after `label` in `line` (NaN when `label` is not there).
double number_after(const std::string& line, const std::string& label) {
  const std::size_t at = line.find(label);
  return at == std::string::npos ? std::nan("") : std::stod(line.substr(at + label.size()));
}

TEST_F(RunCommandBackend, CudaWithoutAGpuIsOneLineNamingTheCudaError) {
  std::string why;
  try {
    why = backend_unavailable("cuda");
  } catch (const std::invalid_argument&) {
    GTEST_SKIP() << "this build has no CUDA backend (configure with the cuda preset)";
  }
  const CommandResult r = run_loud(kExact, "--backend cuda");
  if (why.empty()) { // a GPU machine: the GPU path
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(", backend cuda ("), std::string::npos) << r.output;
    return;
  }
  expect_rejected(r, "decgpe: error: backend 'cuda': " + why);
  EXPECT_NE(why.find("(cudaError"), std::string::npos) << why; // names the CUDA error
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) { // no driver at all: say so, and do not blame its version
    EXPECT_NE(r.output.find("no NVIDIA driver found"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("insufficient"), std::string::npos) << r.output;
  } else {
    dlclose(driver);
  }
}

TEST_F(RunCommandBackend, AutoFallsBackQuietly) {
  const CommandResult r = run_loud(kExact, "--backend auto");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const bool gpu = [] {
    try {
      return backend_unavailable("cuda").empty();
    } catch (const std::invalid_argument&) {
      return false;
    }
  }();
  EXPECT_NE(r.output.find(gpu ? ", backend cuda (" : ", backend openmp ("), std::string::npos)
      << r.output;
  for (const char* word : {"decgpe: error", "driver", "CUDA", "cuda"}) {
    EXPECT_TRUE(gpu || r.output.find(word) == std::string::npos) << word << " in\n" << r.output;
  }
}

TEST_F(RunCommandBackend, HelpListsEveryNameTheRegistryAccepts) {
  const CommandResult r = verify::run_decgpe("run --help");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string help = line_starting(r.output, "  --backend");
  EXPECT_NE(help.find("auto: "), std::string::npos) << help;
  for (const BackendEntry& e : backend_registry()) { // cuda:plain included
    EXPECT_NE(help.find(" " + std::string(e.name) + ": "), std::string::npos) << e.name << help;
  }
  EXPECT_NE(r.output.find("3 the summary's check"), std::string::npos) << "exit 3 documented";
}

TEST_F(RunCommandReport, ProgressLineCarriesTheErrorE) {
  // The line appears once a run has stepped for 3 s: more steps, by the last run's pace, until it
  // does.
  const std::string toml = replace(replace(kExact, "h = 0.9", "h = 0.5"), "g = 0.0", "g = 10.0");
  CommandResult r{};
  std::string progress;
  for (long steps = 1000; progress.empty() && steps < 100'000'000;) {
    r = run_loud(toml, "--backend reference --force --set time.steps=" + std::to_string(steps));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    progress = line_starting(r.output, "step " + std::to_string(steps) + "  t = ");
    const double seconds = number_after(line_starting(r.output, "results: "), "  (");
    steps = static_cast<long>(static_cast<double>(steps) * std::clamp(4.5 / seconds, 2.0, 1e3));
  }
  ASSERT_FALSE(progress.empty()) << r.output;
  // The finished line shows the last sample: the summary's norm and overlap.
  const std::string summary = line_starting(r.output, "t = ");
  const double overlap = number_after(summary, "|<psi0|psi>| = ");
  EXPECT_NEAR(number_after(progress, "  E "), 1.0 - overlap, 1e-3 * (1.0 - overlap)) << progress;
  EXPECT_NEAR(number_after(progress, "  norm "), number_after(summary, ": norm "), 1e-8)
      << progress;
}

/// The check line's error and bound, with the error recomputed from the results file.
struct CheckLine {
  double error, bound, recomputed;
};

CheckLine read_check(const std::string& line, const fs::path& results) {
  const io::InputFile f(results);
  const std::vector<double> t = f.doubles("/diagnostics/t"), n = f.doubles("/diagnostics/norm");
  const Complex ov = f.complexes("/diagnostics/overlap").back();
  const double mu = f.number_attribute("mu"), phase = mu * t.back();
  // ‖ψ − ψ₀e^{−iμt}‖ with ⟨ψ₀|ψ⟩ = ov.
  const double re = std::cos(phase) * ov.re - std::sin(phase) * ov.im;
  const double d = f.number_attribute("dual_edge_mean");
  const double bound = 0.1 * mu * mu * d * d * (1.0 + t.back());
  EXPECT_NEAR(number_after(line, "(1 + t) = "), bound, 1e-3 * bound) << line; // 4 digits printed
  return {number_after(line, "| = "), number_after(line, "(1 + t) = "),
          std::sqrt(n.back() + n.front() - 2.0 * re)};
}

TEST_F(RunCommandReport, AnExactCaseEndsWithCheckPass) {
  const CommandResult r = run_loud(kExact, "--backend openmp");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string line = line_starting(r.output, "check: ");
  ASSERT_TRUE(line.starts_with("check: PASS (")) << r.output;
  EXPECT_TRUE(r.output.ends_with(line + "\n")) << "the summary's last line\n" << r.output;
  const CheckLine c = read_check(line, out());
  EXPECT_NEAR(c.error, c.recomputed, 1e-3 * c.recomputed) << line;
  EXPECT_LT(c.error, 0.5 * c.bound) << line; // with margin
}

TEST_F(RunCommandReport, AStepFarTooLongForTheGridFailsTheCheckWithExit3) {
  // Trotter–Suzuki is stable at any step; at 7 leapfrog limits (beyond its limit for dynamics,
  // asked for) its time error dwarfs the grid's.
  const std::string toml = replace(kExact, "dt_fraction = 0.8",
                                   "scheme = \"trotter_suzuki\"\ndt = 0.1\nbeyond_limit = true");
  const CommandResult r = run_loud(replace(toml, "steps = 40", "steps = 10"), "--backend openmp");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  const std::string line = line_starting(r.output, "check: ");
  ASSERT_TRUE(line.starts_with("check: FAIL (")) << r.output;
  ASSERT_TRUE(fs::exists(out())) << "the results stay";
  EXPECT_EQ(io::InputFile(out()).integer_attribute("complete"), 1);
  const CheckLine c = read_check(line, out());
  EXPECT_NEAR(c.error, c.recomputed, 1e-3 * c.recomputed) << line;
  EXPECT_GT(c.error, 2.0 * c.bound) << line;
}

TEST_F(RunCommandReport, ACheckThatCannotFailSaysSoInsteadOfPassing) {
  // κ = 30: μ ≈ 31.5, and on this grid the bound (≈ 25) exceeds the farthest ψ can be (2).
  const CommandResult r = run_loud(replace(kExact, "kappa = 1", "kappa = 30"), "--backend openmp");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string line = line_starting(r.output, "check: ");
  ASSERT_TRUE(line.starts_with("check: none (")) << r.output;
  EXPECT_NE(line.find("too large for this grid"), std::string::npos) << line;
  EXPECT_GT(number_after(line, "(1 + t) = "), 2.0) << line;
}

TEST_F(RunCommandReport, NoCheckWithoutAnExactEvolution) {
  const CommandResult r = run_loud(replace(kExact, "g = 0.0", "g = 10.0"), "--backend openmp");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("check:"), std::string::npos) << r.output;
}

} // namespace
} // namespace decgpe
