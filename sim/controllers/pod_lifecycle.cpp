#include "sim/controllers/pod_lifecycle.h"

#include <algorithm>

#include "sim/controllers/endpoints.h"
#include "sim/controllers/image_pulls.h"
#include "sim/engine/simulator.h"

namespace knobsim::engine {

void StartContainer(Simulator& sim, int32_t p) {
  EngineState& s = sim.state;
  MarkImagesCached(s, p);
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  pod.phase = PodPhase::kLoading;
  if (!pod.cards.empty()) {
    sim.sharing.Touch(p);
    sim.sharing.JoinCards(p);
    pod.context_ok = sim.sharing.ChangeMemory(p, pod.context_mib, true);
  }
  s.queue.Push(s.now + spec.model_load, kLoadDone, static_cast<uint32_t>(p), pod.generation);
}

void FinishLoad(Simulator& sim, int32_t p) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  bool loaded = true;
  if (!pod.cards.empty()) {
    sim.sharing.Touch(p);
    loaded = pod.context_ok && sim.sharing.ChangeMemory(p, pod.weights_mib, true);
  }
  if (loaded) {
    pod.model_loaded = true;
    pod.message.clear();
    if (pod.start_unready) {
      // Unready when the run starts (scenario `ready: false`): up, but not serving.
      pod.message = "not Ready when the run starts (scenario: ready: false)";
      SetPhase(sim, p, PodPhase::kUnready);
      if (pod.ready_after >= 0)
        s.queue.Push(std::max(s.now, pod.ready_after), kPodReady, static_cast<uint32_t>(p),
                     pod.generation);
      return;
    }
    SetPhase(sim, p, PodPhase::kServing);
    return;
  }
  // CUDA OOM at load: cudaMalloc fails, it is not a container OOM kill (docs/design.md §3.3).
  const std::string why = "CUDA out of memory loading the model: needs " +
                          std::to_string(pod.context_mib + pod.weights_mib) +
                          " MiB per card, quota " + std::to_string(pod.quota_mib) + " MiB";
  if (spec.on_load_oom == LoadOomReaction::kExit) {
    pod.restarts += 1;
    if (pod.phase != PodPhase::kCrashLoop) sim.recorder.PodEvent("CrashLoopBackOff", p, why);
    pod.message = why;
    StopContainer(sim, p);
    SetPhase(sim, p, PodPhase::kCrashLoop);
    // kubelet's restart back-off: 10 s doubling to a 5 min cap.
    const int doublings = std::min(pod.restarts - 1, 5);
    const SimTime backoff =
        std::min<SimTime>(10 * kNanosPerSecond << doublings, 300 * kNanosPerSecond);
    s.queue.Push(s.now + backoff, kContainerStart, static_cast<uint32_t>(p), pod.generation);
    return;
  }
  pod.message = why;
  if (spec.probe == ReadinessKind::kTcp) {
    sim.recorder.PodEvent("FakeReady", p,
                          why + "; the port-only readiness probe passes, every request fails");
    SetPhase(sim, p, PodPhase::kFakeReady);
  } else {
    sim.recorder.PodEvent("LoadOOM", p,
                          why + "; the model-aware readiness probe keeps the pod unready");
    SetPhase(sim, p, PodPhase::kUnready);
  }
}

void StopContainer(Simulator& sim, int32_t p) {
  PodRun& pod = sim.state.pods[p];
  if (!pod.in_p) return;
  sim.sharing.Touch(p);
  sim.sharing.ChangeMemory(p, -pod.used_mib, false);
  sim.sharing.LeaveCards(p);
  pod.context_ok = false;
}

void TurnReady(Simulator& sim, int32_t p) {
  PodRun& pod = sim.state.pods[p];
  if (pod.phase != PodPhase::kUnready || !pod.start_unready) return;
  pod.start_unready = false;
  pod.message.clear();
  SetPhase(sim, p, PodPhase::kServing);
}

void EvictPod(Simulator& sim, int32_t p, const std::string& why) {
  sim.AbortWork(p);
  StopContainer(sim, p);  // frees its memory, activations included; its cards go idle
  PodRun& pod = sim.state.pods[p];
  pod.model_loaded = false;
  pod.restarts = 0;  // the replacement is a new pod
  pod.message = why;
  SetPhase(sim, p, PodPhase::kPending);
}

}  // namespace knobsim::engine
