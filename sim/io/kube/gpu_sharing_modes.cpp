// Sources of every key below: docs/semantics.md §2.5 (NVDP internal/lm/resource.go,
// mig-strategy.go, nvml.go, api/config/v1/sharing.go and consts.go; HAMI pkg/device/nvidia/
// device.go, pkg/util/types.go, charts/hami/values.yaml; CSK and ACKDOC-LABELS for ACK).
#include "sim/io/kube/gpu_sharing_modes.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"

namespace knobsim::kube {
namespace {

constexpr std::string_view kHamiPrefix = "hami.io/";
constexpr std::string_view kSharedSuffix = ".shared";  // NVDP DefaultSharedResourceNameSuffix
constexpr std::string_view kNvidiaPrefix = "nvidia.com/";

// HAMi's pod annotations outside hami.io/ that knobsim does not model (HAMI pkg/device/nvidia/
// device.go): card UUIDs, the vGPU mode, NUMA binding.
constexpr std::array<std::string_view, 4> kHamiUnmodelledSelectors = {
    "nvidia.com/use-gpuuuid", "nvidia.com/nouse-gpuuuid", "nvidia.com/vgpu-mode",
    "nvidia.com/numa-bind"};
// HAMi's pod annotations knobsim reads or that only record its scheduling (HAMI pkg/util/
// types.go, pkg/scheduler/scheduler.go): the allocation and binding, the node and GPU policies.
constexpr std::array<std::string_view, 8> kHamiModelledPodAnnotations = {
    "hami.io/vgpu-node",
    "hami.io/vgpu-time",
    "hami.io/bind-phase",
    "hami.io/bind-time",
    "hami.io/vgpu-devices-allocated",
    "hami.io/vgpu-devices-to-allocate",
    "hami.io/node-scheduler-policy",
    "hami.io/gpu-scheduler-policy"};
// HAMi's node annotations beside its registration that change nothing knobsim models: the
// device plugin's handshake, the node lock of a bind in flight, topology scores (read only by
// the topology-aware policy, which pods cannot ask for in knobsim).
constexpr std::array<std::string_view, 3> kHamiModelledNodePrefixes = {
    "hami.io/node-handshake", "hami.io/mutex.lock", "hami.io/node-nvidia-score"};
// HAMi's task priority (nvidia.com/priority, HAMi-core's CUDA_TASK_PRIORITY).
constexpr std::string_view kHamiPriorityResource = "nvidia.com/priority";

constexpr std::string_view kHamiConsequence =
    "HAMi splits each card into vGPUs, which knobsim models from the node's device registration "
    "and the pods' resources (docs/semantics.md §2.8), but not this part of it";
constexpr std::string_view kMigConsequence =
    "MIG partitions each card into isolated instances with their own memory and compute; "
    "knobsim models it where nvidia.com/mig.strategy, the product and the capacity describe "
    "it as the NVIDIA device plugin advertises it (docs/import.md \"MIG\"), and this node's do "
    "not (whole cards beside MIG devices, MIG devices shared again by replicas, an invalid or "
    "incompletely labelled layout): read as whole cards, its instances would be cards of the "
    "full model";
constexpr std::string_view kAckMigConsequence =
    "ACK's dynamic MIG cuts cards into instances as pods ask for them, which knobsim does not "
    "simulate; read as whole cards they would be another cluster";
constexpr std::string_view kAckTopologyConsequence =
    "ACK places aliyun.com/gpu pods on the cards of the best NVLink topology, which knobsim does "
    "not simulate";
constexpr std::string_view kReplicaConsequence =
    "the device plugin advertises each physical card as several nvidia.com/gpu replicas that "
    "share it; knobsim models them where GPU feature discovery's labels say how (sharing-strategy "
    "time-slicing or mps, replicas, count, and a capacity within count x replicas, not renamed), "
    "and otherwise would read every replica as a card of its own, with no contention";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string LabelOf(const Labels& labels, std::string_view key) {
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string() : it->second;
}

int64_t CapacityOf(const ResourceList& capacity, std::string_view key) {
  auto it = capacity.find(std::string(key));
  return it == capacity.end() ? 0 : it->second;
}

// The parts of a GFD product name: GFD joins them with `-` (NVDP getProductName, sanitise).
std::vector<std::string> ProductParts(std::string_view product) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= product.size()) {
    const size_t dash = std::min(product.find('-', start), product.size());
    parts.emplace_back(product.substr(start, dash - start));
    start = dash + 1;
  }
  return parts;
}

UnmodelledSharing Found(std::string rule, std::string system, SharingEvidence evidence,
                        std::string key, std::string found, std::string_view consequence) {
  return UnmodelledSharing{std::move(rule), std::move(system), evidence,
                           std::move(key),  std::move(found),  std::string(consequence)};
}

// The system a GFD sharing-strategy value names (NVDP api/config/v1/sharing.go).
std::string StrategySystem(std::string_view strategy) {
  if (strategy == "time-slicing") return "NVIDIA time-slicing";
  if (strategy == "mps") return "NVIDIA MPS";
  if (strategy.empty() || strategy == "none") return "NVIDIA time-slicing or MPS";
  return "NVIDIA GPU sharing";
}

std::optional<UnmodelledSharing> AckSchedule(const Labels& labels, const ResourceList& capacity) {
  const std::string schedule = LabelOf(labels, kGpuScheduleLabel);
  const std::string found = Cat({"ack.node.gpu.schedule=", schedule});
  if (schedule == "mps")
    return Found("ack-schedule-mps", "ACK MPS sharing", SharingEvidence::kLabel, kGpuScheduleLabel,
                 found,
                 "ACK shares these cards through NVIDIA MPS combined with cGPU, which knobsim "
                 "does not simulate; read as exclusive cards they would be another cluster");
  if (schedule == "topology")
    return Found("ack-schedule-topology", "ACK topology-aware GPU scheduling",
                 SharingEvidence::kLabel, kGpuScheduleLabel, found, kAckTopologyConsequence);
  if (schedule == "mig")
    return Found("ack-schedule-mig", "ACK dynamic MIG", SharingEvidence::kLabel, kGpuScheduleLabel,
                 found, kAckMigConsequence);
  if (const int64_t n = CapacityOf(capacity, kTopologyGpuResource); n > 0)
    return Found("ack-topology-resource", "ACK topology-aware GPU scheduling",
                 SharingEvidence::kCapacity, std::string(kTopologyGpuResource),
                 Cat({"capacity ", kTopologyGpuResource, ": ", std::to_string(n)}),
                 kAckTopologyConsequence);
  return std::nullopt;
}

std::optional<UnmodelledSharing> NodeMig(const Labels& labels, const ResourceList& capacity) {
  for (const auto& [name, value] : capacity) {
    if (StartsWith(name, kMigResourcePrefix) && value > 0)
      return Found("mig-resource", "MIG", SharingEvidence::kCapacity, name,
                   Cat({"capacity ", name, ": ", std::to_string(value)}), kMigConsequence);
  }
  const std::string product = LabelOf(labels, kGfdProductLabel);
  const std::vector<std::string> parts = ProductParts(product);
  if (std::find(parts.begin(), parts.end(), "MIG") != parts.end())
    return Found("mig-product", "MIG", SharingEvidence::kLabel, kGfdProductLabel,
                 Cat({"nvidia.com/gpu.product=", product}), kMigConsequence);
  const std::string config = LabelOf(labels, "nvidia.com/mig.config");
  if (!config.empty() && config != "all-disabled")
    return Found("mig-config", "MIG", SharingEvidence::kLabel, "nvidia.com/mig.config",
                 Cat({"nvidia.com/mig.config=", config}), kMigConsequence);
  return std::nullopt;
}

std::optional<UnmodelledSharing> NodeReplicas(const Labels& labels, const ResourceList& capacity) {
  const std::string strategy = LabelOf(labels, "nvidia.com/gpu.sharing-strategy");
  if (!strategy.empty() && strategy != "none")
    return Found("gfd-sharing-strategy", StrategySystem(strategy), SharingEvidence::kLabel,
                 "nvidia.com/gpu.sharing-strategy",
                 Cat({"nvidia.com/gpu.sharing-strategy=", strategy}), kReplicaConsequence);
  // Without a strategy label (older GFD), the replica count and the product still tell.
  const std::string system = StrategySystem(strategy);
  if (labels.count("nvidia.com/gpu.replicas")) {
    const std::string text = LabelOf(labels, "nvidia.com/gpu.replicas");
    const std::optional<int64_t> replicas = ParseInteger(text);
    // 0: GFD's label for devices with sharing off (NewGPUResourceLabelerWithoutSharing).
    if (!replicas || *replicas < 0 || *replicas > 1)
      return Found("gfd-replicas", system, SharingEvidence::kLabel, "nvidia.com/gpu.replicas",
                   Cat({"nvidia.com/gpu.replicas=", text}), kReplicaConsequence);
  }
  const std::string product = LabelOf(labels, kGfdProductLabel);
  if (EndsWith(product, "-SHARED"))
    return Found("gfd-shared-product", system, SharingEvidence::kLabel, kGfdProductLabel,
                 Cat({"nvidia.com/gpu.product=", product}), kReplicaConsequence);
  for (const auto& [name, value] : capacity) {
    if (StartsWith(name, kNvidiaPrefix) && EndsWith(name, kSharedSuffix) && value > 0)
      return Found("shared-resource", system, SharingEvidence::kCapacity, name,
                   Cat({"capacity ", name, ": ", std::to_string(value)}), kReplicaConsequence);
  }
  if (LabelOf(labels, "nvidia.com/mps.capable") == "true")
    return Found("mps-capable", "NVIDIA MPS", SharingEvidence::kLabel, "nvidia.com/mps.capable",
                 "nvidia.com/mps.capable=true", kReplicaConsequence);
  const std::optional<int64_t> count = ParseInteger(LabelOf(labels, kGfdCountLabel));
  const int64_t offered = CapacityOf(capacity, kNvidiaGpuResource);
  if (count && *count > 0 && offered > *count)
    return Found("capacity-above-count", "NVIDIA GPU replicas or vGPUs", SharingEvidence::kCapacity,
                 kNvidiaGpuResource,
                 Cat({"capacity nvidia.com/gpu: ", std::to_string(offered),
                      " on nvidia.com/gpu.count=", std::to_string(*count), " cards"}),
                 "more devices are offered than the node has cards, so each card is shared "
                 "(time-slicing or MPS replicas, or HAMi vGPUs); knobsim would read every "
                 "device as a card of its own");
  return std::nullopt;
}

}  // namespace

const std::string_view kUnmodelledSharingHint =
    "knobsim models whole cards (nvidia.com/gpu without sharing), ACK GPU sharing "
    "(aliyun.com/gpu-mem on ack.node.gpu.schedule share, cgpu or core_mem), and the NVIDIA device "
    "plugin's time-slicing and MPS replicas and MIG instances where GPU feature discovery labels "
    "them completely; export the cluster without these nodes and their pods (docs/import.md "
    "\"GPU sharing modes knobsim refuses\")";

std::optional<ModelledReplicas> DevicePluginReplicas(const Labels& labels,
                                                     const ResourceList& capacity) {
  const std::string strategy = LabelOf(labels, kGfdSharingStrategyLabel);
  ModelledReplicas out;
  if (strategy == "time-slicing") {
    out.sharing.strategy = DeviceSharingStrategy::kTimeSlicing;
  } else if (strategy == "mps") {
    out.sharing.strategy = DeviceSharingStrategy::kMps;
    out.sharing.fail_requests_greater_than_one = true;  // the plugin's MPS default (config.go)
  } else {
    return std::nullopt;
  }
  const std::optional<int64_t> replicas = ParseInteger(LabelOf(labels, kGfdReplicasLabel));
  const std::optional<int64_t> count = ParseInteger(LabelOf(labels, kGfdCountLabel));
  if (!replicas || *replicas < 2 || *replicas > 256 || !count || *count < 1) return std::nullopt;
  // renameByDefault advertises nvidia.com/gpu.shared instead of nvidia.com/gpu (modelled);
  // another renamed resource (a MIG profile's) is not.
  for (const auto& [name, value] : capacity) {
    if (StartsWith(name, kNvidiaPrefix) && EndsWith(name, kSharedSuffix) && value > 0 &&
        name != kSharedGpuResource)
      return std::nullopt;
  }
  const int64_t renamed = CapacityOf(capacity, kSharedGpuResource);
  out.sharing.renamed = renamed > 0;
  if (out.sharing.renamed && CapacityOf(capacity, kNvidiaGpuResource) > 0) return std::nullopt;
  // The plugin advertises every card's replicas (the labels and the capacity agree), or fewer
  // when cards are unhealthy: the capacity is what the scheduler places on.
  const int64_t offered = out.sharing.renamed ? renamed : CapacityOf(capacity, kNvidiaGpuResource);
  if (offered <= 0 || offered > *count * *replicas) return std::nullopt;
  if (out.sharing.strategy == DeviceSharingStrategy::kMps && *replicas > 48) return std::nullopt;
  out.sharing.replicas = static_cast<int>(*replicas);
  out.cards = static_cast<int>(*count);
  out.offered = offered;
  return out;
}

std::optional<ModelledMig> DevicePluginMig(const Labels& labels, const ResourceList& capacity) {
  const std::string strategy = LabelOf(labels, kGfdMigStrategyLabel);
  ModelledMig out;
  // Replicas of MIG devices (sharing.timeSlicing over nvidia.com/mig-*) are not modelled.
  for (const auto& [key, value] : labels) {
    if (StartsWith(key, kNvidiaPrefix) && EndsWith(key, ".replicas")) {
      const std::optional<int64_t> replicas = ParseInteger(value);
      if (!replicas || *replicas > 1) return std::nullopt;
    }
  }
  const std::string product = LabelOf(labels, kGfdProductLabel);
  if (strategy == "single") {
    // <card>-MIG-<profile> (NVDP NewMIGResourceLabeler: baseLabeler(count, model, "MIG", profile)).
    const size_t mig = product.rfind("-MIG-");
    if (mig == std::string::npos || mig == 0) return std::nullopt;
    const std::string profile = product.substr(mig + 5);
    const int64_t offered = CapacityOf(capacity, kNvidiaGpuResource);
    if (profile == "INVALID" || offered <= 0) return std::nullopt;
    for (const auto& [name, value] : capacity)
      if (StartsWith(name, kMigResourcePrefix) && value > 0) return std::nullopt;
    out.strategy = MigStrategy::kSingle;
    out.card_product = product.substr(0, mig);
    out.devices.emplace_back(profile, offered);
    return out;
  }
  if (strategy != "mixed") return std::nullopt;
  for (const auto& [name, value] : capacity) {
    if (StartsWith(name, kMigResourcePrefix) && value > 0)
      out.devices.emplace_back(name.substr(kMigResourcePrefix.size()), value);
  }
  const std::optional<int64_t> count = ParseInteger(LabelOf(labels, kGfdCountLabel));
  if (out.devices.empty() || CapacityOf(capacity, kNvidiaGpuResource) > 0 || !count || *count < 1 ||
      product.empty())
    return std::nullopt;
  out.strategy = MigStrategy::kMixed;
  out.card_product = product;
  out.cards = static_cast<int>(*count);
  return out;
}

std::optional<UnmodelledSharing> UnmodelledNodeSharing(const Labels& labels,
                                                       const std::vector<std::string>& annotations,
                                                       const ResourceList& capacity) {
  if (auto s = AckSchedule(labels, capacity)) return s;
  const bool registered = std::find(annotations.begin(), annotations.end(),
                                    kHamiRegisterAnnotation) != annotations.end();
  for (const std::string& key : annotations) {
    if (!StartsWith(key, kHamiPrefix) || key == kHamiRegisterAnnotation) continue;
    const bool known =
        std::any_of(kHamiModelledNodePrefixes.begin(), kHamiModelledNodePrefixes.end(),
                    [&](std::string_view p) { return StartsWith(key, p); });
    if (!registered || !known)
      return Found("hami-node-annotation", "HAMi", SharingEvidence::kAnnotation, key,
                   Cat({"annotation ", key}),
                   registered ? kHamiConsequence
                              : "HAMi's annotations without its device registration ("
                                "hami.io/node-nvidia-register): the node's vGPUs are unknown");
  }
  if (DevicePluginMig(labels, capacity)) return std::nullopt;  // modelled
  if (auto s = NodeMig(labels, capacity)) return s;
  if (DevicePluginReplicas(labels, capacity)) return std::nullopt;  // modelled
  return NodeReplicas(labels, capacity);
}

std::optional<UnmodelledSharing> UnmodelledPodSharing(const std::vector<std::string>& annotations,
                                                      const std::vector<std::string>& resources) {
  for (const std::string& key : annotations) {
    const bool unmodelled_selector =
        std::find(kHamiUnmodelledSelectors.begin(), kHamiUnmodelledSelectors.end(), key) !=
        kHamiUnmodelledSelectors.end();
    const bool modelled =
        std::find(kHamiModelledPodAnnotations.begin(), kHamiModelledPodAnnotations.end(), key) !=
        kHamiModelledPodAnnotations.end();
    if ((StartsWith(key, kHamiPrefix) && !modelled) || unmodelled_selector)
      return Found("hami-pod-annotation", "HAMi", SharingEvidence::kAnnotation, key,
                   Cat({"annotation ", key}), kHamiConsequence);
  }
  for (const std::string& name : resources) {
    if (name == kHamiPriorityResource)
      return Found("hami-resource", "HAMi", SharingEvidence::kPodResource, name,
                   Cat({"resource ", name}),
                   "HAMi-core's task priorities (one task blocks another's kernels) are not "
                   "modelled");
  }
  for (const std::string& name : resources) {
    // nvidia.com/gpu.shared is read (the pod reader's ReadDeviceRequest); other renamed
    // resources (MIG profiles' replicas) are not modelled.
    if (StartsWith(name, kNvidiaPrefix) && EndsWith(name, kSharedSuffix) &&
        name != kSharedGpuResource)
      return Found("shared-resource", "NVIDIA GPU sharing", SharingEvidence::kPodResource, name,
                   Cat({"resource ", name}),
                   "the pod asks for a shared replica of a card (time-slicing or MPS with "
                   "renameByDefault), which knobsim does not model");
    if (name == kTopologyGpuResource)
      return Found("ack-topology-resource", "ACK topology-aware GPU scheduling",
                   SharingEvidence::kPodResource, name, Cat({"resource ", name}),
                   kAckTopologyConsequence);
  }
  return std::nullopt;
}

std::string UnmodelledSharingMessage(const UnmodelledSharing& s, std::string_view object) {
  return Cat({object, ": ", s.system, " (", s.found, ") is not modelled: ", s.consequence});
}

}  // namespace knobsim::kube
