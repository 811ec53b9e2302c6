// The section `knobsim upgrade` adds to each rehearsal's variant of a results document
// (knobsim.results/v1, additive): an `upgrade` object, what the rolling reset did node by node.
// docs/results.md documents every field. (The variant's `timeline` is the results document's
// own: sim/io/timeline_json.h.)
//
// Same rules as sim/io/results_json.h: keys in a fixed order, shortest round-trip doubles, null
// for a number that is not finite and for a time that never came (a node never drained, an
// upgrade that did not finish). Times are in seconds from the start of the run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/upgrade/rolling_upgrade.h"
#include "sim/upgrade/upgrade_run.h"

namespace knobsim {

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
