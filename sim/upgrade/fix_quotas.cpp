#include "sim/upgrade/fix_quotas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/whatif/knobs.h"

namespace knobsim {

namespace {

// The peak per card on the largest-answer card type, over the shared-GPU pools the workload
// can land on (the pools PeakQuotaUnits looks at); 0 when none.
Expected<int64_t> PeakMib(const Scenario& s, const Workload& w) {
  int64_t best = 0;
  for (const NodePool& p : s.node_pools) {
    if (p.gpu_type.empty() || p.schedule == GpuSchedule::kDefault) continue;
    const bool selected =
        std::all_of(w.node_selector.begin(), w.node_selector.end(), [&p](const auto& kv) {
          auto it = p.labels.find(kv.first);
          return it != p.labels.end() && it->second == kv.second;
        });
    if (!selected) continue;
    const GpuType* t = s.catalog.Find(p.gpu_type);
    if (t == nullptr) continue;
    Expected<int64_t> peak = PeakPodMemoryPerCardMib(w, *t);
    if (!peak.ok()) return peak.error();
    best = std::max(best, *peak);
  }
  return best;
}

}  // namespace

Expected<std::vector<QuotaFix>> FixQuotasToPeak(Scenario& s, double headroom_percent) {
  if (!std::isfinite(headroom_percent) || headroom_percent < 0) {
    return InputError{"", 0, "--headroom", "the headroom is not a percentage >= 0",
                      "12 keeps the peak under the 90 % warning threshold"};
  }
  std::vector<QuotaFix> fixes;
  for (Workload& w : s.workloads) {
    if (w.gpu_mem <= 0) continue;
    QuotaFix f;
    f.workload = w.namespace_ + "/" + w.name;
    f.from_units = f.to_units = w.gpu_mem;
    if (w.concurrency == 0) {
      f.note = "left alone: unlimited concurrency, so its peak has no bound; set a quota by hand";
      fixes.push_back(std::move(f));
      continue;
    }
    Expected<int> units = PeakQuotaUnits(s, w, headroom_percent, 0);
    Expected<int64_t> peak = PeakMib(s, w);
    if (!units.ok() || !peak.ok()) {
      f.note = "left alone: " + (units.ok() ? peak.error() : units.error()).message;
      fixes.push_back(std::move(f));
      continue;
    }
    if (*units <= w.gpu_mem) continue;
    f.peak_mib = *peak;
    f.to_units = *units;
    char pct[32];
    std::snprintf(pct, sizeof pct, "%g", headroom_percent);
    f.note = "peak " + std::to_string(*peak) + " MiB per card + " + pct + " % headroom needs " +
             std::to_string(*units) + " units";
    w.gpu_mem = *units;
    fixes.push_back(std::move(f));
  }
  return fixes;
}

}  // namespace knobsim
