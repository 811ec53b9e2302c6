#include "sim/controllers/daemon_sets.h"

#include <set>
#include <utility>

#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/node_matching.h"

namespace knobsim::engine {
namespace {

bool IsDaemonSet(const Workload& w) {
  return w.kind == "DaemonSet";
}

// Whether a listed pod of `ds` runs on a node of pool `pool`. An export's daemon pods carry only
// the controller's matchFields pin, not the DaemonSet's own node affinity, so where they run is
// the evidence: a pool's nodes share their labels and taints, so its other nodes (added by a
// variant or the autoscaler) would run one too. A DaemonSet without listed pods (a manifest, a
// hand-written scenario) is judged by its template alone.
bool ListedInPool(const Scenario& scenario, const Workload& ds, int pool) {
  const NodePool& p = scenario.node_pools[pool];
  for (const CurrentPod& pod : ds.pods) {
    for (int i = 0; i < p.slots(); ++i) {
      if (pod.node == PoolNodeName(p, i)) return true;
    }
  }
  return false;
}

// The rule for a node of `pool` without a listed pod.
bool RunsOnNewNode(const Scenario& scenario, const Workload& ds, int pool, const NodeSpec& node) {
  return (ds.pods.empty() || ListedInPool(scenario, ds, pool)) && ShouldRunDaemonPod(ds, node);
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
  Scenario out = scenario;
  for (Workload& w : out.workloads) {
    if (!IsDaemonSet(w)) continue;
    // The listed pods on nodes present keep their names, places and order (one per node); then
    // each other node where the DaemonSet should run gets a new pod, in node order.
    std::set<std::string> present, covered;
    for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
      for (int i = 0; i < scenario.node_pools[p].count; ++i) {
        present.insert(PoolNodeName(scenario.node_pools[p], i));
      }
    }
    std::vector<CurrentPod> pods;
    for (const CurrentPod& listed : w.pods) {
      if (present.count(listed.node) && covered.insert(listed.node).second) pods.push_back(listed);
    }
    for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
      for (int i = 0; i < scenario.node_pools[p].count; ++i) {
        const NodeSpec node = NodeSpecForPool(scenario, static_cast<int>(p), i);
        if (covered.count(node.name) || !RunsOnNewNode(scenario, w, static_cast<int>(p), node)) {
          continue;
        }
        CurrentPod fresh;
        fresh.name = w.name + "-" + node.name;
        fresh.node = node.name;
        pods.push_back(std::move(fresh));
      }
    }
    w.pods = std::move(pods);
    w.replicas = static_cast<int>(w.pods.size());
  }
  return out;
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
    if (!IsDaemonSet(ds) || !RunsOnNewNode(s.scenario, ds, s.nodes[node].pool, spec)) continue;
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
    sim.recorder.PodEvent("SuccessfulCreate", p,
                          "created by its DaemonSet on node " + name + ", which joined");
  }
}

void BindTemplateDaemonPods(const EngineState& s, int pool, ClusterState& cluster, int node,
                            std::vector<int>* bound) {
  const NodeSpec& spec = cluster.node(node).spec;
  for (const WorkloadRun& w : s.workloads) {
    if (!IsDaemonSet(*w.spec) || !RunsOnNewNode(s.scenario, *w.spec, pool, spec)) continue;
    PodSpec pod = PodSpecForWorkload(*w.spec, 0);
    pod.name = w.spec->name + "-" + spec.name;
    Placement at;
    at.node = node;
    const int index = cluster.Bind(std::move(pod), at);
    if (bound != nullptr) bound->push_back(index);
  }
}

}  // namespace knobsim::engine
