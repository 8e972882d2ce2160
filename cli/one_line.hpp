#pragma once
// The command line's errors as decgpe reports every error: one line naming the bad word.

#include "setup/one_line.hpp"

#include <string>

namespace decgpe::cli {

using setup::one_line;

/// CLI11's message, completed where it does not name what was given (an unknown subcommand).
inline std::string command_line_error(std::string message, int argc, char** argv) {
  if (message.find("subcommand") != std::string::npos && argc > 1 && argv[1][0] != '-') {
    message += ": '" + setup::echo(argv[1]) + "' is not one of lattice, isotropy, run";
  }
  return message;
}

} // namespace decgpe::cli
