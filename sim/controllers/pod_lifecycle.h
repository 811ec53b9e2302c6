// A pod's life on its node, as kubelet runs it (docs/design.md §3.3): the container starts (it
// joins P on its cards and allocates its CUDA context), the model loads (its weights are allocated
// at the end of the load), and the pod becomes Ready — or the load fails with a CUDA OOM and the
// pod reacts as its workload says: `stay_up` gives a fake-Ready pod behind a port-only probe and
// an Unready one behind a model-aware probe; `exit` restarts into CrashLoopBackOff (10 s
// doubling to 5 min). Events: kContainerStart, kLoadDone, kPodReady (sim/engine/simulator.h).
#pragma once

#include <cstdint>
#include <string>

namespace knobsim::engine {

class Simulator;

void StartContainer(Simulator& sim, int32_t p);  // its image is on the node
void FinishLoad(Simulator& sim, int32_t p);
// The container stops: its memory is freed (activations included) and it leaves P.
void StopContainer(Simulator& sim, int32_t p);
// A pod unready when the run starts (CurrentPod::ready_after) turns Ready, if still waiting.
void TurnReady(Simulator& sim, int32_t p);
// The pod's node is gone: it stops whatever it was doing (its requests fail as `interrupted`)
// and waits, Pending, for its node to come back (the ReplicaSet's replacement lands there
// again: assumption, nothing else takes that capacity meanwhile).
void EvictPod(Simulator& sim, int32_t p, const std::string& why);

}  // namespace knobsim::engine
