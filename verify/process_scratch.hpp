#pragma once
// A scratch folder private to the test process: two test runs in one build tree run the same
// test at once, and a folder of fixed name would be shared (and removed) by both.

#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <system_error>
#include <unistd.h>

namespace decgpe::verify {

/// <the test temp folder>/<name>_<process id>, made on the first call and removed with everything
/// in it when the process ends; `name` is the first call's.
inline const std::filesystem::path& process_scratch(const std::string& name) {
  struct Scratch {
    std::filesystem::path path;
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Scratch scratch{std::filesystem::path(testing::TempDir()) /
                               (name + "_" + std::to_string(getpid()))};
  return scratch.path;
}

} // namespace decgpe::verify
