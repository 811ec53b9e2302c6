// Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1, GA in 1.34) as plain types: the
// devices drivers publish in ResourceSlices, the DeviceClasses that name kinds of device, and the
// ResourceClaims (and their templates) pods ask through. Field names and meanings are the API's
// (k8s.io/api resource/v1/types.go); the reader is sim/io/kube/dra.cpp, the allocator
// sim/scheduler/dra/, and docs/semantics.md §6 says what is modelled.
//
// Conventions:
//  * Quantities (capacity, counters, capacity requests) are signed milli-units, as
//    sim/quantity.h ParseQuantityMilli reads them (`80Gi` -> 85899345920000).
//  * Attribute and capacity names are fully qualified, `<domain>/<id>`: a name the slice wrote
//    without a domain belongs to the driver's domain, as the API defines it (the reader
//    qualifies it), so `model` of driver `gpu.nvidia.com` is `gpu.nvidia.com/model`.
//  * CEL selectors are kept as their expression text; sim/scheduler/dra/cel.h compiles them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube_types.h"

namespace knobsim {

// v1.NodeSelector, as NodeAffinity::required_terms holds it: terms ORed, a term's requirements
// ANDed; a matchFields requirement is one on the key "metadata.name" (the only node field, and how
// the allocation result of a node-local device pins its node), matched against the node's name.
using DraNodeSelector = std::vector<std::vector<NodeSelectorRequirement>>;

// DeviceAttribute: exactly one value of one kind, or (the list fields ints, bools, strings,
// versions) a list of one kind.
struct DraAttribute {
  enum class Kind { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kString;
  bool list = false;
  std::vector<int64_t> ints;         // kInt; kBool as 0 / 1
  std::vector<std::string> strings;  // kString; kVersion (semantic versions, as written)
  bool operator==(const DraAttribute&) const = default;
};

// CapacityRequestPolicy of a device capacity (consumable capacity, KEP-5075): the amount a
// request without one takes, and which amounts a request may take.
struct DraCapacityPolicy {
  std::optional<int64_t> default_milli;
  std::vector<int64_t> valid_values_milli;                  // validValues, ascending
  std::optional<int64_t> min_milli, max_milli, step_milli;  // validRange
  bool has_range = false;
};

struct DraCapacity {
  int64_t milli = 0;
  std::optional<DraCapacityPolicy> request_policy;
};

// DeviceTaint: effect None, NoSchedule or NoExecute.
struct DraDeviceTaint {
  std::string key, value, effect;
};

// DeviceToleration: operator Exists or Equal (default Equal); an empty effect tolerates all.
struct DraToleration {
  std::string key, op = "Equal", value, effect;
  std::optional<int64_t> toleration_seconds;
};

// DeviceCounterConsumption: what a device takes from one of its slice's shared counter sets
// (partitionable devices: a MIG-like partition uses part of its card's memory and SMs).
struct DraCounterConsumption {
  std::string counter_set;
  std::map<std::string, int64_t> counters_milli;
};

struct DraDevice {
  std::string name;
  std::map<std::string, DraAttribute> attributes;  // fully qualified names
  std::map<std::string, DraCapacity> capacity;     // fully qualified names
  std::vector<DraCounterConsumption> consumes_counters;
  // Where the device is reachable, under its slice's perDeviceNodeSelection (one of the three).
  std::string node_name;
  std::optional<DraNodeSelector> node_selector;
  bool all_nodes = false;
  std::vector<DraDeviceTaint> taints;
  bool binds_to_node = false;
  std::vector<std::string> binding_conditions, binding_failure_conditions;
  bool allow_multiple_allocations = false;
};

// CounterSet: a slice's named counters its devices consume.
struct DraCounterSet {
  std::string name;
  std::map<std::string, int64_t> counters_milli;
};

// One ResourceSlice: part (resource_slice_count of them) of a driver's pool.
struct ResourceSliceSpec {
  std::string name;  // metadata.name
  std::string driver;
  std::string pool;
  int64_t pool_generation = 0;
  int64_t pool_slice_count = 1;
  // Which nodes reach the devices: one of the four.
  std::string node_name;
  std::optional<DraNodeSelector> node_selector;
  bool all_nodes = false;
  bool per_device_node_selection = false;
  std::vector<DraDevice> devices;
  std::vector<DraCounterSet> shared_counters;
};

// OpaqueDeviceConfiguration: a driver's parameters, kept as JSON text (for the drivers whose
// sharing knobsim models, e.g. the NVIDIA DRA driver's GpuConfig), with the requests it is for.
struct DraOpaqueConfig {
  std::vector<std::string> requests;  // empty: every request
  std::string driver;
  std::string parameters_json;
};

struct DeviceClassSpec {
  std::string name;
  std::vector<std::string> selectors;  // CEL expressions, all must be true
  std::vector<DraOpaqueConfig> config;
  std::string extended_resource_name;  // "" when none
};

// ExactDeviceRequest, or one DeviceSubRequest of firstAvailable (name = the sub-request's).
struct DraExactRequest {
  std::string name;
  std::string device_class_name;
  std::vector<std::string> selectors;  // CEL expressions
  bool all = false;                    // allocationMode All (else ExactCount)
  int64_t count = 1;                   // ExactCount
  bool admin_access = false;
  std::vector<DraToleration> tolerations;
  std::map<std::string, int64_t> capacity_requests_milli;  // capacity.requests
};

// DeviceRequest: exactly one of `exactly` and `first_available`.
struct DraRequest {
  std::string name;
  std::optional<DraExactRequest> exactly;
  std::vector<DraExactRequest> first_available;
};

// DeviceConstraint: the devices of `requests` (empty: all) share matchAttribute's value, or
// differ in distinctAttribute's.
struct DraConstraint {
  std::vector<std::string> requests;
  std::string match_attribute;     // fully qualified; "" when distinct
  std::string distinct_attribute;  // fully qualified; "" when match
};

struct DraClaimSpec {
  std::vector<DraRequest> requests;
  std::vector<DraConstraint> constraints;
  std::vector<DraOpaqueConfig> config;
};

// DeviceRequestAllocationResult: one device given to a request ("<request>" or
// "<request>/<subrequest>").
struct DraDeviceResult {
  std::string request, driver, pool, device;
  bool admin_access = false;
  std::string share_id;  // a multiple-allocation device's share; "" otherwise
  std::map<std::string, int64_t> consumed_capacity_milli;
  std::vector<DraToleration> tolerations;
  bool operator==(const DraDeviceResult& o) const {
    return request == o.request && driver == o.driver && pool == o.pool && device == o.device &&
           admin_access == o.admin_access && share_id == o.share_id &&
           consumed_capacity_milli == o.consumed_capacity_milli;
  }
};

struct DraAllocation {
  std::vector<DraDeviceResult> results;
  std::optional<DraNodeSelector> node_selector;  // absent: every node
};

// ResourceClaimConsumerReference.
struct DraConsumer {
  std::string resource = "pods", name, uid;
};

struct ResourceClaimSpec {
  std::string name, namespace_ = "default", uid;
  DraClaimSpec spec;
  std::optional<DraAllocation> allocation;  // status.allocation
  std::vector<DraConsumer> reserved_for;    // status.reservedFor
  // The pod this claim was made for from a template: its controller owner reference's name and
  // uid, "" when none. A template's claim must be owned by its pod (upstream IsForPod).
  std::string owner_pod, owner_pod_uid;
  bool deleting = false;  // metadata.deletionTimestamp is set: no pod may use the claim
};

struct ResourceClaimTemplateSpec {
  std::string name, namespace_ = "default";
  DraClaimSpec spec;
};

}  // namespace knobsim
