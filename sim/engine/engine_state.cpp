#include "sim/engine/engine_state.h"

#include <algorithm>

namespace knobsim::engine {

WorkloadRun::WorkloadRun(const Workload& w, uint64_t seed)
    : spec(&w),
      work_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/work"),
      route_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/route") {}

ArrivalStream::ArrivalStream(int32_t workload, const Workload& w, int replica,
                             const Traffic& traffic, uint64_t seed, const std::string& pod_name)
    : workload(workload),
      replica(replica),
      arrivals(traffic, RandomStream(seed, "workload/" + w.namespace_ + "/" + w.name + "/arrivals" +
                                               (pod_name.empty() ? "" : "/" + pod_name))) {}

namespace {
// A workload's streams: one at its Service, and/or one per recorded pod (in the order written).
// Recorded counts at the Service beside per-pod ones are the requests of pods gone since.
void AddArrivalStreams(int32_t workload, const Workload& w, uint64_t seed,
                       std::vector<ArrivalStream>& streams) {
  const std::vector<PodCounts>& per_pod = w.traffic.counts.per_pod;
  const bool counts = w.traffic.kind == ArrivalKind::kCounts;
  if (!counts || per_pod.empty() || !w.traffic.counts.values.empty())
    streams.emplace_back(workload, w, -1, w.traffic, seed, "");
  if (!counts) return;
  for (size_t k = 0; k < per_pod.size(); ++k)
    streams.emplace_back(workload, w, per_pod[k].replica, PodCountsTraffic(w.traffic, k), seed,
                         per_pod[k].pod);
}
}  // namespace

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
    NodeRun& node = nodes[n];
    node.pool = pool_index;
    node.absent = static_cast<int>(ordinal) >= pool.count;
    if (!(pool.spot.per_node_hour > 0)) continue;
    node.reclaim_mean_ns = 3600.0 * 1e9 / pool.spot.per_node_hour;
    node.replace_after = pool.spot.replace_after;
    // Named by pool and ordinal, not by the node's name: a variant with more nodes keeps the
    // reclaims of the nodes both have (common random numbers, docs/design.md §3.1).
    node.reclaims = RandomStream(seed, "spot/" + pool.name + "/" + std::to_string(ordinal));
  }
  pools.resize(scenario.node_pools.size());
  for (size_t p = 0; p < pools.size(); ++p) {
    PoolRun& pool = pools[p];
    const NodePool& spec = scenario.node_pools[p];
    pool.provisioning = RandomStream(seed, "cluster-autoscaler/" + spec.name);
    pool.stock = RandomStream(seed, "spot-stock/" + spec.name);
    pool.size = pool.size_at_start = pool.size_min = pool.size_max = spec.count;
  }
  for (size_t n = 0; n < nodes.size(); ++n)
    pools[cluster.nodes[n].pool].nodes.push_back(static_cast<int32_t>(n));
  expander_stream = RandomStream(seed, "cluster-autoscaler/expander");
  workloads.reserve(scenario.workloads.size());
  for (const Workload& w : scenario.workloads) {
    AddArrivalStreams(static_cast<int32_t>(workloads.size()), w, seed, streams);
    workloads.emplace_back(w, seed);
    workloads.back().desired = w.replicas;
    workloads.back().next_ordinal = w.replicas;
  }
}

}  // namespace knobsim::engine
