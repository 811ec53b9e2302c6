// Deletion and termination (docs/upgrade.md): a deleted pod (deletionTimestamp set) leaves its
// Service's endpoints at once, gets no more pulls, loads or restarts, and finishes the requests
// it holds for up to RunOptions::termination_grace; then it is gone (kTerminated): what is still
// in flight fails as `interrupted`, its GPU memory and its node resources are freed, the
// ClusterOperator hears PodGone, and the Pending pods are scheduled again. A pod with nothing in
// flight is gone at the instant it is deleted. Its controller replaces it (replacement.h): a
// ReplicaSet at deletion, a StatefulSet once the old pod is gone.
#pragma once

#include <cstdint>
#include <string>

namespace knobsim::engine {

class Simulator;

// Deleting a terminating or gone pod (or an unknown id) does nothing.
void DeletePod(Simulator& sim, int32_t p, const std::string& why);
// kTerminated: the grace period is over, or the last request left.
void Terminate(Simulator& sim, int32_t p);

}  // namespace knobsim::engine
