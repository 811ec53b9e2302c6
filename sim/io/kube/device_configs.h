// The GPU-sharing configs an export holds in ConfigMaps, read and applied to its nodes and pods:
//
//  * the NVIDIA device plugin's named configs (api/config/v1 Config, YAML or JSON under a data
//    key): sharing.timeSlicing / sharing.mps (replicas of nvidia.com/gpu, renameByDefault,
//    failRequestsGreaterThanOne) and flags.plugin.sharedDevicesAllocationPolicy. A node runs
//    the config its `nvidia.com/device-plugin.config` label names; without the label, the one
//    the GPU operator's ClusterPolicy names as default (spec.devicePlugin.config), else the
//    config manager's fallbacks as the chart sets them: the config named `default`, then the
//    only config (cmd/config-manager/main.go updateConfigName).
//  * HAMi's device config (data key device-config.yaml, its `nvidia:` part): the webhook's and
//    scheduler's defaults (defaultGPUNum, defaultMemory, defaultCores), memoryFactor, and
//    gpuCorePolicy, which the webhook writes into each admitted container as
//    GPU_CORE_UTILIZATION_POLICY.
//
// Which strings are configs: a data value that parses to a map of the plugin's top-level keys
// (version, flags, resources, sharing, imex) with `sharing` or `flags`; HAMi's by its key name.
// Nothing else of a ConfigMap is kept or shown (it may hold anything).
//
// The node's labels and capacity remain what the scheduler sees: a config that disagrees with
// them (a ConfigMap edited after the plugin started) is reported, and only a config that agrees
// adds what the labels cannot say (failRequestsGreaterThanOne, the allocation policy).
#pragma once

#include "sim/io/kube/object_meta.h"

namespace knobsim::kube {

// A ConfigMap: its device-plugin and HAMi configs into KubeObjects; other ConfigMaps are
// counted as skipped.
void ReadConfigMap(ObjectReader& r, const Field& object);

// The GPU operator's ClusterPolicy: spec.devicePlugin.config (name, default).
void ReadClusterPolicy(ObjectReader& r, const Field& object);

}  // namespace knobsim::kube

namespace knobsim {

// After every file is read: each node's selected device-plugin config onto its device_sharing,
// HAMi's device config onto HAMi nodes and the requests of pods and templates, and the core
// policy HAMi's pods carry; what disagrees or is ambiguous becomes a warning.
void ResolveDeviceConfigs(KubeObjects& objects);

}  // namespace knobsim
