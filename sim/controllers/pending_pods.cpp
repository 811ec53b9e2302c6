#include "sim/controllers/pending_pods.h"

#include <algorithm>
#include <vector>

#include "sim/controllers/image_pulls.h"
#include "sim/controllers/placement.h"
#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"

namespace knobsim::engine {

void SchedulePending(Simulator& sim) {
  EngineState& s = sim.state;
  if (s.pending.empty()) return;
  std::vector<int32_t> order;
  order.swap(s.pending);
  std::stable_sort(order.begin(), order.end(), [&s](int32_t a, int32_t b) {
    const int pa = s.workloads[s.pods[a].workload].spec->priority;
    const int pb = s.workloads[s.pods[b].workload].spec->priority;
    return pa != pb ? pa > pb : a < b;
  });
  for (int32_t p : order) {
    const Workload& spec = *s.workloads[s.pods[p].workload].spec;
    const int index = static_cast<int>(s.cluster_state.pods().size());
    const ScheduleResult result =
        s.scheduler->ScheduleAndBind(ReplicaPodSpec(s.scenario, spec, s.pods[p].replica));
    if (result.placement.node < 0) {
      if (result.message != s.pods[p].message) {
        s.pods[p].message = result.message;
        sim.recorder.PodEvent("FailedScheduling", p, result.message);
      }
      s.pending.push_back(p);
      continue;
    }
    s.pods[p].state_pod = index;
    s.pods[p].message.clear();
    BindPod(sim, p, result.placement);
    sim.recorder.PodEvent("Scheduled", p,
                          "assigned to node " + s.cluster.nodes[result.placement.node].name);
    if (!s.nodes[s.pods[p].node].down()) StartOnNode(sim, p);
  }
}

}  // namespace knobsim::engine
