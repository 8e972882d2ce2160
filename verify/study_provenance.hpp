#pragma once
// The provenance.json a study (decgpe_study in verify/CMakeLists.txt) writes beside its CSV files:
// the commit it was built from, the machine, the date and the command, for reports/common.py.

#include "build_info/build_info.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace decgpe::verify {

inline std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

/// OUT_DIR/provenance.json of the study `argv[0]` run as `argv`; `what` says what its files hold
/// (plain text: no quotes or backslashes).
inline void write_study_provenance(const std::filesystem::path& out, int argc, char** argv,
                                   std::string_view what) {
  std::string command = "build/cpu/verify/" + std::filesystem::path(argv[0]).filename().string();
  for (int k = 1; k < argc; ++k) {
    command += std::string(" ") + argv[k];
  }
  std::ofstream(out / "provenance.json")
      << "{\n  \"device\": \"cpu-2core-vm (CPU, openmp backend, 2 shared cores)\",\n  "
         "\"git_commit\": \""
      << git_commit() << "\",\n  \"date\": \"" << utc_now() << "\",\n  \"command\": \"" << command
      << "\",\n  \"what\": \"" << what << "\"\n}\n";
}

} // namespace decgpe::verify
