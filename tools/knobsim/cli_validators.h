// Option checks shared by the knobsim subcommands.
#pragma once

#include <CLI/CLI.hpp>

namespace knobsim::cli {

// An unsigned 64-bit integer written in digits only: CLI11's own conversion would wrap "-3"
// and saturate values that overflow.
CLI::Validator Uint64Digits();

}  // namespace knobsim::cli
