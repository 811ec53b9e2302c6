#include "sim/scheduler/dra/nvidia_gpu_devices.h"

#include <fmt/format.h>

#include <charconv>
#include <utility>

namespace knobsim::dra {
namespace {

DraAttribute Text(std::string value, DraAttribute::Kind kind = DraAttribute::Kind::kString) {
  DraAttribute a;
  a.kind = kind;
  a.strings = {std::move(value)};
  return a;
}

DraAttribute Number(int64_t value) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kInt;
  a.ints = {value};
  return a;
}

}  // namespace

ResourceSliceSpec NvidiaGpuSlice(const std::string& node, int gpus, const std::string& product,
                                 int64_t memory_mib) {
  ResourceSliceSpec slice;
  slice.name = node + "-gpu.nvidia.com";
  slice.driver = kNvidiaDriver;
  slice.pool = node;
  slice.node_name = node;
  const std::string q = std::string(kNvidiaDriver) + "/";
  for (int g = 0; g < gpus; ++g) {
    DraDevice& d = slice.devices.emplace_back();
    d.name = NvidiaGpuName(g);
    d.attributes = {
        {q + "type", Text("gpu")},
        {q + "productName", Text(product)},
        {q + "brand", Text("Nvidia")},
        {q + "index", Number(g)},
        {q + "minor", Number(g)},
        // A stable, distinct stand-in for the card's UUID (the real one is the hardware's).
        {q + "uuid", Text(fmt::format("GPU-{}-{}", node, g))},
    };
    d.capacity = {
        {q + "memory", DraCapacity{memory_mib * (int64_t{1} << 20) * 1000, std::nullopt}}};
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
