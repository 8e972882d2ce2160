#pragma once
// Messages echo what the user gave (case values, flags); they stay one line and of sane length
// whatever was given: control characters are escaped and an echo is cut at kMaxEcho characters.

#include <cstdio>
#include <string>
#include <string_view>

namespace decgpe::setup {

/// The longest piece of user input a message repeats.
inline constexpr std::size_t kMaxEcho = 200;

/// `text` with newlines, tabs and other control characters escaped, cut after `max` characters
/// with a note of how long it was.
inline std::string one_line(std::string_view text, std::size_t max = 4 * kMaxEcho) {
  std::string out;
  out.reserve(std::min(text.size(), max) + 32);
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (out.size() >= max) {
      out += "... (" + std::to_string(text.size()) + " characters)";
      break;
    }
    const char ch = text[k];
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(byte));
      out += escaped;
    } else {
      out += ch;
    }
  }
  return out;
}

/// A piece of user input as a message repeats it.
inline std::string echo(std::string_view input) {
  return one_line(input, kMaxEcho);
}

} // namespace decgpe::setup
