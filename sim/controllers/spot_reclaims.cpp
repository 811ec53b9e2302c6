#include "sim/controllers/spot_reclaims.h"

#include <string>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/pod_lifecycle.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

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
  if (node.down()) return;
  node.reclaimed = true;
  node.images.clear();
  s.cluster_state.SetUnschedulable(n, true);
  const std::string& name = s.cluster.nodes[n].name;
  const SimTime back = s.now + node.replace_after;
  const std::string why = "node " + name + " was reclaimed (spot); its replacement joins at t = " +
                          std::to_string(back / kNanosPerSecond) + " s";
  for (int32_t p : node.pods) EvictPod(sim, p, why);
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
}

}  // namespace knobsim::engine
