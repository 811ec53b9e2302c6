#include "sim/engine/engine_state.h"

#include <algorithm>

namespace knobsim::engine {

WorkloadRun::WorkloadRun(const Workload& w, uint64_t seed)
    : spec(&w),
      arrivals(w.traffic,
               RandomStream(seed, "workload/" + w.namespace_ + "/" + w.name + "/arrivals")),
      work_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/work"),
      route_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/route") {}

EngineState::EngineState(const Scenario& scenario, uint64_t seed, const RunOptions& options)
    : scenario(scenario),
      options(options),
      seed(seed),
      warmup(scenario.run.warmup),
      end(options.duration > 0 ? options.duration : scenario.run.duration),
      cluster(BuildCluster(scenario)),
      missing_images(options.missing_images) {
  std::sort(missing_images.begin(), missing_images.end());
  nodes.resize(cluster.nodes.size());
  for (size_t n = 0, ordinal = 0; n < nodes.size(); ++n) {
    const int pool_index = cluster.nodes[n].pool;
    ordinal = n > 0 && cluster.nodes[n - 1].pool == pool_index ? ordinal + 1 : 0;
    const NodePool& pool = scenario.node_pools[pool_index];
    if (!(pool.spot.per_node_hour > 0)) continue;
    NodeRun& node = nodes[n];
    node.reclaim_mean_ns = 3600.0 * 1e9 / pool.spot.per_node_hour;
    node.replace_after = pool.spot.replace_after;
    // Named by pool and ordinal, not by the node's name: a variant with more nodes keeps the
    // reclaims of the nodes both have (common random numbers, docs/design.md §3.1).
    node.reclaims = RandomStream(seed, "spot/" + pool.name + "/" + std::to_string(ordinal));
  }
  workloads.reserve(scenario.workloads.size());
  for (const Workload& w : scenario.workloads) workloads.emplace_back(w, seed);
}

}  // namespace knobsim::engine
