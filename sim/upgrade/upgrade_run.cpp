#include "sim/upgrade/upgrade_run.h"

#include <optional>
#include <utility>

namespace knobsim {

Expected<UpgradeRun> RunUpgrade(const Scenario& s, const UpgradeOptions& o, RunOptions run,
                                uint64_t seed, bool fix_quotas_first) {
  UpgradeRun out;
  out.name = fix_quotas_first ? "fix-quotas-first" : "upgrade-first";
  Scenario scenario = s;
  if (fix_quotas_first) {
    Expected<std::vector<QuotaFix>> fixes = FixQuotasToPeak(scenario);
    if (!fixes.ok()) return fixes.error();
    out.quota_fixes = std::move(*fixes);
  }
  Expected<std::vector<int>> order = UpgradePlanOrder(scenario, o);
  if (!order.ok()) return order.error();
  RollingUpgrade upgrade(o, std::move(*order));
  run.cluster_operator = &upgrade;
  if (run.duration <= 0) run.duration = kUpgradeRunCap;
  if (run.timeline_step <= 0) run.timeline_step = kUpgradeTimelineStep;
  out.run = Simulate(scenario, seed, run);
  out.upgrade = upgrade.Finish();
  return out;
}

Expected<std::vector<UpgradeRun>> RunUpgradeComparison(const Scenario& s, const UpgradeOptions& o,
                                                       RunOptions run, uint64_t seed) {
  std::optional<Expected<UpgradeRun>> first, second;
#pragma omp parallel sections num_threads(2)
  {
#pragma omp section
    first.emplace(RunUpgrade(s, o, run, seed, false));
#pragma omp section
    second.emplace(RunUpgrade(s, o, run, seed, true));
  }
  if (!first->ok()) return first->error();
  if (!second->ok()) return second->error();
  std::vector<UpgradeRun> runs;
  runs.push_back(std::move(first->value()));
  runs.push_back(std::move(second->value()));
  return runs;
}

}  // namespace knobsim
