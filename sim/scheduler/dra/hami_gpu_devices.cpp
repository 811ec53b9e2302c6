#include "sim/scheduler/dra/hami_gpu_devices.h"

#include <fmt/format.h>

#include "sim/scheduler/dra/node_slice.h"

namespace knobsim::dra {
namespace {

// A capacity of `total` milli-units that claims consume, with the driver's request policy.
DraCapacity Consumable(int64_t total_milli, int64_t min_milli, int64_t step_milli) {
  DraCapacityPolicy policy;
  policy.default_milli = total_milli;
  policy.has_range = true;
  policy.min_milli = min_milli;
  policy.max_milli = total_milli;
  policy.step_milli = step_milli;
  return DraCapacity{total_milli, policy};
}

}  // namespace

ResourceSliceSpec HamiCoreGpuSlice(const std::string& node, int gpus, const std::string& product,
                                   int64_t memory_mib) {
  constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;
  ResourceSliceSpec slice = NodeSlice(node, kHamiCoreDriver);
  const std::string q = std::string(kHamiCoreDriver) + "/";
  for (int g = 0; g < gpus; ++g) {
    DraDevice& d = slice.devices.emplace_back();
    d.name = fmt::format("hami-gpu-{}", g);
    d.allow_multiple_allocations = true;
    d.attributes = {{q + "type", StringAttribute("hami-gpu")},
                    {q + "productName", StringAttribute(product)},
                    {q + "brand", StringAttribute("Nvidia")},
                    {q + "minor", IntAttribute(g)},
                    {q + "uuid", StringAttribute(fmt::format("GPU-{}-{}", node, g))}};
    d.capacity = {{kHamiCoresCapacity, Consumable(100 * 1000, 0, 1000)},
                  {kHamiMemoryCapacity, Consumable(memory_mib * kMiBMilli, kMiBMilli, kMiBMilli)}};
  }
  return slice;
}

DeviceClassSpec HamiCoreGpuClass() {
  DeviceClassSpec c;
  c.name = kHamiCoreClass;
  c.selectors = {
      "device.driver == 'hami-core-gpu.project-hami.io' && "
      "device.attributes['hami-core-gpu.project-hami.io'].type == 'hami-gpu'"};
  return c;
}

}  // namespace knobsim::dra
