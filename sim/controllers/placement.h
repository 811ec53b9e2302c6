// Placement at t = 0 and binding. Every replica goes through the scheduler (sim/scheduler), in
// the order a scheduling queue would take them: higher priority first, then workload order and
// replica ordinal (creation). Pods that already run somewhere (an imported cluster's `pods`)
// stay there while it still fits — kubelet does not move running pods — and are bound before
// the scheduler places anyone. A placed pod starts (its image is on its node already: the
// startup `image_pull` stands for the start-up the run replays); one that does not fit waits
// in the Pending queue. The FGD fragmentation of the placement goes to the RunRecorder.
#pragma once

#include <cstdint>

#include "sim/scheduler/scheduler.h"

namespace knobsim::engine {

class Simulator;

// Creates the pods and places them; builds the scheduler the run keeps.
void PlacePods(Simulator& sim);
// The run's side of a binding (the scheduler's state is bound already): node, cards, and the
// memory and share parameters of the pod on them.
void BindPod(Simulator& sim, int32_t p, const Placement& placement);
// The kubelet's admission once the scheduler bound pod p at `placement`: where the node's device
// plugin refuses the pod's request (DeviceAdmissionError, card_placement.h) the pod fails with
// UnexpectedAdmissionError — phase Failed, unbound, holding nothing, not replaced (its
// ReplicaSet's replacement would fail the same way on such a node; knobsim keeps the one failed
// pod, listed with its reason) — and this returns false.
bool AdmitOnNode(Simulator& sim, int32_t p, const Placement& placement);

}  // namespace knobsim::engine
