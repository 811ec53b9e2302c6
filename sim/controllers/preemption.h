// Preemption in a run: the scheduler's DefaultPreemption (sim/scheduler/preemption.h) named a
// node and the lower-priority pods to evict there. Each victim gets a Preempted event and is
// deleted gracefully (termination.h: out of the endpoints, its requests in flight finish within
// the grace period or fail as interrupted) and its controller creates a replacement, which
// queues for the scheduler at its own, lower priority. The preemptor stays Pending, nominated to
// the node, and goes there first once the victims are gone (Terminate schedules the pending
// pods again); until then it may not preempt again ("not eligible due to a terminating pod on
// the nominated node").
#pragma once

#include <cstdint>

#include "sim/scheduler/preemption.h"

namespace knobsim::engine {

class Simulator;

void PreemptFor(Simulator& sim, int32_t preemptor, const PreemptionCandidate& candidate);

}  // namespace knobsim::engine
