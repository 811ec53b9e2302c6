// The Pending queue: pods the scheduler could not place (or not yet: replacements) wait in
// EngineState::pending and go through the scheduler (sim/scheduler) again, higher priority
// first, then oldest first, whenever capacity may have appeared — a pod gone, a node uncordoned
// or back. A pod bound to a node that is up starts there (image_pulls.h). A pod that fits
// nowhere may preempt lower-priority pods (preemption.h) and waits for them, nominated.
#pragma once

namespace knobsim::engine {

class Simulator;

void SchedulePending(Simulator& sim);

}  // namespace knobsim::engine
