// The objects of a Kubernetes export as plain types (sim/kube_types.h), each kind in file
// order with where each object was read. sim/io/kube_reader.h reads them from kubectl's output;
// they sit below the readers so that the scheduler's snapshot of them
// (sim/scheduler/cluster_state_builder.h) does not depend on sim/io.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/kube_autoscalers.h"
#include "sim/kube_types.h"

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
  std::vector<NamespaceSpec> namespaces;
  std::vector<PriorityClassSpec> priority_classes;
  std::vector<HorizontalPodAutoscalerObject> hpas;
  std::vector<CronHorizontalPodAutoscalerObject> cron_hpas;
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
  std::vector<ObjectSource> namespace_sources;
  std::vector<ObjectSource> priority_class_sources;
  std::vector<ObjectSource> hpa_sources;
  std::vector<ObjectSource> cron_hpa_sources;
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

}  // namespace knobsim
