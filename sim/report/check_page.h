// The report page of a pre-upgrade check (`knobsim check --json` or `--report`, schema
// knobsim.check/v1, docs/check.md), for a change review: the counts by severity, the findings
// per check drawn as bars, then every finding with the objects it names, what it found and what
// enforcing memory isolation would do (simulated or analytic), and the checks that were skipped.
#pragma once

#include <string>
#include <string_view>

#include "sim/report/html_parts.h"

namespace knobsim::report {

inline constexpr std::string_view kCheckSchema = "knobsim.check/v1";

// The <body> content for `doc`, whose schema is knobsim.check/v1 and whose "findings" is an
// array (RenderReport checks both). Missing or null fields leave gaps, never an error.
std::string CheckPageBody(const Json& doc);

}  // namespace knobsim::report
