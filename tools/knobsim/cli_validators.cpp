#include "tools/knobsim/cli_validators.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace knobsim::cli {

CLI::Validator Uint64Digits() {
  return CLI::Validator(
      [](std::string& text) {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        const bool ok = !text.empty() && text[0] != '-' && ec == std::errc() && ptr == end;
        if (ok) return std::string();
        std::string error = "\"";
        error.append(text).append("\" is not an integer in 0..").append(std::to_string(UINT64_MAX));
        return error;
      },
      "");
}

}  // namespace knobsim::cli
