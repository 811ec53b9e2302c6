// The report page of a run set (`knobsim run` and `knobsim whatif`, schema knobsim.results/v1,
// docs/results.md): a verdict per variant against the base, the variants side by side (per
// workload p99, mean, errors by cause, SLO; cluster Pending and fake-Ready pods), p99 per
// variant, card utilization per variant, and what the document says about its assumptions.
#pragma once

#include <string>

#include "sim/report/html_parts.h"

namespace knobsim::report {

// The <body> content for `doc`, whose schema is knobsim.results/v1 and whose "variants" is an
// array (RenderReport checks both). Missing or null fields leave gaps, never an error.
std::string ResultsPageBody(const Json& doc);

}  // namespace knobsim::report
