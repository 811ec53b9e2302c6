// The results document: a run set as versioned JSON (schema "knobsim.results/v1").
//
// docs/results.md documents every field. The core fields are a contract with other tools (CI
// gates, notebooks, reports): additive changes keep v1, anything that renames, removes or changes
// the meaning of a field bumps the schema to v2. Output is deterministic: the same run set gives
// the same bytes (keys in a fixed order, nlohmann's shortest round-trip doubles), and a number
// that is not finite is written as null, never as invalid JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "sim/input_error.h"
#include "sim/output_file.h"  // WriteFileAtomically, for every writer of these documents
#include "sim/run_set.h"

namespace knobsim {

inline constexpr std::string_view kResultsSchema = "knobsim.results/v1";

// The whole document, fields as sim/io/result_fields.h lists them. With replications > 1 every
// number is the mean over replications, counts become doubles, and each workload and card
// carries a "ci95" object of half-widths. Features add their sections to each variant after
// this (sim/whatif/verdict_json.h: `verdict`; sim/upgrade/upgrade_json.h: `upgrade`).
nlohmann::ordered_json ResultsToJson(const RunSetResult& results, std::string_view knobsim_version);

// A results document as text: two-space indentation and a final newline; strings from input
// files that hold invalid UTF-8 are replaced rather than thrown on mid-write.
std::string ResultsJsonText(const nlohmann::ordered_json& document);

}  // namespace knobsim
