// Kubernetes value types shared by scenarios, imported manifests and the scheduler: labels,
// taints and tolerations, label selectors, node affinity, topology spread constraints, the
// scheduler's view of a Node and a Pod (NodeSpec, PodSpec), and the other objects of a cluster
// export: workloads, disruption budgets, storage and quotas (docs/semantics.md §5.4). Plain data;
// the rules that read them live in sim/scheduler/ (docs/semantics.md §3) and sim/io/kube_owners.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim {

using Labels = std::map<std::string, std::string>;

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key;           // empty with operator Exists = tolerate everything
  std::string op = "Equal";  // Equal | Exists
  std::string value;
  std::string effect;  // empty = all effects
  std::optional<int64_t> toleration_seconds;
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;
};

struct TopologySpreadConstraint {
  int max_skew = 1;
  std::string topology_key;                          // e.g. topology.kubernetes.io/zone
  std::string when_unsatisfiable = "DoNotSchedule";  // DoNotSchedule | ScheduleAnyway
  LabelSelector label_selector;                      // default: the workload's own labels
  std::vector<std::string> match_label_keys;
  std::optional<int> min_domains;
  std::string node_affinity_policy = "Honor";  // Honor | Ignore
  std::string node_taints_policy = "Ignore";   // Ignore | Honor
};

struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist | Gt | Lt
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;
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

// One inter-pod (anti-)affinity term (v1.PodAffinityTerm): pods matching `label_selector` in
// the term's namespaces, counted per domain of `topology_key` (docs/semantics.md §3.8).
struct PodAffinityTerm {
  // A term without labelSelector matches no pod (upstream's nil selector, labels.Nothing()):
  // stored as the never-matching requirement {key: "", op: In, values: {}}.
  LabelSelector label_selector;
  std::vector<std::string> namespaces;  // with no namespace_selector, empty = the pod's own
  // nullopt: not given. An empty selector selects every namespace.
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  // Merged into label_selector from the pod's own labels (key In / NotIn its value), as the API
  // server does when it creates the pod (KEP-3633).
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int weight = 1;  // 1..100
  PodAffinityTerm term;
};

// spec.affinity.podAffinity or spec.affinity.podAntiAffinity.
struct PodAffinity {
  std::vector<PodAffinityTerm> required;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<WeightedPodAffinityTerm> preferred;
  bool empty() const { return required.empty() && preferred.empty(); }
};

// Resource amounts as the scheduler counts them: cpu in millicores, memory and
// ephemeral-storage in bytes, everything else (pods, extended resources such as
// aliyun.com/gpu-mem or nvidia.com/gpu) in whole units.
using ResourceList = std::map<std::string, int64_t>;

inline constexpr const char* kGpuMemResource = "aliyun.com/gpu-mem";
inline constexpr const char* kGpuCoreResource = "aliyun.com/gpu-core.percentage";
inline constexpr const char* kGpuCountResource = "aliyun.com/gpu-count";
inline constexpr const char* kNvidiaGpuResource = "nvidia.com/gpu";
// The NVIDIA device plugin's replicas under renameByDefault (api/config/v1
// DefaultSharedRename: <name>.shared).
inline constexpr const char* kSharedGpuResource = "nvidia.com/gpu.shared";
// The NVIDIA device plugin's MIG devices under its mixed strategy: nvidia.com/mig-<profile>,
// e.g. nvidia.com/mig-1g.10gb (k8s-device-plugin internal/lm/mig-strategy.go).
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

// The label the API server sets on every Namespace to its own name (Kubernetes 1.22+).
inline constexpr const char* kNamespaceNameLabel = "kubernetes.io/metadata.name";

// Node labels with a meaning here: the well-known Kubernetes keys and ACK's GPU-sharing labels
// (docs/semantics.md §1.2).
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";
inline constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
inline constexpr const char* kInstanceTypeLabel = "node.kubernetes.io/instance-type";
inline constexpr const char* kGpuScheduleLabel = "ack.node.gpu.schedule";    // cgpu | share | ...
inline constexpr const char* kGpuPlacementLabel = "ack.node.gpu.placement";  // binpack | spread
inline constexpr const char* kGpuMaxPodLabel = "ack.node.gpu.max-pod";       // pods per card
inline constexpr const char* kCgpuDisableIsolationLabel = "cgpu.disable.isolation";
inline constexpr const char* kGpuModelLabel = "aliyun.accelerator/nvidia_name";
inline constexpr const char* kGpuCountLabel = "aliyun.accelerator/nvidia_count";
inline constexpr const char* kGpuMemoryLabel = "aliyun.accelerator/nvidia_mem";  // "<MiB>MiB"
inline constexpr const char* kRegionLabel = "topology.kubernetes.io/region";
// The zone and region keys before Kubernetes 1.17, still read where upstream reads them (the
// node tree's zones, VolumeZone).
inline constexpr const char* kBetaZoneLabel = "failure-domain.beta.kubernetes.io/zone";
inline constexpr const char* kBetaRegionLabel = "failure-domain.beta.kubernetes.io/region";
// NVIDIA GPU feature discovery's node labels (docs/semantics.md §2.5).
inline constexpr const char* kGfdProductLabel = "nvidia.com/gpu.product";  // "NVIDIA-A10", "-MIG-"
inline constexpr const char* kGfdCountLabel = "nvidia.com/gpu.count";
// The node label whose value names the device plugin's config (its config manager's NODE_LABEL).
inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";
inline constexpr const char* kGfdMemoryLabel = "nvidia.com/gpu.memory";  // MiB
inline constexpr const char* kGfdReplicasLabel = "nvidia.com/gpu.replicas";
inline constexpr const char* kGfdSharingStrategyLabel =
    "nvidia.com/gpu.sharing-strategy";  // none | time-slicing | mps
inline constexpr const char* kGfdMigStrategyLabel = "nvidia.com/mig.strategy";  // single | mixed

// ACK's pod label asking GPU-share for a pod's gpu-mem spread over that many cards.
inline constexpr const char* kPodGpuCountLabel = "aliyun.com/gpu-count";

// The NVIDIA device plugin's sharing of whole cards: its config's `sharing.timeSlicing` or
// `sharing.mps` (k8s-device-plugin api/config/v1/sharing.go, replicas.go; docs/semantics.md
// §2.6). Each physical card is advertised as `replicas` nvidia.com/gpu devices; kube-scheduler
// counts the replicas, the card is shared by whoever holds them.
enum class DeviceSharingStrategy { kNone, kTimeSlicing, kMps };
// Which card the plugin's preferred allocation takes a replica from (its
// sharedDevicesAllocationPolicy, internal/rm/allocate.go): the card with the fewest replicas
// allocated (distributed, the default) or the most (packed).
enum class ReplicaAllocation { kDistributed, kPacked };

// The device plugin's spelling: "none", "time-slicing", "mps".
inline const char* DeviceSharingStrategyName(DeviceSharingStrategy s) {
  return s == DeviceSharingStrategy::kTimeSlicing ? "time-slicing"
         : s == DeviceSharingStrategy::kMps       ? "mps"
                                                  : "none";
}

struct DeviceSharing {
  DeviceSharingStrategy strategy = DeviceSharingStrategy::kNone;
  int replicas = 1;  // >= 2 when shared
  // A container asking for more than one replica fails the kubelet's admission
  // (UnexpectedAdmissionError). The plugin's default: false for time-slicing, true for MPS.
  bool fail_requests_greater_than_one = false;
  ReplicaAllocation allocation = ReplicaAllocation::kDistributed;
  // renameByDefault: the replicas are advertised as nvidia.com/gpu.shared, which the pods then
  // ask for, and GFD's product label keeps no -SHARED suffix.
  bool renamed = false;
  // MPS: the control daemon's default active thread percentage for every client, 1..100. 0:
  // the device plugin's, 100 / replicas (cmd/mps-control-daemon/mps/daemon.go). A scenario sets
  // it to model a daemon configured otherwise; no import does.
  int active_thread_percentage = 0;
  bool shared() const { return strategy != DeviceSharingStrategy::kNone; }
  // The resource the replicas are advertised as.
  const char* resource() const { return renamed ? kSharedGpuResource : kNvidiaGpuResource; }
  bool operator==(const DeviceSharing&) const = default;
};

// HAMi (Project-HAMi/HAMi v2.10; docs/semantics.md §2.8): its device plugin registers each card
// as `split_count` vGPU slots with `devmem` MiB and `devcore` cores (pkg/device-plugin/
// nvidiadevice/nvinternal/plugin/register.go getAPIDevices: devmem = NVML MiB ×
// deviceMemoryScaling, devcore = 100 × deviceCoreScaling), and advertises nvidia.com/gpu =
// cards × split_count. Its scheduler extender places vGPUs on cards; HAMi-core (libvgpu) caps
// each container's memory (hard) and, through GPU_CORE_UTILIZATION_POLICY, its compute.
enum class HamiCorePolicy { kDefault, kForce, kDisable };

struct HamiDevices {
  int split_count = 0;  // deviceSplitCount (chart default 10); 0: not a HAMi node
  int devmem_mib = 0;   // registered memory per card
  int devcore = 100;    // registered cores per card
  HamiCorePolicy core_policy = HamiCorePolicy::kDefault;  // gpuCorePolicy
  // Read from an export's hami.io/node-nvidia-register: each card's UUID, by card index (what
  // a pod's hami.io/vgpu-devices-allocated names). Never written to any output.
  std::vector<std::string> card_uuids;
  bool enabled() const { return split_count > 0; }
  bool operator==(const HamiDevices&) const = default;
};

// HAMi's spelling of the core policy: "default", "force", "disable".
inline const char* HamiCorePolicyName(HamiCorePolicy p) {
  return p == HamiCorePolicy::kForce     ? "force"
         : p == HamiCorePolicy::kDisable ? "disable"
                                         : "default";
}

// HAMi's resources and pod annotations (pkg/device/nvidia/device.go, pkg/util/types.go).
inline constexpr const char* kHamiMemResource = "nvidia.com/gpumem";
inline constexpr const char* kHamiMemPercentResource = "nvidia.com/gpumem-percentage";
inline constexpr const char* kHamiCoresResource = "nvidia.com/gpucores";
inline constexpr const char* kHamiNodePolicyAnnotation = "hami.io/node-scheduler-policy";
inline constexpr const char* kHamiGpuPolicyAnnotation = "hami.io/gpu-scheduler-policy";
inline constexpr const char* kHamiUseTypeAnnotation = "nvidia.com/use-gputype";
inline constexpr const char* kHamiNoUseTypeAnnotation = "nvidia.com/nouse-gputype";
// The variable HAMi's webhook sets from gpuCorePolicy and HAMi-core reads.
inline constexpr const char* kHamiCorePolicyEnv = "GPU_CORE_UTILIZATION_POLICY";
inline constexpr const char* kHamiRegisterAnnotation = "hami.io/node-nvidia-register";
inline constexpr const char* kHamiAllocatedAnnotation = "hami.io/vgpu-devices-allocated";

// One container's HAMi request as its scheduler resolves it (GenerateResourceRequests, after
// the webhook's defaults): `vgpus` slots on as many distinct cards, each with `mem_mib` MiB (or,
// when 0, mem_percent % of the card's devmem) and `cores` % of the card.
struct HamiRequest {
  int vgpus = 0;          // nvidia.com/gpu
  int64_t mem_mib = 0;    // nvidia.com/gpumem; 0: by mem_percent
  int mem_percent = 100;  // nvidia.com/gpumem-percentage (the default when gpumem is unset)
  int cores = 0;          // nvidia.com/gpucores (100 when the pod asks for slots alone)
  // The MiB it takes on a card of `devmem_mib` (Fit: gpumem, else devmem × percent / 100).
  int64_t MemOn(int devmem_mib) const {
    return mem_mib > 0 ? mem_mib : int64_t{devmem_mib} * mem_percent / 100;
  }
  bool operator==(const HamiRequest&) const = default;
};

// How an exported container's HAMi request came about, beside it (PodSpec::hami_asked): what it
// left to HAMi's configurable defaults (its device config's defaultGPUNum, defaultMemory and
// defaultCores; the chart's 1, 0 and 0 are applied when read, and applied again from the config
// where an export holds one: sim/io/kube/device_configs.h), and the core policy it runs with.
struct HamiAsked {
  bool vgpus_defaulted = false;  // no nvidia.com/gpu: the webhook adds defaultGPUNum
  bool mem_defaulted = false;    // neither gpumem nor a positive gpumem-percentage
  bool cores_defaulted = false;  // no gpucores, and not the webhook's exclusive 100
  // The container's GPU_CORE_UTILIZATION_POLICY, which HAMi's webhook writes from its
  // gpuCorePolicy when that is not `default` (absent: none was written).
  std::optional<HamiCorePolicy> core_policy;
  bool operator==(const HamiAsked&) const = default;
};

// The NVIDIA device plugin's MIG strategy (its flag mig-strategy): single advertises every MIG
// instance as nvidia.com/gpu (all of one profile), mixed as nvidia.com/mig-<profile>.
enum class MigStrategy { kNone, kSingle, kMixed };

// Scenario key `mig:` of a pool (docs/scenario.md "MIG"): every card of the pool cut into the
// same instances, in this order (profile names of models/mig_profiles.h, e.g. "1g.10gb").
struct MigLayout {
  MigStrategy strategy = MigStrategy::kNone;
  std::vector<std::string> instances;  // per card
  bool enabled() const { return strategy != MigStrategy::kNone; }
  bool operator==(const MigLayout&) const = default;
};

// "single" or "mixed" (the device plugin's spelling); "none" when MIG is off.
inline const char* MigStrategyName(MigStrategy s) {
  return s == MigStrategy::kSingle ? "single" : s == MigStrategy::kMixed ? "mixed" : "none";
}

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
  // GPU side, derived from labels and capacity (docs/semantics.md §1.1-1.2):
  std::string gpu_model;   // aliyun.accelerator/nvidia_name, else nvidia.com/gpu.product (NVIDIA
                           // GPU feature discovery), or the scenario pool's gpu type
  int gpu_cards = 0;       // aliyun.com/gpu-count capacity, or nvidia.com/gpu on exclusive nodes
  int card_mem_units = 0;  // floor(capacity gpu-mem / gpu-count) on sharing nodes
  int card_core_percent =
      0;                     // 100 on core_mem nodes (gpu-core.percentage capacity / cards), else 0
  std::string gpu_schedule;  // ack.node.gpu.schedule: default | share | cgpu | core_mem | ...
  std::string placement;     // ack.node.gpu.placement normalised; empty = the scheduler default
  int max_pods_per_card = 0;  // ack.node.gpu.max-pod; 0 = no limit
  DeviceSharing device_sharing;  // time-slicing / MPS replicas of whole cards (nvidia.com/gpu)
  // MIG: each card's instances. The node's card slots (gpu_cards) are then its MIG devices,
  // card by card; under the mixed strategy slot c is advertised as nvidia.com/mig-<profile of
  // mig.instances[c % instances]>, under the single strategy as nvidia.com/gpu.
  MigLayout mig;
  HamiDevices hami;           // HAMi's vGPUs of each card (split_count 0: not a HAMi node)
  std::string interconnect;   // GPU topology kind for models/gpu_topology (e.g. "nvlink", "pcie")
  // Health, from status (docs/semantics.md §5.2):
  std::string ready_status;     // condition Ready: True | False | Unknown; empty = not reported
  std::string kubelet_version;  // status.nodeInfo.kubeletVersion, e.g. "v1.28.9-aliyun.1"
};

// One container's ACK GPU request (from resources.limits).
struct ContainerGpu {
  int gpu_mem = 0;   // aliyun.com/gpu-mem units
  int gpu_core = 0;  // aliyun.com/gpu-core.percentage
};

// metadata.ownerReferences[]: who created an object. The one with `controller: true` is the
// object's manager (a Pod's ReplicaSet, a ReplicaSet's Deployment).
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

// A probe as the kubelet runs it (docs/semantics.md §5.3). Only what shapes readiness is kept:
// never HTTP headers, never the arguments of an exec command, never a URL's query string,
// since those are where tokens live.
enum class ProbeKind { kNone, kTcpSocket, kHttpGet, kGrpc, kExec };

struct Probe {
  ProbeKind kind = ProbeKind::kNone;  // kNone: the container has no such probe
  std::string port;          // tcpSocket / httpGet / grpc: a number or a named container port
  std::string http_path;     // httpGet, without its query string
  std::string grpc_service;  // grpc; empty = the server's overall health
  std::string exec_command;  // exec: basename of command[0] only ("sh", "pg_isready")
  int initial_delay_seconds = 0;
  int period_seconds = 10;
  int timeout_seconds = 1;
  int success_threshold = 1;
  int failure_threshold = 3;
};

// A regular container (spec.containers[i]) with its probes and, for a pod read from a cluster,
// its status (status.containerStatuses matched by name).
struct ContainerInfo {
  std::string name;
  std::string image;          // as written; image strings carry no secret
  bool image_digest = false;  // pinned by digest (`@sha256:`) rather than by a tag alone
  Probe readiness;
  Probe liveness;
  Probe startup;
  bool ready = false;
  int restart_count = 0;
  std::string waiting_reason;          // state.waiting.reason, e.g. CrashLoopBackOff
  std::string terminated_reason;       // state.terminated.reason
  std::string last_terminated_reason;  // lastState.terminated.reason, e.g. OOMKilled
};

// A port of spec.containers[].ports that binds the node: hostPort > 0 (written, or defaulted to
// containerPort on a hostNetwork pod as the API server does). What the NodePorts filter checks.
struct HostPort {
  std::string host_ip = "0.0.0.0";  // hostIP; empty is every address, as upstream sanitizes it
  std::string protocol = "TCP";     // TCP, UDP or SCTP
  int port = 0;                     // hostPort, 1..65535
  bool operator==(const HostPort&) const = default;
};

// A pod as the scheduler sees it (from a manifest, or made from a scenario workload).
// One of a pod's spec.resourceClaims (DRA, sim/kube_dra.h): a ResourceClaim by name, or a
// ResourceClaimTemplate from which the control plane made the claim status.resourceClaimStatuses
// names.
// The entry knobsim adds to a pod's claims for the claim the scheduler made for its extended
// resources (DRAExtendedResource): upstream's in-memory name of that claim, which no real
// entry or claim can have.
inline constexpr const char* kExtendedResourceClaimEntry = "<extended-resources>";

struct PodResourceClaim {
  std::string name;
  std::string resource_claim_name;           // spec: an existing claim
  std::string resource_claim_template_name;  // spec: a template
  std::string generated_claim_name;          // status: the claim made from the template
  // status: the entry is listed without a claim, which the control plane leaves out on purpose;
  // the scheduler skips the entry (upstream resourceclaim.Name returns no name).
  bool no_claim_made = false;
  bool operator==(const PodResourceClaim&) const = default;
};

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
  PodAffinity pod_affinity;
  PodAffinity pod_anti_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  int priority = 0;
  std::string preemption_policy = "PreemptLowerPriority";
  // spec.priorityClassName. A pod without spec.priority (a manifest the Priority admission plugin
  // has not seen) is `priority_pending` until its class, or the global default class, gives it
  // the value and, unless the pod sets one (`preemption_policy_given`), the preemption policy.
  std::string priority_class_name;
  bool priority_pending = false;
  bool preemption_policy_given = false;
  std::string node_name;  // set on bound pods
  std::string phase = "Pending";
  bool terminating = false;  // metadata.deletionTimestamp set
  // Condition DisruptionTarget=True with reason PreemptionByScheduler: the scheduler preempted
  // it (a terminating victim keeps its preemptor from preempting again, preemption.h).
  bool preempted_by_scheduler = false;
  // status.startTime, in seconds on one clock (Unix time from an export, the simulated clock in
  // a run); unset before the kubelet starts the pod, which preemption reads as "now" (latest).
  std::optional<double> start_time;
  // status.nominatedNodeName: the node a preemption reserved; the scheduler tries it first.
  std::string nominated_node_name;
  // ACK GPU sharing (docs/semantics.md §1.1-1.3):
  std::vector<ContainerGpu> container_gpus;  // one per container (limits)
  int gpu_mem = 0;                           // sum over containers
  int gpu_core = 0;                          // sum over containers
  int gpu_count = 1;                         // pod label aliyun.com/gpu-count: cards the pod spans
  int whole_gpus = 0;                        // nvidia.com/gpu, or the devices of device_resource
  // The device resource whole_gpus counts where not nvidia.com/gpu: a MIG profile under the
  // mixed strategy (nvidia.com/mig-1g.10gb). Such a pod takes card slots advertised as it.
  std::string device_resource;
  // The largest nvidia.com/gpu of one container (the device plugin's failRequestsGreaterThanOne
  // checks each container's request; the kubelet allocates devices per container).
  int container_whole_gpus_max = 0;
  // HAMi vGPU requests, one per container that asks (nvidia.com/gpu with gpumem / gpucores on a
  // HAMi cluster); kube-scheduler ignores these resources (the chart's ignoredByScheduler), the
  // HAMi extender places them.
  std::vector<HamiRequest> hami;
  std::vector<HamiAsked> hami_asked;  // parallel to `hami`, for an exported pod's containers
  // A bound HAMi pod's cards from its hami.io/vgpu-devices-allocated: one UUID per vGPU, its
  // containers' in order (HamiDevices::card_uuids maps them to cards). Never written out.
  std::vector<std::string> hami_allocated;
  // spec.resourceClaims with status.resourceClaimStatuses (DRA).
  std::vector<PodResourceClaim> resource_claims;
  // Each container's own requests, spec.initContainers then spec.containers (after defaulting
  // to limits), for the claim DRAExtendedResource makes of its extended resources
  // (sim/scheduler/dra/extended_resources.h). Empty for pods built from a scenario: `requests`
  // then stands for one container.
  struct ContainerRequests {
    bool init = false;
    bool sidecar = false;  // an init container with restartPolicy Always
    ResourceList requests;
    bool operator==(const ContainerRequests&) const = default;
  };
  std::vector<ContainerRequests> container_requests;
  bool require_whole_device = false;         // ack.gpushare.placement: require-whole-device
  // Allocation of a bound pod, from its annotations (v1, v2 or v3): card index -> units.
  std::map<int, int> allocated_mem;
  std::map<int, int> allocated_core;
  // Identity, ownership and health (docs/semantics.md §5.3):
  std::string uid;
  std::vector<OwnerReference> owner_references;
  std::vector<ContainerInfo> containers;  // spec.containers in order, parallel to container_gpus
  std::vector<std::string> pvc_claims;    // claims of spec.volumes, in order
  std::vector<std::string> ephemeral_claims;  // those of them from generic ephemeral volumes
  std::vector<HostPort> host_ports;       // of spec.containers (not init containers), in order
  std::string ready_status;  // condition Ready: True | False | Unknown; empty = not reported
};

// An intstr.IntOrString as the workload APIs use it: `1` or `"25%"`.
struct IntOrPercent {
  int value = 0;
  bool percent = false;

  // Upstream's GetScaledValueFromIntOrPercent: an integer as is, a percentage of `total`
  // rounded up (PDB minAvailable, maxSurge) or down (maxUnavailable of a Deployment).
  int Scaled(int total, bool round_up) const {
    if (!percent) return value;
    const int64_t scaled = int64_t{value} * total;
    return static_cast<int>(round_up ? (scaled + 99) / 100 : scaled / 100);
  }
  bool operator==(const IntOrPercent&) const = default;
};

// apps/v1 Deployment (docs/semantics.md §5.4). Defaults are the API server's.
struct DeploymentSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  int replicas = 1;
  LabelSelector selector;
  Labels template_labels;
  std::string strategy = "RollingUpdate";  // RollingUpdate | Recreate
  IntOrPercent max_surge{25, true};        // RollingUpdate only
  IntOrPercent max_unavailable{25, true};  // RollingUpdate only
  int min_ready_seconds = 0;
  int status_replicas = 0;
  int ready_replicas = 0;
  int available_replicas = 0;
};

// apps/v1 ReplicaSet: the link from a Deployment's pods to the Deployment.
struct ReplicaSetSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  Labels labels;  // pod-template-hash among them
  std::vector<OwnerReference> owner_references;
  int replicas = 1;
  int status_replicas = 0;
  int ready_replicas = 0;
};

// apps/v1 StatefulSet. Pod i's claims are named `<template>-<statefulset>-<i>`.
struct StatefulSetSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  int replicas = 1;
  LabelSelector selector;
  Labels template_labels;
  std::vector<std::string> volume_claim_templates;  // metadata.name of each template
  int status_replicas = 0;
  int ready_replicas = 0;
  bool operator==(const StatefulSetSpec&) const = default;
};

// batch/v1 Job, kept only for its owner: the CronJob that made it, when there is one.
struct JobSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  std::vector<OwnerReference> owner_references;
};

// policy/v1 (or v1beta1) PodDisruptionBudget; status arithmetic in docs/semantics.md §4.1.
struct PodDisruptionBudgetSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  std::optional<IntOrPercent> min_available;  // at most one of the two is set
  std::optional<IntOrPercent> max_unavailable;
  // nullopt matches no pod; an empty selector matches every pod of the namespace (policy/v1).
  // policy/v1beta1's empty selector, which matched none, reads as nullopt.
  std::optional<LabelSelector> selector;
  std::string unhealthy_pod_eviction_policy = "IfHealthyBudget";  // IfHealthyBudget | AlwaysAllow
  struct Status {
    int current_healthy = 0;
    int desired_healthy = 0;
    int disruptions_allowed = 0;
    int expected_pods = 0;
    // status.disruptedPods: pods whose eviction the API server processed, by name.
    std::vector<std::string> disrupted_pods;
    bool operator==(const Status&) const = default;
  };
  std::optional<Status> status;  // as the disruption controller last wrote it
  bool operator==(const PodDisruptionBudgetSpec&) const = default;
};

// v1 PersistentVolumeClaim.
struct PersistentVolumeClaimSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  std::string volume_name;  // the bound PersistentVolume
  // nullopt: the default StorageClass applies; "": explicitly no class (static binding only).
  std::optional<std::string> storage_class_name;
  int64_t requested_bytes = 0;    // spec.resources.requests.storage
  std::string phase = "Pending";  // Pending | Bound | Lost
  std::vector<std::string> access_modes;  // spec.accessModes, e.g. ReadWriteOnce
  bool terminating = false;               // metadata.deletionTimestamp set
  bool operator==(const PersistentVolumeClaimSpec&) const = default;
};

// v1 PersistentVolume (cluster-scoped).
struct PersistentVolumeSpec {
  std::string name;
  std::string uid;
  std::string reclaim_policy = "Retain";  // Retain | Delete | Recycle
  std::string storage_class_name;
  std::string claim_namespace;  // spec.claimRef
  std::string claim_name;
  int64_t capacity_bytes = 0;     // spec.capacity.storage
  std::string phase = "Pending";  // Pending | Available | Bound | Released | Failed
  Labels labels;                  // topology.kubernetes.io/zone etc. (VolumeZone)
  // spec.nodeAffinity.required.nodeSelectorTerms (ORed; each term's requirements ANDed); empty:
  // any node (VolumeBinding).
  std::vector<std::vector<NodeSelectorRequirement>> node_affinity;
  std::vector<std::string> access_modes;  // spec.accessModes
  bool terminating = false;               // metadata.deletionTimestamp set
  bool operator==(const PersistentVolumeSpec&) const = default;
};

// storage.k8s.io/v1 StorageClass (cluster-scoped).
struct StorageClassSpec {
  std::string name;
  std::string provisioner;
  std::string reclaim_policy = "Delete";          // Delete | Retain
  std::string volume_binding_mode = "Immediate";  // Immediate | WaitForFirstConsumer
  bool is_default = false;  // annotation storageclass.kubernetes.io/is-default-class: "true"
  // allowedTopologies: terms ORed, each a list of `key In values` ANDed; empty = every node.
  std::vector<std::vector<NodeSelectorRequirement>> allowed_topologies;
  bool operator==(const StorageClassSpec&) const = default;
};

// scheduling.k8s.io/v1 PriorityClass (cluster-scoped): the priority the Priority admission
// plugin gives pods that name it, or every pod without a class when it is the global default.
struct PriorityClassSpec {
  std::string name;
  int value = 0;
  bool global_default = false;
  std::string preemption_policy = "PreemptLowerPriority";  // PreemptLowerPriority | Never
};

// v1 Namespace (cluster-scoped): its labels, for inter-pod affinity's namespaceSelector.
struct NamespaceSpec {
  std::string name;
  std::string uid;
  Labels labels;  // with kubernetes.io/metadata.name=<name>, as the API server sets it
};

// v1 ResourceQuota. Keys as Kubernetes writes them (`pods`, `requests.cpu`, `limits.memory`,
// `requests.aliyun.com/gpu-mem`, `count/deployments.apps`), amounts in ResourceList units
// of the resource the key names: millicores for cpu, bytes for memory and storage.
struct ResourceQuotaSpec {
  std::string namespace_ = "default";
  std::string name;
  std::string uid;
  ResourceList hard;  // spec.hard
  ResourceList used;  // status.used
  bool operator==(const ResourceQuotaSpec&) const = default;
};

}  // namespace knobsim
