// A CheckReport as text for people (grouped by severity) and as the JSON document of schema
// `knobsim.check/v1` (docs/check.md documents every field). Deterministic: the same report gives
// the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "sim/check/cluster_checks.h"

namespace knobsim {

inline constexpr std::string_view kCheckSchema = "knobsim.check/v1";

// `source` names what was checked (the scenario file, or the export files).
std::string CheckReportText(const CheckReport& report, const std::string& source);
std::string CheckReportJson(const CheckReport& report, const std::string& source,
                            std::string_view knobsim_version);

}  // namespace knobsim
