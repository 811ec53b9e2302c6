// The report page of a comparison (`knobsim diff --json` or `--report`, schema knobsim.diff/v1,
// docs/diff.md), for a change review: the verdict, the rules that fired and why, the p99 of every
// workload before and after, and every compared number with its change and noise.
#pragma once

#include <string>
#include <string_view>

#include "sim/report/html_parts.h"

namespace knobsim::report {

inline constexpr std::string_view kDiffSchema = "knobsim.diff/v1";

// The <body> content for `doc`, whose schema is knobsim.diff/v1 and whose "rows" is an array
// (RenderReport checks both). Missing or null fields leave gaps, never an error.
std::string DiffPageBody(const Json& doc);

}  // namespace knobsim::report
