#pragma once
// What a run is asked to do (the command line's options, parsed), and how a run that does not end
// normally tells its caller.

#include "solvers/scaleout/mpi_session.hpp"

#include <string>
#include <vector>

namespace decgpe::runner {

struct RunRequest {
  std::string case_file;
  std::string backend = "auto";
  std::string scheme;                 ///< overrides the case's time.scheme when set
  std::vector<std::string> overrides; ///< --set KEY=VALUE, in order
  std::string out;
  std::string checkpoint;
  std::string restart;
  double max_hours = 0.0;
  bool force = false;
  bool quiet = false;
  bool no_state = false;
  std::string command_line;
  const scaleout::MpiSession* mpi = nullptr; ///< the process's MPI session (never null)
};

/// A run that stopped cleanly before its end (a signal, the wall-clock limit) after writing its
/// checkpoint and results and saying so: the process exits with `exit_code`.
struct Stopped {
  int exit_code;
};

/// A complete run whose summary ends `check: FAIL`: it missed the exact evolution of its initial
/// state by more than its bound. Its results are written; the process exits with `exit_code`.
struct CheckFailed {
  static constexpr int exit_code = 3;
};

} // namespace decgpe::runner
