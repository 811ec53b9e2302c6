#include "sim/plan/autoscaled_plan.h"

#include <algorithm>

namespace knobsim {

bool ElasticGroup(const Scenario& original, const PoolGroup& group) {
  bool pool = false, hpa = false;
  for (int p : group.pools) pool = pool || original.node_pools[p].autoscaling.has_value();
  for (int w : group.workloads) hpa = hpa || original.workloads[w].hpa.has_value();
  return pool && hpa;
}

Scenario ElasticScenario(const Scenario& original, const PoolGroup& group, Scenario fixed,
                         int floor, int max_nodes) {
  for (size_t i = 0; i < group.pools.size(); ++i) {
    const std::optional<PoolAutoscaling>& written = original.node_pools[group.pools[i]].autoscaling;
    if (!written) continue;
    NodePool& pool = fixed.node_pools[i];
    PoolAutoscaling a = *written;
    a.min = floor;
    a.max = max_nodes;
    pool.autoscaling = a;
    pool.count = floor;
  }
  for (size_t i = 0; i < group.workloads.size(); ++i) {
    const Workload& written = original.workloads[group.workloads[i]];
    if (!written.hpa) continue;
    Workload& w = fixed.workloads[i];
    const int most = w.replicas;
    const int scaled = static_cast<int>((static_cast<int64_t>(most) * floor + max_nodes - 1) /
                                        std::max(1, max_nodes));
    HpaSpec hpa = *written.hpa;
    hpa.max_replicas = most;
    hpa.min_replicas = std::clamp(std::max(hpa.min_replicas, scaled), 0, most);
    w.hpa = hpa;
    w.replicas = std::max(hpa.min_replicas, 1);
  }
  return fixed;
}

}  // namespace knobsim
