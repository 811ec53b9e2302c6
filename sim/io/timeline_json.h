// The sections `knobsim upgrade` adds to a results document (knobsim.results/v1, additive):
// per variant a `timeline` (the run minute by minute, per workload) and an `upgrade` (what the
// rolling reset did, node by node). docs/results.md documents every field.
//
// Same rules as sim/io/results_json.h: keys in a fixed order, shortest round-trip doubles, null
// for a number that is not finite and for "no such value" (a latency where nothing succeeded,
// a time that never came: a node never drained, an upgrade that did not finish). Times are in
// seconds from the start of the run, warm-up included.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/results.h"
#include "sim/upgrade/rolling_upgrade.h"
#include "sim/upgrade/upgrade_run.h"

namespace knobsim {

// {step_s, end_s, workloads[{id, name, namespace, desired, available_fraction, below_desired_s,
// unavailable_s, points[...]}]}. Callers leave the key out when timeline.step is 0.
nlohmann::ordered_json TimelineToJson(const RunTimeline& timeline);

// {started_s, finished_s, options{...}, quota_fixes[...], nodes[...], blocked[...]}.
nlohmann::ordered_json UpgradeToJson(const UpgradeTimeline& upgrade, const UpgradeOptions& options,
                                     const std::vector<QuotaFix>& quota_fixes);

// The option values as a person writes them: "pool" | "zone" | "node-list".
std::string_view UpgradeOrderName(UpgradeOrder order);

// A results document (ResultsToJson of the runs' summaries, variants named as the runs, which
// writes each variant's `timeline`) with each rehearsal's `upgrade` added, and the top-level
// `command` (the command line that wrote it, as `knobsim plan` documents carry it) after
// `scenario`. Variants without a run of the same name are left as they are.
nlohmann::ordered_json AddUpgradeSections(const nlohmann::ordered_json& results_doc,
                                          const std::vector<UpgradeRun>& runs,
                                          const UpgradeOptions& options,
                                          const std::string& command);

}  // namespace knobsim
