#include "sim/controllers/placement.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/gpu_topology.h"
#include "sim/controllers/daemon_sets.h"
#include "sim/controllers/disruption_budget.h"
#include "sim/controllers/endpoints.h"
#include "sim/controllers/image_pulls.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/preemption.h"
#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/dra/hami_gpu_devices.h"
#include "sim/scheduler/dra/held_devices.h"
#include "sim/scheduler/dra/nvidia_gpu_devices.h"
#include "sim/scheduler/dra/pools.h"
#include "sim/scheduler/fgd/fragmentation_report.h"
#include "sim/scheduler/gpu_share_plugin.h"
#include "sim/scheduler/hami_devices.h"
#include "sim/scheduler/policy_placement.h"

namespace knobsim::engine {
namespace {

// The scenario's pods, every replica, in milli-GPU's terms: FGD's target workload.
std::vector<fgd::TargetPod> TargetWorkload(const Scenario& scenario) {
  std::vector<fgd::TargetPod> pods;
  for (const Workload& w : scenario.workloads) {
    for (int i = 0; i < w.replicas; ++i) {
      // A DRA claim's devices are whole (a MIG instance is a card slot); a shared claim's are
      // asked once, by its first pod. A HAMi-core share asks its memory, as gpu-mem does.
      const DraAsk& dra = w.dra;
      if (dra.enabled() && dra.memory_mib) {
        const int units = static_cast<int>((*dra.memory_mib + 1023) / 1024);  // whole GiB, up
        pods.push_back({w.cpu_milli, w.memory_mib, units * dra.gpus, dra.gpus, 0});
        continue;
      }
      const int whole = dra.enabled() ? (dra.shared && i > 0 ? 0 : dra.gpus) : w.whole_gpus;
      pods.push_back({w.cpu_milli, w.memory_mib, w.gpu_mem, w.gpu_count, whole});
    }
  }
  return pods;
}

// Where a running pod is now, if it still fits there: the node exists and its listed cards (or,
// without a list, ACK's card choice on that node) can take the pod as the cluster stands.
// Node cpu and memory are not checked: a pod that runs is not evicted for them.
std::optional<Placement> CurrentPlacement(const ClusterState& state, const SchedulerConfig& config,
                                          const PodSpec& pod, const CurrentPod& at) {
  // A DRA pod's devices come from the allocator, which the scheduler runs: its claims are not
  // allocated in the run's catalog, so it is placed again **[simplification]**.
  if (!pod.resource_claims.empty()) return std::nullopt;
  const int node = state.FindNode(at.node);
  if (node < 0) return std::nullopt;
  const NodeState& n = state.node(node);
  if (!pod.hami.empty()) {
    // HAMi's vGPUs: on the listed cards, or where its extender would put them now.
    const HamiFit fit = at.cards.empty() ? FitHamiPod(pod, n) : FitHamiPodOnCards(pod, n, at.cards);
    if (!fit.fits) return std::nullopt;
    return HamiPlacement(node, fit);
  }
  std::optional<CardChoice> choice;
  if (!at.cards.empty()) {
    choice = CheckCardSet(pod, n, at.cards, MaxPodsPerCard(n.spec, config));
  } else {
    choice = ChooseCards(pod, n, config).choice;
  }
  if (!choice) return std::nullopt;
  Placement placement;
  placement.node = node;
  placement.cards = choice->cards;
  placement.mem_units = choice->mem_units;
  placement.core_units = choice->core_units;
  placement.replicas = choice->replicas;
  placement.bottleneck_gbps = CardSetBandwidthOf(n, choice->cards);
  return placement;
}

// The card slot of `node` that DRA device `device` is: its position in the node's device slice
// (DraCatalogForScenario publishes each node's card slots in order), or -1.
int CardOfDevice(const DraCatalog& dra, const std::string& node, const std::string& device) {
  for (const ResourceSliceSpec* slice : dra.slice_index().OnNode(node)) {
    for (size_t i = 0; i < slice->devices.size(); ++i)
      if (slice->devices[i].name == device) return static_cast<int>(i);
  }
  return -1;
}

// How claims hold card `card` of `node` as a DRA device: `whole` when one claim holds it alone;
// a multi-allocatable device's shares as the memory they consumed, in gpu-mem units (GiB).
struct DraCardUse {
  bool whole = false;
  int used_units = 0;
  int card_units = 0;  // the device's memory in gpu-mem units (a shared device only)
};

DraCardUse DraUseOfCard(const DraCatalog& dra, const std::string& node, int card) {
  DraCardUse use;
  const std::span<const uint8_t> held = dra.held_by_device();
  if (held.empty()) return use;
  for (const ResourceSliceSpec* slice : dra.slice_index().OnNode(node)) {
    if (card >= static_cast<int>(slice->devices.size())) continue;
    const DraDevice& device = slice->devices[card];
    use.whole = (held[dra.slice_index().DeviceOrdinal(*slice, device)] & dra::kHeldDedicated) != 0;
    const std::string memory_name = slice->driver + "/memory";
    const auto memory = device.capacity.find(memory_name);
    if (!device.allow_multiple_allocations || memory == device.capacity.end()) return use;
    constexpr int64_t kGiBMilli = (int64_t{1} << 30) * 1000;
    use.card_units = CardMemoryUnits(memory->second.milli / 1000 >> 20);
    const auto& consumed = dra.allocated().consumed_capacity;
    const auto it = consumed.find(std::tuple<std::string_view, std::string_view, std::string_view>(
        slice->driver, slice->pool, device.name));
    if (it == consumed.end()) return use;
    if (const auto m = it->second.find(memory_name); m != it->second.end())
      use.used_units = static_cast<int>((m->second + kGiBMilli - 1) / kGiBMilli);
    return use;
  }
  return use;
}

// FGD fragmentation of the placement (sim/scheduler/fgd/fragmentation_report.h): the scenario's
// pods, every replica, are the target workload.
FragmentationResult MeasureFragmentation(const Scenario& scenario, const ClusterState& state) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  std::vector<FragNodeInput> nodes;
  nodes.reserve(state.nodes().size());
  for (const NodeState& n : state.nodes()) {
    if (n.absent) continue;  // an autoscaled pool's empty slot is no node
    FragNodeInput in;
    in.name = n.spec.name;
    const auto get = [](const ResourceList& list, const char* key) {
      const auto it = list.find(key);
      return it == list.end() ? int64_t{0} : it->second;
    };
    in.cpu_milli = get(n.spec.allocatable, "cpu");
    in.memory_mib = get(n.spec.allocatable, "memory") / kMiB;
    in.cpu_used_milli = get(n.requested, "cpu");
    in.memory_used_mib = get(n.requested, "memory") / kMiB;
    in.card_units = n.spec.card_mem_units;
    // A shared card's replicas are no gpu-mem: the card counts as taken once all are held. A
    // DRA device is taken while a claim holds it alone; shares of a device's consumable memory
    // count the memory they consumed, as gpu-mem does.
    for (size_t i = 0; i < n.cards.size(); ++i) {
      const CardState& c = n.cards[i];
      const DraCardUse dra = DraUseOfCard(state.dra(), n.spec.name, static_cast<int>(i));
      if (dra.card_units > 0) in.card_units = dra.card_units;
      in.cards.push_back(
          {c.used_mem + dra.used_units,
           dra.whole || c.whole || (c.replicas > 0 && c.used_replicas >= c.replicas)});
    }
    nodes.push_back(std::move(in));
  }
  return knobsim::MeasureFragmentation(nodes, TargetWorkload(scenario));
}

// The slices a DRA driver publishes for node slot `i` of `pool` (docs/scenario.md "DRA"), onto
// `out`: their devices are the node's card slots, in order.
void AddDraSlices(const Scenario& scenario, const NodePool& pool, int i,
                  std::vector<ResourceSliceSpec>& out) {
  const GpuType& gpu = *scenario.catalog.Find(pool.gpu_type);
  const std::string node = PoolNodeName(pool, i);
  if (pool.dra.driver == DraDriver::kHamiCore) {
    out.push_back(dra::HamiCoreGpuSlice(node, pool.gpus_per_node, gpu.name, gpu.memory_mib));
  } else if (pool.dra.dynamic_mig) {
    for (ResourceSliceSpec& s : dra::NvidiaDynamicMigSlices(node, pool.gpus_per_node, pool.gpu_type,
                                                            gpu.name, gpu.memory_mib))
      out.push_back(std::move(s));
  } else if (pool.mig.enabled()) {
    out.push_back(dra::NvidiaMigSlice(node, pool.gpus_per_node, pool.gpu_type, gpu.name,
                                      gpu.memory_mib, pool.mig.instances));
  } else if (const auto& shared = pool.dra.shared_memory) {
    constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;
    DraCapacityPolicy policy;
    policy.default_milli =
        (shared->default_mib > 0 ? shared->default_mib : gpu.memory_mib) * kMiBMilli;
    policy.has_range = true;
    policy.min_milli = shared->min_mib * kMiBMilli;
    policy.step_milli = shared->step_mib * kMiBMilli;
    out.push_back(dra::NvidiaGpuSlice(node, pool.gpus_per_node, gpu.name, gpu.memory_mib, &policy));
  } else {
    out.push_back(dra::NvidiaGpuSlice(node, pool.gpus_per_node, gpu.name, gpu.memory_mib));
  }
}

// The claim of a `dra:` workload: `gpus` devices of its driver's class — NVIDIA GPUs, NVIDIA MIG
// instances of one profile, or shares of HAMi-core GPUs with the memory and cores it asks.
DraClaimSpec DraClaimOf(const DraAsk& ask) {
  constexpr int64_t kMiBMilli = (int64_t{1} << 20) * 1000;
  DraClaimSpec spec;
  DraRequest& request = spec.requests.emplace_back();
  request.name = "gpu";
  DraExactRequest& e = request.exactly.emplace();
  e.name = "gpu";
  e.count = ask.gpus;
  if (ask.driver == DraDriver::kHamiCore) {
    e.device_class_name = dra::kHamiCoreClass;
    if (ask.memory_mib) e.capacity_requests_milli["memory"] = *ask.memory_mib * kMiBMilli;
    if (ask.cores) e.capacity_requests_milli["cores"] = int64_t{*ask.cores} * 1000;
  } else if (!ask.mig_profile.empty()) {
    e.device_class_name = dra::kNvidiaMigClass;
    e.selectors = {dra::NvidiaMigProfileSelector(ask.mig_profile)};
  } else {
    e.device_class_name = dra::kNvidiaGpuClass;
    if (ask.memory_mib) e.capacity_requests_milli["memory"] = *ask.memory_mib * kMiBMilli;
  }
  return spec;
}

// The DRA objects a scenario stands for (docs/scenario.md "DRA"): each `dra:` pool's slice of
// every node slot and the drivers' DeviceClasses, and each DRA workload's claim — one
// ResourceClaim its replicas share, or a ResourceClaimTemplate. Empty (no DRA) when no pool or
// workload uses it.
DraCatalog DraCatalogForScenario(const Scenario& scenario) {
  std::vector<ResourceSliceSpec> slices;
  for (const NodePool& pool : scenario.node_pools) {
    if (!pool.dra.enabled) continue;
    for (int i = 0; i < pool.slots(); ++i) AddDraSlices(scenario, pool, i, slices);
  }
  std::vector<ResourceClaimSpec> claims;
  std::vector<ResourceClaimTemplateSpec> templates;
  for (const Workload& w : scenario.workloads) {
    if (!w.dra.enabled()) continue;
    if (w.dra.shared) {
      ResourceClaimSpec& claim = claims.emplace_back();
      claim.name = DraClaimName(w);
      claim.namespace_ = w.namespace_;
      claim.spec = DraClaimOf(w.dra);
    } else {
      ResourceClaimTemplateSpec& t = templates.emplace_back();
      t.name = DraClaimName(w);
      t.namespace_ = w.namespace_;
      t.spec = DraClaimOf(w.dra);
    }
  }
  if (slices.empty() && claims.empty() && templates.empty()) return {};
  return DraCatalog(std::move(slices),
                    {dra::NvidiaGpuClass(), dra::NvidiaMigClass(), dra::HamiCoreGpuClass()},
                    std::move(claims), std::move(templates));
}

// The scheduler the run keeps, over every node slot of the scenario (BuildCluster's order); an
// autoscaled pool's slots beyond its `count` start absent (node_autoscaling.h).
void BuildScheduler(EngineState& s) {
  const Scenario& scenario = s.scenario;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    const NodePool& pool = scenario.node_pools[p];
    for (int i = 0; i < pool.slots(); ++i) {
      const int n = s.cluster_state.AddNode(NodeSpecForPool(scenario, static_cast<int>(p), i));
      if (i >= pool.count) s.cluster_state.SetAbsent(n, true);
    }
  }
  const ScenarioKube& kube = scenario.kube;
  s.cluster_state.SetVolumes(VolumeCatalog(kube.pvcs, kube.pvs, kube.storage_classes));
  if (DraCatalog dra = DraCatalogForScenario(scenario); !dra.empty())
    s.cluster_state.SetDra(std::move(dra));
  SchedulerConfig& config = s.config;
  config.default_placement =
      ParseCardPolicy(scenario.cluster.default_placement).value_or(CardPolicy::kBinpack);
  // FGD plans for the scenario's own pods, every replica (the same target the fragmentation
  // report measures against).
  config.target_workload =
      std::make_shared<const std::vector<fgd::TargetPod>>(TargetWorkload(scenario));
  config.seed = s.seed;
  // cluster.percentage_of_nodes_to_score, else the default (100 for the paper's placements).
  const std::optional<int>& percentage = scenario.cluster.percentage_of_nodes_to_score;
  config.percentage_of_nodes_to_score =
      percentage ? *percentage : DefaultPercentageOfNodesToScore(s.cluster_state, config);
  if (scenario.cluster.policy == SharingPolicy::kFixedEqual)
    config.policy0_max_inst = scenario.cluster.max_inst;
  s.scheduler = std::make_unique<Scheduler>(s.cluster_state, config);
}

struct QueuedPod {
  int32_t workload;
  int ordinal;
};

// Creates every replica's pod, in workload order (the order of the results); returns the pod
// of each workload's replica.
std::vector<std::vector<int32_t>> CreatePods(EngineState& s) {
  std::vector<std::vector<int32_t>> pod_of(s.workloads.size());
  for (int32_t w = 0; w < static_cast<int32_t>(s.workloads.size()); ++w) {
    const Workload& spec = *s.workloads[w].spec;
    for (int i = 0; i < spec.replicas; ++i) {
      const int32_t p = static_cast<int32_t>(s.pods.size());
      s.pods.emplace_back();
      PodRun& pod = s.pods.back();
      pod.workload = w;
      pod.replica = i;
      pod.name = i < static_cast<int>(spec.pods.size()) ? spec.pods[i].name
                                                        : spec.name + "-" + std::to_string(i);
      // A DaemonSet's pods are laid out one per node (daemon_sets.h) and pinned there.
      if (spec.kind == "DaemonSet" && i < static_cast<int>(spec.pods.size())) {
        pod.daemon_node = spec.pods[i].node;
      }
      if (i < static_cast<int>(spec.pods.size()) && !spec.pods[i].ready) {
        pod.start_unready = true;
        pod.ready_after = spec.pods[i].ready_after;
      }
      pod_of[w].push_back(p);
    }
  }
  return pod_of;
}

}  // namespace

void PlacePods(Simulator& sim) {
  EngineState& s = sim.state;
  BuildScheduler(s);
  PrepareDaemonSets(s);
  // Preemption weighs the scenario's PodDisruptionBudgets as they stand when it runs.
  if (!s.scenario.kube.pdbs.empty()) {
    s.scheduler->SetBudgetSource(
        [&sim] { return PreemptionBudgets(sim.state.scenario, sim.control.Pods()); });
  }
  std::vector<QueuedPod> order;
  for (int32_t w = 0; w < static_cast<int32_t>(s.workloads.size()); ++w)
    for (int i = 0; i < s.workloads[w].spec->replicas; ++i) order.push_back({w, i});
  std::stable_sort(order.begin(), order.end(), [&s](const QueuedPod& a, const QueuedPod& b) {
    return s.workloads[a.workload].spec->priority > s.workloads[b.workload].spec->priority;
  });
  // Pods keep workload order in the results; the queue order only decides who binds first.
  const std::vector<std::vector<int32_t>> pod_of = CreatePods(s);
  for (int32_t p = 0; p < static_cast<int32_t>(s.pods.size()); ++p) PodCreated(sim, p);
  // Pods that already run somewhere are bound before the scheduler places anyone.
  std::vector<std::optional<Placement>> current(s.pods.size());
  for (const QueuedPod& next : order) {
    const Workload& spec = *s.workloads[next.workload].spec;
    if (next.ordinal >= static_cast<int>(spec.pods.size())) continue;
    const int32_t p = pod_of[next.workload][next.ordinal];
    PodSpec pod = RunPodSpec(s, p);
    pod.start_time = 0;  // every pod of the scenario runs from t = 0
    if (!pod.resource_claims.empty()) {
      // A DRA pod's devices come from the allocator: it is scheduled now, before the pending
      // pods, nominated to its node (taken when it fits there, as upstream does).
      pod.nominated_node_name = spec.pods[next.ordinal].node;
      const int index = static_cast<int>(s.cluster_state.pods().size());
      const ScheduleResult r = s.scheduler->ScheduleAndBind(pod);
      if (r.placement.node >= 0) {
        current[p] = r.placement;
        s.pods[p].state_pod = index;
      }
    } else {
      current[p] = CurrentPlacement(s.cluster_state, s.config, pod, spec.pods[next.ordinal]);
    }
    if (current[p]) {
      if (s.pods[p].state_pod < 0) s.pods[p].state_pod = s.cluster_state.Bind(pod, *current[p]);
    } else {
      sim.recorder.PodEvent("Rescheduled", p,
                            "its current place (node " + spec.pods[next.ordinal].node +
                                ") no longer fits; the scheduler places it");
    }
  }
  // A preemption's deletions would schedule the pending pods again: that waits for the end.
  s.scheduling_pending = true;
  for (const QueuedPod& next : order) {
    const int32_t p = pod_of[next.workload][next.ordinal];
    const Workload& spec = *s.workloads[next.workload].spec;
    if (s.pods[p].terminating) continue;  // a running pod preempted for a pod placed before it
    ScheduleResult result;
    if (current[p]) {
      result.placement = *current[p];
    } else {
      const int index = static_cast<int>(s.cluster_state.pods().size());
      PodSpec pod = RunPodSpec(s, p);
      pod.start_time = 0;
      result = s.scheduler->ScheduleAndBind(pod);
      if (result.placement.node >= 0) s.pods[p].state_pod = index;
    }
    if (result.placement.node < 0) {
      if (result.preemption.node >= 0) PreemptFor(sim, p, result.preemption);
      s.pods[p].message = result.message;
      sim.recorder.PodEvent("FailedScheduling", p, result.message);
      s.pending.push_back(p);
      continue;
    }
    if (!AdmitOnNode(sim, p, result.placement)) continue;
    BindPod(sim, p, result.placement);
    // The pods of the scenario run when the run starts: their images are on their nodes
    // already, and `image_pull` stands for the start-up the run replays.
    MarkImagesCached(s, p);
    SetPhase(sim, p, PodPhase::kPulling);
    s.queue.Push(spec.image_pull, kContainerStart, static_cast<uint32_t>(p), s.pods[p].generation);
  }
  std::sort(s.pending.begin(), s.pending.end());
  s.scheduling_pending = false;
  if (s.pending_again) SchedulePending(sim);
  sim.recorder.SetFragmentation(MeasureFragmentation(s.scenario, s.cluster_state));
}

bool AdmitOnNode(Simulator& sim, int32_t p, const Placement& placement) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  const std::string why = DeviceAdmissionError(s.cluster_state.pod(pod.state_pod),
                                               s.cluster_state.node(placement.node).spec);
  if (why.empty()) return true;
  s.cluster_state.Unbind(pod.state_pod);
  pod.state_pod = -1;
  const Endpoint before = EndpointOf(s, p);
  pod.admission_failed = true;
  pod.failed_on = s.cluster.nodes[placement.node].name;
  pod.message = why;
  MoveEndpoint(sim, p, before);  // Failed: no longer Pending
  sim.recorder.PodEvent("UnexpectedAdmissionError", p, why);
  return false;
}

namespace {

// What a DRA pod holds: the cards of the devices its claims were allocated (each device is the
// card slot of its position in the node's slice), each once, and of HAMi-core shares the
// capacity its first device's result consumed (the limits HAMi's driver hands the container).
struct DraHolding {
  std::optional<int64_t> memory_mib;  // CUDA_DEVICE_MEMORY_LIMIT
  std::optional<int64_t> cores;       // CUDA_DEVICE_SM_LIMIT
};

DraHolding AddDraCards(const EngineState& s, const PodSpec& pod, const knobsim::Node& node,
                       PodCards& cards) {
  const DraCatalog& dra = s.cluster_state.dra();
  DraHolding holding;
  ClaimLookupError error;
  for (const PodClaimRef& ref : dra.ClaimsOf(pod, &error)) {
    if (!ref.claim.allocation) continue;
    for (const DraDeviceResult& r : ref.claim.allocation->results) {
      const int index = CardOfDevice(dra, node.name, r.device);
      if (index < 0 || index >= node.num_cards) continue;
      const int32_t card = node.first_card + index;
      if (std::find(cards.begin(), cards.end(), card) != cards.end()) continue;
      cards.push_back(card);
      const auto consumed = [&](const char* name) -> std::optional<int64_t> {
        const auto it = r.consumed_capacity_milli.find(name);
        if (it == r.consumed_capacity_milli.end()) return std::nullopt;
        return it->second / 1000;
      };
      if (!holding.memory_mib) {
        if (auto bytes = consumed(dra::kHamiMemoryCapacity)) holding.memory_mib = *bytes >> 20;
      }
      if (!holding.cores) holding.cores = consumed(dra::kHamiCoresCapacity);
    }
  }
  return holding;
}

// How a DRA claim's pods share its cards. The NVIDIA DRA driver's GpuConfig: time-slicing is the
// driver's native time-slicing with soft memory, as on any card without cGPU. MPS clients run
// side by side, overlapping as their GPU profiles allow (models/mps_overlap.h): capped at the
// active-thread percentage where one is set, else the active ones splitting the card evenly
// without context switches when their kernels fill it **[assumption]**; a pinned-memory limit
// makes memory hard. A device goes to one claim, so the
// card takes its claim's sharing. A MIG instance is its own memory (hard). HAMi's DRA driver:
// each claim's HAMi-core limits, memory hard and compute capped while another pod is active on
// the card (HAMi-core's default policy; the driver sets no GPU_CORE_UTILIZATION_POLICY).
void ShareDraCards(Simulator& sim, const PodCards& cards, const DraAsk& dra) {
  const bool mps = dra.shared && dra.sharing == DeviceSharingStrategy::kMps;
  for (int32_t c : cards) {
    CardRun& card = sim.sharing.cards[c];
    // A device goes to one claim at a time: the card takes this claim's sharing, MPS overlap
    // included, and drops the one before's.
    card.mps_overlap = mps && dra.driver != DraDriver::kHamiCore;
    if (dra.driver == DraDriver::kHamiCore) {
      card.params.policy = SharingPolicy::kCappedTimeSlicing;
      card.params.caps_when_alone = false;
      card.isolation = MemoryIsolation::kHard;
      card.co_location = false;
      continue;
    }
    if (!mps) {
      card.params.policy = SharingPolicy::kNative;
      card.isolation = dra.mig_profile.empty() ? MemoryIsolation::kSoft : MemoryIsolation::kHard;
      continue;
    }
    card.params.policy =
        dra.mps_active_thread_percentage > 0 ? SharingPolicy::kFixedPercent : SharingPolicy::kWeak;
    // The clients overlap as the device plugin's MPS clients do (mps_overlap above,
    // CardSharing::MpsShares): capped at the percentage, 100 without one; without profiles
    // that is the split of this policy.
    card.isolation =
        dra.mps_pinned_memory_mib > 0 ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
    card.co_location = false;
  }
}

}  // namespace

void BindPod(Simulator& sim, int32_t p, const Placement& placement) {
  EngineState& s = sim.state;
  PodRun& pod = s.pods[p];
  const Workload& spec = *s.workloads[pod.workload].spec;
  pod.node = placement.node;
  s.nodes[pod.node].pods.push_back(p);
  const knobsim::Node& node = s.cluster.nodes[pod.node];
  pod.cards.clear();
  for (int c : placement.cards) pod.cards.push_back(node.first_card + c);
  DraHolding dra_holding;
  if (spec.dra.enabled())
    dra_holding = AddDraCards(s, s.cluster_state.pod(pod.state_pod), node, pod.cards);
  if (pod.cards.size() > 1 && placement.bottleneck_gbps > 0) {
    // A multi-card pod's work waits on its slowest link (models/gpu_topology.h); an unknown
    // topology (bandwidth 0) leaves it at full speed.
    pod.bottleneck_gbps = placement.bottleneck_gbps;
    pod.throughput_factor = MultiCardThroughputFactor(pod.bottleneck_gbps, true);
  }
  pod.share_on.assign(pod.cards.size(), 0.0);
  pod.one_card = pod.cards.size() == 1;
  const int m = std::max<int>(1, static_cast<int>(pod.cards.size()));
  if (pod.cards.empty()) return;
  const CardRun& card = sim.sharing.cards[pod.cards[0]];
  const GpuType& gpu = *s.cluster.cards[pod.cards[0]].gpu;
  const DeviceSharing& sharing =
      s.scenario.node_pools[s.cluster.nodes[pod.node].pool].device_sharing;
  const bool mps = sharing.strategy == DeviceSharingStrategy::kMps;
  const DraAsk& dra = spec.dra;
  const bool dra_mps = dra.enabled() && dra.shared && dra.sharing == DeviceSharingStrategy::kMps;
  if (dra.enabled()) {
    ShareDraCards(sim, pod.cards, dra);
    // An MPS pinned-memory limit caps each client (cuMemGetInfo reports it), HAMi-core the
    // memory the claim consumed; time-sliced and exclusive claims see the whole card.
    pod.quota_mib = card.physical_mib;
    if (dra_mps && dra.mps_pinned_memory_mib > 0)
      pod.quota_mib = std::min<int64_t>(dra.mps_pinned_memory_mib, card.physical_mib);
    if (dra_holding.memory_mib)
      pod.quota_mib = std::min<int64_t>(*dra_holding.memory_mib, card.physical_mib);
  } else if (spec.hami.enabled()) {
    // HAMi-core's CUDA_DEVICE_MEMORY_LIMIT: the MiB its extender gave each vGPU; the pod sees
    // at most the card (cuMemGetInfo reports min(limit, physical)).
    const int64_t mib = placement.mem_units.empty() ? 0 : placement.mem_units[0];
    pod.quota_mib = std::min<int64_t>(mib, card.physical_mib);
  } else if (spec.whole_gpus > 0 && mps) {
    // The MPS control daemon's limits for every client of a card, whatever replicas it holds
    // (k8s-device-plugin cmd/mps-control-daemon/mps/daemon.go): pinned device memory
    // total / replicas, active threads 100 / replicas (integer division).
    pod.quota_mib = VisibleQuotaMib(card.physical_mib, 1, sharing.replicas);
  } else if (spec.whole_gpus > 0) {
    pod.quota_mib = card.physical_mib;
  } else {
    pod.quota_mib = VisibleQuotaMib(card.physical_mib, spec.gpu_mem / m, card.units);
  }
  pod.context_mib = spec.memory.context_mib.value_or(gpu.context_mib);
  // A multi-card pod spreads its weights and activations evenly over its cards (assumption,
  // models/README.md); its CUDA context exists once per card.
  pod.weights_mib = (spec.memory.weights_mib + m - 1) / m;
  pod.activation_mib = (spec.memory.activation_mib + m - 1) / m;
  const bool whole = spec.whole_gpus > 0 || dra.enabled();
  const int units = whole ? card.units : spec.gpu_mem / m;
  pod.percent = whole ? 100.0 : EffectivePercent(spec.gpu_core, units, card.units);
  if (spec.whole_gpus > 0 && mps)
    pod.percent = sharing.active_thread_percentage > 0 ? sharing.active_thread_percentage
                                                       : 100 / sharing.replicas;
  if (dra_mps && dra.mps_active_thread_percentage > 0)
    pod.percent = dra.mps_active_thread_percentage;
  if (dra_holding.cores && *dra_holding.cores > 0 && *dra_holding.cores < 100)
    pod.percent = static_cast<double>(*dra_holding.cores);  // 0 and 100 do not throttle
  if (spec.hami.enabled()) {
    // CUDA_DEVICE_SM_LIMIT: gpucores of the first card; 0 and 100 do not throttle (HAMi-core).
    const int cores = placement.core_units.empty() ? 0 : placement.core_units[0];
    pod.percent = cores > 0 && cores < 100 ? cores : 100.0;
  }
  pod.weight = EffectiveWeight(spec.schd_weight, spec.gpu_core);
}

}  // namespace knobsim::engine
