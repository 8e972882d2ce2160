#pragma once
// A scratch folder per test and `decgpe run` on a case written into it, as a user runs it.

#include "hdf5/hdf5_file.hpp"
#include "verify/run_command.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace decgpe::verify {

namespace fs = std::filesystem;

class RunFixture : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo& test = *::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("decgpe_") + test.test_suite_name() + "_" + test.name();
    std::ranges::replace(name, '/', '_');
    // The process's id too: two test runs in one tree run the same test at once.
    dir_ = fs::temp_directory_path() / (name + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write_case(const std::string& toml, const std::string& name = "case.toml") const {
    const fs::path p = dir_ / name;
    std::ofstream(p) << toml;
    return p;
  }
  fs::path out() const { return dir_ / "out" / "result.h5"; }
  /// The results file's XDMF sidecar (io/visualisation.hpp).
  fs::path sidecar() const { return dir_ / "out" / "result.xmf"; }
  /// The sidecar of its vortex lines, when it has some (io/visualisation.hpp).
  fs::path lines_sidecar() const { return dir_ / "out" / "result.lines.xmf"; }
  /// What a user does to throw a run's results away: the file and its sidecar.
  void remove_results() const {
    fs::remove(out());
    fs::remove(sidecar());
  }
  CommandResult run(const std::string& toml, const std::string& extra = "") const {
    return run_decgpe("run " + write_case(toml).string() + " --quiet --out " + out().string() +
                      " " + extra);
  }
  /// Expects one line containing `needle` and a non-zero exit.
  static void expect_one_line_error(const CommandResult& r, const std::string& needle) {
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(needle), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
  /// Expects one line containing `needle`, exit 1, and nothing left in the output folder.
  void expect_rejected(const CommandResult& r, const std::string& needle) const {
    expect_one_line_error(r, needle);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(fs::exists(out()));
    if (fs::exists(out().parent_path())) {
      EXPECT_TRUE(fs::is_empty(out().parent_path())) << "a temporary file was left behind";
    }
  }

  fs::path dir_;
};

inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}

} // namespace decgpe::verify
