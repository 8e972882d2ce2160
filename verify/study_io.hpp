#pragma once
// What the studies (decgpe_study in verify/CMakeLists.txt) share: their command line, OUT_DIR and
// mean cell spacings, and the provenance.json they write beside their CSV files (the commit they
// were built from, the machine, the date and the command, for reports/common.py).

#include "build_info/build_info.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace decgpe::verify {

struct StudyArgs {
  std::filesystem::path out;    ///< created
  std::vector<double> spacings; ///< the mean cell spacings
};

/// `study OUT_DIR [SPACING ...]`, the spacings `defaults` when none are given; nullopt (usage
/// printed) without OUT_DIR.
inline std::optional<StudyArgs> study_args(int argc, char** argv,
                                           const std::vector<double>& defaults) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [SPACING ...]\n", argv[0]);
    return std::nullopt;
  }
  StudyArgs args{argv[1], {}};
  for (int k = 2; k < argc; ++k) {
    args.spacings.push_back(std::stod(argv[k]));
  }
  if (args.spacings.empty()) {
    args.spacings = defaults;
  }
  std::filesystem::create_directories(args.out);
  return args;
}

/// A CSV row as it is written: to the file at once (a long study keeps what it has done) and to
/// the console.
inline void write_row(std::ostream& csv, const char* line) {
  csv << line << std::flush;
  std::fputs(line, stdout);
  std::fflush(stdout);
}

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
