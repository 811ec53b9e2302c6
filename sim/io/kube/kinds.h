// One reader per kind of the Kubernetes export reader, each given the object (a mapping with
// `kind` already read) and returning its plain type of sim/kube_types.h:
//  * nodes.cpp: Node, with the GPU side ACK derives from its labels and capacity;
//  * pods.cpp: Pod, with requests, probes, container status and ACK's GPU fields;
//  * workloads.cpp: Deployment, ReplicaSet, StatefulSet, DaemonSet (its template only), Job, and
//    the pending pod a workload's template stands for;
//  * storage.cpp: PersistentVolumeClaim, PersistentVolume, StorageClass;
//  * budgets.cpp: PodDisruptionBudget, ResourceQuota, Namespace, PriorityClass;
//  * autoscalers.cpp: HorizontalPodAutoscaler;
//  * dra.cpp: ResourceSlice, DeviceClass, ResourceClaim, ResourceClaimTemplate (sim/kube_dra.h).
// kube_reader.cpp dispatches on `kind` and keeps each object with where it was read.
#pragma once

#include <optional>
#include <string>

#include "sim/io/kube/object_meta.h"
#include "sim/kube_types.h"

namespace knobsim::kube {

NodeSpec ReadNode(ObjectReader& r, const Field& object);

PodSpec ReadPod(ObjectReader& r, const Field& object);
// The pod spec proper, shared by pods and the pod templates of workload manifests; `labels`
// and `annotations` are the fields of the pod's (or template's) metadata.
void ReadPodBody(ObjectReader& r, const Field& spec, const std::optional<Field>& labels,
                 const std::optional<Field>& annotations, PodSpec& pod);

DeploymentSpec ReadDeployment(ObjectReader& r, const Field& object);
ReplicaSetSpec ReadReplicaSet(ObjectReader& r, const Field& object);
StatefulSetSpec ReadStatefulSet(ObjectReader& r, const Field& object);
JobSpec ReadJob(ObjectReader& r, const Field& object);
// Keeps a DaemonSet's pod template (KubeObjects::template_pods); the object adds nothing else.
void ReadDaemonSet(ObjectReader& r, const Field& object);

PersistentVolumeClaimSpec ReadPvc(ObjectReader& r, const Field& object);
PersistentVolumeSpec ReadPv(ObjectReader& r, const Field& object);
StorageClassSpec ReadStorageClass(ObjectReader& r, const Field& object);

PodDisruptionBudgetSpec ReadPdb(ObjectReader& r, const Field& object);
ResourceQuotaSpec ReadResourceQuota(ObjectReader& r, const Field& object);
NamespaceSpec ReadNamespace(ObjectReader& r, const Field& object);
PriorityClassSpec ReadPriorityClass(ObjectReader& r, const Field& object);

// Dynamic Resource Allocation (dra.cpp).
ResourceSliceSpec ReadResourceSlice(ObjectReader& r, const Field& object);
DeviceClassSpec ReadDeviceClass(ObjectReader& r, const Field& object);
ResourceClaimSpec ReadResourceClaim(ObjectReader& r, const Field& object);
ResourceClaimTemplateSpec ReadResourceClaimTemplate(ObjectReader& r, const Field& object);
// A pod's spec.resourceClaims, and status.resourceClaimStatuses (the claims made from templates).
void ReadPodResourceClaims(ObjectReader& r, const Field& spec, PodSpec& pod);
void ReadPodResourceClaimStatuses(ObjectReader& r, const Field& status, PodSpec& pod);

HorizontalPodAutoscalerObject ReadHorizontalPodAutoscaler(ObjectReader& r, const Field& object);
CronHorizontalPodAutoscalerObject ReadCronHorizontalPodAutoscaler(ObjectReader& r,
                                                                  const Field& object);

}  // namespace knobsim::kube
