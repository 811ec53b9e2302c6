#include "sim/controllers/pending_pods.h"

#include <algorithm>
#include <vector>

#include "sim/controllers/daemon_sets.h"
#include "sim/controllers/image_pulls.h"
#include "sim/controllers/placement.h"
#include "sim/controllers/preemption.h"
#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"

namespace knobsim::engine {

namespace {

void ScheduleOnce(Simulator& sim) {
  EngineState& s = sim.state;
  if (s.pending.empty()) return;
  std::vector<int32_t> order;
  order.swap(s.pending);
  // PrioritySort: higher priority, then the earlier arrival in the queue. A daemon pod arrives
  // as its node's object appears, while the node's not-ready taint (which only daemon pods
  // tolerate) still keeps every other pod away: it goes before pods of its priority.
  std::stable_sort(order.begin(), order.end(), [&s](int32_t a, int32_t b) {
    const int pa = s.workloads[s.pods[a].workload].spec->priority;
    const int pb = s.workloads[s.pods[b].workload].spec->priority;
    if (pa != pb) return pa > pb;
    const bool da = !s.pods[a].daemon_node.empty(), db = !s.pods[b].daemon_node.empty();
    return da != db ? da : a < b;
  });
  for (int32_t p : order) {
    const int index = static_cast<int>(s.cluster_state.pods().size());
    PodSpec pod = RunPodSpec(s, p);
    pod.nominated_node_name = s.pods[p].nominated_node;
    pod.start_time = static_cast<double>(s.now) / kNanosPerSecond;  // if it binds, it starts now
    const ScheduleResult result = s.scheduler->ScheduleAndBind(pod);
    if (result.placement.node < 0) {
      if (result.preemption.node >= 0) PreemptFor(sim, p, result.preemption);
      if (result.message != s.pods[p].message) {
        s.pods[p].message = result.message;
        sim.recorder.PodEvent("FailedScheduling", p, result.message);
      }
      s.pending.push_back(p);
      continue;
    }
    s.pods[p].state_pod = index;
    s.pods[p].nominated_node.clear();
    if (!AdmitOnNode(sim, p, result.placement)) continue;
    s.pods[p].message.clear();
    BindPod(sim, p, result.placement);
    sim.recorder.PodEvent("Scheduled", p,
                          "assigned to node " + s.cluster.nodes[result.placement.node].name);
    if (!s.nodes[s.pods[p].node].down()) StartOnNode(sim, p);
  }
}

}  // namespace

void SchedulePending(Simulator& sim) {
  EngineState& s = sim.state;
  // A preemption deletes pods, whose controllers call this again: that call only asks for
  // another pass, so one pass never runs inside another.
  if (s.scheduling_pending) {
    s.pending_again = true;
    return;
  }
  s.scheduling_pending = true;
  do {
    s.pending_again = false;
    ScheduleOnce(sim);
  } while (s.pending_again);
  s.scheduling_pending = false;
}

}  // namespace knobsim::engine
