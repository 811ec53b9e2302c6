#include "sim/scheduler/dra/nvidia_gpu_devices.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "models/mig_profiles.h"
#include "sim/scheduler/dra/node_slice.h"

namespace knobsim::dra {
namespace {

constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;

// The attributes both whole GPUs and MIG instances carry, qualified by the driver.
std::map<std::string, DraAttribute> CommonAttributes(const std::string& type,
                                                     const std::string& product) {
  const std::string q = std::string(kNvidiaDriver) + "/";
  return {{q + "type", StringAttribute(type)},
          {q + "productName", StringAttribute(product)},
          {q + "brand", StringAttribute("Nvidia")}};
}

// A stable, distinct stand-in for card `g`'s UUID (the real one is the hardware's).
std::string CardUuid(const std::string& node, int g) {
  return fmt::format("GPU-{}-{}", node, g);
}

// Whole card `g` as a device.
DraDevice GpuDevice(const std::string& node, int g, const std::string& product,
                    int64_t memory_mib) {
  const std::string q = std::string(kNvidiaDriver) + "/";
  DraDevice d;
  d.name = NvidiaGpuName(g);
  d.attributes = CommonAttributes("gpu", product);
  d.attributes[q + "index"] = IntAttribute(g);
  d.attributes[q + "minor"] = IntAttribute(g);
  d.attributes[q + "uuid"] = StringAttribute(CardUuid(node, g));
  d.capacity = {{q + "memory", DraCapacity{memory_mib * kMiBMilli, std::nullopt}}};
  return d;
}

// The MIG instance of `p` at memory slice `start` on card `g`, the card's `k`th instance.
DraDevice MigDevice(const std::string& node, int g, size_t k, const MigProfile& p, int start,
                    const std::string& product, int64_t memory_mib) {
  const std::string q = std::string(kNvidiaDriver) + "/";
  std::string compact = p.name;
  std::erase(compact, '.');
  DraDevice d;
  d.name = fmt::format("gpu-{}-mig-{}-{}-{}", g, compact, p.gi_profile_id, start);
  d.attributes = CommonAttributes("mig", product);
  d.attributes[q + "profile"] = StringAttribute(p.name);
  d.attributes[q + "parentUUID"] = StringAttribute(CardUuid(node, g));
  d.attributes[q + "uuid"] = StringAttribute(fmt::format("MIG-{}-{}-{}", node, g, k));
  d.capacity = {
      {q + "memory",
       DraCapacity{memory_mib * p.memory_slices / kMigMemorySlices * kMiBMilli, std::nullopt}}};
  return d;
}

// What a device of card `g` takes of the card's counter set: memory slices [start, start + n).
std::vector<DraCounterConsumption> MemorySlices(int g, int start, int n) {
  DraCounterConsumption c;
  c.counter_set = fmt::format("gpu-{}-counter-set", g);
  for (int i = start; i < start + n; ++i)
    c.counters_milli[fmt::format("memory-slice-{}", i)] = 1000;
  return {c};
}

}  // namespace

ResourceSliceSpec NvidiaGpuSlice(const std::string& node, int gpus, const std::string& product,
                                 int64_t memory_mib, const DraCapacityPolicy* shared_memory) {
  ResourceSliceSpec slice = NodeSlice(node, kNvidiaDriver);
  for (int g = 0; g < gpus; ++g) {
    DraDevice& d = slice.devices.emplace_back(GpuDevice(node, g, product, memory_mib));
    if (shared_memory == nullptr) continue;
    d.allow_multiple_allocations = true;
    d.capacity.begin()->second.request_policy = *shared_memory;
  }
  return slice;
}

ResourceSliceSpec NvidiaMigSlice(const std::string& node, int gpus, const std::string& gpu_type,
                                 const std::string& product, int64_t memory_mib,
                                 const std::vector<std::string>& instances) {
  ResourceSliceSpec slice = NodeSlice(node, kNvidiaDriver);
  std::vector<const MigProfile*> profiles;
  for (const std::string& name : instances) profiles.push_back(FindMigProfile(gpu_type, name));
  const std::vector<int> starts = MigPlacementStarts(profiles);
  for (int g = 0; g < gpus; ++g) {
    for (size_t k = 0; k < profiles.size() && k < starts.size(); ++k)
      slice.devices.push_back(MigDevice(node, g, k, *profiles[k], starts[k], product, memory_mib));
  }
  return slice;
}

std::vector<ResourceSliceSpec> NvidiaDynamicMigSlices(const std::string& node, int gpus,
                                                      const std::string& gpu_type,
                                                      const std::string& product,
                                                      int64_t memory_mib) {
  ResourceSliceSpec counters = NodeSlice(node, kNvidiaDriver);
  counters.name += "-counters";
  ResourceSliceSpec devices = NodeSlice(node, kNvidiaDriver);
  counters.pool_slice_count = devices.pool_slice_count = 2;
  const std::vector<MigPlacement> placements = MigAllPlacements(gpu_type);
  for (int g = 0; g < gpus; ++g) {
    DraCounterSet& set = counters.shared_counters.emplace_back();
    set.name = fmt::format("gpu-{}-counter-set", g);
    for (int i = 0; i < kMigMemorySlices; ++i)
      set.counters_milli[fmt::format("memory-slice-{}", i)] = 1000;
    DraDevice& whole = devices.devices.emplace_back(GpuDevice(node, g, product, memory_mib));
    whole.consumes_counters = MemorySlices(g, 0, kMigMemorySlices);
    for (size_t k = 0; k < placements.size(); ++k) {
      const MigPlacement& p = placements[k];
      DraDevice& d = devices.devices.emplace_back(
          MigDevice(node, g, k, *p.profile, p.start, product, memory_mib));
      d.consumes_counters = MemorySlices(g, p.start, p.profile->memory_slices);
    }
  }
  return {counters, devices};
}

namespace {

// The chart's class `name`, selecting the driver's devices of `type`.
DeviceClassSpec NvidiaClass(const char* name, const std::string& type) {
  DeviceClassSpec c;
  c.name = name;
  c.selectors = {
      "device.driver == 'gpu.nvidia.com' && "
      "device.attributes['gpu.nvidia.com'].type == '" +
      type + "'"};
  return c;
}

}  // namespace

DeviceClassSpec NvidiaGpuClass() {
  return NvidiaClass(kNvidiaGpuClass, "gpu");
}

DeviceClassSpec NvidiaMigClass() {
  return NvidiaClass(kNvidiaMigClass, "mig");
}

std::string NvidiaMigProfileSelector(const std::string& profile) {
  return "device.attributes['gpu.nvidia.com'].profile == '" + profile + "'";
}

constexpr std::string_view kPrefix = "gpu-";

std::string NvidiaGpuName(int index) {
  return std::string(kPrefix) + std::to_string(index);
}

int NvidiaGpuIndex(const std::string& device) {
  if (device.size() <= kPrefix.size() || device.compare(0, kPrefix.size(), kPrefix) != 0) return -1;
  int index = -1;
  const char* first = device.data() + kPrefix.size();
  const char* last = device.data() + device.size();
  const auto [end, ec] = std::from_chars(first, last, index);
  return ec == std::errc() && end == last ? index : -1;
}

}  // namespace knobsim::dra
