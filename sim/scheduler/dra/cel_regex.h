// Regular expressions for CEL's matches() and Kubernetes' find() / findAll(): RE2 syntax run as
// std::regex. Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>

namespace knobsim::dra::cel_internal {

// CEL's matches() and Kubernetes' find() take RE2 syntax; std::regex is ECMAScript. Run in
// libstdc++'s polynomial mode (a Thompson NFA, like RE2: no catastrophic backtracking, and
// back-references refused as RE2 refuses them). Translated: a leading (?i) / (?m) flag group,
// named groups (?P<name>...), \A and \z. Not matched as RE2 would: `.` and classes see bytes, not
// code points; \pL-style Unicode classes, (?s) and (?U) are refused; find() may pick the longest
// of alternatives ("a|ab" finds "ab") where RE2 picks the first.
//
// The compiled pattern, or nullptr with *error saying why it is refused.
std::shared_ptr<const std::regex> CompileRegex(std::string_view pattern, std::string* error);

}  // namespace knobsim::dra::cel_internal
