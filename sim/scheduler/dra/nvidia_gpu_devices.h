// The objects the NVIDIA DRA driver (k8s-dra-driver-gpu) publishes for whole GPUs, for clusters
// knobsim builds itself (a scenario's `dra: true` pools, benchmarks): one ResourceSlice per node
// (driver gpu.nvidia.com, the pool named after the node), a device `gpu-<i>` per card with the
// driver's attributes (type "gpu", productName, index, uuid, …) and its memory as capacity, and
// the driver's DeviceClass gpu.nvidia.com, which selects them.
#pragma once

#include <cstdint>
#include <string>

#include "sim/kube_dra.h"

namespace knobsim::dra {

inline constexpr const char* kNvidiaDriver = "gpu.nvidia.com";
inline constexpr const char* kNvidiaGpuClass = "gpu.nvidia.com";

// The slice of `node`, with `gpus` cards of `product` holding `memory_mib` each.
ResourceSliceSpec NvidiaGpuSlice(const std::string& node, int gpus, const std::string& product,
                                 int64_t memory_mib);
// The driver's DeviceClass: device.driver == 'gpu.nvidia.com' && type == 'gpu'.
DeviceClassSpec NvidiaGpuClass();
// The device name of card `index` ("gpu-3"), and back: the card a device of NvidiaGpuSlice is
// (3), or -1 for another name.
std::string NvidiaGpuName(int index);
int NvidiaGpuIndex(const std::string& device);

}  // namespace knobsim::dra
