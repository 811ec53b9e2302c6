// RunUpgrade: one rehearsal of `knobsim upgrade` — the scenario simulated with traffic while
// RollingUpgrade (sim/upgrade/rolling_upgrade.h) cordons, drains, resets and brings back its
// nodes — and RunUpgradeComparison, the two orders of docs/design.md §1 item 2 side by side:
// upgrade-first (the quotas as they are) and fix-quotas-first (FixQuotasToPeak, then the same
// upgrade). Both use the same seed, so traffic and service times are paired and a difference
// between them is the order's doing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/input_error.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/upgrade/fix_quotas.h"
#include "sim/upgrade/rolling_upgrade.h"

namespace knobsim {

struct UpgradeRun {
  std::string name;                   // "upgrade-first" | "fix-quotas-first"
  std::vector<QuotaFix> quota_fixes;  // fix-quotas-first: what FixQuotasToPeak changed
  RunResult run;                      // with its timeline (RunOptions::timeline_step)
  UpgradeTimeline upgrade;            // RollingUpgrade's record, settled by Finish
};

// The planned end when `run.duration` is 0: a cap, not a target — the operator ends the run
// `tail` after the last node is back (or once only nodes blocked for good are left).
inline constexpr SimTime kUpgradeRunCap = 12 * 3600 * kNanosPerSecond;
// The timeline step when `run.timeline_step` is 0.
inline constexpr SimTime kUpgradeTimelineStep = 60 * kNanosPerSecond;

// Copies `s`, fixes its quotas first when asked, plans the order (UpgradePlanOrder: its
// InputError comes back as is), and simulates it with `seed` and `run` (its cluster_operator
// is replaced). Deterministic.
Expected<UpgradeRun> RunUpgrade(const Scenario& s, const UpgradeOptions& o, RunOptions run,
                                uint64_t seed, bool fix_quotas_first);

// {upgrade-first, fix-quotas-first}, in that order, with the same seed: two independent runs,
// done in parallel (OpenMP sections) when threads allow; the answer does not depend on it.
// The first InputError (upgrade-first's before fix-quotas-first's) when either fails.
Expected<std::vector<UpgradeRun>> RunUpgradeComparison(const Scenario& s, const UpgradeOptions& o,
                                                       RunOptions run, uint64_t seed);

}  // namespace knobsim
