#include "sim/controllers/daemon_sets.h"

#include <set>
#include <unordered_map>
#include <utility>

#include "sim/controllers/endpoints.h"
#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/node_matching.h"

namespace knobsim::engine {
namespace {

bool IsDaemonSet(const Workload& w) {
  return w.kind == "DaemonSet";
}

// Per pool: whether a listed pod of `ds` runs on one of its nodes. An export's daemon pods carry
// only the controller's matchFields pin, not the DaemonSet's own node affinity, so where they
// run is the evidence: a pool's nodes share their labels and taints, so its other nodes (added
// by a variant or the autoscaler) would run one too. A DaemonSet without listed pods (a
// manifest, a hand-written scenario) is judged by its template alone.
std::vector<char> PoolsWithListedPods(const Scenario& scenario, const Workload& ds) {
  std::unordered_map<std::string, int> pool_of;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    const NodePool& pool = scenario.node_pools[p];
    for (int i = 0; i < pool.slots(); ++i)
      pool_of.emplace(PoolNodeName(pool, i), static_cast<int>(p));
  }
  std::vector<char> listed(scenario.node_pools.size(), 0);
  for (const CurrentPod& pod : ds.pods) {
    if (const auto it = pool_of.find(pod.node); it != pool_of.end()) listed[it->second] = 1;
  }
  return listed;
}

// The rule for a node of `pool` without a listed pod (`listed`: PoolsWithListedPods).
bool RunsOnNewNode(const Workload& ds, const std::vector<char>& listed, int pool,
                   const NodeSpec& node) {
  return (ds.pods.empty() || listed[static_cast<size_t>(pool)]) && ShouldRunDaemonPod(ds, node);
}

// The run's PoolsWithListedPods of DaemonSet workload `w` (PrepareDaemonSets).
const std::vector<char>& ListedPools(const EngineState& s, int w) {
  return s.workloads[static_cast<size_t>(w)].daemon_pools;
}

}  // namespace

void AddDaemonPodTolerations(PodSpec& pod) {
  static const std::pair<const char*, const char*> kAdded[] = {
      {"node.kubernetes.io/not-ready", "NoExecute"},
      {"node.kubernetes.io/unreachable", "NoExecute"},
      {"node.kubernetes.io/disk-pressure", "NoSchedule"},
      {"node.kubernetes.io/memory-pressure", "NoSchedule"},
      {"node.kubernetes.io/pid-pressure", "NoSchedule"},
      {"node.kubernetes.io/unschedulable", "NoSchedule"},
  };
  for (const auto& [key, effect] : kAdded) {
    Toleration t;
    t.key = key;
    t.op = "Exists";
    t.effect = effect;
    bool present = false;
    for (const Toleration& have : pod.tolerations) {
      present |= have.key == t.key && have.effect == t.effect;
    }
    if (!present) pod.tolerations.push_back(t);
  }
}

void PinDaemonPod(PodSpec& pod, const std::string& node) {
  pod.node_affinity.required_terms = {{NodeSelectorRequirement{"metadata.name", "In", {node}}}};
}

bool ShouldRunDaemonPod(const Workload& ds, const NodeSpec& node) {
  PodSpec pod = PodSpecForWorkload(ds, 0);
  AddDaemonPodTolerations(pod);
  return MatchesNodeSelectorAndAffinity(pod, node) &&
         FindUntoleratedTaint(pod.tolerations, node.taints) == nullptr;
}

std::optional<Scenario> WithDaemonPods(const Scenario& scenario) {
  bool any = false;
  for (const Workload& w : scenario.workloads) any |= IsDaemonSet(w);
  if (!any) return std::nullopt;
  // The nodes present at the start, each built once.
  struct Present {
    int pool;
    NodeSpec node;
  };
  std::vector<Present> present;
  std::set<std::string> present_names;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    for (int i = 0; i < scenario.node_pools[p].count; ++i) {
      present.push_back({static_cast<int>(p), NodeSpecForPool(scenario, static_cast<int>(p), i)});
      present_names.insert(present.back().node.name);
    }
  }
  Scenario out = scenario;
  for (Workload& w : out.workloads) {
    if (!IsDaemonSet(w)) continue;
    // The listed pods on nodes present keep their names, places and order (one per node); then
    // each other node where the DaemonSet should run gets a new pod, in node order.
    const std::vector<char> listed = PoolsWithListedPods(scenario, w);
    std::set<std::string> covered;
    std::vector<CurrentPod> pods;
    for (const CurrentPod& pod : w.pods) {
      if (present_names.count(pod.node) && covered.insert(pod.node).second) pods.push_back(pod);
    }
    for (const Present& at : present) {
      if (covered.count(at.node.name) || !RunsOnNewNode(w, listed, at.pool, at.node)) continue;
      CurrentPod fresh;
      fresh.name = w.name + "-" + at.node.name;
      fresh.node = at.node.name;
      pods.push_back(std::move(fresh));
    }
    w.pods = std::move(pods);
    w.replicas = static_cast<int>(w.pods.size());
  }
  return out;
}

void PrepareDaemonSets(EngineState& s) {
  for (WorkloadRun& w : s.workloads) {
    if (IsDaemonSet(*w.spec)) w.daemon_pools = PoolsWithListedPods(s.scenario, *w.spec);
  }
}

PodSpec RunPodSpec(const EngineState& s, int32_t p) {
  const PodRun& run = s.pods[p];
  const Workload& w = *s.workloads[run.workload].spec;
  PodSpec pod = ReplicaPodSpec(s.scenario, w, run.replica);
  if (IsDaemonSet(w) && !run.daemon_node.empty()) {
    pod.name = run.name;
    AddDaemonPodTolerations(pod);
    PinDaemonPod(pod, run.daemon_node);
  }
  return pod;
}

void CreateDaemonPods(Simulator& sim, int32_t node) {
  EngineState& s = sim.state;
  const std::string& name = s.cluster.nodes[node].name;
  const NodeSpec& spec = s.cluster_state.node(node).spec;
  for (int32_t w = 0; w < static_cast<int32_t>(s.workloads.size()); ++w) {
    const Workload& ds = *s.workloads[w].spec;
    if (!IsDaemonSet(ds) || !RunsOnNewNode(ds, ListedPools(s, w), s.nodes[node].pool, spec)) {
      continue;
    }
    bool has = false;
    for (const PodRun& pod : s.pods) {
      has |= pod.workload == w && pod.daemon_node == name && !pod.gone && !pod.terminating;
    }
    if (has) continue;
    PodRun fresh;
    fresh.workload = w;
    fresh.replica = s.workloads[w].next_ordinal++;
    fresh.name = ds.name + "-" + name;
    fresh.daemon_node = name;
    ++s.workloads[w].desired;
    const int32_t p = static_cast<int32_t>(s.pods.size());
    s.pods.push_back(std::move(fresh));
    s.pending.push_back(p);
    PodCreated(sim, p);
    sim.recorder.PodEvent("SuccessfulCreate", p,
                          "created by its DaemonSet on node " + name + ", which joined");
  }
}

void BindTemplateDaemonPods(const EngineState& s, int pool, ClusterState& cluster, int node,
                            std::vector<int>* bound) {
  const NodeSpec& spec = cluster.node(node).spec;
  for (int w = 0; w < static_cast<int>(s.workloads.size()); ++w) {
    const Workload& ds = *s.workloads[static_cast<size_t>(w)].spec;
    if (!IsDaemonSet(ds) || !RunsOnNewNode(ds, ListedPools(s, w), pool, spec)) continue;
    PodSpec pod = PodSpecForWorkload(ds, 0);
    pod.name = ds.name + "-" + spec.name;
    Placement at;
    at.node = node;
    const int index = cluster.Bind(std::move(pod), at);
    if (bound != nullptr) bound->push_back(index);
  }
}

}  // namespace knobsim::engine
