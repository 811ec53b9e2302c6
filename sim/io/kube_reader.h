// Reads Kubernetes Nodes and Pods the way kubectl prints them (`kubectl get -o yaml` or
// `-o json`): single objects, multi-document YAML and `kind: List` envelopes, into the
// scheduler's NodeSpec and PodSpec (semantics.md §5.1-5.3, §1.1-1.3, §3.2).
//
// The reader is lenient where real exports are noisy and strict where a value matters:
// unknown fields (managedFields, status.conditions, env, probes, ...) are ignored, kinds other
// than Node and Pod are counted and skipped, but a field it reads with the wrong type or a
// value Kubernetes would reject (`cpu: 2 cores`, an unknown taint effect, an allocation
// annotation that is not the ACK JSON) is an InputError naming the file, the line and the field
// path (`items[3].spec.containers[0].resources.limits.cpu`). Error messages and warnings never
// quote values the reader does not parse: env values and unrelated annotations stay private.
//
// Derived fields (see the comments in kube_reader.cpp for the details and their sources):
//  * Node GPU side: ack.node.gpu.schedule (absent = "default"; the legacy labels cgpu=true and
//    gpushare=true read as cgpu and share), cards from capacity aliyun.com/gpu-count (else
//    nvidia.com/gpu, else aliyun.com/gpu), per-card units floor(capacity gpu-mem / cards) and
//    gpu-core.percentage / cards from status.capacity as ACK reads them, placement label
//    normalised (ack-binpack -> binpack, ack-spread -> spread), ack.node.gpu.max-pod.
//  * Pod requests: max(Σ containers, init containers) + overhead, upstream's PodRequests
//    including restartable (sidecar) init containers, after the API server's defaulting of
//    missing requests to limits; the non-zero scoring sums with 100m / 200Mi per container.
//  * ACK: per-container gpu-mem / gpu-core.percentage from limits of spec.containers, the pod
//    label aliyun.com/gpu-count, nvidia.com/gpu, ack.gpushare.placement, and the allocation of
//    bound pods from the v2, v3 or v1 annotations (semantics.md §1.3).
//  * Required node affinity `matchFields` (only metadata.name exists) become requirements on the
//    key "metadata.name"; the NodeAffinity filter matches that key against the node's name.
//  * A topology spread constraint without labelSelector matches no pod, as upstream's nil
//    selector (labels.Nothing()); it is stored as the never-matching requirement
//    {key: "", op: In, values: {}} so every selector matcher gets it right.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

// Where an object was read, for messages about it.
struct ObjectSource {
  std::string file;
  int line = 0;  // 1-based line of the object's first key
};

struct KubeObjects {
  std::vector<NodeSpec> nodes;               // in file order
  std::vector<PodSpec> pods;                 // in file order, bound and pending alike
  std::vector<ObjectSource> node_sources;    // parallel to nodes
  std::vector<ObjectSource> pod_sources;     // parallel to pods
  std::map<std::string, int> skipped_kinds;  // kind -> objects skipped (Deployment, ...)
  // Things read that are valid Kubernetes but probably not what was meant, e.g. `memory: 128m`
  // (128 millibytes). "file:line: field: text".
  std::vector<std::string> warnings;
};

// Reads the files in order into one set of objects (`-` reads standard input). A Node or a Pod
// (namespace/name) that appears twice is an error naming both places.
Expected<KubeObjects> ReadKubeFiles(const std::vector<std::string>& paths);
Expected<KubeObjects> ReadKubeFile(const std::string& path);

// Reads YAML or JSON text; `file_name` is what errors and sources call it.
Expected<KubeObjects> ReadKubeString(const std::string& text, const std::string& file_name);

// The pods the scheduler would still place: no spec.nodeName, not Succeeded or Failed, not
// being deleted. In file order.
std::vector<PodSpec> PendingPods(const KubeObjects& objects);

// The scheduler's snapshot: every node in file order, then every bound pod whose phase is not
// Succeeded or Failed (those occupy nothing), bound where its nodeName and ACK allocation say
// (ClusterState::BindExisting). Pods bound to a node not in `objects`, and allocations naming
// cards the node lacks, are skipped with a line in `warnings` when given.
ClusterState BuildClusterState(const KubeObjects& objects,
                               std::vector<std::string>* warnings = nullptr);

}  // namespace knobsim
