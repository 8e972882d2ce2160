// A bounded mutation fuzzer over the shipped cases: every mutant either runs (exit 0, a results
// file that opens, nothing else left but a stopped run's checkpoint) or is refused (exit 1, exactly
// one line on stderr, nothing left). No crash, no hang. The seed is fixed, so a failure reproduces;
// the failing mutant is printed.

#include "hdf5/hdf5_file.hpp"
#include "verify/run_command.hpp"

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace decgpe {
namespace {

namespace fs = std::filesystem;

constexpr int kMutants = 320;
constexpr std::uint64_t kSeed = 20261123;

/// The shipped cases without comments (so that mutations hit keys), coarsened so that a mutant's
/// set-up takes a fraction of a second: the mutations, not the sizes, are under test.
std::vector<std::string> reduced_shipped_cases() {
  std::vector<std::string> cases;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(DECGPE_SOURCE_DIR "/cases")) {
    if (e.path().extension() != ".toml") {
      continue;
    }
    std::stringstream text;
    text << std::ifstream(e.path()).rdbuf();
    std::string t = std::regex_replace(text.str(), std::regex(" *#[^\n]*"), "");
    t = std::regex_replace(t, std::regex("\nh = [0-9.]+"), "\nh = 1.0");
    t = std::regex_replace(t, std::regex("structures = \\[[0-9, ]+\\]"), "structures = [6, 6, 8]");
    t = std::regex_replace(t, std::regex("operations_per_time = [0-9.e]+"),
                           "operations_per_time = 3e7");
    cases.push_back(t);
  }
  return cases;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

/// Hostile values a mutation puts in place of a key's value.
const std::vector<std::string> kValues = {
    "0",   "-1",     "1e300",    "-1e300",     "nan",
    "inf", "-inf",   "1e-300",   "\"x\"",      "\"\"",
    "[]",  "[1, 2]", "true",     "2147483648", "9223372036854775807",
    "0.5", "3",      "\"auto\"", "[0, 0, 0]",  "1e-3",
    "{}",  "5e-324", "1e15",     "-0.0"};
/// Lines a mutation inserts.
const std::vector<std::string> kInserted = {"[time]",
                                            "x = 1",
                                            "[output]\ncheckpoint_every = -1",
                                            "lattice = \"hcp\"",
                                            "structures = [1, 1, 1]",
                                            "shift = [0.5, 0.5]",
                                            "[initial]\nkappa = 2",
                                            "[potential]",
                                            "[output]\ncheckpoint_minutes = nan",
                                            "scheme = \"rk4\"",
                                            "start = \"paper\"",
                                            "\"k\\u0000\" = 1"};
/// Factors a mutation scales a number by.
const std::vector<double> kFactors = {0.0, -1.0, 2.0, 0.5, 1e6, 1e-6};

/// A uniform draw from 0 to n − 1.
std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) {
    text += l + "\n";
  }
  return text;
}

/// A random line, preferring one with a key's value (mutations of a value want a line that has
/// one).
std::size_t line_with_value(const std::vector<std::string>& lines, std::mt19937_64& rng) {
  std::size_t at = pick(rng, lines.size());
  for (int tries = 0; tries < 20 && lines[at].find(" = ") == std::string::npos; ++tries) {
    at = pick(rng, lines.size());
  }
  return at;
}

/// The line with its first number scaled by a random factor (unchanged when it has none).
void scale_number(std::string& line, std::mt19937_64& rng) {
  std::smatch number;
  if (std::regex_search(line, number, std::regex("-?[0-9][0-9.e+-]*"))) {
    const double factor = kFactors[pick(rng, kFactors.size())];
    std::ostringstream scaled;
    scaled.precision(17);
    scaled << std::stod(number.str()) * factor;
    line = number.prefix().str() + scaled.str() + number.suffix().str();
  }
}

/// One random mutation of `text`: a line deleted, duplicated or misspelt, a value replaced by a
/// hostile one or scaled, a line inserted, the file truncated, or a byte changed.
std::string mutate(const std::string& text, std::mt19937_64& rng) {
  std::vector<std::string> lines = lines_of(text);
  const std::size_t at = line_with_value(lines, rng);
  std::string& line = lines[at];
  const std::size_t eq = line.find(" = ");
  switch (pick(rng, 10)) {
  case 0:
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
    break;
  case 1:
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), line);
    break;
  case 2:
  case 8:
  case 9:
    if (eq != std::string::npos) {
      line = line.substr(0, eq) + " = " + kValues[pick(rng, kValues.size())];
    }
    break;
  case 3:
    if (eq != std::string::npos) {
      line.insert(eq, "x");
    }
    break;
  case 4:
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at),
                 kInserted[pick(rng, kInserted.size())]);
    break;
  case 5:
    scale_number(line, rng);
    break;
  case 6: { // truncated
    const std::string whole = joined(lines);
    return whole.substr(0, pick(rng, whole.size()));
  }
  default: {
    std::string whole = joined(lines);
    whole[pick(rng, whole.size())] = static_cast<char>(pick(rng, 256));
    return whole;
  }
  }
  return joined(lines);
}

/// A stop signal sent `delay` seconds after the run has claimed its outputs (its handlers are in
/// place from its start), wherever the run then is: mostly in its set-up.
struct Signal {
  const char* name; ///< as kill takes it: "INT", "TERM"
  int number;
  double delay;
};

/// The run of the case file in `dir` with the command-line `flags`, and `signal` if any.
verify::CommandResult run_mutant(const fs::path& dir, const fs::path& case_file,
                                 const fs::path& out, const std::string& flags,
                                 const std::optional<Signal>& signal) {
  // A wall-clock limit already passed stops any run that starts stepping at its first boundary.
  // timeout in the foreground passes a signal on to decgpe alone (else once more to its group).
  // It guards against a hang: a valid mutant's set-up on one thread can take half a minute (C15 at
  // h = 0.5 for κ = 10, 2.7M cells: eq. 14, the spectrum's estimate), some 3 to 6 times that
  // sanitized on a loaded machine, where 120 s once cut one off.
  const std::string run =
      "DECGPE_CACHE=" + (dir.parent_path() / "cache").string() +
      " OMP_NUM_THREADS=1 timeout --foreground 600 " + DECGPE_EXECUTABLE + " run " +
      case_file.string() + " --quiet --backend openmp --max-hours 1e-9" +
      (flags.find("--out ") == std::string::npos ? " --out " + out.string() : "") + " " + flags +
      " >/dev/null";
  return verify::run_command(
      !signal
          ? "{ " + run + "; }"
          : "{ " + run + " & pid=$!; for i in $(seq 12000); do [ -e " + out.string() +
                ".lock ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.01; done; sleep " +
                std::to_string(signal->delay) + "; kill -" + signal->name +
                " $pid 2>/dev/null; wait $pid; }");
}

/// Empty when a run stopped by `signal` kept the contract: one line; nothing left when stopped in
/// the set-up, the results so far and a checkpoint when stopped in the steps.
std::string check_stopped(const verify::CommandResult& r, const Signal& signal, long lines,
                          const std::vector<fs::path>& left, const fs::path& out) {
  const std::string stopped = std::string("decgpe: stopped by SIG") + signal.name;
  if (lines != 1 || !r.output.starts_with(stopped)) {
    return "stopped with " + std::to_string(lines) + " lines: " + r.output.substr(0, 2000);
  }
  if (r.output.find("nothing written") != std::string::npos) {
    return left.empty() ? "" : "a stop in the set-up left " + left.front().string();
  }
  return fs::exists(out) && fs::exists(out.parent_path() / "r.checkpoint.h5")
             ? ""
             : "a stop in the steps without its results and checkpoint: " + r.output;
}

/// Empty when a run that exited 0 left results that open, with diagnostics, and nothing but them,
/// their sidecar and (when incomplete) a checkpoint.
std::string check_results(const fs::path& out, const std::vector<fs::path>& left) {
  try {
    const io::InputFile results(out);
    const bool complete = results.integer_attribute("complete") == 1;
    if (results.doubles("/diagnostics/t").empty()) {
      return "results without diagnostics";
    }
    for (const fs::path& name : left) {
      // The results, their XDMF sidecar, and a stopped run's checkpoint.
      if (name != "r.h5" && name != "r.xmf" && (complete || name != "r.checkpoint.h5")) {
        return "exit 0 left " + name.string();
      }
    }
  } catch (const std::exception& e) {
    return std::string("exit 0 but the results do not open: ") + e.what();
  }
  return "";
}

/// Empty when the mutant's run (with the command-line `flags`, and `signal` if any) kept the
/// contract, else what went wrong.
std::string check_mutant(const fs::path& dir, const std::string& toml,
                         const std::string& flags = "",
                         const std::optional<Signal>& signal = std::nullopt) {
  fs::create_directories(dir);
  const fs::path case_file = dir / "m.toml";
  std::ofstream(case_file, std::ios::binary) << toml;
  const fs::path out_dir = dir / "out";
  const fs::path out = out_dir / "r.h5";
  const verify::CommandResult r = run_mutant(dir, case_file, out, flags, signal);
  std::vector<fs::path> left;
  if (fs::exists(out_dir)) {
    for (const fs::directory_entry& e : fs::directory_iterator(out_dir)) {
      left.push_back(e.path().filename());
    }
  }
  const long lines = std::count(r.output.begin(), r.output.end(), '\n');
  if (signal && r.exit_code == 128 + signal->number) {
    return check_stopped(r, *signal, lines, left, out);
  }
  if (r.exit_code == 1) {
    if (lines != 1 || !r.output.starts_with("decgpe: error: ")) {
      return "exit 1 with " + std::to_string(lines) +
             " lines on stderr: " + r.output.substr(0, 2000);
    }
    return left.empty() ? "" : "exit 1 left " + left.front().string();
  }
  if (r.exit_code != 0) {
    return "exit " + std::to_string(r.exit_code) + ": " + r.output.substr(0, 2000);
  }
  const std::string problem = check_results(out, left);
  if (!problem.empty()) {
    return problem;
  }
  return r.output.empty() ? "" : "exit 0 with stderr: " + r.output.substr(0, 2000);
}

// The classes of command-line input that once slipped through or misled (huge and tiny numbers,
// NaN, empty and overlong names, files that are not files), on the first shipped case: each runs
// or is refused with one line, leaving nothing. Later flags win over the fixture's.
TEST(FuzzCases, HostileFlagsRunOrAreRefusedWithOneLine) {
  const std::string base = reduced_shipped_cases().front();
  const std::vector<std::string> flags = {"--max-hours nan",
                                          "--max-hours 0",
                                          "--max-hours 1e-320",
                                          "--max-hours -inf",
                                          "--checkpoint ''",
                                          "--restart /dev/null",
                                          "--set h=1e300",
                                          "--set h=1e-300",
                                          "--set time.dt=5e-324",
                                          "--set time.steps=9223372036854775807",
                                          "--set g=nan",
                                          "--backend ''",
                                          "--scheme ''",
                                          "--set time.dt_fraction=1e-320",
                                          "--out ''",
                                          "--out " + std::string(300, 'o'),
                                          "--out /dev/null"};
  const fs::path root =
      fs::temp_directory_path() / ("decgpe_fuzz_flags_" + std::to_string(getpid()));
  for (std::size_t k = 0; k < flags.size(); ++k) {
    const std::string problem = check_mutant(root / std::to_string(k), base, flags[k]);
    EXPECT_TRUE(problem.empty()) << flags[k] << ": " << problem;
  }
  fs::remove_all(root);
}

// A tabulated potential of any size: its values set the spectrum, so the step; a table whose step
// makes more steps than a run may take is refused naming the table (also with adaptive steps,
// which once took no count), one that does not runs.
TEST(FuzzCases, TabulatedPotentialsOfAnySizeRunOrAreRefusedWithOneLine) {
  const std::string base = R"(lattice = "bcc"
h = 1.0
structures = [6, 6, 8]
g = 0.0
[potential]
kind = "tabulated"
file = "v.h5"
[time]
scheme = "rk4"
dt_fraction = 0.8
end_time = 2.0
[initial]
kappa = 1
)";
  constexpr std::size_t kCells = 3456; // 6 x 6 x 8 structures of BCC's 12 cells
  const fs::path root =
      fs::temp_directory_path() / ("decgpe_fuzz_tables_" + std::to_string(getpid())); // private
  int k = 0;
  for (const double top : {0.0, 5e-324, 1.0, 1e6, 1e11, 1e13, -1e13, 1e300}) {
    for (const char* flags : {"", "--set time.adaptive=true"}) {
      const fs::path dir = root / std::to_string(k++);
      fs::create_directories(dir);
      std::vector<double> v(kCells, 0.0);
      v[kCells / 2] = top;
      io::ResultsFile table(dir / "v.h5");
      table.write("/V", v, {kCells});
      table.commit();
      const std::string problem = check_mutant(dir, base, flags);
      EXPECT_TRUE(problem.empty()) << "V up to " << top << " " << flags << ": " << problem;
      const bool ran = fs::exists(dir / "out" / "r.h5");
      EXPECT_EQ(ran, std::abs(top) < 1e12) << "V up to " << top << " " << flags;
      if (!ran) { // validate sets up as run does, writing nothing
        const verify::CommandResult why =
            verify::run_decgpe("validate " + (dir / "m.toml").string() + " " + flags);
        EXPECT_NE(why.output.find("steps: more than the 1e12 a run may take; the tabulated "
                                  "potential's |V| up to"),
                  std::string::npos)
            << why.output;
      }
    }
  }
  fs::remove_all(root);
}

// A stop signal at any moment of the first second of a run (mostly its set-up, the shipped cases
// reduced: the eq. 14 solve, sampling, the spectrum) stops it with one line, leaving nothing or the
// results so far and a checkpoint.
TEST(FuzzCases, StopSignalsDuringTheSetUpStopWithOneLine) {
  const std::vector<std::string> bases = reduced_shipped_cases();
  const fs::path root =
      fs::temp_directory_path() / ("decgpe_fuzz_signals_" + std::to_string(getpid())); // private
  std::mt19937_64 rng(kSeed);
  int in_set_up = 0;
  for (std::size_t k = 0; k < bases.size(); ++k) {
    const double delay = std::uniform_real_distribution<double>(0.0, 0.3)(rng);
    const Signal signal =
        k % 2 == 0 ? Signal{"INT", SIGINT, delay} : Signal{"TERM", SIGTERM, delay};
    const std::string problem = check_mutant(root / std::to_string(k), bases[k], "", signal);
    EXPECT_TRUE(problem.empty()) << "SIG" << signal.name << " after " << delay << " s, case " << k
                                 << ": " << problem << "\n--- case ---\n"
                                 << bases[k];
    in_set_up += fs::exists(root / std::to_string(k) / "out" / "r.h5") ? 0 : 1;
  }
  std::printf("%zu signalled runs: %d stopped in the set-up\n", bases.size(), in_set_up);
  fs::remove_all(root);
}

TEST(FuzzCases, EveryMutantRunsOrIsRefusedWithOneLine) {
  const std::vector<std::string> bases = reduced_shipped_cases();
  ASSERT_GE(bases.size(), 8u);
  std::mt19937_64 rng(kSeed);
  std::vector<std::string> mutants;
  for (int k = 0; k < kMutants; ++k) {
    std::string m = bases[static_cast<std::size_t>(k) % bases.size()];
    for (int n = rng() % 4 == 0 ? 2 : 1; n > 0; --n) { // mostly one mutation, some two
      m = mutate(m, rng);
    }
    mutants.push_back(m);
  }
  const fs::path root =
      fs::temp_directory_path() / ("decgpe_fuzz_cases_" + std::to_string(getpid())); // private
  fs::remove_all(root);
  std::atomic<int> next{0}, accepted{0};
  std::mutex report;
  const auto worker = [&] {
    for (int k = next++; k < kMutants; k = next++) {
      const std::string problem =
          check_mutant(root / std::to_string(k), mutants[static_cast<std::size_t>(k)]);
      const std::lock_guard lock(report);
      if (problem.empty()) {
        accepted += fs::exists(root / std::to_string(k) / "out" / "r.h5") ? 1 : 0;
      } else {
        ADD_FAILURE() << "mutant " << k << ": " << problem << "\n--- mutant ---\n"
                      << mutants[static_cast<std::size_t>(k)].substr(0, 3000);
      }
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  // Most mutations break a case (a deleted or doubled key, a misspelling, a hostile value); those
  // that keep it valid must still run, or the fuzzer only tests refusals.
  EXPECT_GE(accepted.load(), 15);
  std::printf("%d mutants: %d ran, %d were refused with one line\n", kMutants, accepted.load(),
              kMutants - accepted.load());
  fs::remove_all(root);
}

} // namespace
} // namespace decgpe
