// The report page of a capacity plan (`knobsim plan`, schema knobsim.plan/v1, docs/plan.md):
// the recommendation per traffic level in words, the cost-versus-p99 frontier of each level,
// p99 against traffic per option family, the card utilization at each recommended size, every
// option in a table, the assumptions and the command that reproduces the plan.
#pragma once

#include <string>

#include "sim/report/html_parts.h"

namespace knobsim::report {

// The <body> content for `doc`, whose schema is knobsim.plan/v1 and whose "options" is an array
// (RenderReport checks both). Missing or null fields leave gaps, never an error.
std::string PlanPageBody(const Json& doc);

}  // namespace knobsim::report
