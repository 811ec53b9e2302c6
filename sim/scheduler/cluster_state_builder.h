// The scheduler's snapshot of a Kubernetes export: the objects sim/io/kube_reader.h reads
// (sim/kube_objects.h) as a ClusterState with the running pods bound where they run.
#pragma once

#include <string>
#include <vector>

#include "sim/kube_objects.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

// Every node in file order, the storage objects (VolumeCatalog), then every bound pod whose phase is not Succeeded or Failed (those
// occupy nothing), bound where its nodeName and ACK allocation say (ClusterState::BindExisting).
// Pods bound to a node not in `objects`, and allocations naming cards the node lacks, are
// skipped with a line in `warnings` when given ("file:line: pod ns/name: text").
ClusterState BuildClusterState(const KubeObjects& objects,
                               std::vector<std::string>* warnings = nullptr);

}  // namespace knobsim
