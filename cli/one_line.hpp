#pragma once
// The command line's errors as decgpe reports every error: one line naming the bad word.

#include "setup/one_line.hpp"

#include <string>
#include <vector>

namespace decgpe::cli {

using setup::one_line;

/// CLI11's message, completed where it does not name what was given (an unknown subcommand):
/// `commands` are the known ones, as the application lists them.
inline std::string command_line_error(std::string message, int argc, char** argv,
                                      const std::vector<std::string>& commands) {
  if (message.find("subcommand") != std::string::npos && argc > 1 && argv[1][0] != '-') {
    std::string known;
    for (const std::string& c : commands) {
      known += (known.empty() ? "" : ", ") + c;
    }
    message += ": '" + setup::echo(argv[1]) + "' is not one of " + known;
  }
  return message;
}

} // namespace decgpe::cli
