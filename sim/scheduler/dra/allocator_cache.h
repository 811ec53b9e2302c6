// What the allocations of one cluster's devices can share across pods and nodes, so that asking
// a thousand nodes whether a pod's claims fit costs a scan of their devices and no more:
//  * each CEL selector compiled once (compile errors kept, so reported again without compiling);
//  * each selector's verdict per device: a device selector sees only the device (driver,
//    attributes, capacity, allowMultipleAllocations), which does not change while its slices do
//    not, so the verdict is worked out once per device. Runtime errors are not kept: they are
//    evaluated again, so their message is built where it is reported;
//  * each node's pools (GatherPools): they depend only on the slices and the node's name and
//    labels, not on what is allocated.
// The per-device and per-node parts belong to one SliceIndex (by SliceIndex::serial(), which no
// other index shares); given another, the cache forgets them. Not thread-safe: one cache per
// scheduler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/pools.h"

namespace knobsim::dra {

class AllocatorCache {
 public:
  // A compiled selector and what it said of each device of the current index.
  struct Selector {
    Parsed<CelSelector> compiled;
    uint64_t serial = 0;           // the SliceIndex `verdicts` belong to
    std::vector<int8_t> verdicts;  // by SliceIndex::DeviceOrdinal: -1 unknown, 0 no, 1 yes
  };

  // The selector of `expression`; stays valid as long as the cache does.
  Selector& Get(const std::string& expression);

  // GatherPools(index, node, partitionable_devices), worked out once per node.
  const std::vector<Pool>& PoolsOf(const SliceIndex& index, const DraNodeRef& node,
                                   bool partitionable_devices);

 private:
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
  };
  struct NodePools {
    Labels labels;  // the node's labels they were gathered with (node selectors read them)
    std::vector<Pool> pools;
  };

  // Only looked up, never iterated.
  std::unordered_map<std::string, Selector, TextHash, std::equal_to<>> selectors_;
  uint64_t pools_serial_ = 0;  // the SliceIndex and gate `pools_` belong to
  bool pools_partitionable_ = false;
  std::unordered_map<std::string, NodePools, TextHash, std::equal_to<>> pools_;  // by node name
};

}  // namespace knobsim::dra
