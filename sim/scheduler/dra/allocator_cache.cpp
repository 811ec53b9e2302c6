#include "sim/scheduler/dra/allocator_cache.h"

#include <utility>

namespace knobsim::dra {

AllocatorCache::Selector& AllocatorCache::Get(const std::string& expression) {
  auto it = selectors_.find(expression);
  if (it == selectors_.end()) {
    Selector selector;
    selector.compiled = CelSelector::Compile(expression);
    it = selectors_.emplace(expression, std::move(selector)).first;
  }
  return it->second;
}

const std::vector<Pool>& AllocatorCache::PoolsOf(const SliceIndex& index, const DraNodeRef& node,
                                                 bool partitionable_devices) {
  if (pools_serial_ != index.serial() || pools_partitionable_ != partitionable_devices) {
    pools_.clear();
    pools_serial_ = index.serial();
    pools_partitionable_ = partitionable_devices;
  }
  static const Labels kNoLabels;
  const Labels& labels = node.labels != nullptr ? *node.labels : kNoLabels;
  auto it = pools_.find(node.name);
  if (it == pools_.end()) {
    it = pools_.emplace(std::string(node.name), NodePools{}).first;
  } else if (index.Shared().empty() || it->second.labels == labels) {
    // Without slices shared through node selectors, the node's name alone decides.
    return it->second.pools;
  }
  it->second.labels = labels;
  it->second.pools = GatherPools(index, node, partitionable_devices);
  return it->second.pools;
}

}  // namespace knobsim::dra
