#include "tools/knobsim/shell_quote.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace knobsim::cli {

std::string ShellQuote(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("-_./,:=+@%").find(c) != std::string_view::npos;
  });
  if (plain) return s;
  std::string quoted = "'";
  for (char c : s) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace knobsim::cli
