// The Service's endpoints, as the EndpointSlice controller keeps them: a pod is an endpoint
// while Ready and not terminating (a fake-Ready pod included); it is available while it also has
// its model loaded (a fake-Ready pod never is). WorkloadRun::ready (sorted by pod id, the order
// routing draws from) and WorkloadRun::available follow every change of a pod's phase or
// terminating state; the RunRecorder integrates the counts they had just before.
#pragma once

#include <cstdint>

#include "sim/engine/engine_state.h"

namespace knobsim::engine {

class Simulator;

struct Endpoint {
  bool ready = false, available = false;
  bool operator==(const Endpoint&) const = default;
};

Endpoint EndpointOf(const EngineState& state, int32_t p);
// After a change to pod p that may move its endpoint: `before` is what EndpointOf said before.
void MoveEndpoint(Simulator& sim, int32_t p, Endpoint before);
// The pod's phase changes; its endpoint follows, and so do its start time and Ready condition
// (PodRun::started_at, ready_changed).
void SetPhase(Simulator& sim, int32_t p, PodPhase phase);

}  // namespace knobsim::engine
