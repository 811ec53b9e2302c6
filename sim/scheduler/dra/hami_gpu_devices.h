// The objects HAMi's DRA driver (Project-HAMi/k8s-dra-driver, cmd/hami-kubelet-plugin
// hami_core.go) publishes, for clusters knobsim builds itself (a scenario's `dra: {driver:
// hami}` pools): one ResourceSlice per node (driver hami-core-gpu.project-hami.io, the pool named
// after the node), a device `hami-gpu-<minor>` per card that many claims may hold at once
// (allowMultipleAllocations), with two consumable capacities (KEP-5075) that HAMi-core enforces
// in the container:
//   - `cores`: 100, request policy default 100, valid range 0..100 step 1
//     (CUDA_DEVICE_SM_LIMIT; 0 and 100 do not throttle);
//   - `memory`: the card's bytes, default all of them, valid range 1Mi..all step 1Mi
//     (CUDA_DEVICE_MEMORY_LIMIT).
// A claim that does not ask a capacity is given its default: all of the card's cores or memory.
// The DeviceClass hami-core-gpu.project-hami.io selects the devices (type "hami-gpu").
#pragma once

#include <cstdint>
#include <string>

#include "sim/kube_dra.h"

namespace knobsim::dra {

inline constexpr const char* kHamiCoreDriver = "hami-core-gpu.project-hami.io";
inline constexpr const char* kHamiCoreClass = "hami-core-gpu.project-hami.io";
inline constexpr const char* kHamiCoresCapacity = "hami-core-gpu.project-hami.io/cores";
inline constexpr const char* kHamiMemoryCapacity = "hami-core-gpu.project-hami.io/memory";

// The slice of `node`, with `gpus` cards of `product` holding `memory_mib` each.
ResourceSliceSpec HamiCoreGpuSlice(const std::string& node, int gpus, const std::string& product,
                                   int64_t memory_mib);
// The driver's DeviceClass.
DeviceClassSpec HamiCoreGpuClass();

}  // namespace knobsim::dra
