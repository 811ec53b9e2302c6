// Extended resources backed by DRA (DRAExtendedResource, KEP-5004; beta and on by default from
// Kubernetes 1.36, pkg/features/kube_features.go): a pod asking an extended resource such as
// nvidia.com/gpu that a DeviceClass names — its `extendedResourceName`, or the implicit
// `deviceclass.resource.kubernetes.io/<class>` — gets it on a node whose allocatable lacks the
// resource (no device plugin offers it there) from a claim the scheduler makes for the pod
// (upstream pkg/scheduler/framework/plugins/dynamicresources/extendedresources.go; the class
// lookup is dynamic-resource-allocation's deviceclass/extendedresourcecache).
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/kube_types.h"

namespace knobsim::dra {

// The first release where the gate is on by default.
inline constexpr int kDraExtendedResourceMinor = 36;

// The class that backs `resource`: an explicit extendedResourceName, or the implicit name;
// nullptr when none. Two classes naming the same resource: upstream prefers the newer (by
// creation time), then the lower name; creation times are not kept here, so the lower name
// wins **[simplification]**.
const DeviceClassSpec* ExtendedResourceClass(std::span<const DeviceClassSpec> classes,
                                             std::string_view resource);

// Whether `node` leaves `resource` to DRA (upstream ShouldDelegateResourceToDRA): the gate is on
// at 1.`minor`, a class backs the resource, and the node's allocatable has none of it.
bool DelegatedToDra(std::string_view resource, const NodeSpec& node,
                    std::span<const DeviceClassSpec> classes, int minor);

// The device-plugin resource a pod's whole GPUs are (nvidia.com/gpu, or its device_resource).
std::string WholeGpuResource(const PodSpec& pod);

// The requests of the claim for the pod's extended resources that `delegated` (resource ->
// class) says the node serves through DRA, as upstream's createRequestsAndMappings names and
// counts them: resources in name order; for each, one request per long-lived container
// (regular, or a sidecar init container) that asks it, `container-<i>-request-<j>` (i the
// container's index in initContainers + containers, j the resource's index among the
// container's requests by name) for its count; and one request for the largest count the
// short-lived init containers ask beyond what the long-lived containers after them hold.
// Requests sorted by name. A pod built from a scenario (no container_requests) is one
// container holding `requests`.
std::vector<DraRequest> ExtendedResourceRequests(
    const PodSpec& pod, const std::map<std::string, const DeviceClassSpec*>& delegated);

}  // namespace knobsim::dra
