#include "sim/plan/pool_groups.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/scenario_objects.h"
#include "sim/scheduler/node_matching.h"

namespace knobsim {
namespace {

bool CanRunOn(const Scenario& s, const Workload& w, int pool_index) {
  const NodePool& pool = s.node_pools[pool_index];
  if (pool.gpu_type.empty()) return false;
  const bool exclusive_pool = pool.schedule == GpuSchedule::kDefault;
  if ((w.whole_gpus > 0) != exclusive_pool) return false;
  const NodeSpec node = NodeSpecForPool(s, pool_index, 0);
  const PodSpec pod = PodSpecForWorkload(w, 0);
  return MatchesNodeSelectorAndAffinity(pod, node) &&
         FindUntoleratedTaint(pod.tolerations, node.taints) == nullptr;
}

}  // namespace

std::vector<PoolGroup> GroupPools(const Scenario& s) {
  const int np = static_cast<int>(s.node_pools.size());
  std::vector<int> parent(np);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::vector<int>> reach(s.workloads.size());
  for (size_t w = 0; w < s.workloads.size(); ++w) {
    const Workload& wl = s.workloads[w];
    if (!wl.asks_gpu()) continue;
    for (int p = 0; p < np; ++p) {
      if (CanRunOn(s, wl, p)) reach[w].push_back(p);
    }
    if (reach[w].empty()) {
      throw std::invalid_argument("workload " + wl.namespace_ + "/" + wl.name +
                                  " fits no GPU node pool of the scenario (GPU kind, node "
                                  "selector, affinity or taints), so no size can serve it");
    }
    for (int p : reach[w]) parent[find(p)] = find(reach[w].front());
  }
  std::map<int, int> group_of_root;
  std::vector<PoolGroup> groups;
  for (size_t w = 0; w < s.workloads.size(); ++w) {
    if (reach[w].empty()) continue;
    const int root = find(reach[w].front());
    auto [it, inserted] = group_of_root.emplace(root, static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    groups[it->second].workloads.push_back(static_cast<int>(w));
  }
  for (int p = 0; p < np; ++p) {
    auto it = group_of_root.find(find(p));
    if (it != group_of_root.end()) groups[it->second].pools.push_back(p);
  }
  std::sort(groups.begin(), groups.end(), [](const PoolGroup& a, const PoolGroup& b) {
    return a.pools.front() < b.pools.front();
  });
  for (PoolGroup& g : groups) {
    int whole = 0;
    for (int w : g.workloads) whole += s.workloads[w].whole_gpus > 0 ? 1 : 0;
    if (whole != 0 && whole != static_cast<int>(g.workloads.size())) {
      throw std::invalid_argument("node pool " + s.node_pools[g.pools.front()].name +
                                  " serves both whole-card and shared workloads; the plan sizes "
                                  "one or the other");
    }
    g.whole = whole > 0;
  }
  return groups;
}

}  // namespace knobsim
