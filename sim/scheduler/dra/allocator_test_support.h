// Builders for allocator_test.cpp: upstream's test object generators (claim, request, device,
// slice, class, … in k8s.io/dynamic-resource-allocation
// structured/internal/allocatortesting/allocator_testing.go) over sim/kube_dra.h, so that each
// translated case reads line by line like the upstream one it comes from.
//
// Upstream writes attribute and capacity names without a domain; a slice built here qualifies
// them with its driver, as the reader does (sim/kube_dra.h), so `memory` of driver-a is
// `driver-a/memory`. Capacity requests stay as upstream writes them (`capacity-0`), which the
// allocator resolves in the device's driver domain.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/kube_types.h"
#include "sim/scheduler/dra/allocator.h"

namespace knobsim::dra::testing {

// Upstream's constants.
inline const std::string kRegion1 = "region-1", kRegion2 = "region-2";
inline const std::string kNode1 = "node-1", kNode2 = "node-2";
inline const std::string kClassA = "class-a", kClassB = "class-b";
inline const std::string kDriverA = "driver-a", kDriverB = "driver-b";
inline const std::string kPool1 = "pool-1", kPool2 = "pool-2", kPool3 = "pool-3", kPool4 = "pool-4";
inline const std::string kReq0 = "req-0", kReq1 = "req-1", kReq2 = "req-2", kReq3 = "req-3";
inline const std::string kSubReq0 = "subReq-0", kSubReq1 = "subReq-1";
inline const std::string kReq0SubReq0 = "req-0/subReq-0", kReq0SubReq1 = "req-0/subReq-1";
inline const std::string kReq1SubReq0 = "req-1/subReq-0", kReq1SubReq1 = "req-1/subReq-1";
inline const std::string kReq2SubReq0 = "req-2/subReq-0", kReq2SubReq1 = "req-2/subReq-1";
inline const std::string kClaim0 = "claim-0", kClaim1 = "claim-1";
inline const std::string kSlice1 = "slice-1", kSlice2 = "slice-2", kSlice3 = "slice-3",
                         kSlice4 = "slice-4";
inline const std::string kDevice0 = "device-0", kDevice1 = "device-1", kDevice2 = "device-2",
                         kDevice3 = "device-3", kDevice4 = "device-4";
inline const std::string kCounterSet1 = "counter-set-1", kCounterSet2 = "counter-set-2";
inline const std::string kCapacity0 = "capacity-0", kCapacity1 = "capacity-1";
inline const std::string kRegionKey = "region", kPlanetKey = "planet", kEarth = "earth";
// Fully qualified attribute names of upstream's constraints.
inline const std::string kNonExistentAttribute = "driver-a/NonExistentAttribute";
inline const std::string kBoolAttribute = "driver-a/boolAttribute";
inline const std::string kStringAttribute = "driver-a/stringAttribute";
inline const std::string kVersionAttribute = "driver-a/driverVersion";
inline const std::string kIntAttribute = "driver-a/numa";

// Quantities in milli-units: n GiB, n whole units.
constexpr int64_t Gi(int64_t n) {
  return n * (int64_t{1} << 30) * 1000;
}
constexpr int64_t U(int64_t n) {
  return n * 1000;
}

inline DraAttribute Str(std::string v) {
  DraAttribute a;
  a.strings = {std::move(v)};
  return a;
}
inline DraAttribute Int(int64_t v) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kInt;
  a.ints = {v};
  return a;
}
inline DraAttribute Bool(bool v) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kBool;
  a.ints = {v ? 1 : 0};
  return a;
}
inline DraAttribute Ver(std::string v) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kVersion;
  a.strings = {std::move(v)};
  return a;
}
inline DraAttribute StrList(std::vector<std::string> v) {
  DraAttribute a;
  a.list = true;
  a.strings = std::move(v);
  return a;
}

// Upstream's CEL selectors, for driver-a.
inline std::string MemoryAtLeast(const std::string& q) {
  return fmt::format(R"(device.capacity["{}"].memory.compareTo(quantity("{}")) >= 0)", kDriverA, q);
}
inline std::string CapacityAtLeast(const std::string& name, const std::string& q) {
  return fmt::format(R"(device.capacity["{}"]["{}"].compareTo(quantity("{}")) >= 0)", kDriverA,
                     name, q);
}
inline std::string AttrIs(const std::string& name, const std::string& value) {
  return fmt::format(R"(device.attributes["{}"].{} == "{}")", kDriverA, name, value);
}
inline std::string AttrTrue(const std::string& name) {
  return fmt::format(R"(device.attributes["{}"].{})", kDriverA, name);
}

// v1.NodeSelector helpers: `key In values`, and matchFields metadata.name In [node].
inline DraNodeSelector LabelSelector(const std::string& key, std::vector<std::string> values) {
  return {{{key, "In", std::move(values)}}};
}
inline DraNodeSelector LocalSelector(const std::string& node) {
  return {{{"metadata.name", "In", {node}}}};
}

// upstream device(...).with...(): a device, its names qualified by the slice it goes into.
struct Dev {
  DraDevice d;
  bool capacity_from_counters = false;

  explicit Dev(std::string name) { d.name = std::move(name); }
  Dev& Cap(const std::string& name, int64_t milli) {
    d.capacity[name].milli = milli;
    return *this;
  }
  Dev& Attr(const std::string& name, DraAttribute value) {
    d.attributes[name] = std::move(value);
    return *this;
  }
  // upstream `device(name, fromCounters, ...)`: the capacity is what the device consumes.
  Dev& FromCounters() {
    capacity_from_counters = true;
    return *this;
  }
  Dev& Consumes(const std::string& set, std::map<std::string, int64_t> counters) {
    if (capacity_from_counters) {
      for (const auto& [name, amount] : counters) d.capacity[name] = DraCapacity{amount, {}};
    }
    d.consumes_counters.push_back({set, std::move(counters)});
    return *this;
  }
  Dev& Taint(DraDeviceTaint taint) {
    d.taints.push_back(std::move(taint));
    return *this;
  }
  Dev& OnNode(const std::string& node) {
    d.node_name = node;
    return *this;
  }
  Dev& AllNodes() {
    d.all_nodes = true;
    return *this;
  }
  Dev& NodeSelector(DraNodeSelector selector) {
    d.node_selector = std::move(selector);
    return *this;
  }
  Dev& Binding(std::vector<std::string> conditions, std::vector<std::string> failures) {
    d.binding_conditions = std::move(conditions);
    d.binding_failure_conditions = std::move(failures);
    return *this;
  }
  Dev& BindsToNode() {
    d.binds_to_node = true;
    return *this;
  }
  Dev& Multi() {
    d.allow_multiple_allocations = true;
    return *this;
  }
  // upstream withCapacityRequestPolicyRange: default 2, validRange min 2 step 2 max 4.
  Dev& RangePolicy(const std::string& name, int64_t milli) {
    DraCapacityPolicy policy;
    policy.default_milli = U(2);
    policy.has_range = true;
    policy.min_milli = U(2);
    policy.step_milli = U(2);
    policy.max_milli = U(4);
    d.capacity[name] = DraCapacity{milli, policy};
    return *this;
  }
  // upstream withCapacityRequestPolicyValidValues: default first, then the others.
  Dev& ValidValues(const std::string& name, int64_t default_milli, int64_t milli,
                   std::vector<int64_t> more = {}) {
    DraCapacityPolicy policy;
    policy.default_milli = default_milli;
    policy.valid_values_milli = {default_milli};
    policy.valid_values_milli.insert(policy.valid_values_milli.end(), more.begin(), more.end());
    d.capacity[name] = DraCapacity{milli, policy};
    return *this;
  }
};

inline DraDeviceTaint Taint(std::string key, std::string value, std::string effect) {
  return {std::move(key), std::move(value), std::move(effect)};
}
inline DraToleration Toleration(std::string op, std::string key, std::string value,
                                std::string effect) {
  DraToleration t;
  t.op = std::move(op);
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

// Where a slice's devices are reachable (upstream's nodeSelection argument).
struct Where {
  std::string node;
  bool all = false, per_device = false;
  std::optional<DraNodeSelector> selector;
};
inline Where OnNode(std::string node) {
  return {std::move(node), false, false, std::nullopt};
}
inline Where AllNodes() {
  return {"", true, false, std::nullopt};
}
inline Where PerDevice() {
  return {"", false, true, std::nullopt};
}
inline Where Selected(DraNodeSelector selector) {
  return {"", false, false, std::move(selector)};
}

// upstream resourcePool(name, count), generation 1; a plain pool name means count 1.
struct PoolSpec {
  std::string name;
  int64_t count = 1;
  int64_t generation = 1;
};
inline PoolSpec InPool(std::string name, int64_t count = 1) {
  return {std::move(name), count, 1};
}

inline std::string Qualified(const std::string& driver, const std::string& name) {
  return name.find('/') == std::string::npos ? driver + "/" + name : name;
}

inline ResourceSliceSpec Slice(std::string name, Where where, PoolSpec pool, std::string driver,
                               std::vector<Dev> devices = {}) {
  ResourceSliceSpec s;
  s.name = std::move(name);
  s.driver = std::move(driver);
  s.pool = std::move(pool.name);
  s.pool_slice_count = pool.count;
  s.pool_generation = pool.generation;
  s.node_name = std::move(where.node);
  s.all_nodes = where.all;
  s.per_device_node_selection = where.per_device;
  s.node_selector = std::move(where.selector);
  for (Dev& dev : devices) {
    DraDevice d = std::move(dev.d);
    std::map<std::string, DraAttribute> attributes;
    for (auto& [key, value] : d.attributes) attributes[Qualified(s.driver, key)] = value;
    std::map<std::string, DraCapacity> capacity;
    for (auto& [key, value] : d.capacity) capacity[Qualified(s.driver, key)] = value;
    d.attributes = std::move(attributes);
    d.capacity = std::move(capacity);
    s.devices.push_back(std::move(d));
  }
  return s;
}

// upstream sliceWithOneDevice: device-1.
inline ResourceSliceSpec OneDeviceSlice(std::string name, Where where, PoolSpec pool,
                                        std::string driver) {
  return Slice(std::move(name), std::move(where), std::move(pool), std::move(driver),
               {Dev(kDevice1)});
}

// upstream sliceWithMultipleDevices: device-0 … device-<count-1>.
inline ResourceSliceSpec ManyDeviceSlice(std::string name, Where where, PoolSpec pool,
                                         std::string driver, int count) {
  std::vector<Dev> devices;
  for (int i = 0; i < count; ++i) devices.emplace_back(fmt::format("device-{}", i));
  return Slice(std::move(name), std::move(where), std::move(pool), std::move(driver),
               std::move(devices));
}

inline ResourceSliceSpec CounterSlice(std::string name, Where where, PoolSpec pool,
                                      std::string driver, std::vector<DraCounterSet> sets) {
  ResourceSliceSpec s =
      Slice(std::move(name), std::move(where), std::move(pool), std::move(driver));
  s.shared_counters = std::move(sets);
  return s;
}

inline ResourceSliceSpec WithGeneration(ResourceSliceSpec s, int64_t generation, int64_t count) {
  s.pool_generation = generation;
  s.pool_slice_count = count;
  return s;
}

// upstream class(name, driver): selects the driver's devices.
inline DeviceClassSpec Class(std::string name, const std::string& driver) {
  DeviceClassSpec c;
  c.name = std::move(name);
  c.selectors = {fmt::format(R"(device.driver == "{}")", driver)};
  return c;
}
// upstream classWithAllowMultipleAllocations.
inline DeviceClassSpec MultiClass(std::string name, const std::string& driver, bool multi) {
  DeviceClassSpec c;
  c.name = std::move(name);
  c.selectors = {fmt::format(R"(device.driver == "{}" && device.allowMultipleAllocations == {})",
                             driver, multi ? "true" : "false")};
  return c;
}
// upstream classWithConfig (the configuration is not part of a DraAllocation).
inline DeviceClassSpec ConfigClass(std::string name, const std::string& driver,
                                   const std::string& attribute) {
  DeviceClassSpec c = Class(std::move(name), driver);
  c.config.push_back({{}, driver, fmt::format(R"({{"{}":"{}Value"}})", attribute, attribute)});
  return c;
}

// upstream request / deviceRequest / subRequest / allDeviceRequest.
struct Req {
  DraExactRequest r;

  Req(std::string name, std::string device_class, int64_t count = 1) {
    r.name = std::move(name);
    r.device_class_name = std::move(device_class);
    r.count = count;
  }
  Req& Sel(std::string expression) {
    r.selectors.push_back(std::move(expression));
    return *this;
  }
  Req& All() {
    r.all = true;
    return *this;
  }
  Req& Admin() {
    r.admin_access = true;
    return *this;
  }
  Req& Tolerate(DraToleration t) {
    r.tolerations.push_back(std::move(t));
    return *this;
  }
  // upstream withCapacityRequest: capacity-0.
  Req& CapacityRequest(int64_t milli) {
    r.capacity_requests_milli[kCapacity0] = milli;
    return *this;
  }
  operator DraExactRequest() const { return r; }  // NOLINT: a sub-request where one is wanted
  operator DraRequest() const { return DraRequest{r.name, r, {}}; }  // NOLINT
};

// upstream requestWithPrioritizedList.
inline DraRequest FirstAvailable(std::string name, std::vector<DraExactRequest> subrequests) {
  return DraRequest{std::move(name), std::nullopt, std::move(subrequests)};
}

inline DraConstraint Match(std::string attribute, std::vector<std::string> requests = {}) {
  return DraConstraint{std::move(requests), std::move(attribute), ""};
}
inline DraConstraint Distinct(std::string attribute, std::vector<std::string> requests = {}) {
  return DraConstraint{std::move(requests), "", std::move(attribute)};
}

// upstream claimWithRequests (no namespace, as upstream's test claims).
inline ResourceClaimSpec Claim(std::string name, std::vector<DraRequest> requests,
                               std::vector<DraConstraint> constraints = {}) {
  ResourceClaimSpec c;
  c.name = std::move(name);
  c.namespace_ = "";
  c.spec.requests = std::move(requests);
  c.spec.constraints = std::move(constraints);
  return c;
}
// upstream withTolerations: every exact request of the claim.
inline ResourceClaimSpec WithTolerations(ResourceClaimSpec c, std::vector<DraToleration> t) {
  for (DraRequest& r : c.spec.requests) {
    if (r.exactly) r.exactly->tolerations.insert(r.exactly->tolerations.end(), t.begin(), t.end());
  }
  return c;
}

// An expected DeviceRequestAllocationResult.
struct Want {
  std::string request, driver, pool, device;
  bool admin = false;
  std::vector<DraToleration> tolerations = {};
  bool shared = false;  // has a share ID (upstream: withConsumedCapacity(&fixedShareID, ...))
  std::map<std::string, int64_t> consumed = {};
};
// upstream deviceAllocationResult.
inline Want Result(std::string request, std::string driver, std::string pool, std::string device,
                   bool admin = false, std::vector<DraToleration> tolerations = {}) {
  return Want{std::move(request),    std::move(driver), std::move(pool), std::move(device), admin,
              std::move(tolerations)};
}
// upstream deviceRequestAllocationResult(...).withConsumedCapacity(&fixedShareID, consumed);
// capacity names as the device qualifies them.
inline Want Share(std::string request, std::string driver, std::string pool, std::string device,
                  std::map<std::string, int64_t> consumed = {}) {
  std::map<std::string, int64_t> qualified;
  for (const auto& [name, amount] : consumed) qualified[Qualified(driver, name)] = amount;
  return Want{
      std::move(request),  std::move(driver), std::move(pool), std::move(device), false, {}, true,
      std::move(qualified)};
}
inline std::vector<Want> ManyResults(const std::string& request, const std::string& driver,
                                     const std::string& pool, int count, int start) {
  std::vector<Want> out;
  for (int i = start; i < start + count; ++i) {
    out.push_back(Result(request, driver, pool, fmt::format("device-{}", i)));
  }
  return out;
}

// An expected AllocationResult: its node selector (none: every node) and results in any order.
struct WantClaim {
  std::optional<DraNodeSelector> selector;
  std::vector<Want> results;
};
inline WantClaim Local(const std::string& node, std::vector<Want> results) {
  return {LocalSelector(node), std::move(results)};
}

struct TestNode {
  std::string name;
  Labels labels;
};
// upstream node(name, region).
inline TestNode Node(std::string name, std::string region) {
  return {std::move(name), {{kRegionKey, std::move(region)}, {kPlanetKey, kEarth}}};
}

// One upstream AllocatorTestCase. What upstream expects follows from `want` and `error`:
// an error substring (kReasonInvalidPools: upstream's ErrFailedAllocationOnNode, here an
// unschedulable outcome with that message), else the allocations of `want`, where no `want`
// for some claims is upstream's nil / empty result: cannot allocate.
struct Case {
  std::string name;
  AllocatorFeatures features = AllocatorFeatures::None();
  std::vector<ResourceClaimSpec> claims = {};
  std::vector<DeviceId> allocated = {};
  std::vector<std::pair<DeviceId, std::string>> shares = {};
  std::map<DeviceId, CapacityAmounts, DeviceIdLess> allocated_capacity = {};
  std::vector<DeviceClassSpec> classes = {};
  std::vector<ResourceSliceSpec> slices = {};
  TestNode node = Node(kNode1, kRegion1);
  std::vector<WantClaim> want = {};
  std::string error = {};
  int64_t calls = 0;  // upstream expectNumAllocateOneInvocations (incubating's), 0: unchecked
};

// upstream Features{...: true}: the named gates on, the others off.
inline constexpr auto kAdminAccess = &AllocatorFeatures::admin_access;
inline constexpr auto kConsumableCapacity = &AllocatorFeatures::consumable_capacity;
inline constexpr auto kBindingAndStatus = &AllocatorFeatures::device_binding_and_status;
inline constexpr auto kDeviceTaints = &AllocatorFeatures::device_taints;
inline constexpr auto kPartitionable = &AllocatorFeatures::partitionable_devices;
inline constexpr auto kPrioritizedList = &AllocatorFeatures::prioritized_list;
inline AllocatorFeatures Features(std::initializer_list<bool AllocatorFeatures::*> on) {
  AllocatorFeatures f = AllocatorFeatures::None();
  for (bool AllocatorFeatures::*flag : on) f.*flag = true;
  return f;
}

}  // namespace knobsim::dra::testing
