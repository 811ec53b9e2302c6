#include "sim/controllers/preemption.h"

#include <string>

#include "sim/controllers/termination.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

void PreemptFor(Simulator& sim, int32_t preemptor, const PreemptionCandidate& candidate) {
  EngineState& s = sim.state;
  const std::string& node = s.cluster.nodes[candidate.node].name;
  s.pods[preemptor].nominated_node = node;
  const std::string who =
      s.workloads[s.pods[preemptor].workload].spec->namespace_ + "/" + s.pods[preemptor].name;
  for (int victim : candidate.victims) {
    int32_t q = -1;  // the run's pod bound as `victim` (preemption is rare: a scan is enough)
    for (int32_t i = 0; i < static_cast<int32_t>(s.pods.size()); ++i) {
      if (s.pods[i].state_pod == victim && !s.pods[i].gone) q = i;
    }
    if (q < 0) continue;
    s.cluster_state.MarkPreempted(victim);
    // Upstream's event names the preemptor's UID; a run's pods have none, so its name.
    sim.recorder.PodPreempted(q, "Preempted by pod " + who + " on node " + node);
    DeletePod(sim, q, "preempted by " + who + " (higher priority) on node " + node);
  }
}

}  // namespace knobsim::engine
