#include "models/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace knobsim {

namespace {

// Speed basis for every entry: dense (no sparsity) FP16 Tensor Core TFLOPS from NVIDIA's
// datasheet, divided by the A10's 125. One basis for all cards keeps ratios comparable; it
// favours compute-bound work (diffusion, prefill, large-batch) and understates cards with more
// memory bandwidth for memory-bound decoding, which a scenario fixes by overriding `speed`.
constexpr double kA10DenseFp16Tflops = 125.0;

// CUDA context per process: not a datasheet figure. It grows with the architecture's kernel
// images and the CUDA version (lazy loading, CUDA >= 11.7, shrinks it); the values below are an
// assumption in the 300-500 MiB range commonly seen for a PyTorch process, by architecture.
constexpr int64_t kContextVoltaTuring = 300;
constexpr int64_t kContextAmpere = 400;
constexpr int64_t kContextAda = 450;
constexpr int64_t kContextHopper = 500;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> Tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '-' || c == ' ' || c == '_') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::ranges::equal(
      a, b, [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

}  // namespace

std::string GpuCatalogKey(std::string_view nvidia_name) {
  std::vector<std::string> t = Tokens(Upper(nvidia_name));
  t.erase(std::remove_if(
              t.begin(), t.end(),
              [](const std::string& s) { return s == "NVIDIA" || s == "TESLA" || s == "GEFORCE"; }),
          t.end());
  if (t.empty()) return "";
  auto has = [&](std::string_view what) { return std::find(t.begin(), t.end(), what) != t.end(); };
  const std::string& model = t.front();
  if (model == "L20") return "L20";
  if (model == "L4") return "L4";
  if (model == "T4") return "T4";
  if (model == "A10") return "A10";
  // The catalog's H100 and H200 are the SXM cards; the PCIe and NVL boards (NVIDIA-H100-PCIe,
  // NVIDIA-H100-NVL, NVIDIA-H200-NVL) have less compute or other memory, so they stay unknown
  // and keep their labelled memory rather than borrow the SXM figures.
  const bool board = has("PCIE") || has("NVL");
  if (model == "H100") return board ? "" : "H100";
  if (model == "H200") return board ? "" : "H200";
  if (model == "A100") return has("80GB") || has("80G") ? "A100-80G" : "A100-40G";
  if (model == "V100") return has("32GB") || has("32G") ? "V100-32G" : "V100-16G";
  return "";
}

int CardMemoryUnits(int64_t memory_mib) {
  if (memory_mib <= 0) return 0;
  return static_cast<int>(memory_mib / 1024);
}

GpuCatalog GpuCatalog::BuiltIn() {
  auto speed = [](double tflops) { return tflops / kA10DenseFp16Tflops; };
  GpuCatalog catalog;
  catalog.Put({"T4", 15360, speed(65.0), kContextVoltaTuring, "pcie",
               "memory: NVML 15360 MiB (docs/semantics.md §1.1); speed: T4 datasheet 65 TFLOPS "
               "FP16/FP32 mixed precision / A10 125; context: Turing assumption"});
  catalog.Put({"A10", 23028, speed(125.0), kContextAmpere, "pcie",
               "memory: NVML 23028 MiB (docs/semantics.md §1.1); speed: reference card, A10 "
               "datasheet 125 dense FP16 Tensor TFLOPS; context: Ampere assumption"});
  catalog.Put({"V100-16G", 16130, speed(125.0), kContextVoltaTuring, "nvlink",
               "memory: NVML 16130 MiB as in ACK 'Monitor and isolate GPU resources' "
               "(docs/semantics.md §1.8); speed: V100 SXM2 datasheet 125 Tensor TFLOPS / A10 125; "
               "nvlink: SXM2 as in ecs.gn6v; context: Volta assumption"});
  catalog.Put({"V100-32G", 32510, speed(125.0), kContextVoltaTuring, "nvlink",
               "memory: nvidia-smi 32510 MiB for V100-SXM2-32GB; speed: V100 SXM2 datasheet "
               "125 Tensor TFLOPS / A10 125; nvlink: SXM2 as in ecs.gn6e; context: Volta "
               "assumption"});
  catalog.Put({"A100-40G", 40960, speed(312.0), kContextAmpere, "nvlink",
               "memory: nvidia-smi 40960 MiB for A100-SXM4-40GB (newer drivers report "
               "~40536); speed: A100 datasheet 312 dense FP16 Tensor TFLOPS / A10 125; "
               "nvlink: SXM4; context: Ampere assumption"});
  catalog.Put({"A100-80G", 81920, speed(312.0), kContextAmpere, "nvlink",
               "memory: nvidia-smi 81920 MiB for A100-SXM4-80GB (newer drivers report "
               "~81251); speed: A100 datasheet 312 dense FP16 Tensor TFLOPS / A10 125; "
               "nvlink: SXM4; context: Ampere assumption"});
  catalog.Put({"L20", 46068, speed(119.5), kContextAda, "pcie",
               "memory: nvidia-smi 46068 MiB for NVIDIA L20; speed: L20 product brief 119.5 "
               "dense FP16 Tensor TFLOPS / A10 125; context: Ada assumption"});
  catalog.Put({"L4", 23034, speed(121.0), kContextAda, "pcie",
               "memory: nvidia-smi 23034 MiB for NVIDIA L4 (GPU feature discovery's "
               "nvidia.com/gpu.memory); speed: L4 datasheet 242 FP16 Tensor TFLOPS with "
               "sparsity = 121 dense / A10 125; context: Ada assumption"});
  catalog.Put({"H100", 81559, speed(989.4), kContextHopper, "nvlink",
               "memory: nvidia-smi 81559 MiB for H100 80GB HBM3 (SXM5); speed: H100 SXM "
               "datasheet 1979 FP16 Tensor TFLOPS with sparsity = 989.4 dense / A10 125; "
               "context: Hopper assumption"});
  catalog.Put({"H200", 143771, speed(989.4), kContextHopper, "nvlink",
               "memory: nvidia-smi 143771 MiB for H200 141GB HBM3e (SXM); speed: H200 SXM "
               "datasheet 1979 FP16 Tensor TFLOPS with sparsity = 989.4 dense / A10 125 (same "
               "compute as H100; its 4.8 TB/s vs 3.35 TB/s only helps memory-bound work); "
               "context: Hopper assumption"});
  return catalog;
}

// Names are keys regardless of case ("a10" in a scenario means the built-in "A10"), so the
// catalog never holds two entries whose names differ only by case.
void GpuCatalog::Put(GpuType type) {
  auto it = std::ranges::find_if(
      types_, [&](const GpuType& t) { return EqualsIgnoreCase(t.name, type.name); });
  if (it != types_.end()) {
    *it = std::move(type);
  } else {
    types_.push_back(std::move(type));
  }
}

const GpuType* GpuCatalog::Find(std::string_view name) const {
  auto it = std::ranges::find_if(types_,
                                 [&](const GpuType& t) { return EqualsIgnoreCase(t.name, name); });
  return it == types_.end() ? nullptr : &*it;
}

}  // namespace knobsim
