#include "sim/controllers/endpoints.h"

#include <algorithm>

#include "sim/controllers/closed_loops.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

Endpoint EndpointOf(const EngineState& state, int32_t p) {
  const PodRun& pod = state.pods[p];
  const bool live = !pod.terminating && !pod.gone;
  return {live && (pod.phase == PodPhase::kServing || pod.phase == PodPhase::kFakeReady),
          live && pod.phase == PodPhase::kServing,
          live && !pod.admission_failed && pod.phase == PodPhase::kPending};
}

// A change costs a binary search, not a pass over the workload's pods.
void MoveEndpoint(Simulator& sim, int32_t p, Endpoint before) {
  const Endpoint after = EndpointOf(sim.state, p);
  if (after == before) return;
  const int32_t w = sim.state.pods[p].workload;
  WorkloadRun& run = sim.state.workloads[w];
  sim.recorder.IntegrateAvailability(w);
  if (after.ready != before.ready) {
    const auto at = std::lower_bound(run.ready.begin(), run.ready.end(), p);
    if (after.ready) {
      run.ready.insert(at, p);
    } else {
      run.ready.erase(at);
    }
  }
  run.available += static_cast<int>(after.available) - static_cast<int>(before.available);
  run.pending += static_cast<int>(after.pending) - static_cast<int>(before.pending);
  if (after.available && !before.available) StartLoops(sim, p);
}

void SetPhase(Simulator& sim, int32_t p, PodPhase phase) {
  const Endpoint before = EndpointOf(sim.state, p);
  PodRun& pod = sim.state.pods[p];
  const SimTime now = sim.state.now;
  auto ready = [](PodPhase x) { return x == PodPhase::kServing || x == PodPhase::kFakeReady; };
  if (phase == PodPhase::kPending) {
    pod.started_at = -1;  // evicted: its replacement is a new pod, not started yet
  } else if (pod.phase == PodPhase::kPending) {
    pod.started_at = now;  // the kubelet took it; its Ready condition begins False
    pod.ready_changed = now;
  }
  if (ready(phase) != ready(pod.phase)) pod.ready_changed = now;
  pod.phase = phase;
  MoveEndpoint(sim, p, before);
}

void PodCreated(Simulator& sim, int32_t p) {
  MoveEndpoint(sim, p, Endpoint{});  // before it existed it counted nowhere
}

}  // namespace knobsim::engine
