#include "tools/knobsim/cli_validators.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/event_queue.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::cli {

Status ParseDurationOption(const std::string& option, const std::string& text, int64_t* out) {
  const Parsed<int64_t> d = ParseDuration(text);
  if (!d.ok())
    return Status::Failure(option + ": " + d.error + (d.hint.empty() ? "" : "; " + d.hint));
  *out = *d.value;
  return Status::Ok();
}

Expected<double> ParseWindow(const std::string& option, const std::string& text) {
  const Parsed<int64_t> d = ParseDuration(text);
  if (!d.ok() || *d.value <= 0) {
    return InputError{"", 0, "",
                      option + ": " + (d.ok() ? Quote(text) + " is not positive" : d.error) +
                          (d.hint.empty() ? "" : "; " + d.hint),
                      ""};
  }
  return static_cast<double>(*d.value) / kNanosPerSecond;
}

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

CLI::Validator Finite() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc() && ptr == end && std::isfinite(value)) return std::string();
        return Quote(text) + " is not a finite number";
      },
      "");
}

}  // namespace knobsim::cli
