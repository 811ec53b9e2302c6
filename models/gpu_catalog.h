// GpuCatalog: what knobsim knows about each GPU model — memory, relative speed, CUDA context.
//
// Speed is relative to the reference card (A10 = 1.0): a request whose work is w seconds takes
// w / speed seconds alone on the card. Memory is what NVML reports (MiB), the number cGPU's
// visible-memory rule and the device plugin's unit count start from. Every entry carries the
// source of its numbers (models/README.md lists them); scenarios may add or override entries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim {

struct GpuType {
  std::string name;          // catalog key, e.g. "A100-40G"
  int64_t memory_mib = 0;    // physical memory as NVML reports it
  double speed = 1.0;        // relative to the reference card (A10 = 1.0)
  int64_t context_mib = 0;   // CUDA context per process (counted against the quota)
  std::string interconnect;  // "pcie" or "nvlink"
  std::string source;        // where the numbers come from
};

// ACK's device plugin reports gpu-mem in whole GiB per card: floor(NVML MiB / 1024)
// (gpushare-device-plugin setGPUMemory). V100-16G (16130 MiB) -> 15, A10 (23028 MiB) -> 22.
int CardMemoryUnits(int64_t memory_mib);

// The catalog key of `aliyun.accelerator/nvidia_name` or GPU feature discovery's
// `nvidia.com/gpu.product`, which spell models alike ("NVIDIA-L20" -> L20, "Tesla-T4" -> T4,
// "NVIDIA-L4" -> L4, "NVIDIA-A100-SXM4-80GB" -> A100-80G, "Tesla-V100-SXM2-32GB" -> V100-32G,
// "NVIDIA-H100-80GB-HBM3" -> H100); "" when unknown, and for the PCIe and NVL boards of H100
// and H200, which are not the catalog's SXM cards.
std::string GpuCatalogKey(std::string_view nvidia_name);

class GpuCatalog {
 public:
  // The built-in catalog: T4, A10, V100-16G, V100-32G, A100-40G, A100-80G, L20, L4, H100, H200.
  static GpuCatalog BuiltIn();

  // Adds a type or replaces the one with the same name. Names compare ignoring case, in Put and
  // in Find, so a scenario's "a10" overrides and finds the built-in "A10".
  void Put(GpuType type);
  const GpuType* Find(std::string_view name) const;  // nullptr when unknown
  const std::vector<GpuType>& types() const { return types_; }

 private:
  std::vector<GpuType> types_;
};

}  // namespace knobsim
