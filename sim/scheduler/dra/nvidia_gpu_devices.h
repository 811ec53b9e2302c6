// The objects the NVIDIA DRA driver (k8s-dra-driver-gpu) publishes, for clusters knobsim builds
// itself (a scenario's `dra:` pools, benchmarks): one ResourceSlice per node (driver
// gpu.nvidia.com, the pool named after the node) and the driver's DeviceClasses.
//   - Whole GPUs: a device `gpu-<minor>` per card with the driver's attributes (type "gpu",
//     productName, index, uuid, …) and its memory as capacity; class gpu.nvidia.com.
//   - MIG instances created ahead (MIG mode on, without the DynamicMIG gate): a device per
//     instance, `gpu-<minor>-mig-<profile without dots>-<GI profile ID>-<placement start>`
//     (cmd/gpu-kubelet-plugin mig.go ToCanonicalName), type "mig" with its profile and parent,
//     its memory as capacity; class mig.nvidia.com. The card is not published itself.
//   - DynamicMIG (the driver's gate; cmd/gpu-kubelet-plugin partitions.go): each card whole and
//     every MIG placement of it, all consuming the card's counter set `gpu-<minor>-counter-set`
//     (one counter per memory slice, `memory-slice-<i>`: the whole card takes all eight, an
//     instance its run of them), so allocated devices never overlap. The counter set sits in a
//     slice of its own (the API keeps counter sets and devices apart): two slices in the pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/kube_dra.h"

namespace knobsim::dra {

inline constexpr const char* kNvidiaDriver = "gpu.nvidia.com";
inline constexpr const char* kNvidiaGpuClass = "gpu.nvidia.com";
inline constexpr const char* kNvidiaMigClass = "mig.nvidia.com";

// The slice of `node`, with `gpus` cards of `product` holding `memory_mib` each. With
// `shared_memory` the cards allow multiple allocations and their `memory` is consumable under
// that request policy (KEP-5075; the driver itself publishes no such devices, a scenario's
// `shared_memory` pool stands for a driver that does).
ResourceSliceSpec NvidiaGpuSlice(const std::string& node, int gpus, const std::string& product,
                                 int64_t memory_mib,
                                 const DraCapacityPolicy* shared_memory = nullptr);
// The slice of `node` whose `gpus` cards of `gpu_type` (a card type with MIG geometry,
// models/mig_profiles.h) are each cut into `instances` (a layout that fits), card by card: the
// device of instance k of card g is the node's card slot g * instances.size() + k.
ResourceSliceSpec NvidiaMigSlice(const std::string& node, int gpus, const std::string& gpu_type,
                                 const std::string& product, int64_t memory_mib,
                                 const std::vector<std::string>& instances);
// The two slices of `node` under DynamicMIG, counters first: for each of `gpus` cards of
// `gpu_type` the whole card, then its MigAllPlacements (models/mig_profiles.h), in that order —
// device k of card g is the node's card slot g * (1 + placements) + k.
std::vector<ResourceSliceSpec> NvidiaDynamicMigSlices(const std::string& node, int gpus,
                                                      const std::string& gpu_type,
                                                      const std::string& product,
                                                      int64_t memory_mib);
// The driver's DeviceClasses: device.driver == 'gpu.nvidia.com' && type == 'gpu' (or 'mig').
DeviceClassSpec NvidiaGpuClass();
DeviceClassSpec NvidiaMigClass();
// The selector a claim asks MIG instances of one profile by (the driver's `profile` attribute).
std::string NvidiaMigProfileSelector(const std::string& profile);
// The device name of card `index` ("gpu-3"), and back: the card a device of NvidiaGpuSlice is
// (3), or -1 for another name.
std::string NvidiaGpuName(int index);
int NvidiaGpuIndex(const std::string& device);

}  // namespace knobsim::dra
