// Replacement, as a workload's controller does it: a Deployment's (or a bare ReplicaSet's)
// replacement is a new pod named <workload>-r<N> (N counts the workload's replacements in the
// run), created when the old pod is deleted; a StatefulSet's keeps the old pod's name and is
// created once the old pod is gone; a bare Pod, a Job's or a DaemonSet's pod is not replaced.
// The replacement stands for the same replica ordinal and joins the Pending queue.
#pragma once

#include <cstdint>

namespace knobsim::engine {

class Simulator;

// Creates the replacement of pod `old` (the caller decides whether its kind replaces it).
// Invalidates references into EngineState::pods.
void CreateReplacement(Simulator& sim, int32_t old);

}  // namespace knobsim::engine
