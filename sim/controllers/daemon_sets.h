// DaemonSets in a run (docs/semantics.md §5.4): a DaemonSet workload has one pod on every node
// its pods should run on, whatever its `replicas` says. The rule is the DaemonSet controller's
// nodeShouldRunDaemonPod (pkg/controller/daemon): the pod's nodeSelector and required node
// affinity match the node, and every NoSchedule / NoExecute taint is tolerated, counting the
// tolerations the controller adds to each daemon pod (so cordoned and not-ready nodes keep
// theirs). Each pod is pinned to its node by a required matchFields metadata.name term, as the
// controller writes it, and placed by the scheduler like any pod.
//
// At the start the run takes the scenario with each DaemonSet's pods laid out over the nodes
// present: a listed pod on a present node keeps its name and place; another node gets a pod
// named <workload>-<node> where the DaemonSet should run — by its template alone when it lists
// no pods, else only in pools where a listed pod runs (an export's daemon pods carry the
// controller's pin instead of the DaemonSet's node affinity, so where they run is the evidence).
// A node the cluster autoscaler adds gets its daemon pods when it joins, and the scale-up
// estimate counts them on the template node; a removed node's daemon pods go with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scenario.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim::engine {

class Simulator;
struct EngineState;

// util.AddOrUpdateDaemonPodTolerations: not-ready and unreachable (NoExecute), disk-, memory-
// and pid-pressure and unschedulable (NoSchedule), all `Exists`.
void AddDaemonPodTolerations(PodSpec& pod);
// ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes the single term
// `matchFields: metadata.name In [node]` (the nodeSelector stays).
void PinDaemonPod(PodSpec& pod, const std::string& node);
// nodeShouldRunDaemonPod for workload `ds` on `node`.
bool ShouldRunDaemonPod(const Workload& ds, const NodeSpec& node);

// The scenario with every DaemonSet workload's `pods` one per present node where it should run
// (in node order) and `replicas` their count; nullopt when the scenario has no DaemonSet.
std::optional<Scenario> WithDaemonPods(const Scenario& scenario);

// Once per run, before the pods are placed: where each DaemonSet's listed pods run, per pool.
void PrepareDaemonSets(EngineState& s);

// A run's pod as the scheduler sees it: the replica's PodSpec and, for a daemon pod, its
// tolerations and its pin to its node.
PodSpec RunPodSpec(const EngineState& s, int32_t p);

// A node joined: each DaemonSet that should run there and has no pod there gets one, Pending.
void CreateDaemonPods(Simulator& sim, int32_t node);

// Binds the daemon pods a new node of pool `pool` would hold onto `cluster` at `node` (the
// autoscaler's template node), without a fit check, as the autoscaler's template does; their
// indexes into `bound`.
void BindTemplateDaemonPods(const EngineState& s, int pool, ClusterState& cluster, int node,
                            std::vector<int>* bound);

}  // namespace knobsim::engine
