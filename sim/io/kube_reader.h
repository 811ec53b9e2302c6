// Reads a Kubernetes cluster export the way kubectl prints it (`kubectl get -o yaml` or `-o json`
// of nodes,pods,deploy,rs,sts,pdb,pvc,pv,sc,resourcequota): single objects, multi-document YAML,
// `kind: List` envelopes and concatenated JSON documents (semantics.md §5.1-5.4, §1.1-1.3, §3.2).
// Nodes and Pods become the scheduler's NodeSpec and PodSpec; Deployments, ReplicaSets,
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
// manifest, env values included) and every annotation LooksLikeSecret flags, counting the latter
// in one warning per file that names keys, never values; and its messages never quote a value
// from those places.
//
// JSON, the form of large exports, is parsed by a small position-keeping parser of this reader
// (a 10 000-pod export in about half a second); YAML goes through yaml-cpp's parser (the same
// export as YAML takes ~8 s there). Both land in one tree, so both forms read to the same
// objects, each with the lines of its own text.
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
//  * Pod claims: spec.volumes[].persistentVolumeClaim.claimName, and `<pod>-<volume>` for a
//    generic ephemeral volume (the name its controller gives the claim).
//  * ResourceQuota keys keep their spelling; amounts use the units of the resource they name
//    (`requests.cpu: 64` is 64000 millicores, `requests.storage: 1Ti` bytes).
#pragma once

#include <map>
#include <string>
#include <string_view>
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
  std::vector<NodeSpec> nodes;              // in file order
  std::vector<PodSpec> pods;                // in file order, bound and pending alike
  std::vector<DeploymentSpec> deployments;  // each kind in file order
  std::vector<ReplicaSetSpec> replica_sets;
  std::vector<StatefulSetSpec> stateful_sets;
  std::vector<JobSpec> jobs;
  std::vector<PodDisruptionBudgetSpec> pdbs;
  std::vector<PersistentVolumeClaimSpec> pvcs;
  std::vector<PersistentVolumeSpec> pvs;
  std::vector<StorageClassSpec> storage_classes;
  std::vector<ResourceQuotaSpec> resource_quotas;
  // Where each object was read, parallel to its vector above.
  std::vector<ObjectSource> node_sources;
  std::vector<ObjectSource> pod_sources;
  std::vector<ObjectSource> deployment_sources;
  std::vector<ObjectSource> replica_set_sources;
  std::vector<ObjectSource> stateful_set_sources;
  std::vector<ObjectSource> job_sources;
  std::vector<ObjectSource> pdb_sources;
  std::vector<ObjectSource> pvc_sources;
  std::vector<ObjectSource> pv_sources;
  std::vector<ObjectSource> storage_class_sources;
  std::vector<ObjectSource> resource_quota_sources;
  // The pod template of each Deployment and StatefulSet as a pending pod named after its owner
  // (one controller owner reference to it), for inputs that hold manifests but not their pods
  // (a config repository). Not in `pods`: a live export's pods are there.
  std::vector<PodSpec> template_pods;
  std::vector<ObjectSource> template_pod_sources;  // the line of spec.template
  std::map<std::string, int> skipped_kinds;  // kind -> objects skipped (DaemonSet, Service, ...)
  // Things read that are valid Kubernetes but probably not what was meant, e.g. `memory: 128m`
  // (128 millibytes), and annotations dropped as secrets. "file:line: field: text".
  std::vector<std::string> warnings;
};

// Reads the files in order into one set of objects (`-` reads standard input). An object of a
// kind read here that appears twice (same kind, namespace and name) is an error naming both
// places.
Expected<KubeObjects> ReadKubeFiles(const std::vector<std::string>& paths);
Expected<KubeObjects> ReadKubeFile(const std::string& path);

// Reads YAML or JSON text; `file_name` is what errors and sources call it.
Expected<KubeObjects> ReadKubeString(const std::string& text, const std::string& file_name);

// Whether an annotation (or any key/value pair from a manifest) probably holds a credential:
// the key names one (token, secret, password, passwd, credential, key, auth), or the value
// holds something shaped like one wherever it sits in the text — a JWT, an AWS access key id
// (AKIA…/ASIA…), an `sk-`/`sk_` API key, a GitHub or Slack token, a PEM private key, a URL with
// a password — or the whole value is a long base64 or hex blob (32+ characters with a run of 24
// letters and digits; UUIDs are identifiers, not blobs). Tuned to miss no credential at the
// price of dropping a checksum now and then; "true", "false" and empty values are never secret.
bool LooksLikeSecret(std::string_view key, std::string_view value);

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
