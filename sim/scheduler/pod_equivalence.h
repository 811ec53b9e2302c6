// Pod equivalence for the Scheduler's equivalence cache, after kube-scheduler's own (1.10-1.12,
// pkg/scheduler/core/equivalence_cache.go): a node-local plugin — one whose verdict or raw score
// on a node depends only on the pod and on that node's own state — gives the same answer for
// two pods that agree on every field such plugins read. The Scheduler keeps those answers per
// (pod class, node) and recomputes them only on nodes whose NodeState::generation moved, so a
// stream of replicas of a few workloads costs a few table reads per node.
//
// The fields: requests and the non-zero scoring sums (NodeResourcesFit, BalancedAllocation),
// tolerations (NodeUnschedulable, TaintToleration), nodeSelector and node affinity
// (NodeAffinity), containers and images (ImageLocality), and the ACK GPU request (GPU share:
// per-container gpu-mem / gpu-core, gpu-count, nvidia.com/gpu, require-whole-device), host ports
// (NodePorts: the node's own pods' ports are node state), claims and, with claims, the namespace
// (VolumeBinding, VolumeZone: the storage objects do not change during a run). A plugin
// that starts reading another pod field must add it here. Namespace, labels and topology spread
// constraints are left out: PodTopologySpread counts other pods and runs every cycle.
#pragma once

#include <cstdint>

#include "sim/kube_types.h"

namespace knobsim {

// A hash of the fields above; equal for equivalent pods.
uint64_t NodeLocalHash(const PodSpec& pod);

// The pods agree on every field above.
bool SameNodeLocalInputs(const PodSpec& a, const PodSpec& b);

}  // namespace knobsim
