// The Service's endpoints, as the EndpointSlice controller keeps them: a pod is an endpoint
// while Ready and not terminating (a fake-Ready pod included); it is available while it also has
// its model loaded (a fake-Ready pod never is). Beside them the pods that wait: a pod is Pending
// while it exists, is neither terminating nor refused by its node's kubelet, and has not started
// on a node that is up — waiting for the scheduler (or for a node the cluster-autoscaler
// provisions), or bound to a node that went down (a spot reclaim, an operator's reset).
// WorkloadRun::ready (sorted by pod id, the order routing draws from), WorkloadRun::available and
// WorkloadRun::pending follow every change of a pod's phase, terminating or admission state, and
// every pod created (PodCreated); the RunRecorder integrates the counts they had just before.
#pragma once

#include <cstdint>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

struct Endpoint {
  bool ready = false, available = false;
  bool pending = false;  // not an endpoint: a Pending pod (above), for the timeline
  bool operator==(const Endpoint&) const = default;
};

Endpoint EndpointOf(const EngineState& state, int32_t p);
// After a change to pod p that may move its endpoint: `before` is what EndpointOf said before.
void MoveEndpoint(Simulator& sim, int32_t p, Endpoint before);
// The pod's phase changes; its endpoint follows, and so do its start time and Ready condition
// (PodRun::started_at, ready_changed).
void SetPhase(Simulator& sim, int32_t p, PodPhase phase);
// Pod p was just created (Pending): it enters the counts.
void PodCreated(Simulator& sim, int32_t p);

}  // namespace knobsim::engine
