// Reads a Kubernetes cluster export the way kubectl prints it (`kubectl get -o yaml` or `-o json`
// of nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota): single objects, multi-document YAML,
// `kind: List` envelopes and concatenated JSON documents (docs/semantics.md §5.1-5.4, §1.1-1.3,
// §3.2). Nodes and Pods become the scheduler's NodeSpec and PodSpec; Deployments, ReplicaSets,
// StatefulSets, Jobs, PodDisruptionBudgets, PersistentVolumeClaims, PersistentVolumes,
// StorageClasses and ResourceQuotas their plain types of sim/kube_types.h.
//
// The reader is lenient where real exports are noisy and strict where a value matters:
// unknown fields (managedFields, env, ...) are ignored, other kinds are counted and skipped,
// but a field it reads with the wrong type or a value Kubernetes would reject (`cpu: 2 cores`,
// an unknown taint effect, a PDB with both minAvailable and maxUnavailable, an allocation
// annotation that is not the ACK JSON) is an InputError naming the file, the line and the field
// path (`items[3].spec.containers[0].resources.limits.cpu`).
//
// Privacy: an export holds credentials (env values, probe commands and headers, tokens in
// annotations). The reader never stores env, imagePullSecrets, probe arguments, HTTP headers or
// query strings; it drops kubectl's last-applied-configuration annotation (a copy of the
// manifest, env values included) and every annotation LooksLikeSecret (sim/io/kube/
// secret_filter.h) flags, counting the latter in one warning per file that names keys, never
// values; and its messages never quote a value from those places.
//
// JSON, the form of large exports, is parsed by the position-keeping parser of
// sim/io/document_tree.h (a 10 000-pod export in about half a second); YAML goes through
// yaml-cpp's parser (the same export as YAML takes ~8 s there). Both land in one tree, so both
// forms read to the same objects, each with the lines of its own text.
//
// Where things are: this file's kube_reader.cpp dispatches on `kind`; sim/io/kube/ holds the
// field machinery (fields.h), the metadata block every kind shares (object_meta.h), resources,
// selectors, ACK's allocation annotations and one reader per kind or family (kinds.h). The
// scheduler's snapshot of the objects is sim/scheduler/cluster_state_builder.h.
//
// Derived fields (see the comments in sim/io/kube/ for the details and their sources):
//  * Node GPU side: ack.node.gpu.schedule (absent = "default"; the legacy labels cgpu=true and
//    gpushare=true read as cgpu and share), cards from capacity aliyun.com/gpu-count (else
//    nvidia.com/gpu), per-card units floor(capacity gpu-mem / cards) and
//    gpu-core.percentage / cards from status.capacity as ACK reads them, placement label
//    normalised (ack-binpack -> binpack, ack-spread -> spread), ack.node.gpu.max-pod.
//  * Pod requests: max(Σ containers, init containers) + overhead, upstream's PodRequests
//    including restartable (sidecar) init containers, after the API server's defaulting of
//    missing requests to limits; the non-zero scoring sums with 100m / 200Mi per container.
//  * ACK: per-container gpu-mem / gpu-core.percentage from limits of spec.containers, the pod
//    label aliyun.com/gpu-count, nvidia.com/gpu, ack.gpushare.placement, and the allocation of
//    bound pods from the v2, v3 or v1 annotations (docs/semantics.md §1.3).
//  * GPU sharing modes knobsim does not model (HAMi, NVIDIA time-slicing and MPS, MIG, ACK's
//    mps / topology / mig schedules and aliyun.com/gpu) are an InputError at the key of the node
//    or pod that shows them (sim/io/kube/gpu_sharing_modes.h, docs/semantics.md §2.5).
//  * Required node affinity `matchFields` (only metadata.name exists) become requirements on the
//    key "metadata.name"; the NodeAffinity filter matches that key against the node's name.
//  * A topology spread constraint without labelSelector matches no pod, as upstream's nil
//    selector (labels.Nothing()); it is stored as the never-matching requirement
//    {key: "", op: In, values: {}} so every selector matcher gets it right.
//  * Pod claims: spec.volumes[].persistentVolumeClaim.claimName, and `<pod>-<volume>` for a
//    generic ephemeral volume (the name its controller gives the claim).
//  * ResourceQuota keys keep their spelling; amounts use the units of the resource they name
//    (`requests.cpu: 64` is 64000 millicores, `requests.storage: 1Ti` bytes).
#pragma once

#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/io/kube/secret_filter.h"  // LooksLikeSecret, for the readers' callers too
#include "sim/kube_objects.h"
#include "sim/kube_types.h"
#include "sim/text.h"  // kMaxInputBytes

namespace knobsim {

// Reads the files in order into one set of objects (`-` reads standard input). An object of a
// kind read here that appears twice (same kind, namespace and name) is an error naming both
// places. A JSON or YAML file larger than `stream_above` bytes (the input limit,
// docs/limits.md) is streamed a List item at a time (sim/io/json_stream.h, yaml_stream.h)
// rather than refused: the same objects, warnings and errors, in bounded memory.
// Pods without spec.priority (manifests, not exports) take it from their PriorityClass, found
// among the objects read or in `known_classes` (the cluster's, when pods come in another file).
Expected<KubeObjects> ReadKubeFiles(const std::vector<std::string>& paths,
                                    const std::vector<PriorityClassSpec>& known_classes = {},
                                    size_t stream_above = kMaxInputBytes);
Expected<KubeObjects> ReadKubeFile(const std::string& path,
                                   const std::vector<PriorityClassSpec>& known_classes = {});

// The Priority admission plugin's part for pods read without spec.priority (ReadKubeFiles does
// it): the value of the class they name (the objects', `known`, or a built-in system class), or
// of the global default class when they name none, and that class's preemption policy unless the
// pod sets one. A class found nowhere leaves priority 0 with a warning.
void ResolvePriorityClasses(KubeObjects& objects, const std::vector<PriorityClassSpec>& known);

// Reads YAML or JSON text; `file_name` is what errors and sources call it.
Expected<KubeObjects> ReadKubeString(const std::string& text, const std::string& file_name);

// The pods the scheduler would still place: no spec.nodeName, not Succeeded or Failed, not
// being deleted. In file order.
std::vector<PodSpec> PendingPods(const KubeObjects& objects);

}  // namespace knobsim
