// The plan document: a capacity plan as versioned JSON (schema "knobsim.plan/v1", every field in
// docs/plan.md), the recommendation and frontier computed from its options, and the merge of the
// documents of `knobsim plan --shard i/N` back into the one an unsharded run writes.
//
// The recommendations and the frontier have one home, AddPlanSummary, which reads only the
// document's options: the unsharded run and `knobsim merge` both call it, so a merged document is
// byte-identical to an unsharded one. Conventions are docs/results.md's: keys in a fixed order,
// shortest round-trip doubles, null for an unknown or non-finite number.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/io/json_document.h"
#include "sim/plan/plan.h"

namespace knobsim {

inline constexpr std::string_view kPlanSchema = "knobsim.plan/v1";

// The whole document of `result`, recommendations and frontier included. `command` reproduces
// the plan (the arguments that decide its numbers; output, thread and shard options left out).
// A shard's document (options.shard not whole) carries "shard" and only its own options.
nlohmann::ordered_json PlanToJson(const PlanResult& result, const std::string& command,
                                  std::string_view knobsim_version);

// (Re)computes doc["recommendations"] and doc["frontier"] from doc["options"] and
// doc["traffic_levels"]: per level, the cheapest feasible option (by monthly cost, or by cards
// without prices; ties to the lower worst p99 ratio, then grid order) as a sentence, and the
// Pareto set of cost against worst p99 ratio, cheapest first.
void AddPlanSummary(nlohmann::ordered_json* doc);

// The document as text: two-space indentation and a final newline.
std::string PlanJsonText(const nlohmann::ordered_json& doc);

// Checks a plan document read back (`knobsim report`, `knobsim merge`) by the JSON rule of
// sim/io/json_document.h: the schema, the run's settings, the grid, and every option field the
// summary and the page read, of its type and range (docs/plan.md); a shard's "shard" object.
// Keys it does not know are allowed. MergePlanShards and AddPlanSummary rely on it.
Status CheckPlanDocument(const JsonDocument& doc);

// The documents of shards 0..N-1 of one plan (any order) as the document the unsharded plan
// writes; an error that is only a message when they are not exactly that: different plans or
// commands, different shard counts, a missing or repeated shard, options a shard does not own.
Expected<nlohmann::ordered_json> MergePlanShards(const std::vector<nlohmann::ordered_json>& shards);

}  // namespace knobsim
