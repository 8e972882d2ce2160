#pragma once
// A run cut into parts by the wall-clock limit and resumed from its checkpoint each time, and the
// comparison with the same run uninterrupted: what every checkpoint/restart test asks.

#include "hdf5/hdf5_file.hpp"
#include "verify/bitwise.hpp"
#include "verify/run_fixture.hpp"

#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace decgpe::verify {

class RestartFixture : public RunFixture {
protected:
  mutable std::error_code ec_;
  fs::path checkpoint() const { return dir_ / "out" / "result.checkpoint.h5"; }

  /// Runs `toml` with `flags` in parts, part k under the launcher prefix `launchers[k]` (e.g. an
  /// mpiexec command line; empty: directly). Every part but the last is given a wall-clock limit
  /// already passed, so it stops at its first step boundary (the diagnostics cadence, 10 steps)
  /// with a checkpoint and incomplete results, exit 0; the last part runs to the end.
  void run_in_parts(const std::string& toml, const std::string& flags,
                    const std::vector<std::string>& launchers) const {
    const fs::path case_file = write_case(toml);
    for (std::size_t part = 0; part < launchers.size(); ++part) {
      const bool last = part + 1 == launchers.size();
      std::string arguments =
          " run " + case_file.string() + " --quiet --out " + out().string() + " " + flags;
      arguments += part > 0 ? " --force --restart " + checkpoint().string() : "";
      arguments += last ? "" : " --max-hours 1e-9";
      const CommandResult r = run_command(launchers[part] + DECGPE_EXECUTABLE + arguments);
      ASSERT_EQ(r.exit_code, 0) << r.output;
      if (!last) {
        const std::string stop = "stopped by max-hours at step " + std::to_string(10 * (part + 1));
        EXPECT_NE(r.output.find(stop), std::string::npos) << r.output;
        EXPECT_EQ(io::InputFile(out()).integer_attribute("complete"), 0);
        EXPECT_EQ(io::InputFile(checkpoint()).integer_attribute("step"), 10 * (part + 1));
      }
    }
    EXPECT_FALSE(fs::exists(checkpoint())) << "a complete run removes its checkpoint";
    const fs::path parts = out().string() + ".parts";
    for (const fs::directory_entry& file : fs::directory_iterator(out().parent_path())) {
      EXPECT_TRUE(file.path() == out() || file.path() == sidecar() ||
                  file.path() == lines_sidecar() || file.path() == parts)
          << "only the results, their sidecars and their parts are left, found " << file.path();
    }
    std::set<std::string> tags; // one write's parts (the last part's ranks), none superseded
    for (const fs::directory_entry& file : fs::directory_iterator(parts, ec_)) {
      tags.insert(file.path().filename().string().substr(0, 16));
    }
    EXPECT_LE(tags.size(), 1U);
  }

  /// /vortex_lines of `b` is bitwise that of `a`: every sample, the series and the events (the
  /// lines are no sums, so the same on any rank count).
  static void expect_same_vortex_lines(const io::InputFile& fa, const io::InputFile& fb) {
    EXPECT_EQ(fa.members("/vortex_lines"), fb.members("/vortex_lines"));
    for (const std::string& group : fa.members("/vortex_lines")) {
      const std::string path = "/vortex_lines/" + group + "/";
      for (const std::string& name : fa.members("/vortex_lines/" + group)) {
        if (name == "points") {
          EXPECT_EQ(fa.matrix(path + name), fb.matrix(path + name)) << path + name;
        } else if (name == "t" || name == "total_length") {
          EXPECT_EQ(fa.doubles(path + name), fb.doubles(path + name)) << path + name;
        } else {
          EXPECT_EQ(fa.integers(path + name), fb.integers(path + name)) << path + name;
        }
      }
    }
  }

  /// The levels and snapshots of `b` are bitwise those of `a`, and so is the diagnostics series
  /// when `series_too` (reductions over a different number of ranks sum in another order).
  static void expect_same_run(const fs::path& a, const fs::path& b, bool series_too = true) {
    const io::InputFile fa(a), fb(b);
    EXPECT_FALSE(fa.members("/state").empty());
    for (const std::string& level : fa.members("/state")) {
      EXPECT_TRUE(bitwise_equal(fa.complexes("/state/" + level), fb.complexes("/state/" + level)))
          << level;
    }
    EXPECT_EQ(fa.members("/snapshots"), fb.members("/snapshots"));
    for (const std::string& snapshot : fa.members("/snapshots")) {
      EXPECT_TRUE(bitwise_equal(fa.complexes("/snapshots/" + snapshot),
                                fb.complexes("/snapshots/" + snapshot)))
          << snapshot;
    }
    EXPECT_EQ(fa.doubles("/diagnostics/t"), fb.doubles("/diagnostics/t"));
    EXPECT_EQ(fa.doubles("/diagnostics/dt"), fb.doubles("/diagnostics/dt"));
    EXPECT_EQ(fa.has("/analysis/history"), fb.has("/analysis/history"));
    if (fa.has("/analysis/history")) { // the host probes: gathered ψ, the same on any rank count
      EXPECT_EQ(fa.doubles("/analysis/history/t"), fb.doubles("/analysis/history/t"));
      EXPECT_EQ(fa.matrix("/analysis/history/azimuthal_amplitude"),
                fb.matrix("/analysis/history/azimuthal_amplitude"));
      EXPECT_TRUE(bitwise_equal(fa.complexes("/analysis/history/cell_overlap"),
                                fb.complexes("/analysis/history/cell_overlap")));
    }
    expect_same_vortex_lines(fa, fb);
    if (series_too) {
      for (const char* series : {"norm", "energy", "kinetic", "trap", "interaction", "invariant",
                                 "max_abs", "max_diagonal"}) {
        EXPECT_EQ(fa.doubles(std::string("/diagnostics/") + series),
                  fb.doubles(std::string("/diagnostics/") + series))
            << series;
      }
      EXPECT_TRUE(bitwise_equal(fa.complexes("/diagnostics/overlap"),
                                fb.complexes("/diagnostics/overlap")));
    }
    EXPECT_EQ(fb.integer_attribute("complete"), 1);
  }
};

} // namespace decgpe::verify
