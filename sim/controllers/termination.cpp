#include "sim/controllers/termination.h"

#include <algorithm>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/pod_lifecycle.h"
#include "sim/controllers/replacement.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

void DeletePod(Simulator& sim, int32_t p, const std::string& why) {
  EngineState& s = sim.state;
  if (p < 0 || p >= static_cast<int32_t>(s.pods.size())) return;
  if (s.pods[p].gone || s.pods[p].terminating) return;
  const Endpoint before = EndpointOf(s, p);
  s.pods[p].terminating = true;
  ++s.pods[p].generation;  // no pull, load or restart any more
  s.pods[p].message = why;
  sim.recorder.PodEvent("Killing", p, "Stopping container: " + why);
  MoveEndpoint(sim, p, before);
  const bool idle = s.pods[p].outstanding == 0 || s.pods[p].node < 0;
  s.queue.Push(idle ? s.now : s.now + s.options.termination_grace, kTerminated,
               static_cast<uint32_t>(p));
  const std::string& kind = s.workloads[s.pods[p].workload].spec->kind;
  if ((kind == "Deployment" || kind == "ReplicaSet") && !s.pods[p].scaled_away) {
    CreateReplacement(sim, p);
    SchedulePending(sim);
  }
}

void Terminate(Simulator& sim, int32_t p) {
  EngineState& s = sim.state;
  if (s.pods[p].gone || !s.pods[p].terminating) return;
  sim.AbortWork(p);  // what is still in flight when the grace period ends fails as interrupted
  StopContainer(sim, p);
  PodRun& pod = s.pods[p];
  pod.gone = true;
  pod.model_loaded = false;
  if (pod.state_pod >= 0) s.cluster_state.Unbind(pod.state_pod);
  pod.state_pod = -1;
  if (pod.node >= 0) {
    auto& on = s.nodes[pod.node].pods;
    on.erase(std::find(on.begin(), on.end(), p));
  }
  s.pending.erase(std::remove(s.pending.begin(), s.pending.end(), p), s.pending.end());
  if (s.workloads[pod.workload].spec->kind == "StatefulSet" && !pod.scaled_away)
    CreateReplacement(sim, p);
  if (s.options.cluster_operator != nullptr) s.options.cluster_operator->PodGone(sim.control, p);
  SchedulePending(sim);
}

}  // namespace knobsim::engine
