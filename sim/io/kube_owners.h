// Which workload each pod of an export belongs to, following metadata.ownerReferences the way
// Kubernetes' controllers do (docs/semantics.md §5.3-5.4): Pod -> ReplicaSet -> Deployment,
// Pod -> StatefulSet, Pod -> Job -> CronJob, Pod -> DaemonSet or any other controller.
//
// The link followed is the owner reference with `controller: true`, as upstream's
// GetControllerOf; a pod whose only owner reference lacks the flag (a hand-trimmed export) uses
// that one, with a warning. A pod with no owner is its own workload (kind "Pod").
//
// Exports are not always whole, so a missing link is filled in where Kubernetes' naming makes it
// certain enough, and said so in a warning:
//  * a ReplicaSet absent from the export: a Deployment's ReplicaSet is named
//    `<deployment>-<pod-template-hash>`, and its pods carry that hash as the label
//    `pod-template-hash`; when the owner's name ends in `-<hash>`, the workload is that
//    Deployment. Without the label the workload is the ReplicaSet itself.
//  * a Deployment, ReplicaSet or StatefulSet named by a reference but absent from the export
//    keeps its kind and name; its spec_replicas stays -1 (unknown).
// A Job absent from the export stays a Job (kubectl get ... does not list Jobs by default, and
// a Job's CronJob is known only from the Job's own owner reference), without a warning.
#pragma once

#include <string>
#include <vector>

#include "sim/io/kube_reader.h"

namespace knobsim {

struct WorkloadRef {
  std::string kind;  // Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob, Pod, ...
  std::string ns;
  std::string name;
};

struct OwnedPods {
  WorkloadRef workload;
  std::vector<int> pods;  // indexes into KubeObjects::pods, in file order
  // spec.replicas of the Deployment, StatefulSet or (owner-less) ReplicaSet when the export
  // holds it; -1 for other kinds (a DaemonSet's count follows the nodes) and missing objects.
  int spec_replicas = -1;
};

// Every pod of `objects` in exactly one group; groups ordered by namespace, kind, name.
// `warnings` (when given) receives "file:line: pod ns/name: text" for each gap filled in, once
// per missing object.
std::vector<OwnedPods> GroupPodsByWorkload(const KubeObjects& objects,
                                           std::vector<std::string>* warnings = nullptr);

}  // namespace knobsim
