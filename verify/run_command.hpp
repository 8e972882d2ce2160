#pragma once
// Runs the decgpe executable (path fixed at configure time) through the shell, as a user would.

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <sys/wait.h>

namespace decgpe::verify {

struct CommandResult {
  int exit_code;
  std::string output; ///< stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    throw std::runtime_error("popen failed: " + command);
  }
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
    output += buffer.data();
  }
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

inline CommandResult run_decgpe(const std::string& arguments) {
  return run_command(std::string(DECGPE_EXECUTABLE) + " " + arguments);
}

} // namespace decgpe::verify
