// How the commands write the command line that reproduces their output (plan, upgrade).
#pragma once

#include <string>

namespace knobsim::cli {

// `s` as one POSIX shell word: as it is when it holds only characters no shell treats
// specially, else in single quotes (a quote inside written '\'').
std::string ShellQuote(const std::string& s);

}  // namespace knobsim::cli
