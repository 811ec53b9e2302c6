// Scenario: everything a run needs — GPU catalog, node pools, cluster knobs, workloads, run
// settings and the named variants (knob changes on top of the base). Plain data, no behaviour:
// sim/io/scenario_reader.cpp fills it from YAML (docs/scenario.md documents every key), and
// sim/variant.cpp applies a variant to give the scenario one run simulates.
//
// Units: times in nanoseconds (SimTime), memory in MiB, rates per second, GPU memory quotas in
// ACK gpu-mem units (GiB), percentages 0..100.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu_catalog.h"
#include "models/interference.h"
#include "models/memory_isolation.h"
#include "models/mig_profiles.h"
#include "models/mps_overlap.h"
#include "models/sharing_policy.h"
#include "sim/cluster_autoscaler_spec.h"
#include "sim/cron_hpa_spec.h"
#include "sim/event_queue.h"
#include "sim/hpa_spec.h"
#include "sim/kube_types.h"

namespace knobsim {

// How a node pool's cards are shared (label ack.node.gpu.schedule).
enum class GpuSchedule { kDefault, kShare, kCgpu, kCoreMem };

// One node of a pool by name (an imported cluster keeps its nodes' names, zones and own labels).
struct PoolNode {
  std::string name;
  std::string zone;  // empty: the pool's zones round-robin
  Labels labels;     // on top of the pool's
};

// Spot instances: the provider reclaims a node at random (a Poisson process per node, drawn from
// its own random stream, so paired variants see the same reclaims). Each reclaim starts with an
// interruption notice; `notice` later the instance is released. On the notice the node is
// cordoned and, with `drain_on_notice`, its pods are deleted so their controllers' replacements
// start elsewhere in the window (a termination handler's drain). At the release what is still
// on the node stops: requests queued or in service there fail as `interrupted`. A fixed pool's
// replacement joins `replace_after` later, empty, and the pods the node still held start there
// again (image pull, model load); an autoscaled pool's node is simply gone, and the autoscaler
// adds nodes as Pending pods need them. A node that joins during the run is not reclaimed in its
// first `protection` (ECS's protection period); the nodes at t = 0 have none left (assumption:
// they are older than that). docs/autoscaling.md "Spot pools".
struct SpotInterruptions {
  double per_node_hour = 0;                       // 0 = on-demand: never reclaimed
  SimTime replace_after = 180 * kNanosPerSecond;  // fixed pools: release to a Ready replacement
  // From the interruption notice to the release. Alibaba ECS releases a spot instance 5 minutes
  // after its interruption event; AWS gives 2 minutes, GCP and Azure 30 seconds. 0: no notice.
  SimTime notice = 300 * kNanosPerSecond;
  bool drain_on_notice = true;                  // `on_notice: drain` (default) or `none`
  SimTime protection = 3600 * kNanosPerSecond;  // ECS's default one-hour protection period
  // Autoscaled pools: the chance that a new spot instance cannot be created (no inventory at the
  // bid). With `compensate_with_on_demand` (ACK's node-pool setting of that name) a
  // pay-as-you-go instance is created instead, billed on-demand and never reclaimed; without it
  // the node never registers and the autoscaler gives up on it after max_node_provision_time.
  double stockout = 0;
  bool compensate_with_on_demand = false;
};

// Scenario key `hami:` of a pool (docs/scenario.md "HAMi"): HAMi's device plugin config. Each
// card is `split_count` vGPU slots of memory × memory_scaling MiB and 100 × core_scaling cores
// (sim/kube_types.h HamiDevices); HAMi-core caps each pod's memory and, by core_policy, compute.
struct HamiPool {
  int split_count = 0;        // deviceSplitCount (HAMi's chart: 10); 0: not a HAMi pool
  double memory_scaling = 1;  // deviceMemoryScaling, in (0, 1]: above 1 is refused (not modelled)
  double core_scaling = 1;    // deviceCoreScaling
  HamiCorePolicy core_policy = HamiCorePolicy::kDefault;  // gpuCorePolicy
  bool enabled() const { return split_count > 0; }
  bool operator==(const HamiPool&) const = default;
};

// Scenario key `hami:` of a workload: its container's HAMi request (after HAMi's webhook
// defaults) and the pod annotations HAMi's scheduler reads (node and GPU scheduler policy, card
// types to use or avoid).
struct HamiAsk {
  HamiRequest request;  // vgpus 0: not a HAMi workload
  Labels annotations;
  bool enabled() const { return request.vgpus > 0; }
  bool operator==(const HamiAsk&) const = default;
};

// The DRA driver that publishes a `dra:` pool's cards (docs/scenario.md "DRA").
enum class DraDriver {
  // The NVIDIA DRA driver (gpu.nvidia.com): whole GPUs, class gpu.nvidia.com; with the pool's
  // MIG layout (`dra: {mig: LAYOUT}`, MIG instances created ahead) the instances instead,
  // class mig.nvidia.com; with `dynamic_mig` (its DynamicMIG gate) each card whole and every
  // MIG placement of it, partitions of the card's shared counters.
  kNvidia,
  // HAMi's DRA driver (hami-core-gpu.project-hami.io): each card one device that many claims
  // share by consumable capacity (KEP-5075) — `memory` and `cores`, HAMi-core's limits.
  kHamiCore,
};

// Scenario key `dra:` of a pool (docs/scenario.md "DRA"): a DRA driver publishes its cards (one
// ResourceSlice per node) and the DRA allocator hands them to claims; the device plugin
// advertises none. A MIG layout lives in NodePool::mig (the card slots are its instances).
struct DraPool {
  bool enabled = false;
  DraDriver driver = DraDriver::kNvidia;
  // `dynamic_mig: true`: the card slots of a node are, card by card, the whole card and then
  // each of its MIG placements (models/mig_profiles.h MigAllPlacements); the allocator's
  // counters keep the ones in use from overlapping.
  bool dynamic_mig = false;
  // `shared_memory: {default, min, step}`: the NVIDIA driver's whole GPUs allow multiple
  // allocations, each claim taking a share of a consumable `memory` capacity (KEP-5075) under
  // this request policy (MiB; default 0: all of the card). The allocator accounts the shares;
  // nothing enforces them on the card **[assumption]**: memory is pooled, compute time-sliced.
  struct SharedMemory {
    int64_t default_mib = 0;
    int64_t min_mib = 1;
    int64_t step_mib = 1;
    bool operator==(const SharedMemory&) const = default;
  };
  std::optional<SharedMemory> shared_memory;
  bool operator==(const DraPool&) const = default;
};

// Scenario key `dra:` of a workload: its pods ask devices of a DRA pool through a ResourceClaim,
// one per pod (a ResourceClaimTemplate) or one that every replica shares; the NVIDIA DRA
// driver's GpuConfig sharing (time-slicing or MPS) governs a shared claim's pods.
struct DraAsk {
  int gpus = 0;         // devices per claim; 0: not a DRA workload
  bool shared = false;  // one claim for all replicas (they run on its GPUs together)
  DeviceSharingStrategy sharing = DeviceSharingStrategy::kTimeSlicing;
  int mps_active_thread_percentage = 0;  // mpsConfig.defaultActiveThreadPercentage; 0: none
  int64_t mps_pinned_memory_mib = 0;     // mpsConfig.defaultPinnedDeviceMemoryLimit; 0: none
  DraDriver driver = DraDriver::kNvidia;  // whose devices the claim's class selects
  std::string mig_profile;  // NVIDIA: MIG instances of this profile (class mig.nvidia.com)
  // HAMi-core: capacity.requests per device; absent, the device's default (all of it).
  std::optional<int64_t> memory_mib;
  std::optional<int> cores;  // percent of the card, 0..100
  bool enabled() const { return gpus > 0; }
  bool operator==(const DraAsk&) const = default;
};

struct NodePool {
  std::string name;
  int count = 1;
  std::vector<PoolNode> nodes;  // named nodes, by ordinal; beyond them: <pool>-<ordinal>
  std::string gpu_type;         // catalog key; empty = CPU-only pool
  int gpus_per_node = 0;
  int64_t cpu_milli = 0;   // allocatable cpu
  int64_t memory_mib = 0;  // allocatable memory
  int pods = 110;          // allocatable pods
  std::vector<std::string>
      zones;      // nodes take zones round-robin; label topology.kubernetes.io/zone
  Labels labels;  // includes ack.node.gpu.schedule / ack.node.gpu.placement
  std::vector<Taint> taints;
  std::string instance_type;
  GpuSchedule schedule = GpuSchedule::kCgpu;  // from ack.node.gpu.schedule (default cgpu here)
  std::string placement;  // from ack.node.gpu.placement; empty = cluster default
  MemoryIsolation isolation = MemoryIsolation::kHard;  // hard unless share/disabled/buggy module
  bool cgpu_active = true;    // false on share nodes or cgpu.disable.isolation=true
  std::string cgpu_version;   // informational (the upgrade check reads it)
  int max_pods_per_card = 0;  // label ack.node.gpu.max-pod; 0 = unlimited
  // Scenario key `device_sharing:`: the NVIDIA device plugin's time-slicing or MPS replicas
  // (schedule `default`: the pods ask nvidia.com/gpu). Unset: whole cards, or ACK's sharing.
  DeviceSharing device_sharing;
  // Scenario key `mig:`: each card cut into MIG instances (schedule `default`); each instance
  // is a card slot of the node, an exclusive smaller card (models/mig_profiles.h).
  MigLayout mig;
  // Scenario key `hami:`: HAMi's vGPUs (schedule `default`; sim/scheduler/hami_devices.h).
  HamiPool hami;
  DraPool dra;                // scenario key `dra:`: GPUs allocated by DRA
  SpotInterruptions spot;     // scenario key `spot:`; default: on-demand
  // Scenario key `autoscaling:`: the cluster-autoscaler sizes the pool in [min, max], `count`
  // nodes at t = 0 (sim/cluster_autoscaler_spec.h). Unset: the pool keeps `count` nodes.
  std::optional<PoolAutoscaling> autoscaling;
  // Card slots per node: the cards, or on a MIG pool their instances.
  int card_slots() const {
    if (dra.dynamic_mig)
      return gpus_per_node * (1 + static_cast<int>(MigAllPlacements(gpu_type).size()));
    return mig.enabled() ? gpus_per_node * static_cast<int>(mig.instances.size()) : gpus_per_node;
  }
  // Node slots the run keeps for the pool: `count`, or the autoscaler's maximum.
  int slots() const { return autoscaling ? std::max(count, autoscaling->max) : count; }
};

// cluster.interference: a co-location model (`knobsim interference fit`, docs/interference.md)
// that sets the shares of profiled pods co-running on a natively time-sliced card
// (sim/engine/card_sharing.h). Shared, since every variant and replication reads the same file.
struct InterferenceSetup {
  std::string source;  // the model file, as the scenario names it
  InterferenceModel model;
  std::vector<JobProfile> profiles;  // the jobs the model file holds, in name order
};

// cluster.time_slice: slice mode (sim/engine/time_slices.h, docs/semantics.md §2.9) — the
// cards that native time-slicing or POLICY 0 shares run one pod at a time, in round-robin slices
// of `quantum` with `switch_cost` of no progress between two pods, instead of the fluid split.
// NVIDIA and Alibaba document neither length, so there is no default: unset (quantum 0) is the
// fluid model.
struct TimeSliceKnobs {
  SimTime quantum = 0;  // 0: slice mode off
  SimTime switch_cost = 0;
  bool enabled() const { return quantum > 0; }
  bool operator==(const TimeSliceKnobs&) const = default;
};

struct ClusterKnobs {
  SharingPolicy policy = SharingPolicy::kNative;
  int max_inst = 0;               // POLICY 0 slots per card, 1..25; 0 = unset
  double switch_overhead = 0.05;  // POLICY 5: 1 - eta with >= 2 active pods (assumption, §2.4)
  std::string default_placement = "binpack";  // when a pool has no ack.node.gpu.placement
  // kube-scheduler's percentageOfNodesToScore (sim/scheduler/node_sample.h), 0..100, 0 =
  // adaptive; unset: adaptive, or 100 where a pool uses one of the FGD paper's placements (the
  // paper's simulator scores every node).
  std::optional<int> percentage_of_nodes_to_score;
  std::shared_ptr<const InterferenceSetup> interference;  // null: every card by its POLICY
  TimeSliceKnobs time_slice;                              // off: the fluid model
  // The HPA controller's flags and the metrics pipeline's window (docs/autoscaling.md).
  HpaControllerSettings hpa_controller;
  // The CronHPA controller's time zone (docs/autoscaling.md "CronHPA").
  CronHpaControllerSettings cron_hpa_controller;
  ClusterAutoscalerSettings cluster_autoscaler;  // read when a pool has `autoscaling:`
};

// kReplay: recorded arrival times (traffic: {replay: FILE}); kCounts: exact counts per interval
// (traffic: {counts: ...}), spread inside each interval by sim/traffic.h's seeded rule.
enum class ArrivalKind { kPoisson, kPiecewise, kDiurnal, kReplay, kCounts, kNone };

// Recorded arrivals, in the order they happened (sorted by time; equal times keep file order).
struct RecordedArrivals {
  std::vector<SimTime> at;     // from the run's start
  std::vector<double> work_s;  // empty, or each arrival's work (seconds of reference-GPU time)
  std::string source;          // the file, as the scenario names it
};

// How the arrivals of one interval are placed inside it (sim/traffic.h): uniform, the n times
// of n independent uniform draws (what a Poisson stream gives once its count is known: the
// count is exact, the bunching inside is a real stream's); even, one arrival in each of n equal
// slices (the smoothest the count allows: no queueing inside the interval is invented).
enum class CountSpread { kUniform, kEven };

// One pod's own recorded requests per interval (a per-pod request-rate series): they arrive
// at that pod while it is Ready, at the Service otherwise (docs/scenario.md "Recorded traffic").
struct PodCounts {
  std::string pod;              // one of the workload's current `pods:` names
  int replica = 0;              // its replica ordinal: index in `pods:` (variants keep it in step)
  std::vector<int64_t> values;  // requests in [i·step, (i+1)·step)
};

// Exact arrivals per interval: values[i] requests in [i·step, (i+1)·step) at the Service, and/or
// per pod (per_pod): each pod's own stream, spread by the same rule. With both, `values` are the
// requests no current pod recorded (pods gone since), routed by the workload's routing.
struct IntervalCounts {
  SimTime step = 0;
  CountSpread spread = CountSpread::kUniform;
  std::vector<int64_t> values;
  std::vector<PodCounts> per_pod;  // in the order written
  std::string source;              // the file the values came from; empty when written inline
};

struct RatePoint {
  SimTime at = 0;   // start of this piece
  double rate = 0;  // requests per second from `at` until the next piece
};

struct Traffic {
  ArrivalKind kind = ArrivalKind::kNone;
  double rate = 0;                // Poisson rate (per second)
  std::vector<RatePoint> pieces;  // piecewise-constant rate, sorted by `at`; last piece holds
  double diurnal_mean = 0;        // diurnal: mean rate
  double diurnal_amplitude = 0;   // relative amplitude in [0, 1]
  SimTime diurnal_period = 24 * 3600 * kNanosPerSecond;
  SimTime diurnal_peak_at = 14 * 3600 * kNanosPerSecond;
  double scale = 1.0;  // multiplies every rate (variants' traffic_scale)
  // kReplay: shared, since every variant and replication reads the same recording.
  std::shared_ptr<const RecordedArrivals> replay;
  IntervalCounts counts;  // kCounts
};

enum class WorkDistribution { kConstant, kExponential, kLognormal, kGamma };

struct WorkModel {
  WorkDistribution dist = WorkDistribution::kExponential;
  double mean_s = 0.01;  // seconds of reference-GPU time per request
  double cv = 1.0;       // coefficient of variation (lognormal, gamma)
};

struct Batching {
  int max_batch = 1;  // 1 = no batching
  SimTime max_wait = 0;
  double beta = 0.0;  // w(b) = w_max * (1 + beta (b - 1))
};

enum class Routing { kRandom, kRoundRobin, kLeastOutstanding };
enum class ReadinessKind { kTcp, kModel };  // port-only vs model-aware readiness
enum class LoadOomReaction { kStayUp, kExit };
enum class TimeoutAction { kAbort, kComplete };

// A request still unanswered this long after it arrived counts against an objective without a
// latency bound (sim/slo_check.h, the backlog rule): nginx's proxy_read_timeout and the idle
// timeouts of the common cloud load balancers are 60 s, so a client behind one has given up.
inline constexpr SimTime kDefaultUnansweredAfter = 60 * kNanosPerSecond;

struct Slo {
  double percentile = 99;       // which latency percentile the SLO bounds
  SimTime latency = 0;          // 0 = no latency objective
  double error_budget = 0.001;  // max fraction of failed requests
  // Without a latency bound: the age at which a request unanswered at the end is overdue.
  SimTime unanswered_after = kDefaultUnansweredAfter;
};

struct GpuMemoryDemand {
  int64_t weights_mib = 0;             // model weights, allocated when the model load ends
  int64_t activation_mib = 0;          // per in-flight request
  std::optional<int64_t> context_mib;  // CUDA context; default from the GPU catalog
};

// Where one replica runs now (an imported cluster): bound there at the start of a run, as
// kubelet keeps running pods where they are; the scheduler places it only when that place no
// longer fits or a variant changes what decides it (docs/scenario.md, `pods`).
struct CurrentPod {
  std::string name;
  std::string node;
  std::vector<int> cards;  // card indexes on the node; empty: ACK's choice there (or no GPU)
  // `ready: false`: Running but not Ready when the run starts (an etcd member catching up, a
  // readiness probe failing for a reason the run does not model); it serves nothing until it
  // turns Ready at `ready_after` or, without it, until it is replaced.
  bool ready = true;
  SimTime ready_after = -1;  // -1: never by itself
};

// `closed_loop:` a job that runs its own iterations instead of answering traffic — a training or
// batch job (docs/scenario.md "Closed-loop jobs"). Each pod, from the moment it is available
// (Serving, model loaded), keeps `in_flight` iterations going: an iteration is a request sent to
// that pod (its CPU stages, queue and GPU work as any request's), then `think` of CPU or data
// time off the GPU, then the next. With `steps` the job ends when that many iterations have
// succeeded, workload-wide: its pods complete and are deleted, freeing their cards.
struct ClosedLoop {
  int in_flight = 1;
  SimTime think = 0;
  int64_t steps = 0;  // 0: runs to the end of the run
};

struct Workload {
  std::string name;
  std::string namespace_ = "default";
  int replicas = 1;
  Labels labels;  // default {app: name}
  std::map<std::string, std::string> node_selector;
  NodeAffinity node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  PodAffinity pod_affinity;  // inter-pod affinity of its pods (docs/semantics.md §3.8)
  PodAffinity pod_anti_affinity;
  std::vector<HostPort> host_ports;  // ports its pods bind on their node (NodePorts)
  int priority = 0;
  int64_t cpu_milli = 0;  // container requests
  int64_t memory_mib = 0;
  int gpu_mem = 0;      // aliyun.com/gpu-mem units (GiB) for the whole pod
  int gpu_core = 0;     // aliyun.com/gpu-core.percentage per card; 0 = unset
  int gpu_count = 1;    // cards per pod (pod label aliyun.com/gpu-count)
  int whole_gpus = 0;   // nvidia.com/gpu (exclusive cards); excludes gpu_mem
  // `mig_profile:` a MIG instance of this profile per whole_gpus, asked as
  // nvidia.com/mig-<profile> (a mixed-strategy MIG pool). Empty: nvidia.com/gpu.
  std::string mig_profile;
  // `gpu_resource: nvidia.com/gpu.shared`: its whole_gpus are replicas of a pool whose device
  // plugin renames them (device_sharing's rename_by_default).
  bool shared_replicas = false;
  // `hami:` a HAMi vGPU request (nvidia.com/gpu with gpumem / gpucores on a HAMi pool); excludes
  // gpu_mem and whole_gpus.
  HamiAsk hami;
  DraAsk dra;           // `dra:` GPUs through a ResourceClaim (a DRA pool's); excludes the above
  int schd_weight = 0;  // ALIYUN_COM_GPU_SCHD_WEIGHT; 0 = unset
  GpuMemoryDemand memory;
  SimTime image_pull = 0;
  SimTime model_load = 0;
  ReadinessKind probe = ReadinessKind::kModel;
  LoadOomReaction on_load_oom = LoadOomReaction::kStayUp;
  Traffic traffic;
  std::optional<ClosedLoop> closed_loop;  // excludes traffic
  WorkModel work;
  int concurrency = 1;  // in-flight requests on the GPU per pod; 0 = unlimited
  Batching batching;
  SimTime cpu_before = 0;
  SimTime cpu_after = 0;
  SimTime timeout = 0;  // 0 = none
  TimeoutAction on_timeout = TimeoutAction::kAbort;
  Routing routing = Routing::kRandom;
  Slo slo;
  // Its solo profile for cluster.interference (a job of the model file, or its own numbers; an
  // own profile has an empty job name, so no fitted offsets). Unset: its cards are shared by
  // the POLICY split whenever it is active on them.
  std::optional<JobProfile> interference;
  // `gpu_profile:` its DCGM profiling counters measured alone on a card (`knobsim import` reads
  // them): what MPS overlap takes its SM and bandwidth demands from (models/mps_overlap.h).
  // Unset: on an MPS card its kernels are taken to fill the whole card.
  std::optional<GpuProfile> gpu_profile;
  std::vector<CurrentPod> pods;  // current placement of replicas 0.. (at most `replicas`)
  // What the checks read (knobsim check / upgrade); a run ignores them.
  std::string kind = "Deployment";  // Deployment | StatefulSet | DaemonSet | Job | Pod
  std::vector<std::string> images;  // container images as written (tag and/or @sha256 digest)
  int64_t image_size_mib = 0;       // compressed size to pull after a node reset; 0 = unknown
  Labels annotations;               // pod annotations the checks read (backup markers)
  std::vector<std::string>
      volumes;  // PVC claim names of a Deployment's pods (StatefulSets: kube.stateful_sets)
  // Its HorizontalPodAutoscaler: `replicas` is where it starts (docs/autoscaling.md).
  std::optional<HpaSpec> hpa;
  // Its ACK CronHPA: target_kind is the workload's kind, or HorizontalPodAutoscaler when the
  // CronHPA scales the workload's `hpa` (docs/autoscaling.md "CronHPA").
  std::optional<CronHpaSpec> cron_hpa;
  // Its pods ask for a GPU (a share, whole cards or devices, HAMi vGPUs): only they serve traffic.
  bool asks_gpu() const { return gpu_mem > 0 || whole_gpus > 0 || hami.enabled() || dra.enabled(); }
};

struct RunSettings {
  SimTime duration = 3600 * kNanosPerSecond;  // simulated time, warm-up included
  SimTime warmup = 300 * kNanosPerSecond;
  uint64_t seed = 1;
  int replications = 1;
  // The wall clock at t = 0, Unix seconds (`run.start`): what the CronHPA's schedules read.
  // Unset: RunStartUnix's default, midnight of Monday 1 January 2024 at the CronHPA
  // controller's offset, so that t = 0 is a local midnight, as a diurnal curve's peak_at takes it.
  std::optional<int64_t> start_unix_s;
};

// A variant's `sharing:` of a pool (docs/whatif.md "sharing"): ACK's cGPU sharing, whole cards
// (nvidia.com/gpu, no sharing), or the NVIDIA device plugin's time-slicing / MPS replicas.
struct PoolSharingKnob {
  enum class Mode { kCgpu, kExclusive, kReplicas, kMig, kHami, kDra };
  Mode mode = Mode::kCgpu;
  DeviceSharing replicas;  // kReplicas: strategy and count (the plugin's defaults otherwise)
  MigLayout mig;           // kMig: every card's instances and the strategy
  HamiPool hami;           // kHami: the device plugin's split (HAMi's defaults otherwise)
  DraPool dra;             // kDra: the driver (with `mig`, the NVIDIA driver's MIG instances)
  bool operator==(const PoolSharingKnob&) const = default;
};

// A named set of knob changes applied on top of the base scenario. Unset = unchanged.
// Map keys name a pool or a workload; the key "*" means all of them.
struct Variant {
  std::string name;
  std::string description;
  std::optional<SharingPolicy> policy;
  std::optional<int> max_inst;
  std::optional<double> switch_overhead;
  std::optional<TimeSliceKnobs> time_slice;                 // quantum 0: slice mode off
  std::map<std::string, std::string> placement;             // pool -> placement
  std::map<std::string, MemoryIsolation> memory_isolation;  // pool -> hard/soft
  std::map<std::string, PoolSharingKnob> sharing;           // pool -> how its cards are shared
  std::map<std::string, std::vector<TopologySpreadConstraint>> topology_spread;  // workload ->
  std::map<std::string, int> gpu_mem;           // workload -> quota units
  std::map<std::string, int> gpu_core;          // workload -> percent
  std::map<std::string, int> replicas;          // workload -> replicas
  std::map<std::string, int> priority;          // workload -> its pods' priority
  std::map<std::string, int> node_count;        // pool -> nodes
  std::map<std::string, double> traffic_scale;  // workload (or "*") -> factor
  std::optional<bool> interference;  // false: cluster.interference off (every card by POLICY)
  // Workload -> its HPA's bounds, and the target of its HPA's first metric (in the metric's
  // own unit: percent, requests/s, MiB, requests, cores; cpu at 80 % when it lists none). The
  // workload must have an HPA.
  std::map<std::string, int> hpa_min_replicas;
  std::map<std::string, int> hpa_max_replicas;
  std::map<std::string, double> hpa_target;
  // Workload -> its HPA's behavior stabilization windows (stabilizationWindowSeconds of scaleUp /
  // scaleDown, 0..1 h). An HPA without `behavior` gets one with the API's defaults for the rest.
  std::map<std::string, SimTime> hpa_scale_up_window;
  std::map<std::string, SimTime> hpa_scale_down_window;
  // Workload -> false: its CronHPA left out (true keeps it). The workload must have one.
  std::map<std::string, bool> cron_hpa;
  // Pool -> its autoscaler bounds (the pool must autoscale; `count` is clamped into them).
  std::map<std::string, int> pool_min;
  std::map<std::string, int> pool_max;
};

// Cluster objects a run does not simulate but the checks read (scenario key `kube:`,
// docs/semantics.md §5.4): disruption budgets, StatefulSets, storage and quotas. `knobsim import`
// writes them from an export; docs/scenario.md documents the keys.
struct ScenarioKube {
  std::vector<PodDisruptionBudgetSpec> pdbs;
  std::vector<StatefulSetSpec> stateful_sets;
  std::vector<PersistentVolumeClaimSpec> pvcs;
  std::vector<PersistentVolumeSpec> pvs;
  std::vector<StorageClassSpec> storage_classes;
  std::vector<ResourceQuotaSpec> resource_quotas;
  bool empty() const {
    return pdbs.empty() && stateful_sets.empty() && pvcs.empty() && pvs.empty() &&
           storage_classes.empty() && resource_quotas.empty();
  }
  bool operator==(const ScenarioKube&) const = default;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;  // where it was read from (for messages)
  // EvidenceFingerprint (sim/io/evidence_fingerprint.h) of the export and metrics an imported
  // scenario came from; empty when written by hand.
  std::string evidence;
  GpuCatalog catalog = GpuCatalog::BuiltIn();
  std::vector<NodePool> node_pools;
  ClusterKnobs cluster;
  std::vector<Workload> workloads;
  RunSettings run;
  std::vector<Variant> variants;
  ScenarioKube kube;
};

}  // namespace knobsim
