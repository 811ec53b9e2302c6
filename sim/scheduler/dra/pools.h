// Which resource pools one node can allocate devices from: upstream's GatherPools
// (k8s.io/dynamic-resource-allocation structured/internal/incubating/pools_incubating.go).
//
// A pool is the set of ResourceSlices a driver publishes under one pool name. Only its newest
// generation counts; it is complete when that generation has `resourceSliceCount` slices. For
// one node, a pool keeps only the slices that node reaches (spec.nodeName, nodeSelector,
// allNodes, or perDeviceNodeSelection with at least one reachable device); when those are fewer
// than the count, all slices of the pool are looked at to tell a pool that is still being
// published (incomplete: nothing is allocated from it) from one whose other slices simply serve
// other nodes. A complete pool can still be invalid (duplicate device names, counter sets that
// are duplicated or missing): nothing is allocated from it either, and the allocator says so
// when nothing else fits.
//
// Pools come sorted by driver then pool name (first fit therefore prefers the lower names, as
// upstream documents for driver authors), pools with binding conditions last; slices within a
// pool by name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/scheduler/dra/node_selection.h"

namespace knobsim::dra {

// What pool gathering needs to know of one slice's devices, worked out when the index is built
// rather than for every node of every pod.
struct SliceFacts {
  bool binding_conditions = false;  // some device has bindingConditions
  bool consumes_counters = false;   // some device consumes shared counters
  std::string duplicate_device;     // the first device name repeated within the slice, or ""
  int first_device = 0;             // SliceIndex::DeviceOrdinal of the slice's first device
};

// The ResourceSlices of a cluster, indexed the ways allocation looks them up. Build it once per
// change of the slices and share it between allocations; it points into `slices`, which must
// outlive it and stay unchanged.
class SliceIndex {
 public:
  explicit SliceIndex(const std::vector<ResourceSliceSpec>& slices);

  // Slices with spec.nodeName == `node`, in input order (empty when none).
  const std::vector<const ResourceSliceSpec*>& OnNode(std::string_view node) const;
  // Slices without spec.nodeName (node selector, allNodes, per-device selection), in input order.
  const std::vector<const ResourceSliceSpec*>& Shared() const { return shared_; }
  // Every slice of one pool, all generations, in input order.
  const std::vector<const ResourceSliceSpec*>& InPool(std::string_view driver,
                                                      std::string_view pool) const;
  // The facts of one of the indexed slices.
  const SliceFacts& Facts(const ResourceSliceSpec& slice) const { return facts_[&slice - first_]; }

  // A number for each device of the indexed slices, 0 .. device_count() - 1 in slice order, for
  // per-device tables (AllocatorCache's selector verdicts).
  int device_count() const { return device_count_; }
  int DeviceOrdinal(const ResourceSliceSpec& slice, const DraDevice& device) const {
    return Facts(slice).first_device + static_cast<int>(&device - slice.devices.data());
  }
  // The ordinals of the device `name` of (driver, pool): one, or more where older generations
  // of the pool list it too; none when no slice does.
  std::span<const int> OrdinalsOf(std::string_view driver, std::string_view pool,
                                  std::string_view name) const;
  // Unique among the SliceIndexes of the process: what caches tied to one index check.
  uint64_t serial() const { return serial_; }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>()(name); }
  };

  const ResourceSliceSpec* first_ = nullptr;
  uint64_t serial_ = 0;
  int device_count_ = 0;
  std::vector<SliceFacts> facts_;  // parallel to the slices
  // "driver\x1fpool\x1fdevice" -> ordinals. Only found, never iterated.
  std::unordered_map<std::string, std::vector<int>> ordinals_;
  std::vector<const ResourceSliceSpec*> shared_;
  // Looked up for every node of every pod: hashed. Only found, never iterated.
  std::unordered_map<std::string, std::vector<const ResourceSliceSpec*>, NameHash, std::equal_to<>>
      on_node_;
  // (driver, pool) -> slices, looked up by string_views.
  struct PoolLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::pair<std::string_view, std::string_view>(a.first, a.second) <
             std::pair<std::string_view, std::string_view>(b.first, b.second);
    }
  };
  std::map<std::pair<std::string, std::string>, std::vector<const ResourceSliceSpec*>, PoolLess>
      by_pool_;
};

struct Pool {
  std::string_view driver, name;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  // Device slices the node reaches, sorted by name.
  std::vector<const ResourceSliceSpec*> slices;
  // The pool's other device slices (devices on other nodes): only their allocated devices'
  // counter consumption matters here.
  std::vector<const ResourceSliceSpec*> other_slices;
  // Counter sets by name (partitionable devices).
  std::map<std::string_view, const DraCounterSet*> counter_sets;

  // "driver/pool", as messages name a pool.
  std::string Id() const;
};

// Upstream GatherPools for `node`. `partitionable_devices`: the DRAPartitionableDevices gate;
// without it, slices with shared counters or per-device node selection are ignored.
std::vector<Pool> GatherPools(const SliceIndex& index, const DraNodeRef& node,
                              bool partitionable_devices);

}  // namespace knobsim::dra
