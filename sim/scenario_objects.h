// The Kubernetes objects a scenario stands for: each node-pool node as the NodeSpec its kubelet
// and ACK's device plugin would report, each workload replica as the PodSpec its Deployment
// would create. Scenario pods go through the same scheduler as imported manifests.
#pragma once

#include <string>

#include "sim/kube_types.h"
#include "sim/scenario.h"

namespace knobsim {

// Node `ordinal` of pool `pool`, named "<pool>-<ordinal>" (as sim/cluster.h names it): the pool's
// labels plus kubernetes.io/hostname and topology.kubernetes.io/zone, its taints, allocatable
// cpu / memory / pods, and the GPU resources ACK's device plugin reports for its schedule label
// (docs/semantics.md §1.1-1.2): aliyun.com/gpu-mem = cards × floor(MiB / 1024) and
// aliyun.com/gpu-count on share / cgpu / core_mem nodes (plus gpu-core.percentage = 100 × cards on
// core_mem), and nvidia.com/gpu = cards on exclusive (default) nodes. Node `ordinal` of a pool: its
// listed name (`nodes`), else <pool>-<ordinal>; its zone: the listed one, else the pool's zones
// round-robin (empty when none).
// The ack.node.gpu.schedule value of `schedule`: default, share, cgpu, core_mem.
const char* GpuScheduleLabelValue(GpuSchedule schedule);

std::string PoolNodeName(const NodePool& pool, int ordinal);
std::string PoolNodeZone(const NodePool& pool, int ordinal);

// A pool with device_sharing offers cards × replicas nvidia.com/gpu; a MIG pool one device slot
// per instance, nvidia.com/gpu (single) or nvidia.com/mig-<profile> (mixed), card by card.
NodeSpec NodeSpecForPool(const Scenario& scenario, int pool, int ordinal);

// A DRA workload's pods name their claim under this entry of spec.resourceClaims: the
// ResourceClaim DraClaimName (shared) or the ResourceClaimTemplate of that name (a claim per pod,
// `<pod>-gpu`), in the workload's namespace. The run makes those objects
// (sim/controllers/placement.h DraCatalogForScenario).
inline constexpr const char* kDraClaimEntry = "gpu";
inline std::string DraClaimName(const Workload& w) {
  return w.name + "-gpu";
}

// A pool whose cards the NVIDIA device plugin advertises (its `device_sharing` and `mig` set, or
// neither: whole cards) runs no ACK GPU sharing: schedule default, no cGPU, and the memory
// isolation its mechanism gives — hard for MPS clients (a pinned memory limit) and MIG instances
// (memory of their own), soft for time-sliced replicas and whole cards. Labels are the caller's.
void UseDevicePluginCards(NodePool& pool);

// Replica `ordinal` of `workload`, named "<workload>-<ordinal>": one container whose requests
// are the workload's cpu / memory and whose limits carry its ACK GPU resources
// (aliyun.com/gpu-mem for the whole pod, aliyun.com/gpu-core.percentage per card times the
// cards, pod label aliyun.com/gpu-count) or nvidia.com/gpu (nvidia.com/mig-<profile> with
// `mig_profile`).
PodSpec PodSpecForWorkload(const Workload& workload, int ordinal);

// The StatefulSet object (scenario `kube:`) of a StatefulSet workload, or nullptr.
const StatefulSetSpec* StatefulSetOf(const Workload& workload, const ScenarioKube& kube);
// The claims of replica `ordinal`: a StatefulSet's `<template>-<name>-<ordinal>` for each claim
// template of `set`, else the workload's `volumes`.
std::vector<std::string> ReplicaClaims(const Workload& workload, const StatefulSetSpec* set,
                                       int ordinal);
// PodSpecForWorkload with the replica's claims where the scenario's `kube:` holds claims, so the
// volume plugins check them (docs/semantics.md §3.11); a scenario without claims gives none.
PodSpec ReplicaPodSpec(const Scenario& scenario, const Workload& workload, int ordinal);

}  // namespace knobsim
