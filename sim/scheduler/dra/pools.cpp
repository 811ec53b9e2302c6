#include "sim/scheduler/dra/pools.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>

namespace knobsim::dra {
namespace {

const std::vector<const ResourceSliceSpec*> kNoSlices;

// SliceIndex::ordinals_'s key: the three names, joined by a character no name can hold.
std::string DeviceKey(std::string_view driver, std::string_view pool, std::string_view device) {
  std::string key;
  key.reserve(driver.size() + pool.size() + device.size() + 2);
  key.append(driver).append(1, '\x1f').append(pool).append(1, '\x1f').append(device);
  return key;
}

// Whether `node` reaches some device of `slice` (upstream: the slice is "relevant").
// nullopt: the slice says nothing known about where its devices are (a future field); upstream
// skips such slices.
std::optional<bool> SliceReachable(const ResourceSliceSpec& slice, const DraNodeRef& node) {
  if (!slice.node_name.empty() || slice.all_nodes || slice.node_selector) {
    return NodeMatches(node, slice.node_name, slice.all_nodes, slice.node_selector);
  }
  if (!slice.per_device_node_selection) return std::nullopt;
  return std::any_of(slice.devices.begin(), slice.devices.end(), [&](const DraDevice& d) {
    return NodeMatches(node, d.node_name, d.all_nodes, d.node_selector);
  });
}

using PoolKey = std::pair<std::string_view, std::string_view>;

// Upstream addSlice: a newer generation replaces what was collected, an older one is ignored.
void AddSlice(std::map<PoolKey, std::vector<const ResourceSliceSpec*>>& pools,
              const ResourceSliceSpec* slice) {
  std::vector<const ResourceSliceSpec*>& collected = pools[{slice->driver, slice->pool}];
  if (!collected.empty()) {
    const int64_t generation = collected.front()->pool_generation;
    if (slice->pool_generation < generation) return;
    if (slice->pool_generation > generation) collected.clear();
  }
  collected.push_back(slice);
}

// Upstream checkSlicesInPool: whether a newer generation exists somewhere (then the collected
// generation is obsolete: nullopt), else every slice of `generation`.
std::optional<std::vector<const ResourceSliceSpec*>> SlicesOfGeneration(
    const std::vector<const ResourceSliceSpec*>& pool_slices, int64_t generation) {
  std::vector<const ResourceSliceSpec*> result;
  for (const ResourceSliceSpec* slice : pool_slices) {
    if (slice->pool_generation > generation) return std::nullopt;
    if (slice->pool_generation == generation) result.push_back(slice);
  }
  return result;
}

// Upstream validateDeviceNames: the first repeated name, or "".
std::string DuplicateDeviceName(const SliceIndex& index,
                                const std::vector<const ResourceSliceSpec*>& slices) {
  if (slices.size() == 1) return index.Facts(*slices.front()).duplicate_device;
  std::set<std::string_view> seen;
  for (const ResourceSliceSpec* slice : slices) {
    for (const DraDevice& device : slice->devices) {
      if (!seen.insert(device.name).second) return device.name;
    }
  }
  return "";
}

// Upstream validateDeviceCounterConsumption: why some device consumes a counter the pool does
// not define, or "".
std::string MissingCounter(const SliceIndex& index,
                           const std::map<std::string_view, const DraCounterSet*>& sets,
                           const std::vector<const ResourceSliceSpec*>& slices) {
  for (const ResourceSliceSpec* slice : slices) {
    if (!index.Facts(*slice).consumes_counters) continue;
    for (const DraDevice& device : slice->devices) {
      for (const DraCounterConsumption& consumption : device.consumes_counters) {
        const auto set = sets.find(consumption.counter_set);
        if (set == sets.end()) return "counter set " + consumption.counter_set + " not found";
        for (const auto& [counter, amount] : consumption.counters_milli) {
          if (!set->second->counters_milli.contains(counter)) {
            return "counter " + counter + " not found in counter set " + set->second->name;
          }
        }
      }
    }
  }
  return "";
}

// Upstream getAndValidateCounterSets plus the two consumption checks: why the pool is invalid,
// or "" with `pool.counter_sets` filled.
std::string CollectCounterSets(const SliceIndex& index,
                               const std::vector<const ResourceSliceSpec*>& counter_slices,
                               Pool& pool) {
  for (const ResourceSliceSpec* slice : counter_slices) {
    for (const DraCounterSet& set : slice->shared_counters) {
      if (!pool.counter_sets.emplace(set.name, &set).second) {
        return "duplicate counter set name " + set.name;
      }
    }
  }
  std::string why = MissingCounter(index, pool.counter_sets, pool.slices);
  if (why.empty()) why = MissingCounter(index, pool.counter_sets, pool.other_slices);
  return why;
}

// Upstream buildPool. `all_of_generation` is set when the node reaches only part of the pool.
Pool BuildPool(const SliceIndex& index, PoolKey key, std::vector<const ResourceSliceSpec*> slices,
               const std::vector<const ResourceSliceSpec*>* all_of_generation, bool partitionable) {
  std::stable_sort(
      slices.begin(), slices.end(),
      [](const ResourceSliceSpec* a, const ResourceSliceSpec* b) { return a->name < b->name; });
  Pool pool;
  pool.driver = key.first;
  pool.name = key.second;
  std::vector<const ResourceSliceSpec*> counter_slices;
  auto sort_in = [&](const ResourceSliceSpec* slice, std::vector<const ResourceSliceSpec*>& to) {
    (partitionable && !slice->shared_counters.empty() ? counter_slices : to).push_back(slice);
  };
  for (const ResourceSliceSpec* slice : slices) sort_in(slice, pool.slices);
  if (all_of_generation != nullptr && slices.size() < all_of_generation->size()) {
    std::set<std::string_view> reached;
    for (const ResourceSliceSpec* slice : slices) reached.insert(slice->name);
    for (const ResourceSliceSpec* slice : *all_of_generation) {
      if (!reached.contains(slice->name)) sort_in(slice, pool.other_slices);
    }
  }
  std::string why;
  if (std::string duplicate = DuplicateDeviceName(index, pool.slices); !duplicate.empty()) {
    why = "duplicate device name " + duplicate;
  } else if (partitionable) {
    why = CollectCounterSets(index, counter_slices, pool);
  }
  if (!why.empty()) {
    Pool invalid;
    invalid.driver = pool.driver;
    invalid.name = pool.name;
    invalid.invalid = true;
    invalid.invalid_reason = std::move(why);
    return invalid;
  }
  if (!partitionable) pool.other_slices.clear();  // upstream keeps them only for counters
  return pool;
}

bool HasBindingConditions(const SliceIndex& index, const Pool& pool) {
  return std::any_of(pool.slices.begin(), pool.slices.end(), [&](const ResourceSliceSpec* s) {
    return index.Facts(*s).binding_conditions;
  });
}

SliceFacts FactsOf(const ResourceSliceSpec& slice) {
  SliceFacts facts;
  std::set<std::string_view> seen;
  for (const DraDevice& device : slice.devices) {
    facts.binding_conditions |= !device.binding_conditions.empty();
    facts.consumes_counters |= !device.consumes_counters.empty();
    if (!seen.insert(device.name).second && facts.duplicate_device.empty()) {
      facts.duplicate_device = device.name;
    }
  }
  return facts;
}

}  // namespace

SliceIndex::SliceIndex(const std::vector<ResourceSliceSpec>& slices) : first_(slices.data()) {
  static std::atomic<uint64_t> last_serial{0};
  serial_ = ++last_serial;
  facts_.reserve(slices.size());
  for (const ResourceSliceSpec& slice : slices) {
    facts_.push_back(FactsOf(slice));
    facts_.back().first_device = device_count_;
    for (const DraDevice& device : slice.devices)
      ordinals_[DeviceKey(slice.driver, slice.pool, device.name)].push_back(device_count_++);
    if (slice.node_name.empty()) {
      shared_.push_back(&slice);
    } else {
      on_node_[slice.node_name].push_back(&slice);
    }
    by_pool_[{slice.driver, slice.pool}].push_back(&slice);
  }
}

const std::vector<const ResourceSliceSpec*>& SliceIndex::OnNode(std::string_view node) const {
  const auto it = on_node_.find(node);
  return it == on_node_.end() ? kNoSlices : it->second;
}

std::span<const int> SliceIndex::OrdinalsOf(std::string_view driver, std::string_view pool,
                                            std::string_view name) const {
  const auto it = ordinals_.find(DeviceKey(driver, pool, name));
  if (it == ordinals_.end()) return {};
  return it->second;
}

const std::vector<const ResourceSliceSpec*>& SliceIndex::InPool(std::string_view driver,
                                                                std::string_view pool) const {
  const auto it = by_pool_.find(std::pair{driver, pool});
  return it == by_pool_.end() ? kNoSlices : it->second;
}

std::string Pool::Id() const {
  std::string id(driver);
  id += '/';
  id += name;
  return id;
}

std::vector<Pool> GatherPools(const SliceIndex& index, const DraNodeRef& node,
                              bool partitionable_devices) {
  std::map<PoolKey, std::vector<const ResourceSliceSpec*>> collected;
  for (const auto* list : {&index.OnNode(node.name), &index.Shared()}) {
    for (const ResourceSliceSpec* slice : *list) {
      if (!partitionable_devices &&
          (slice->per_device_node_selection || !slice->shared_counters.empty())) {
        continue;
      }
      if (SliceReachable(*slice, node).value_or(false)) AddSlice(collected, slice);
    }
  }

  std::vector<Pool> result, with_binding_conditions;
  for (auto& [key, slices] : collected) {
    const ResourceSliceSpec& first = *slices.front();
    Pool pool;
    if (static_cast<int64_t>(slices.size()) == first.pool_slice_count) {
      pool = BuildPool(index, key, std::move(slices), nullptr, partitionable_devices);
    } else {
      // Some slices are not reachable from this node, or are still being published.
      const auto all =
          SlicesOfGeneration(index.InPool(key.first, key.second), first.pool_generation);
      if (!all) continue;  // a newer generation is on its way: ignore the old one
      if (static_cast<int64_t>(all->size()) != first.pool_slice_count) {
        pool.driver = key.first;
        pool.name = key.second;
        pool.incomplete = true;
        result.push_back(std::move(pool));
        continue;
      }
      pool = BuildPool(index, key, std::move(slices), &*all, partitionable_devices);
    }
    (HasBindingConditions(index, pool) ? with_binding_conditions : result)
        .push_back(std::move(pool));
  }
  // `collected` is ordered by (driver, pool): both lists are sorted as upstream sorts them.
  for (Pool& pool : with_binding_conditions) result.push_back(std::move(pool));
  return result;
}

}  // namespace knobsim::dra
