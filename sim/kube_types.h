// Kubernetes value types shared by scenarios, imported manifests and the scheduler: labels,
// taints and tolerations, label selectors, node affinity, topology spread constraints, and the
// scheduler's view of a Node and a Pod (NodeSpec, PodSpec). Plain data; the rules that read them
// live in sim/scheduler/ (semantics.md §3).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace knobsim {

using Labels = std::map<std::string, std::string>;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key;       // empty with operator Exists = tolerate everything
  std::string op = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;    // empty = all effects
  std::optional<int64_t> toleration_seconds;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
};

struct TopologySpreadConstraint {
  int max_skew = 1;
  std::string topology_key;                         // e.g. topology.kubernetes.io/zone
  std::string when_unsatisfiable = "DoNotSchedule"; // DoNotSchedule | ScheduleAnyway
  LabelSelector label_selector;                     // default: the workload's own labels
  std::vector<std::string> match_label_keys;
  std::optional<int> min_domains;
  std::string node_affinity_policy = "Honor";  // Honor | Ignore
  std::string node_taints_policy = "Ignore";   // Ignore | Honor
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist | Gt | Lt
  std::vector<std::string> values;
};

// Required node affinity: terms are ORed, expressions in a term ANDed.
struct NodeAffinity {
  std::vector<std::vector<NodeSelectorRequirement>> required_terms;
  struct Preferred {
    int weight = 1;
    std::vector<NodeSelectorRequirement> expressions;
  };
  std::vector<Preferred> preferred;
};

// Resource amounts as the scheduler counts them: cpu in millicores, memory and
// ephemeral-storage in bytes, everything else (pods, extended resources such as
// aliyun.com/gpu-mem or nvidia.com/gpu) in whole units.
using ResourceList = std::map<std::string, int64_t>;

inline constexpr const char* kGpuMemResource = "aliyun.com/gpu-mem";
inline constexpr const char* kGpuCoreResource = "aliyun.com/gpu-core.percentage";
inline constexpr const char* kGpuCountResource = "aliyun.com/gpu-count";
inline constexpr const char* kNvidiaGpuResource = "nvidia.com/gpu";

struct ContainerImage {
  std::vector<std::string> names;  // as in node.status.images[].names
  int64_t size_bytes = 0;
};

// A node as the scheduler sees it (from a manifest, or expanded from a scenario node pool).
struct NodeSpec {
  std::string name;
  Labels labels;
  Labels annotations;
  std::vector<Taint> taints;
  bool unschedulable = false;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<ContainerImage> images;
  // GPU side, derived from labels and capacity (semantics.md §1.1-1.2):
  std::string gpu_model;      // aliyun.accelerator/nvidia_name, or the scenario pool's gpu type
  int gpu_cards = 0;          // aliyun.com/gpu-count capacity, or nvidia.com/gpu on exclusive nodes
  int card_mem_units = 0;     // floor(capacity gpu-mem / gpu-count) on sharing nodes
  int card_core_percent = 0;  // 100 on core_mem nodes (gpu-core.percentage capacity / cards), else 0
  std::string gpu_schedule;   // ack.node.gpu.schedule: default | share | cgpu | core_mem | ...
  std::string placement;      // ack.node.gpu.placement normalised; empty = the scheduler default
  int max_pods_per_card = 0;  // ack.node.gpu.max-pod; 0 = no limit
  std::string interconnect;   // GPU topology kind for models/gpu_topology (e.g. "nvlink", "pcie")
};

// One container's ACK GPU request (from resources.limits).
struct ContainerGpu {
  int gpu_mem = 0;   // aliyun.com/gpu-mem units
  int gpu_core = 0;  // aliyun.com/gpu-core.percentage
};

// A pod as the scheduler sees it (from a manifest, or made from a scenario workload).
struct PodSpec {
  std::string namespace_ = "default";
  std::string name;
  Labels labels;
  Labels annotations;
  // Scheduler request: max(sum of containers, max of init containers) + overhead (§3.2).
  ResourceList requests;
  // Scoring request with upstream's non-zero defaults (100m cpu, 200Mi memory per container
  // that sets none), for NodeResourcesFit scoring only (§3.6).
  int64_t nonzero_cpu_milli = 0;
  int64_t nonzero_memory_bytes = 0;
  int num_containers = 1;
  std::vector<std::string> images;
  std::map<std::string, std::string> node_selector;
  NodeAffinity node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  int priority = 0;
  std::string preemption_policy = "PreemptLowerPriority";
  std::string node_name;     // set on bound pods
  std::string phase = "Pending";
  bool terminating = false;  // metadata.deletionTimestamp set
  // ACK GPU sharing (semantics.md §1.1-1.3):
  std::vector<ContainerGpu> container_gpus;  // one per container (limits)
  int gpu_mem = 0;            // sum over containers
  int gpu_core = 0;           // sum over containers
  int gpu_count = 1;          // pod label aliyun.com/gpu-count: cards the pod spans
  int whole_gpus = 0;         // nvidia.com/gpu
  bool require_whole_device = false;  // ack.gpushare.placement: require-whole-device
  // Allocation of a bound pod, from its annotations (v1, v2 or v3): card index -> units.
  std::map<int, int> allocated_mem;
  std::map<int, int> allocated_core;
};

}  // namespace knobsim
