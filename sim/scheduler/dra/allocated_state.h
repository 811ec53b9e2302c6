// What claims allocated before a pod hold, as the allocator needs to know it (upstream
// schedulerapi.AllocatedState, built by the DynamicResources plugin's claim tracker,
// pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go foreachAllocatedDevice):
// devices given to one claim alone, shares of multi-allocatable devices, and what those shares
// took of the devices' capacities. Admin-access results hold nothing.
//
// Also where share IDs come from. Upstream draws a random UUID for each allocation of a
// multi-allocatable device; here it is a UUID-shaped hash of the claim (uid, else
// namespace/name), the result's index, request and device: deterministic, so reruns agree,
// and distinct between claims, so RemoveAllocation of one claim never drops another's share.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/scheduler/dra/consumable_capacity.h"

namespace knobsim::dra {

// One device: driver, pool and device name.
struct DeviceId {
  std::string driver, pool, device;
  bool operator==(const DeviceId&) const = default;
  std::string ToString() const;  // "driver/pool/device", as messages name a device
};

// Orders DeviceIds and looks them up by string_views without building one.
struct DeviceIdLess {
  using is_transparent = void;
  using View = std::tuple<std::string_view, std::string_view, std::string_view>;
  static View Key(const DeviceId& id) { return {id.driver, id.pool, id.device}; }
  static const View& Key(const View& view) { return view; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return Key(a) < Key(b);
  }
};

// The device of an entry of AllocatedState's set or maps.
inline const DeviceId& DeviceOf(const DeviceId& id) {
  return id;
}
template <class Value>
const DeviceId& DeviceOf(const std::pair<const DeviceId, Value>& entry) {
  return entry.first;
}

struct AllocatedState {
  // Devices allocated to one claim alone (admin access excluded).
  std::set<DeviceId, DeviceIdLess> devices;
  // Multi-allocatable devices with the share IDs allocated on them.
  std::map<DeviceId, std::set<std::string>, DeviceIdLess> shares;
  // What the shares took of each multi-allocatable device's capacities.
  std::map<DeviceId, CapacityAmounts, DeviceIdLess> consumed_capacity;
};

// Adds one allocated claim's results as the scheduler's tracker does: admin-access results are
// skipped; with `consumable_capacity` (the DRAConsumableCapacity gate), a result with a share ID
// is a share (its consumed capacity added), every other result a dedicated device.
// RemoveAllocation undoes it (a device whose consumed capacity drops to all zero leaves
// `consumed_capacity`, as upstream's ConsumedCapacityCollection.Remove does).
void AddAllocation(const DraAllocation& allocation, bool consumable_capacity,
                   AllocatedState& state);
void RemoveAllocation(const DraAllocation& allocation, bool consumable_capacity,
                      AllocatedState& state);
// AddAllocation of every claim with a status.allocation.
AllocatedState BuildAllocatedState(const std::vector<ResourceClaimSpec>& claims,
                                   bool consumable_capacity);
// Upstream IsDeviceAllocated: dedicated, shared, or with consumed capacity.
bool IsDeviceAllocated(const DeviceIdLess::View& device, const AllocatedState& state);

// The entries of one of AllocatedState's containers that belong to one pool, as [first, last):
// one lookup per pool instead of one per device (entries are ordered by driver, pool, device).
template <class Container>
auto PoolEntries(const Container& entries, std::string_view driver, std::string_view pool) {
  auto first = entries.lower_bound(DeviceIdLess::View{driver, pool, std::string_view()});
  auto last = first;
  while (last != entries.end() && DeviceOf(*last).driver == driver &&
         DeviceOf(*last).pool == pool) {
    ++last;
  }
  return std::pair{first, last};
}

// The share ID of `claim`'s result number `index` (see above).
std::string MakeShareId(const ResourceClaimSpec& claim, size_t index,
                        const DraDeviceResult& result);

}  // namespace knobsim::dra
