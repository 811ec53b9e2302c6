#include "sim/scenario_objects.h"

#include <algorithm>

namespace knobsim {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

}  // namespace

const char* GpuScheduleLabelValue(GpuSchedule schedule) {
  switch (schedule) {
    case GpuSchedule::kDefault:
      return "default";
    case GpuSchedule::kShare:
      return "share";
    case GpuSchedule::kCgpu:
      return "cgpu";
    case GpuSchedule::kCoreMem:
      return "core_mem";
  }
  return "default";
}

std::string PoolNodeName(const NodePool& pool, int ordinal) {
  if (ordinal < static_cast<int>(pool.nodes.size())) return pool.nodes[ordinal].name;
  return pool.name + "-" + std::to_string(ordinal);
}

std::string PoolNodeZone(const NodePool& pool, int ordinal) {
  if (ordinal < static_cast<int>(pool.nodes.size()) && !pool.nodes[ordinal].zone.empty()) {
    return pool.nodes[ordinal].zone;
  }
  return pool.zones.empty() ? std::string() : pool.zones[ordinal % pool.zones.size()];
}

NodeSpec NodeSpecForPool(const Scenario& scenario, int pool_index, int ordinal) {
  const NodePool& pool = scenario.node_pools[pool_index];
  NodeSpec node;
  node.name = PoolNodeName(pool, ordinal);
  node.labels = pool.labels;
  if (ordinal < static_cast<int>(pool.nodes.size())) {
    for (const auto& [key, value] : pool.nodes[ordinal].labels) node.labels[key] = value;
  }
  node.labels[kHostnameLabel] = node.name;
  if (std::string zone = PoolNodeZone(pool, ordinal); !zone.empty()) {
    node.labels[kZoneLabel] = std::move(zone);
  }
  if (!pool.instance_type.empty()) node.labels[kInstanceTypeLabel] = pool.instance_type;
  node.taints = pool.taints;
  ResourceList& alloc = node.allocatable;
  alloc["cpu"] = pool.cpu_milli;
  alloc["memory"] = pool.memory_mib * kMiB;
  alloc["pods"] = pool.pods;
  if (const GpuType* gpu = pool.gpu_type.empty() ? nullptr : scenario.catalog.Find(pool.gpu_type)) {
    node.gpu_model = gpu->name;
    node.gpu_cards = pool.gpus_per_node;
    node.interconnect = gpu->interconnect;
    node.gpu_schedule = GpuScheduleLabelValue(pool.schedule);
    node.labels[kGpuModelLabel] = gpu->name;
    node.labels[kGpuCountLabel] = std::to_string(pool.gpus_per_node);
    node.labels[kGpuMemoryLabel] = std::to_string(gpu->memory_mib) + "MiB";
    if (pool.dra.enabled) {
      // A DRA driver publishes the cards (or a MIG layout's instances) in a ResourceSlice
      // (DraCatalogForScenario); no device plugin advertises them.
      node.gpu_cards = pool.card_slots();
    } else if (pool.mig.enabled()) {
      // Each card's MIG instances are the node's device slots, card by card (models/
      // mig_profiles.h); the device plugin advertises them by its strategy and GPU feature
      // discovery labels the strategy (k8s-device-plugin internal/lm/mig-strategy.go).
      node.gpu_cards = pool.card_slots();
      node.mig = pool.mig;
      node.labels[kGfdMigStrategyLabel] = MigStrategyName(pool.mig.strategy);
      if (pool.mig.strategy == MigStrategy::kSingle) {
        alloc[kNvidiaGpuResource] = pool.card_slots();
      } else {
        for (const std::string& profile : pool.mig.instances)
          alloc[std::string(kMigResourcePrefix) + profile] += pool.gpus_per_node;
      }
    } else if (pool.device_sharing.shared()) {
      // The device plugin advertises each card as its replicas, and GPU feature discovery
      // labels the node so (k8s-device-plugin internal/lm/resource.go).
      const DeviceSharing& sharing = pool.device_sharing;
      node.device_sharing = sharing;
      alloc[sharing.resource()] = int64_t{pool.gpus_per_node} * sharing.replicas;
      node.labels[kGfdReplicasLabel] = std::to_string(sharing.replicas);
      node.labels[kGfdSharingStrategyLabel] = DeviceSharingStrategyName(sharing.strategy);
    } else if (pool.hami.enabled()) {
      // HAMi's device plugin registers each card with its split, scaled memory and cores, and
      // advertises split_count nvidia.com/gpu per card (sim/kube_types.h HamiDevices).
      node.hami.split_count = pool.hami.split_count;
      node.hami.devmem_mib =
          static_cast<int>(static_cast<double>(gpu->memory_mib) * pool.hami.memory_scaling);
      node.hami.devcore = static_cast<int>(100 * pool.hami.core_scaling);
      node.hami.core_policy = pool.hami.core_policy;
      alloc[kNvidiaGpuResource] = int64_t{pool.gpus_per_node} * pool.hami.split_count;
    } else if (pool.schedule == GpuSchedule::kDefault) {
      alloc[kNvidiaGpuResource] = pool.gpus_per_node;
    } else {
      node.card_mem_units = CardMemoryUnits(gpu->memory_mib);
      alloc[kGpuMemResource] = static_cast<int64_t>(node.card_mem_units) * pool.gpus_per_node;
      alloc[kGpuCountResource] = pool.gpus_per_node;
      alloc[kNvidiaGpuResource] = 0;  // sharing nodes report "0" (docs/semantics.md §1.1)
      if (pool.schedule == GpuSchedule::kCoreMem) {
        node.card_core_percent = 100;
        alloc[kGpuCoreResource] = 100 * static_cast<int64_t>(pool.gpus_per_node);
      }
    }
  }
  node.capacity = alloc;
  node.placement = pool.placement;
  node.max_pods_per_card = pool.max_pods_per_card;
  return node;
}

void UseDevicePluginCards(NodePool& pool) {
  pool.schedule = GpuSchedule::kDefault;
  pool.cgpu_active = false;
  // MIG instances have their own memory, MPS clients a pinned limit, HAMi-core a limit per pod.
  const bool hard = pool.mig.enabled() || pool.hami.enabled() ||
                    (pool.dra.enabled && pool.dra.driver == DraDriver::kHamiCore) ||
                    pool.device_sharing.strategy == DeviceSharingStrategy::kMps;
  pool.isolation = hard ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
}

const StatefulSetSpec* StatefulSetOf(const Workload& w, const ScenarioKube& kube) {
  if (w.kind != "StatefulSet") return nullptr;
  for (const StatefulSetSpec& set : kube.stateful_sets) {
    if (set.name == w.name && set.namespace_ == w.namespace_) return &set;
  }
  return nullptr;
}

std::vector<std::string> ReplicaClaims(const Workload& w, const StatefulSetSpec* set, int ordinal) {
  if (set == nullptr) return w.volumes;
  std::vector<std::string> claims;
  for (const std::string& t : set->volume_claim_templates)
    claims.push_back(t + "-" + w.name + "-" + std::to_string(ordinal));
  return claims;
}

PodSpec ReplicaPodSpec(const Scenario& scenario, const Workload& w, int ordinal) {
  PodSpec pod = PodSpecForWorkload(w, ordinal);
  if (!scenario.kube.pvcs.empty()) {
    pod.pvc_claims = ReplicaClaims(w, StatefulSetOf(w, scenario.kube), ordinal);
  }
  return pod;
}

PodSpec PodSpecForWorkload(const Workload& w, int ordinal) {
  PodSpec pod;
  pod.namespace_ = w.namespace_;
  if (ordinal < static_cast<int>(w.pods.size())) {
    pod.name = w.pods[ordinal].name;
  } else {
    pod.name = w.name;
    pod.name.append("-").append(std::to_string(ordinal));
  }
  pod.labels = w.labels;
  pod.requests["cpu"] = w.cpu_milli;
  pod.requests["memory"] = w.memory_mib * kMiB;
  // Upstream scores a container without requests as if it asked 100m cpu and 200Mi (§3.6).
  pod.nonzero_cpu_milli = w.cpu_milli > 0 ? w.cpu_milli : 100;
  pod.nonzero_memory_bytes = w.memory_mib > 0 ? w.memory_mib * kMiB : 200 * kMiB;
  pod.num_containers = 1;
  pod.node_selector = w.node_selector;
  pod.node_affinity = w.node_affinity;
  pod.tolerations = w.tolerations;
  pod.topology_spread = w.topology_spread;
  pod.pod_affinity = w.pod_affinity;
  pod.pod_anti_affinity = w.pod_anti_affinity;
  pod.host_ports = w.host_ports;
  pod.priority = w.priority;
  if (w.dra.enabled()) {
    PodResourceClaim& claim = pod.resource_claims.emplace_back();
    claim.name = kDraClaimEntry;
    (w.dra.shared ? claim.resource_claim_name : claim.resource_claim_template_name) =
        DraClaimName(w);
  } else if (w.hami.enabled()) {
    // HAMi's resources are ignoredByScheduler: only its extender reads them.
    pod.hami.push_back(w.hami.request);
    for (const auto& [key, value] : w.hami.annotations) pod.annotations[key] = value;
  } else if (w.whole_gpus > 0) {
    pod.whole_gpus = w.whole_gpus;
    pod.container_whole_gpus_max = w.whole_gpus;
    if (!w.mig_profile.empty())
      pod.device_resource = std::string(kMigResourcePrefix) + w.mig_profile;
    if (w.shared_replicas) pod.device_resource = kSharedGpuResource;
    pod.requests[pod.device_resource.empty() ? kNvidiaGpuResource : pod.device_resource] =
        w.whole_gpus;
  } else if (w.gpu_mem > 0) {
    const int cards = std::max(1, w.gpu_count);
    ContainerGpu gpu{w.gpu_mem, w.gpu_core * cards};
    pod.container_gpus.push_back(gpu);
    pod.gpu_mem = gpu.gpu_mem;
    pod.gpu_core = gpu.gpu_core;
    pod.gpu_count = cards;
    if (cards > 1) pod.labels[kPodGpuCountLabel] = std::to_string(cards);
    pod.requests[kGpuMemResource] = gpu.gpu_mem;
    if (gpu.gpu_core > 0) pod.requests[kGpuCoreResource] = gpu.gpu_core;
  }
  return pod;
}

}  // namespace knobsim
