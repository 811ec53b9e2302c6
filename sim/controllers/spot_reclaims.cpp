#include "sim/controllers/spot_reclaims.h"

#include <string>
#include <vector>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/node_autoscaling.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/pod_lifecycle.h"
#include "sim/controllers/termination.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

namespace {

std::string Seconds(SimTime t) {
  return std::to_string((t + kNanosPerSecond / 2) / kNanosPerSecond) + " s";
}

// An autoscaled pool's node is gone for good: its pods are deleted with no grace left (their
// controllers' replacements wait for the scheduler, and the autoscaler), its slot is absent.
void ReleaseAutoscaledNode(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  const std::vector<int32_t> on = node.pods;
  int stopped = 0;
  for (int32_t p : on) {
    PodRun& pod = s.pods[p];
    if (pod.gone) continue;
    ++stopped;
    // A DaemonSet pod goes with its node, and its DaemonSet wants one pod fewer.
    if (!pod.daemon_node.empty() && !pod.terminating) --s.workloads[pod.workload].desired;
    DeletePod(sim, p, "its node " + s.cluster.nodes[n].name + " was reclaimed (spot)");
    Terminate(sim, p);
  }
  TakeOutOfPool(s, n);
  ++s.pools[node.pool].nodes_reclaimed;
  sim.recorder.NodeEvent("SpotReclaim", n,
                         stopped == 0 ? std::string("released by the provider; it held no pods")
                                      : "released by the provider: " + std::to_string(stopped) +
                                            " pod(s) stopped, their requests failed as "
                                            "interrupted; the node is gone");
}

}  // namespace

void ScheduleReclaim(EngineState& state, int32_t n) {
  NodeRun& node = state.nodes[n];
  const double gap = node.reclaims.Exponential(node.reclaim_mean_ns);
  // Compared as doubles first: a tiny rate gives gaps beyond SimTime's range.
  if (gap >= static_cast<double>(state.end - state.now)) return;
  state.queue.Push(state.now + static_cast<SimTime>(gap), kSpotReclaim, static_cast<uint32_t>(n));
}

void ReclaimNode(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  ScheduleReclaim(s, n);
  NodeRun& node = s.nodes[n];
  const SpotInterruptions& spot = s.scenario.node_pools[node.pool].spot;
  if (node.down() || node.notified || node.removing || node.on_demand) return;
  if (s.now < node.joined_at + spot.protection) return;
  if (spot.notice <= 0) {
    ReleaseNode(sim, n);
    return;
  }
  node.notified = true;
  s.cluster_state.SetUnschedulable(n, true);
  std::string what =
      "interruption notice: the provider releases the node at t = " + Seconds(s.now + spot.notice) +
      "; cordoned";
  if (spot.drain_on_notice) {
    const std::vector<int32_t> on = node.pods;
    int drained = 0;
    for (int32_t p : on) {
      const PodRun& pod = s.pods[p];
      if (pod.gone || pod.terminating || !pod.daemon_node.empty()) continue;
      DeletePod(sim, p,
                "evicted: its node " + s.cluster.nodes[n].name + " received a spot interruption");
      ++drained;
    }
    what += " and drained (" + std::to_string(drained) + " pod(s) deleted)";
  } else {
    what += ", its pods run until then";
  }
  s.queue.Push(s.now + spot.notice, kSpotRelease, static_cast<uint32_t>(n));
  sim.recorder.NodeEvent("SpotInterruption", n, what);
}

void ReleaseNode(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  node.notified = false;
  // A reset (a ClusterOperator's) that began during the notice keeps the node: it ends that.
  if (node.down()) return;
  if (s.scenario.node_pools[node.pool].autoscaling) {
    ReleaseAutoscaledNode(sim, n);
    return;
  }
  node.reclaimed = true;
  node.images.clear();
  s.cluster_state.SetUnschedulable(n, true);
  const std::string& name = s.cluster.nodes[n].name;
  const SimTime back = s.now + node.replace_after;
  const std::string why = "node " + name + " was reclaimed (spot); its replacement joins at t = " +
                          std::to_string(back / kNanosPerSecond) + " s";
  const std::vector<int32_t> on = node.pods;
  for (int32_t p : on) {
    // A deleted pod is over with its node; the others wait for the replacement.
    if (s.pods[p].terminating) {
      Terminate(sim, p);
    } else {
      EvictPod(sim, p, why);
    }
  }
  ++s.pools[node.pool].nodes_reclaimed;
  s.queue.Push(back, kNodeReplaced, static_cast<uint32_t>(n));
  sim.recorder.NodeEvent("SpotReclaim", n,
                         node.pods.empty()
                             ? std::string("reclaimed by the provider; it held no pods")
                             : "reclaimed by the provider: " + std::to_string(node.pods.size()) +
                                   " pod(s) stopped, their requests failed as interrupted");
}

void ReplaceNode(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  node.reclaimed = false;
  node.joined_at = s.now;
  s.cluster_state.SetUnschedulable(n, node.cordoned || node.resetting);
  if (node.resetting) return;  // its pods start when the operator brings it back
  for (int32_t p : node.pods) {
    PodRun& pod = s.pods[p];
    if (pod.terminating) continue;
    pod.message.clear();
    SetPhase(sim, p, PodPhase::kPulling);
    s.queue.Push(s.now + s.workloads[pod.workload].spec->image_pull, kContainerStart,
                 static_cast<uint32_t>(p), pod.generation);
  }
  sim.recorder.NodeEvent("NodeReplaced", n,
                         "replaced: an empty node of the same pool joined; " +
                             std::to_string(node.pods.size()) + " pod(s) start on it again");
  // Pods drained on the notice whose replacements found no room wait for this node.
  if (!s.pending.empty()) SchedulePending(sim);
}

}  // namespace knobsim::engine
