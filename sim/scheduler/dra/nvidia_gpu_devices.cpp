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

}  // namespace

ResourceSliceSpec NvidiaGpuSlice(const std::string& node, int gpus, const std::string& product,
                                 int64_t memory_mib) {
  ResourceSliceSpec slice = NodeSlice(node, kNvidiaDriver);
  const std::string q = std::string(kNvidiaDriver) + "/";
  for (int g = 0; g < gpus; ++g) {
    DraDevice& d = slice.devices.emplace_back();
    d.name = NvidiaGpuName(g);
    d.attributes = CommonAttributes("gpu", product);
    d.attributes[q + "index"] = IntAttribute(g);
    d.attributes[q + "minor"] = IntAttribute(g);
    d.attributes[q + "uuid"] = StringAttribute(CardUuid(node, g));
    d.capacity = {{q + "memory", DraCapacity{memory_mib * kMiBMilli, std::nullopt}}};
  }
  return slice;
}

ResourceSliceSpec NvidiaMigSlice(const std::string& node, int gpus, const std::string& gpu_type,
                                 const std::string& product, int64_t memory_mib,
                                 const std::vector<std::string>& instances) {
  ResourceSliceSpec slice = NodeSlice(node, kNvidiaDriver);
  const std::string q = std::string(kNvidiaDriver) + "/";
  std::vector<const MigProfile*> profiles;
  for (const std::string& name : instances) profiles.push_back(FindMigProfile(gpu_type, name));
  const std::vector<int> starts = MigPlacementStarts(profiles);
  for (int g = 0; g < gpus; ++g) {
    for (size_t k = 0; k < profiles.size() && k < starts.size(); ++k) {
      const MigProfile& p = *profiles[k];
      std::string compact = p.name;
      std::erase(compact, '.');
      DraDevice& d = slice.devices.emplace_back();
      d.name = fmt::format("gpu-{}-mig-{}-{}-{}", g, compact, p.gi_profile_id, starts[k]);
      d.attributes = CommonAttributes("mig", product);
      d.attributes[q + "profile"] = StringAttribute(p.name);
      d.attributes[q + "parentUUID"] = StringAttribute(CardUuid(node, g));
      d.attributes[q + "uuid"] = StringAttribute(fmt::format("MIG-{}-{}-{}", node, g, k));
      d.capacity = {
          {q + "memory",
           DraCapacity{memory_mib * p.memory_slices / kMigMemorySlices * kMiBMilli, std::nullopt}}};
    }
  }
  return slice;
}

DeviceClassSpec NvidiaGpuClass() {
  DeviceClassSpec c;
  c.name = kNvidiaGpuClass;
  c.selectors = {
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"};
  return c;
}

DeviceClassSpec NvidiaMigClass() {
  DeviceClassSpec c;
  c.name = kNvidiaMigClass;
  c.selectors = {
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"};
  return c;
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
