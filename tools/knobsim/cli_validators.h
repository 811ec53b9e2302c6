// Option checks shared by the knobsim subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "sim/input_error.h"

namespace knobsim::cli {

// An unsigned 64-bit integer written in digits only: CLI11's own conversion would wrap "-3"
// and saturate values that overflow.
CLI::Validator Uint64Digits();

// A finite number: CLI11's Range, PositiveNumber and NonNegativeNumber compare with < and >, which
// NaN passes (`--switch-overhead nan`) and infinity may; chain it before them on every real option.
CLI::Validator Finite();

// A positive duration option in seconds: `7d`, `1w`, `36h`, `90m` (ParseDuration's grammar).
// The error is only a message naming `option`.
Expected<double> ParseWindow(const std::string& option, const std::string& text);

// `--duration 10m` into *out; a failure (only a message) names the option the way a file error
// names a field: "--duration: ...; hint".
Status ParseDurationOption(const std::string& option, const std::string& text, int64_t* out);

}  // namespace knobsim::cli
