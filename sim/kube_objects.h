// The objects of a Kubernetes export as plain types (sim/kube_types.h), each kind in file
// order with where each object was read. sim/io/kube_reader.h reads them from kubectl's output;
// they sit below the readers so that the scheduler's snapshot of them
// (sim/scheduler/cluster_state_builder.h) does not depend on sim/io.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube_autoscalers.h"
#include "sim/kube_dra.h"
#include "sim/kube_types.h"

namespace knobsim {

// Where an object was read, for messages about it.
struct ObjectSource {
  std::string file;
  int line = 0;  // 1-based line of the object's first key
};

// One named config of the NVIDIA device plugin (api/config/v1 Config), as a ConfigMap holds it
// under a data key; a node selects a key with its nvidia.com/device-plugin.config label. Only
// what decides how cards are shared is kept.
struct DevicePluginConfig {
  std::string config_map;  // "namespace/name"
  std::string key;         // the data key: the config's name
  ObjectSource source;     // the line of the data key
  // Sharing.SharingStrategy(): MPS where sharing.mps replicates, else time-slicing where
  // sharing.timeSlicing does, else none (replicas 1).
  DeviceSharingStrategy strategy = DeviceSharingStrategy::kNone;
  int replicas = 1;  // of nvidia.com/gpu
  bool rename_by_default = false;
  // As NewConfig resolves it: the config's value, else true under MPS and false otherwise.
  bool fail_requests_greater_than_one = false;
  // flags.plugin.sharedDevicesAllocationPolicy; absent: the plugin's flag (distributed unless
  // its command line says otherwise).
  std::optional<ReplicaAllocation> allocation;
  bool operator==(const DevicePluginConfig& o) const {
    return strategy == o.strategy && replicas == o.replicas &&
           rename_by_default == o.rename_by_default &&
           fail_requests_greater_than_one == o.fail_requests_greater_than_one &&
           allocation == o.allocation;
  }
};

// The GPU operator's ClusterPolicy, for the one thing it says about the device plugin's
// configs: spec.devicePlugin.config (which ConfigMap, and the config nodes without the label use).
struct DevicePluginConfigRef {
  std::string config_map;   // the ConfigMap's name (in the operator's namespace)
  std::string default_key;  // empty: the config manager's fallbacks
  ObjectSource source;
};

// The NVIDIA part of HAMi's device config (the scheduler's `<release>-device` ConfigMap, data key
// device-config.yaml; pkg/device/nvidia NvidiaConfig): the defaults its webhook and scheduler
// apply to requests, the memory factor, and the core policy the webhook hands to HAMi-core.
struct HamiDeviceConfig {
  std::string config_map;  // "namespace/name"
  ObjectSource source;
  int default_gpu_num = 1;
  int64_t default_memory_mib = 0;
  int default_cores = 0;
  int64_t memory_factor = 1;
  HamiCorePolicy core_policy = HamiCorePolicy::kDefault;
  bool operator==(const HamiDeviceConfig& o) const {
    return default_gpu_num == o.default_gpu_num && default_memory_mib == o.default_memory_mib &&
           default_cores == o.default_cores && memory_factor == o.memory_factor &&
           core_policy == o.core_policy;
  }
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
  // Dynamic Resource Allocation (sim/kube_dra.h), each kind in file order.
  std::vector<ResourceSliceSpec> resource_slices;
  std::vector<DeviceClassSpec> device_classes;
  std::vector<ResourceClaimSpec> resource_claims;
  std::vector<ResourceClaimTemplateSpec> resource_claim_templates;
  std::vector<ObjectSource> resource_slice_sources;
  std::vector<ObjectSource> device_class_sources;
  std::vector<ObjectSource> resource_claim_sources;
  std::vector<ObjectSource> resource_claim_template_sources;
  // The GPU-sharing configs ConfigMaps hold (sim/io/kube/device_configs.h), and the ClusterPolicy's
  // reference to the device plugin's; ResolveDeviceConfigs applies them to nodes and pods.
  std::vector<DevicePluginConfig> device_plugin_configs;
  std::vector<DevicePluginConfigRef> device_plugin_config_refs;
  std::vector<HamiDeviceConfig> hami_device_configs;
  // Node name -> the config its sharing was read with ("ConfigMap ns/name, config K"), for the
  // imported pool's comment; absent: the device plugin's or HAMi's defaults.
  std::map<std::string, std::string> device_config_of_node;
  std::map<std::string, int> skipped_kinds;  // kind -> objects skipped (DaemonSet, Service, ...)
  // Things read that are valid Kubernetes but probably not what was meant, e.g. `memory: 128m`
  // (128 millibytes), and annotations dropped as secrets. "file:line: field: text".
  std::vector<std::string> warnings;
};

}  // namespace knobsim
