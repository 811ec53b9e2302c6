// The run loop: pods start, requests arrive, cards share their time, results are collected.
//
// Shape of the model (DESIGN.md §3):
//  * Every pod is placed once at t = 0 (sim/scheduler), pulls its image, starts its container
//    (it joins P on its cards and allocates its CUDA context), loads its model (weights are
//    allocated at the end of the load), and becomes Ready — or fails the load with a CUDA OOM and
//    reacts as its workload says (stay_up: fake Ready with a port-only probe, Unready with a
//    model-aware one; exit: restarts into CrashLoopBackOff).
//  * Requests arrive per workload, are routed to a Ready replica, optionally spend CPU time, wait
//    in the pod's FIFO queue, run on the GPU as jobs (a job is one request, or one dynamic batch)
//    under the card-sharing model, optionally spend CPU time again, and depart.
//  * Fluid sharing: a pod's share comes from models/sharing_policy; a pod with k jobs in service
//    advances each at v * min_d share_d / k reference-ns per ns. Each pod keeps an "attained"
//    counter (progress of each of its jobs since the pod last went idle) so that a job's finish
//    is a fixed attained value; only the cards whose state changed are re-shared and re-scheduled.
//  * Spot nodes (NodePool::spot): each node's reclaims are a Poisson process drawn from a stream
//    of its own over the whole run, whatever the node's state, so paired variants see the same
//    reclaims. A reclaim stops every pod on the node (their requests fail as `interrupted`); after
//    `replace_after` an identical, empty node joins and the same pods start on it from scratch.
//  * A ClusterOperator (RunOptions, sim/cluster_control.h) may cordon nodes, delete pods and
//    take nodes down and back during the run. Then the run acts as Kubernetes' controllers do:
//    a deleted pod leaves the Service's endpoints at once and terminates when its requests are
//    done or its grace period is over (what is left fails as `interrupted`); a Deployment's
//    replacement is created at once, a StatefulSet's (same name) once the old pod is gone; Pending
//    pods go through the scheduler again whenever capacity may have appeared. A pod starting on
//    a node without its image pulls it (size / bandwidth), or backs off for good when the
//    registry no longer has it. The scheduler's cluster state lives as long as the run.
#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu_topology.h"
#include "models/memory_isolation.h"
#include "models/sharing_policy.h"
#include "sim/cluster.h"
#include "sim/random_stream.h"
#include "sim/scenario_objects.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/fgd/fragmentation_report.h"
#include "sim/scheduler/gpu_share_plugin.h"
#include "sim/scheduler/scheduler.h"
#include "sim/traffic.h"

namespace knobsim {
namespace {

constexpr int32_t kNone = -1;
constexpr size_t kMaxEvents = 1000;  // cluster events kept in the results

enum EventKind : uint32_t {
  kArrival,         // target: workload
  kCardCompletion,  // target: card
  kCpuBeforeDone,   // target: request
  kCpuAfterDone,    // target: request
  kTimeout,         // target: request
  kContainerStart,  // target: pod (image pulled, or restart back-off over)
  kLoadDone,        // target: pod
  kBatchWait,       // target: pod
  kWarmupEnd,
  kSpotReclaim,   // target: node
  kNodeReplaced,  // target: node
  kTerminated,    // target: pod (its grace period is over, or its last request left)
  kPodReady,      // target: pod (a pod unready at the start turns Ready: CurrentPod::ready_after)
  kOperatorWake,  // target: index into Simulator::wake_tokens_
};

enum class PodPhase {
  kPending,
  kPulling,
  kLoading,
  kServing,
  kFakeReady,
  kUnready,
  kCrashLoop,
  kImagePullBackOff
};

const char* PhaseName(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending: return "Pending";
    case PodPhase::kPulling: return "Starting";
    case PodPhase::kLoading: return "Starting";
    case PodPhase::kServing: return "Running";
    case PodPhase::kFakeReady: return "FakeReady";
    case PodPhase::kUnready: return "Unready";
    case PodPhase::kCrashLoop: return "CrashLoopBackOff";
    case PodPhase::kImagePullBackOff:
      return "ImagePullBackOff";
  }
  return "Unknown";
}

enum class RequestStage : uint8_t { kCpuBefore, kQueued, kOnGpu, kCpuAfter, kGone };

struct Request {
  SimTime arrival = 0;
  SimTime enqueued = 0;
  double work_s = 0;
  int32_t workload = 0;
  int32_t pod = kNone;
  int32_t next = kNone;  // next in the pod's FIFO queue, or in its job
  int32_t job = kNone;
  uint32_t generation = 0;  // bumps cancel its pending timeout / cpu events
  RequestStage stage = RequestStage::kGone;
  bool counted = false;  // arrived after warm-up
};

struct Job {
  double finish = 0;  // the pod's attained value at which it completes
  int32_t first = kNone;
  int32_t pod = kNone;
  int32_t live = 0;   // requests of the job still waiting for it
  int64_t activation_mib = 0;  // per card
  bool in_service = false;
};

struct CardRun {
  double speed = 1;
  int64_t physical_mib = 0;
  int units = 0;
  SharingParams params;
  MemoryIsolation isolation = MemoryIsolation::kHard;
  std::vector<int32_t> running;  // pods in P (GPU container running)
  std::vector<PodOnCard> view;   // scratch for the policy
  std::vector<double> shares;    // scratch for the policy
  // state that the metrics integrate
  int active = 0;
  double sum_share = 0;
  double eta = 1;
  int64_t memory_used_mib = 0;
  // metrics (after warm-up)
  SimTime last = 0;
  double busy_ns = 0, effective_ns = 0, switch_ns = 0, memory_integral = 0;
  int64_t memory_peak_mib = 0;
  // completion event
  uint32_t generation = 0;
  SimTime scheduled = -1;
  bool dirty = false;
  bool membership_changed = false;  // P changed since the shares were last computed
};

struct PodRun {
  int32_t workload = 0;
  int replica = 0;  // the replica ordinal it stands for (a replacement keeps it)
  std::string name;
  int state_pod = -1;          // its pod in the scheduler's ClusterState while bound
  bool terminating = false;    // deleted: out of the endpoints, finishing its requests
  bool gone = false;           // terminated: no longer exists (its record stays for the ids)
  bool start_unready = false;  // CurrentPod::ready == false, until it turns Ready
  SimTime ready_after = -1;
  int node = -1;
  std::vector<int32_t> cards;
  std::vector<double> share_on;  // share on each of `cards`
  PodPhase phase = PodPhase::kPending;
  bool in_p = false;
  bool model_loaded = false;
  bool context_ok = false;
  int restarts = 0;
  std::string message;
  uint32_t generation = 0;   // lifecycle events
  uint32_t batch_generation = 0;
  // memory, per card
  int64_t quota_mib = 0;
  int64_t used_mib = 0;
  int64_t context_mib = 0;
  int64_t weights_mib = 0;
  int64_t activation_mib = 0;
  double percent = 0;
  int weight = 1;
  // queue and service
  int32_t queue_head = kNone, queue_tail = kNone;
  int32_t queue_len = 0;
  int32_t outstanding = 0;  // routed here and not yet departed
  std::vector<int32_t> service;  // heap of job ids by finish
  int32_t jobs = 0;              // jobs in service
  double attained = 0;
  double rate = 0;  // reference-ns of progress per ns for each job
  double throughput_factor = 1;  // multi-card pods: links slower than NVLink (gpu_topology)
  double bottleneck_gbps = 0;
  SimTime last_update = 0;
};

// A node as the run sees it: which pods it holds (for a reclaim) and its spot reclaims.
struct NodeRun {
  std::vector<int32_t> pods;   // pods placed on it, in binding order
  std::vector<std::string> images;  // image cache: what a pod starting here need not pull
  bool cordoned = false;            // set by a ClusterOperator
  double reclaim_mean_ns = 0;  // mean time between reclaims; 0 = on-demand, never reclaimed
  SimTime replace_after = 0;
  RandomStream reclaims;       // "spot/<pool>/<ordinal>": the same node in every variant
  // Down while either holds: a spot reclaim (until its replacement joins) or a ClusterOperator's
  // reset (until it brings the node back); each ends only its own.
  bool reclaimed = false;
  bool resetting = false;
  bool down() const { return reclaimed || resetting; }
};

// One step of a workload's timeline while it is collected (RunOptions::timeline_step).
struct TimelineStep {
  int64_t arrivals = 0;
  int64_t completed = 0;
  ErrorCounts errors;
  double latency_sum_ms = 0;
  LatencyHistogram histogram;
  double available_ns = 0;  // ∫ available pods dt over the step
  double ready_ns = 0;
  int available_min = std::numeric_limits<int>::max();
};

struct WorkloadRun {
  // Streams are named after the workload, so every variant draws the same arrivals and work.
  WorkloadRun(const Workload& w, uint64_t seed)
      : spec(&w),
        arrivals(w.traffic, RandomStream(seed, "workload/" + w.namespace_ + "/" + w.name + "/arrivals")),
        work_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/work"),
        route_stream(seed, "workload/" + w.namespace_ + "/" + w.name + "/route") {
    result.name = w.name;
    result.namespace_ = w.namespace_;
  }

  const Workload* spec;
  ArrivalProcess arrivals;
  RandomStream work_stream;
  RandomStream route_stream;
  std::vector<int32_t> ready;  // Ready pods (FakeReady included) not terminating, in pod order
  uint64_t round_robin = 0;
  int replacements = 0;  // Deployment replacements created so far (their names)
  // availability (timeline)
  int available = 0;           // Ready with the model loaded, not terminating
  SimTime available_last = 0;  // integrated up to here
  std::vector<TimelineStep> timeline;
  double available_fraction_ns = 0;  // ∫ min(available, desired) / desired dt
  double below_desired_ns = 0;
  double unavailable_ns = 0;
  // metrics
  WorkloadResult result;
  int64_t in_system = 0;  // counted requests in the system
  SimTime in_system_last = 0;
  double in_system_integral = 0;
  int64_t departures = 0;
  double time_in_system_sum_ns = 0;
  double latency_sum_ms = 0;
};

class Simulator final : public ClusterControl {
 public:
  Simulator(const Scenario& scenario, uint64_t seed, const RunOptions& options);
  RunResult Run();

  // ClusterControl (sim/cluster_control.h), for RunOptions::cluster_operator.
  SimTime Now() const override { return now_; }
  const Scenario& scenario() const override { return scenario_; }
  int NodeCount() const override { return static_cast<int>(nodes_.size()); }
  NodeView Node(int node) const override;
  std::vector<PodView> Pods() const override;
  void SetCordoned(int node, bool cordoned) override;
  void DeletePod(int pod, const std::string& why) override;
  void TakeNodeDown(int node, const std::string& why) override;
  void BringNodeUp(int node, const NodeSettings& settings) override;
  void WakeAt(SimTime at, uint64_t token) override;
  void EndRunAt(SimTime at) override;
  void Record(const std::string& kind, const std::string& pod, const std::string& message) override;

 private:
  // setup
  void PlacePods();
  void BindPod(int32_t p, const Placement& placement);
  std::optional<Placement> CurrentPlacement(const ClusterState& state,
                                            const SchedulerConfig& config, const PodSpec& pod,
                                            const CurrentPod& at);
  void MeasureFragmentation(const ClusterState& state);
  // The scenario's pods, every replica, in milli-GPU's terms: FGD's target workload.
  std::vector<fgd::TargetPod> TargetWorkload() const;
  // lifecycle
  void StartContainer(int32_t p);
  void FinishLoad(int32_t p);
  void StopContainer(int32_t p);
  void SetPhase(int32_t p, PodPhase phase);
  // The Service's endpoints (WorkloadRun::ready) and its available count, kept as a pod's
  // phase or terminating state changes: `before` is what the pod was before the change.
  struct Endpoint {
    bool ready = false, available = false;
    bool operator==(const Endpoint&) const = default;
  };
  Endpoint EndpointOf(int32_t p) const;
  void MoveEndpoint(int32_t p, Endpoint before);
  void Note(const char* kind, int32_t p, std::string message);
  void NoteNode(const char* kind, int32_t n, std::string message);
  // spot nodes
  void ScheduleReclaim(int32_t n);
  void ReclaimNode(int32_t n);
  void EvictPod(int32_t p, const std::string& why);
  void ReplaceNode(int32_t n);
  // pods that come and go (a ClusterOperator's doing)
  void AbortWork(int32_t p);
  void Terminate(int32_t p);
  void CreateReplacement(int32_t old);
  void SchedulePending();
  void StartOnNode(int32_t p);
  std::vector<std::string> ImagesOf(const Workload& w) const;
  void MarkImagesCached(int32_t p);
  // timeline
  TimelineStep& StepAt(WorkloadRun& w, SimTime t);
  void AccountAvailability(WorkloadRun& w);
  RunTimeline CollectTimeline();
  // requests
  void Arrive(int32_t w);
  void Enqueue(int32_t r);
  void TryStartService(int32_t p);
  void CompleteCard(int32_t c);
  void FinishJob(int32_t j);
  void Depart(int32_t r, bool success, int64_t ErrorCounts::*cause);
  void Account(int32_t r, bool success, int64_t ErrorCounts::*cause);
  void FreeJobRequests(int32_t j);
  void Timeout(int32_t r);
  int32_t Route(WorkloadRun& w);
  // sharing
  void Touch(int32_t p);
  void AdvanceCard(int32_t c);
  void AdvancePod(PodRun& pod);
  void Flush();
  void ScheduleCompletion(int32_t c);
  bool ChangeMemory(int32_t p, int64_t delta_mib, bool check);
  // pools
  int32_t NewRequest();
  void FreeRequest(int32_t r);
  int32_t NewJob();
  void FreeJob(int32_t j);
  void PopDeadJobs(PodRun& pod);
  // metrics
  void AccountInSystem(WorkloadRun& w);
  RunResult Collect();

  const Scenario& scenario_;
  RunOptions options_;
  uint64_t seed_;  // the replication's: the placement draws (01-Random) use it too
  SimTime now_ = 0;
  SimTime warmup_;
  SimTime end_;
  EventQueue queue_;
  Cluster cluster_;
  std::vector<CardRun> cards_;
  std::vector<PodRun> pods_;
  std::vector<NodeRun> nodes_;
  std::vector<WorkloadRun> workloads_;
  FragmentationResult fragmentation_;
  std::vector<Request> requests_;
  std::vector<int32_t> free_requests_;
  std::vector<Job> jobs_;
  std::vector<int32_t> free_jobs_;
  std::vector<int32_t> dirty_;
  std::vector<int32_t> done_jobs_;  // scratch for CompleteCard
  ClusterResult cluster_result_;
  uint64_t events_ = 0;
  uint64_t arrivals_ = 0;
  // The scheduler and its view of the cluster, kept for the whole run: pods are placed again
  // when a ClusterOperator deletes them (the Scheduler holds a reference to state_).
  ClusterState state_;
  SchedulerConfig config_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<int32_t> pending_;  // pods waiting for the scheduler, by id
  std::vector<uint64_t> wake_tokens_;
  std::vector<std::string> missing_images_;  // sorted
};

bool SharingNode(const NodePool& pool) {
  return pool.schedule != GpuSchedule::kDefault;
}

Simulator::Simulator(const Scenario& scenario, uint64_t seed, const RunOptions& options)
    : scenario_(scenario),
      options_(options),
      seed_(seed),
      warmup_(scenario.run.warmup),
      end_(options.duration > 0 ? options.duration : scenario.run.duration),
      cluster_(BuildCluster(scenario)),
      missing_images_(options.missing_images) {
  std::sort(missing_images_.begin(), missing_images_.end());
  cards_.resize(cluster_.cards.size());
  for (size_t c = 0; c < cards_.size(); ++c) {
    const Card& card = cluster_.cards[c];
    const NodePool& pool = scenario_.node_pools[cluster_.nodes[card.node].pool];
    CardRun& run = cards_[c];
    run.speed = card.gpu->speed;
    run.physical_mib = card.gpu->memory_mib;
    run.units = card.units;
    run.isolation = pool.isolation;
    run.params.max_inst = scenario.cluster.max_inst;
    run.params.switch_overhead = scenario.cluster.switch_overhead;
    // Where cGPU does not run (share nodes, cgpu.disable.isolation, whole-GPU nodes), the
    // driver's own time-slicing shares compute whatever the cluster POLICY (DESIGN.md §3.2).
    run.params.policy = pool.cgpu_active ? scenario.cluster.policy : SharingPolicy::kNative;
  }
  nodes_.resize(cluster_.nodes.size());
  for (size_t n = 0, ordinal = 0; n < nodes_.size(); ++n) {
    const int pool_index = cluster_.nodes[n].pool;
    ordinal = n > 0 && cluster_.nodes[n - 1].pool == pool_index ? ordinal + 1 : 0;
    const NodePool& pool = scenario_.node_pools[pool_index];
    if (!(pool.spot.per_node_hour > 0)) continue;
    NodeRun& node = nodes_[n];
    node.reclaim_mean_ns = 3600.0 * 1e9 / pool.spot.per_node_hour;
    node.replace_after = pool.spot.replace_after;
    // Named by pool and ordinal, not by the node's name: a variant with more nodes keeps the
    // reclaims of the nodes both have (common random numbers, DESIGN.md §3.1).
    node.reclaims = RandomStream(seed, "spot/" + pool.name + "/" + std::to_string(ordinal));
  }
  workloads_.reserve(scenario.workloads.size());
  for (const Workload& w : scenario.workloads) workloads_.emplace_back(w, seed);
}

// Every replica goes through the scheduler (sim/scheduler), in the order a scheduling queue
// would take them: higher priority first, then workload order and replica ordinal (creation).
void Simulator::PlacePods() {
  ClusterState& state = state_;
  for (size_t p = 0; p < scenario_.node_pools.size(); ++p)
    for (int i = 0; i < scenario_.node_pools[p].count; ++i)
      state.AddNode(NodeSpecForPool(scenario_, static_cast<int>(p), i));  // BuildCluster's order
  SchedulerConfig& config = config_;
  config.default_placement =
      ParseCardPolicy(scenario_.cluster.default_placement).value_or(CardPolicy::kBinpack);
  // FGD plans for the scenario's own pods, every replica (the same target the fragmentation
  // report measures against).
  config.target_workload =
      std::make_shared<const std::vector<fgd::TargetPod>>(TargetWorkload());
  config.seed = seed_;
  if (scenario_.cluster.policy == SharingPolicy::kFixedEqual) config.policy0_max_inst = scenario_.cluster.max_inst;
  scheduler_ = std::make_unique<Scheduler>(state, config);

  struct Pending {
    int32_t workload;
    int ordinal;
  };
  std::vector<Pending> order;
  for (int32_t w = 0; w < static_cast<int32_t>(workloads_.size()); ++w)
    for (int i = 0; i < workloads_[w].spec->replicas; ++i) order.push_back({w, i});
  std::stable_sort(order.begin(), order.end(), [this](const Pending& a, const Pending& b) {
    return workloads_[a.workload].spec->priority > workloads_[b.workload].spec->priority;
  });
  // Pods keep workload order in the results; the queue order only decides who binds first.
  std::vector<std::vector<int32_t>> pod_of(workloads_.size());
  for (int32_t w = 0; w < static_cast<int32_t>(workloads_.size()); ++w) {
    const Workload& spec = *workloads_[w].spec;
    for (int i = 0; i < spec.replicas; ++i) {
      const int32_t p = static_cast<int32_t>(pods_.size());
      pods_.emplace_back();
      PodRun& pod = pods_.back();
      pod.workload = w;
      pod.replica = i;
      pod.name = i < static_cast<int>(spec.pods.size()) ? spec.pods[i].name
                                                        : spec.name + "-" + std::to_string(i);
      if (i < static_cast<int>(spec.pods.size()) && !spec.pods[i].ready) {
        pod.start_unready = true;
        pod.ready_after = spec.pods[i].ready_after;
      }
      pod_of[w].push_back(p);
    }
  }
  // Pods that already run somewhere (an imported cluster's `pods`) stay there while it fits:
  // kubelet does not move running pods, so they are bound before the scheduler places anyone.
  std::vector<std::optional<Placement>> current(pods_.size());
  for (const Pending& next : order) {
    const Workload& spec = *workloads_[next.workload].spec;
    if (next.ordinal >= static_cast<int>(spec.pods.size())) continue;
    const int32_t p = pod_of[next.workload][next.ordinal];
    const PodSpec pod = PodSpecForWorkload(spec, next.ordinal);
    current[p] = CurrentPlacement(state, config, pod, spec.pods[next.ordinal]);
    if (current[p]) {
      pods_[p].state_pod = state.Bind(pod, *current[p]);
    } else {
      Note("Rescheduled", p,
           "its current place (node " + spec.pods[next.ordinal].node +
               ") no longer fits; the scheduler places it");
    }
  }
  for (const Pending& next : order) {
    const int32_t p = pod_of[next.workload][next.ordinal];
    const Workload& spec = *workloads_[next.workload].spec;
    ScheduleResult result;
    if (current[p]) {
      result.placement = *current[p];
    } else {
      const int index = static_cast<int>(state.pods().size());
      result = scheduler_->ScheduleAndBind(PodSpecForWorkload(spec, next.ordinal));
      if (result.placement.node >= 0) pods_[p].state_pod = index;
    }
    if (result.placement.node < 0) {
      pods_[p].message = result.message;
      Note("FailedScheduling", p, result.message);
      pending_.push_back(p);
      continue;
    }
    BindPod(p, result.placement);
    // The pods of the scenario run when the run starts: their images are on their nodes
    // already, and `image_pull` stands for the start-up the run replays.
    MarkImagesCached(p);
    pods_[p].phase = PodPhase::kPulling;
    queue_.Push(spec.image_pull, kContainerStart, static_cast<uint32_t>(p), pods_[p].generation);
  }
  std::sort(pending_.begin(), pending_.end());
  MeasureFragmentation(state);
}

// The run's side of a binding (the scheduler's state is bound already): node, cards, the
// memory and share parameters of the pod on them.
void Simulator::BindPod(int32_t p, const Placement& placement) {
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  pod.node = placement.node;
  nodes_[pod.node].pods.push_back(p);
  const knobsim::Node& node = cluster_.nodes[pod.node];
  pod.cards.clear();
  for (int c : placement.cards) pod.cards.push_back(node.first_card + c);
  if (pod.cards.size() > 1 && placement.bottleneck_gbps > 0) {
    // A multi-card pod's work waits on its slowest link (models/gpu_topology.h); an unknown
    // topology (bandwidth 0) leaves it at full speed.
    pod.bottleneck_gbps = placement.bottleneck_gbps;
    pod.throughput_factor = MultiCardThroughputFactor(pod.bottleneck_gbps, true);
  }
  pod.share_on.assign(pod.cards.size(), 0.0);
  const int m = std::max<int>(1, static_cast<int>(pod.cards.size()));
  if (!pod.cards.empty()) {
    const CardRun& card = cards_[pod.cards[0]];
    const GpuType& gpu = *cluster_.cards[pod.cards[0]].gpu;
    if (spec.whole_gpus > 0) {
      pod.quota_mib = card.physical_mib;
    } else {
      pod.quota_mib = VisibleQuotaMib(card.physical_mib, spec.gpu_mem / m, card.units);
    }
    pod.context_mib = spec.memory.context_mib.value_or(gpu.context_mib);
    // A multi-card pod spreads its weights and activations evenly over its cards (assumption,
    // models/README.md); its CUDA context exists once per card.
    pod.weights_mib = (spec.memory.weights_mib + m - 1) / m;
    pod.activation_mib = (spec.memory.activation_mib + m - 1) / m;
    const int units = spec.whole_gpus > 0 ? card.units : spec.gpu_mem / m;
    pod.percent = spec.whole_gpus > 0 ? 100.0 : EffectivePercent(spec.gpu_core, units, card.units);
    pod.weight = EffectiveWeight(spec.schd_weight, spec.gpu_core);
  }
}

// Where a running pod is now, if it still fits there: the node exists and its listed cards (or,
// without a list, ACK's card choice on that node) can take the pod as the cluster stands.
// Node cpu and memory are not checked: a pod that runs is not evicted for them.
std::optional<Placement> Simulator::CurrentPlacement(const ClusterState& state,
                                                     const SchedulerConfig& config,
                                                     const PodSpec& pod, const CurrentPod& at) {
  const int node = state.FindNode(at.node);
  if (node < 0) return std::nullopt;
  const NodeState& n = state.node(node);
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
  placement.bottleneck_gbps = CardSetBandwidthOf(n, choice->cards);
  return placement;
}

// FGD fragmentation of the placement (sim/scheduler/fgd/fragmentation_report.h): the scenario's
// pods, every replica, are the target workload.
void Simulator::MeasureFragmentation(const ClusterState& state) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  std::vector<FragNodeInput> nodes;
  nodes.reserve(state.nodes().size());
  for (const NodeState& n : state.nodes()) {
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
    for (const CardState& c : n.cards) in.cards.push_back({c.used_mem, c.whole});
    nodes.push_back(std::move(in));
  }
  fragmentation_ = knobsim::MeasureFragmentation(nodes, TargetWorkload());
}

std::vector<fgd::TargetPod> Simulator::TargetWorkload() const {
  std::vector<fgd::TargetPod> pods;
  for (const Workload& w : scenario_.workloads)
    for (int i = 0; i < w.replicas; ++i)
      pods.push_back({w.cpu_milli, w.memory_mib, w.gpu_mem, w.gpu_count, w.whole_gpus});
  return pods;
}

// ---------------------------------------------------------------------------------------------
// Pod lifecycle

void Simulator::Note(const char* kind, int32_t p, std::string message) {
  if (cluster_result_.events.size() >= kMaxEvents) return;
  const PodRun& pod = pods_[p];
  cluster_result_.events.push_back(
      {now_, kind, workloads_[pod.workload].spec->namespace_ + "/" + pod.name, std::move(message)});
}

void Simulator::NoteNode(const char* kind, int32_t n, std::string message) {
  if (cluster_result_.events.size() >= kMaxEvents) return;
  // Node events name no pod; the message starts with the node.
  cluster_result_.events.push_back({now_, kind, "", "node " + cluster_.nodes[n].name + " " + message});
}

void Simulator::SetPhase(int32_t p, PodPhase phase) {
  const Endpoint before = EndpointOf(p);
  pods_[p].phase = phase;
  MoveEndpoint(p, before);
}

// A pod is an endpoint while Ready and not terminating; available while it also has its model
// (a fake-Ready pod is an endpoint, never available).
Simulator::Endpoint Simulator::EndpointOf(int32_t p) const {
  const PodRun& pod = pods_[p];
  const bool live = !pod.terminating && !pod.gone;
  return {live && (pod.phase == PodPhase::kServing || pod.phase == PodPhase::kFakeReady),
          live && pod.phase == PodPhase::kServing};
}

// The endpoints stay sorted by pod id (creation order), the order routing draws from; a
// change costs a binary search, not a pass over the workload's pods.
void Simulator::MoveEndpoint(int32_t p, Endpoint before) {
  const Endpoint after = EndpointOf(p);
  if (after == before) return;
  WorkloadRun& run = workloads_[pods_[p].workload];
  AccountAvailability(run);
  if (after.ready != before.ready) {
    const auto at = std::lower_bound(run.ready.begin(), run.ready.end(), p);
    if (after.ready) {
      run.ready.insert(at, p);
    } else {
      run.ready.erase(at);
    }
  }
  run.available += static_cast<int>(after.available) - static_cast<int>(before.available);
}

void Simulator::StartContainer(int32_t p) {
  MarkImagesCached(p);
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  pod.phase = PodPhase::kLoading;
  if (!pod.cards.empty()) {
    Touch(p);
    pod.in_p = true;
    for (int32_t c : pod.cards) {
      cards_[c].running.push_back(p);
      cards_[c].membership_changed = true;
    }
    pod.context_ok = ChangeMemory(p, pod.context_mib, true);
  }
  queue_.Push(now_ + spec.model_load, kLoadDone, static_cast<uint32_t>(p), pod.generation);
}

void Simulator::FinishLoad(int32_t p) {
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  bool loaded = true;
  if (!pod.cards.empty()) {
    Touch(p);
    loaded = pod.context_ok && ChangeMemory(p, pod.weights_mib, true);
  }
  if (loaded) {
    pod.model_loaded = true;
    pod.message.clear();
    if (pod.start_unready) {
      // Unready when the run starts (scenario `ready: false`): up, but not serving.
      pod.message = "not Ready when the run starts (scenario: ready: false)";
      SetPhase(p, PodPhase::kUnready);
      if (pod.ready_after >= 0)
        queue_.Push(std::max(now_, pod.ready_after), kPodReady, static_cast<uint32_t>(p),
                    pod.generation);
      return;
    }
    SetPhase(p, PodPhase::kServing);
    return;
  }
  // CUDA OOM at load: cudaMalloc fails, it is not a container OOM kill (DESIGN.md §3.3).
  const std::string why = "CUDA out of memory loading the model: needs " +
                          std::to_string(pod.context_mib + pod.weights_mib) + " MiB per card, quota " +
                          std::to_string(pod.quota_mib) + " MiB";
  if (spec.on_load_oom == LoadOomReaction::kExit) {
    pod.restarts += 1;
    if (pod.phase != PodPhase::kCrashLoop) Note("CrashLoopBackOff", p, why);
    pod.message = why;
    StopContainer(p);
    SetPhase(p, PodPhase::kCrashLoop);
    // kubelet's restart back-off: 10 s doubling to a 5 min cap.
    const int doublings = std::min(pod.restarts - 1, 5);
    const SimTime backoff = std::min<SimTime>(10 * kNanosPerSecond << doublings, 300 * kNanosPerSecond);
    queue_.Push(now_ + backoff, kContainerStart, static_cast<uint32_t>(p), pod.generation);
    return;
  }
  pod.message = why;
  if (spec.probe == ReadinessKind::kTcp) {
    Note("FakeReady", p, why + "; the port-only readiness probe passes, every request fails");
    SetPhase(p, PodPhase::kFakeReady);
  } else {
    Note("LoadOOM", p, why + "; the model-aware readiness probe keeps the pod unready");
    SetPhase(p, PodPhase::kUnready);
  }
}

void Simulator::StopContainer(int32_t p) {
  PodRun& pod = pods_[p];
  if (!pod.in_p) return;
  Touch(p);
  ChangeMemory(p, -pod.used_mib, false);
  for (int32_t c : pod.cards) {
    auto& running = cards_[c].running;
    running.erase(std::find(running.begin(), running.end(), p));
    cards_[c].membership_changed = true;
  }
  pod.in_p = false;
  pod.context_ok = false;
}

// ---------------------------------------------------------------------------------------------
// Spot nodes

// The next reclaim is drawn whatever the node's state, one draw per reclaim, so the reclaim times
// depend only on the seed, the node and the rate (a reclaim of a node that is down is skipped).
void Simulator::ScheduleReclaim(int32_t n) {
  NodeRun& node = nodes_[n];
  const double gap = node.reclaims.Exponential(node.reclaim_mean_ns);
  // Compared as doubles first: a tiny rate gives gaps beyond SimTime's range.
  if (gap >= static_cast<double>(end_ - now_)) return;
  queue_.Push(now_ + static_cast<SimTime>(gap), kSpotReclaim, static_cast<uint32_t>(n));
}

void Simulator::ReclaimNode(int32_t n) {
  ScheduleReclaim(n);
  NodeRun& node = nodes_[n];
  if (node.down()) return;
  node.reclaimed = true;
  node.images.clear();
  state_.SetUnschedulable(n, true);
  const std::string& name = cluster_.nodes[n].name;
  const SimTime back = now_ + node.replace_after;
  const std::string why = "node " + name + " was reclaimed (spot); its replacement joins at t = " +
                          std::to_string(back / kNanosPerSecond) + " s";
  for (int32_t p : node.pods) EvictPod(p, why);
  queue_.Push(back, kNodeReplaced, static_cast<uint32_t>(n));
  NoteNode("SpotReclaim", n,
           node.pods.empty() ? std::string("reclaimed by the provider; it held no pods")
                             : "reclaimed by the provider: " + std::to_string(node.pods.size()) +
                                   " pod(s) stopped, their requests failed as interrupted");
}

// The node is gone: its pod stops whatever it was doing, and every request routed to it fails.
// The ReplicaSet's replacement pod waits, Pending, for the replacement node (assumption: nothing
// else takes that capacity meanwhile, so it lands there again).
void Simulator::EvictPod(int32_t p, const std::string& why) {
  AbortWork(p);
  StopContainer(p);  // frees its memory, activations included; its cards go idle
  PodRun& pod = pods_[p];
  pod.model_loaded = false;
  pod.restarts = 0;  // the replacement is a new pod
  pod.message = why;
  SetPhase(p, PodPhase::kPending);
}

// The pod stops whatever it was doing: pending lifecycle events are cancelled and every
// request routed to it fails as `interrupted`. Its container is still in P (StopContainer).
void Simulator::AbortWork(int32_t p) {
  PodRun& pod = pods_[p];
  ++pod.generation;        // cancels a pending pull, load or restart
  ++pod.batch_generation;  // and a batch wait
  if (!pod.cards.empty()) Touch(p);
  for (int32_t j : pod.service) {
    if (jobs_[j].in_service) {
      for (int32_t r = jobs_[j].first; r != kNone; r = requests_[r].next)
        if (requests_[r].stage != RequestStage::kGone) Account(r, false, &ErrorCounts::interrupted);
      FreeJobRequests(j);
    }
    FreeJob(j);
  }
  pod.service.clear();
  pod.jobs = 0;
  pod.attained = 0;
  pod.rate = 0;
  pod.last_update = now_;
  for (int32_t r = pod.queue_head; r != kNone;) {
    const int32_t next = requests_[r].next;
    Depart(r, false, &ErrorCounts::interrupted);
    r = next;
  }
  pod.queue_head = pod.queue_tail = kNone;
  pod.queue_len = 0;
  // Requests in their CPU stages before or after the GPU are in no list of the pod: find them.
  for (size_t r = 0; pod.outstanding > 0 && r < requests_.size(); ++r) {
    const Request& req = requests_[r];
    if (req.pod == p && (req.stage == RequestStage::kCpuBefore || req.stage == RequestStage::kCpuAfter))
      Depart(static_cast<int32_t>(r), false, &ErrorCounts::interrupted);
  }
}

// An identical, empty node joins; the pods it held start on it from scratch (its image cache is
// empty too: they pull again).
void Simulator::ReplaceNode(int32_t n) {
  NodeRun& node = nodes_[n];
  node.reclaimed = false;
  state_.SetUnschedulable(n, node.cordoned || node.resetting);
  if (node.resetting) return;  // its pods start when the operator brings it back
  for (int32_t p : node.pods) {
    PodRun& pod = pods_[p];
    if (pod.terminating) continue;
    pod.message.clear();
    SetPhase(p, PodPhase::kPulling);
    queue_.Push(now_ + workloads_[pod.workload].spec->image_pull, kContainerStart,
                static_cast<uint32_t>(p), pod.generation);
  }
  NoteNode("NodeReplaced", n,
           "replaced: an empty node of the same pool joined; " + std::to_string(node.pods.size()) +
               " pod(s) start on it again");
}

// ---------------------------------------------------------------------------------------------
// Pods that come and go: a ClusterOperator deletes them, Kubernetes' controllers replace them.

std::vector<std::string> Simulator::ImagesOf(const Workload& w) const {
  // A workload without `images` still has one: named after it, so the cache still tells
  // whether a node ran it.
  if (!w.images.empty()) return w.images;
  return {"(image of " + w.namespace_ + "/" + w.name + ")"};
}

void Simulator::MarkImagesCached(int32_t p) {
  const PodRun& pod = pods_[p];
  if (pod.node < 0) return;
  std::vector<std::string>& cache = nodes_[pod.node].images;
  for (std::string& image : ImagesOf(*workloads_[pod.workload].spec))
    if (std::find(cache.begin(), cache.end(), image) == cache.end())
      cache.push_back(std::move(image));
}

// kubelet on the pod's node: pull what the node does not hold (imagePullPolicy IfNotPresent),
// then start the container. An image the registry no longer has backs off for good.
void Simulator::StartOnNode(int32_t p) {
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  const std::vector<std::string>& cache = nodes_[pod.node].images;
  bool cached = true;
  for (const std::string& image : ImagesOf(spec)) {
    if (std::find(cache.begin(), cache.end(), image) != cache.end()) continue;
    cached = false;
    if (std::binary_search(missing_images_.begin(), missing_images_.end(), image)) {
      pod.message = "Back-off pulling image \"" + image +
                    "\": manifest unknown (the registry no longer has this tag)";
      Note("ImagePullBackOff", p, pod.message + "; node " + cluster_.nodes[pod.node].name);
      SetPhase(p, PodPhase::kImagePullBackOff);
      return;
    }
  }
  SimTime pull = 0;
  if (!cached) {
    pull = spec.image_size_mib > 0 && options_.pull_mib_per_s > 0
               ? static_cast<SimTime>(static_cast<double>(spec.image_size_mib) /
                                      options_.pull_mib_per_s * 1e9)
               : spec.image_pull;
  }
  SetPhase(p, PodPhase::kPulling);
  queue_.Push(now_ + pull, kContainerStart, static_cast<uint32_t>(p), pod.generation);
}

// A deleted pod leaves the endpoints now and terminates when its last request has left or its
// grace period is over. Its controller replaces it: a ReplicaSet at once, a StatefulSet when
// the old pod is gone (Terminate); a bare Pod, a Job's or a DaemonSet's pod is not replaced.
void Simulator::DeletePod(int pod_id, const std::string& why) {
  if (pod_id < 0 || pod_id >= static_cast<int>(pods_.size())) return;
  const int32_t p = pod_id;
  if (pods_[p].gone || pods_[p].terminating) return;
  const Endpoint before = EndpointOf(p);
  pods_[p].terminating = true;
  ++pods_[p].generation;  // no pull, load or restart any more
  pods_[p].message = why;
  Note("Killing", p, "Stopping container: " + why);
  MoveEndpoint(p, before);
  const bool idle = pods_[p].outstanding == 0 || pods_[p].node < 0;
  queue_.Push(idle ? now_ : now_ + options_.termination_grace, kTerminated,
              static_cast<uint32_t>(p));
  const std::string& kind = workloads_[pods_[p].workload].spec->kind;
  if (kind == "Deployment" || kind == "ReplicaSet") {
    CreateReplacement(p);
    SchedulePending();
  }
}

void Simulator::Terminate(int32_t p) {
  if (pods_[p].gone || !pods_[p].terminating) return;
  AbortWork(p);  // what is still in flight when the grace period ends fails as interrupted
  StopContainer(p);
  PodRun& pod = pods_[p];
  pod.gone = true;
  pod.model_loaded = false;
  if (pod.state_pod >= 0) state_.Unbind(pod.state_pod);
  pod.state_pod = -1;
  if (pod.node >= 0) {
    auto& on = nodes_[pod.node].pods;
    on.erase(std::find(on.begin(), on.end(), p));
  }
  pending_.erase(std::remove(pending_.begin(), pending_.end(), p), pending_.end());
  if (workloads_[pod.workload].spec->kind == "StatefulSet") CreateReplacement(p);
  if (options_.cluster_operator != nullptr) options_.cluster_operator->PodGone(*this, p);
  SchedulePending();
}

// A Deployment's replacement is a new pod, named <workload>-r<N> here (N counts the
// workload's replacements in the run); a StatefulSet's keeps the old pod's name.
void Simulator::CreateReplacement(int32_t old) {
  const int32_t w = pods_[old].workload;
  const Workload& spec = *workloads_[w].spec;
  PodRun fresh;
  fresh.workload = w;
  fresh.replica = pods_[old].replica;
  fresh.name = spec.kind == "StatefulSet"
                   ? pods_[old].name
                   : spec.name + "-r" + std::to_string(++workloads_[w].replacements);
  const std::string replaced = pods_[old].name;
  const int32_t p = static_cast<int32_t>(pods_.size());
  pods_.push_back(std::move(fresh));  // invalidates references into pods_
  pending_.push_back(p);
  Note("SuccessfulCreate", p, "created by its " + spec.kind + " to replace " + replaced);
}

// Every Pending pod goes through the scheduler again, higher priority first, then oldest first.
void Simulator::SchedulePending() {
  if (pending_.empty()) return;
  std::vector<int32_t> order;
  order.swap(pending_);
  std::stable_sort(order.begin(), order.end(), [this](int32_t a, int32_t b) {
    const int pa = workloads_[pods_[a].workload].spec->priority;
    const int pb = workloads_[pods_[b].workload].spec->priority;
    return pa != pb ? pa > pb : a < b;
  });
  for (int32_t p : order) {
    const Workload& spec = *workloads_[pods_[p].workload].spec;
    const int index = static_cast<int>(state_.pods().size());
    const ScheduleResult result =
        scheduler_->ScheduleAndBind(PodSpecForWorkload(spec, pods_[p].replica));
    if (result.placement.node < 0) {
      if (result.message != pods_[p].message) {
        pods_[p].message = result.message;
        Note("FailedScheduling", p, result.message);
      }
      pending_.push_back(p);
      continue;
    }
    pods_[p].state_pod = index;
    pods_[p].message.clear();
    BindPod(p, result.placement);
    Note("Scheduled", p, "assigned to node " + cluster_.nodes[result.placement.node].name);
    if (!nodes_[pods_[p].node].down()) StartOnNode(p);
  }
}

NodeView Simulator::Node(int n) const {
  NodeView view;
  const knobsim::Node& node = cluster_.nodes[n];
  view.name = node.name;
  view.pool = node.pool;
  view.zone = node.zone;
  view.cordoned = nodes_[n].cordoned;
  view.down = nodes_[n].down();
  return view;
}

std::vector<PodView> Simulator::Pods() const {
  std::vector<PodView> pods;
  for (size_t i = 0; i < pods_.size(); ++i) {
    const PodRun& pod = pods_[i];
    if (pod.gone) continue;
    const Workload& spec = *workloads_[pod.workload].spec;
    PodView v;
    v.id = static_cast<int>(i);
    v.workload = pod.workload;
    v.replica = pod.replica;
    v.namespace_ = spec.namespace_;
    v.name = pod.name;
    v.node = pod.node;
    const bool bound = pod.node >= 0;
    v.ready = pod.phase == PodPhase::kServing || pod.phase == PodPhase::kFakeReady;
    v.available = pod.phase == PodPhase::kServing && !pod.terminating;
    v.terminating = pod.terminating;
    const bool waiting = !bound || pod.phase == PodPhase::kPending ||
                         pod.phase == PodPhase::kPulling ||
                         pod.phase == PodPhase::kImagePullBackOff;
    v.phase = waiting ? "Pending" : "Running";
    if (pod.terminating) {
      v.status = "Terminating";
    } else if (!bound) {
      v.status = "Pending";
    } else if (nodes_[pod.node].down()) {
      v.status = "NodeLost";
    } else if (pod.phase == PodPhase::kPulling || pod.phase == PodPhase::kPending) {
      v.status = "ContainerCreating";
    } else if (pod.phase == PodPhase::kImagePullBackOff) {
      v.status = "ImagePullBackOff";
    } else if (pod.phase == PodPhase::kCrashLoop ||
               (pod.restarts > 0 && pod.phase == PodPhase::kLoading)) {
      v.status = "CrashLoopBackOff";
    } else {
      v.status = "Running";
    }
    pods.push_back(std::move(v));
  }
  return pods;
}

void Simulator::SetCordoned(int n, bool cordoned) {
  nodes_[n].cordoned = cordoned;
  state_.SetUnschedulable(n, cordoned || nodes_[n].down());
  if (!cordoned) SchedulePending();
}

// The node leaves (drained, one hopes): what still runs there stops at once. DaemonSet pods
// stay bound and start again when it is back; any other pod is deleted, and replaced.
void Simulator::TakeNodeDown(int n, const std::string& why) {
  if (nodes_[n].resetting) return;
  nodes_[n].resetting = true;
  nodes_[n].images.clear();
  state_.SetUnschedulable(n, true);
  const std::vector<int32_t> held = nodes_[n].pods;  // Terminate edits the node's list
  for (int32_t p : held) {
    if (pods_[p].gone) continue;
    if (workloads_[pods_[p].workload].spec->kind == "DaemonSet") {
      EvictPod(p, why);
      continue;
    }
    AbortWork(p);
    StopContainer(p);
    DeletePod(p, why);  // nothing in flight: it is gone at this instant
  }
  NoteNode("NodeDown", n, why);
}

void Simulator::BringNodeUp(int n, const NodeSettings& settings) {
  if (!nodes_[n].resetting) return;
  nodes_[n].resetting = false;
  const knobsim::Node& node = cluster_.nodes[n];
  const NodePool& pool = scenario_.node_pools[node.pool];
  for (int c = node.first_card; c < node.first_card + node.num_cards; ++c) {
    if (settings.isolation) cards_[c].isolation = *settings.isolation;
    // Where cGPU does not run, the driver's own time-slicing stays (DESIGN.md §3.2).
    if (settings.policy && pool.cgpu_active) cards_[c].params.policy = *settings.policy;
    cards_[c].membership_changed = true;
  }
  state_.SetUnschedulable(n, nodes_[n].cordoned || nodes_[n].reclaimed);
  if (!nodes_[n].reclaimed) {
    for (int32_t p : nodes_[n].pods)
      if (!pods_[p].gone && pods_[p].phase == PodPhase::kPending) StartOnNode(p);
  }
  std::string how = "is back";
  if (settings.isolation)
    how += *settings.isolation == MemoryIsolation::kHard ? " with memory isolation hard"
                                                         : " with memory isolation soft";
  NoteNode("NodeUp", n, how);
  SchedulePending();
}

void Simulator::WakeAt(SimTime at, uint64_t token) {
  wake_tokens_.push_back(token);
  queue_.Push(std::max(at, now_), kOperatorWake, static_cast<uint32_t>(wake_tokens_.size() - 1));
}

void Simulator::EndRunAt(SimTime at) {
  end_ = std::min(end_, std::max(at, now_));
}

void Simulator::Record(const std::string& kind, const std::string& pod,
                       const std::string& message) {
  if (cluster_result_.events.size() >= kMaxEvents) return;
  cluster_result_.events.push_back({now_, kind, pod, message});
}

// ---------------------------------------------------------------------------------------------
// Timeline

TimelineStep& Simulator::StepAt(WorkloadRun& w, SimTime t) {
  const size_t k = static_cast<size_t>(t / options_.timeline_step);
  if (w.timeline.size() <= k) w.timeline.resize(k + 1);
  return w.timeline[k];
}

// Integrates the workload's available and Ready pods up to now, with the counts they had since
// the last change.
void Simulator::AccountAvailability(WorkloadRun& w) {
  if (now_ <= w.available_last) return;
  const int desired = w.spec->replicas;
  const SimTime from = std::max(w.available_last, warmup_);
  if (now_ > from && desired > 0) {
    const double dt = static_cast<double>(now_ - from);
    w.available_fraction_ns += dt * std::min(w.available, desired) / desired;
    if (w.available < desired) w.below_desired_ns += dt;
    if (w.available == 0) w.unavailable_ns += dt;
  }
  const SimTime step = options_.timeline_step;
  if (step > 0) {
    const int ready = static_cast<int>(w.ready.size());
    for (SimTime t = w.available_last; t < now_;) {
      const SimTime until = std::min((t / step + 1) * step, now_);
      TimelineStep& at = StepAt(w, t);
      at.available_ns += static_cast<double>(until - t) * w.available;
      at.ready_ns += static_cast<double>(until - t) * ready;
      at.available_min = std::min(at.available_min, w.available);
      t = until;
    }
  }
  w.available_last = now_;
}

RunTimeline Simulator::CollectTimeline() {
  RunTimeline timeline;
  const SimTime step = options_.timeline_step;
  timeline.step = step;
  timeline.end = end_;
  const size_t steps = static_cast<size_t>(std::max<SimTime>(1, (end_ + step - 1) / step));
  for (WorkloadRun& w : workloads_) {
    // Departures at the very end of the last step belong to it.
    while (w.timeline.size() > steps) {
      TimelineStep extra = std::move(w.timeline.back());
      w.timeline.pop_back();
      TimelineStep& last = w.timeline.back();
      last.arrivals += extra.arrivals;
      last.completed += extra.completed;
      last.errors.oom += extra.errors.oom;
      last.errors.fake_ready += extra.errors.fake_ready;
      last.errors.timeout += extra.errors.timeout;
      last.errors.no_replica += extra.errors.no_replica;
      last.errors.interrupted += extra.errors.interrupted;
      last.latency_sum_ms += extra.latency_sum_ms;
      last.histogram.Merge(extra.histogram);
    }
    w.timeline.resize(steps);
    WorkloadTimeline out;
    out.name = w.spec->name;
    out.namespace_ = w.spec->namespace_;
    out.desired = w.spec->replicas;
    for (size_t k = 0; k < steps; ++k) {
      const TimelineStep& in = w.timeline[k];
      TimelinePoint point;
      point.start = static_cast<SimTime>(k) * step;
      const double length = static_cast<double>(std::min(step, end_ - point.start));
      point.arrivals = in.arrivals;
      point.completed = in.completed;
      point.errors = in.errors;
      if (in.completed > 0) {
        point.latency_mean_ms = in.latency_sum_ms / static_cast<double>(in.completed);
        point.latency_p50_ms = in.histogram.Quantile(0.50);
        point.latency_p99_ms = in.histogram.Quantile(0.99);
      }
      if (length > 0) {
        point.available_mean = in.available_ns / length;
        point.ready_mean = in.ready_ns / length;
      }
      point.available_min =
          in.available_min == std::numeric_limits<int>::max() ? w.available : in.available_min;
      out.points.push_back(std::move(point));
    }
    const double measured = static_cast<double>(end_ - warmup_);
    out.available_fraction = measured > 0 ? w.available_fraction_ns / measured : 0;
    out.below_desired_ns = static_cast<SimTime>(w.below_desired_ns);
    out.unavailable_ns = static_cast<SimTime>(w.unavailable_ns);
    timeline.workloads.push_back(std::move(out));
  }
  return timeline;
}

// ---------------------------------------------------------------------------------------------
// Memory

// Changes the pod's memory on each of its cards by delta_mib. With `check`, an increase happens
// only if it fits on every card under the card's isolation mode; returns whether it happened.
bool Simulator::ChangeMemory(int32_t p, int64_t delta_mib, bool check) {
  PodRun& pod = pods_[p];
  if (check && delta_mib > 0) {
    for (int32_t c : pod.cards) {
      const CardRun& card = cards_[c];
      AllocationCheck ac{card.isolation, pod.used_mib, pod.quota_mib, card.memory_used_mib,
                         card.physical_mib};
      if (!AllocationFits(ac, delta_mib)) return false;
    }
  }
  pod.used_mib += delta_mib;
  for (int32_t c : pod.cards) {
    CardRun& card = cards_[c];
    card.memory_used_mib += delta_mib;
    if (now_ >= warmup_) card.memory_peak_mib = std::max(card.memory_peak_mib, card.memory_used_mib);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Card sharing

void Simulator::AdvancePod(PodRun& pod) {
  if (pod.jobs > 0) pod.attained += pod.rate * static_cast<double>(now_ - pod.last_update);
  pod.last_update = now_;
}

// Integrates the card's metrics up to now and advances its active pods at their current rates.
void Simulator::AdvanceCard(int32_t c) {
  CardRun& card = cards_[c];
  // Already advanced at this instant: its pods too (advancing is idempotent within an instant).
  if (card.last == now_ && now_ > 0) return;
  if (card.last < now_) {
    const SimTime from = std::max(card.last, warmup_);
    if (now_ > from) {
      const double dt = static_cast<double>(now_ - from);
      if (card.active > 0) card.busy_ns += dt;
      card.effective_ns += card.sum_share * dt;
      if (card.active >= 2) card.switch_ns += (1 - card.eta) * dt;
      card.memory_integral += static_cast<double>(card.memory_used_mib) * dt;
    }
    card.last = now_;
  }
  for (int32_t p : card.running) AdvancePod(pods_[p]);
}

// Call before changing anything that a pod's cards depend on (its jobs, P, memory).
void Simulator::Touch(int32_t p) {
  for (int32_t c : pods_[p].cards) {
    AdvanceCard(c);
    if (!cards_[c].dirty) {
      cards_[c].dirty = true;
      dirty_.push_back(c);
    }
  }
  AdvancePod(pods_[p]);
}

// Re-shares every card touched by the event just handled, updates the rates of their pods and
// reschedules the completions that moved. Multi-card pods take the minimum of their shares.
void Simulator::Flush() {
  if (dirty_.empty()) return;
  for (int32_t c : dirty_) {
    CardRun& card = cards_[c];
    const size_t n = card.running.size();
    // Shares depend only on P and on which pods are active: when neither changed (a pod went
    // from one job to the next), the last shares still hold and only rates move.
    bool same = !card.membership_changed;
    for (size_t i = 0; same && i < n; ++i) same = card.view[i].active == (pods_[card.running[i]].jobs > 0);
    if (same) continue;
    card.membership_changed = false;
    card.view.resize(n);
    card.shares.resize(n);
    card.active = 0;
    for (size_t i = 0; i < n; ++i) {
      const PodRun& pod = pods_[card.running[i]];
      card.view[i] = PodOnCard{pod.jobs > 0, pod.weight, pod.percent};
      card.active += pod.jobs > 0;
    }
    card.eta = ComputeShares(card.params, card.view, card.shares);
    card.sum_share = 0;
    for (size_t i = 0; i < n; ++i) {
      PodRun& pod = pods_[card.running[i]];
      card.sum_share += card.shares[i];
      for (size_t k = 0; k < pod.cards.size(); ++k)
        if (pod.cards[k] == c) pod.share_on[k] = card.shares[i];
    }
  }
  const size_t touched = dirty_.size();
  for (size_t d = 0; d < touched; ++d) {
    CardRun& card = cards_[dirty_[d]];
    for (int32_t p : card.running) {
      PodRun& pod = pods_[p];
      if (pod.jobs == 0) {
        pod.rate = 0;
        continue;
      }
      const double share = *std::min_element(pod.share_on.begin(), pod.share_on.end());
      pod.rate = card.speed * share * pod.throughput_factor / pod.jobs;
      // A multi-card pod's new rate moves the completions of its other cards too.
      for (int32_t other : pod.cards) {
        if (!cards_[other].dirty) {
          cards_[other].dirty = true;
          dirty_.push_back(other);
        }
      }
    }
  }
  for (int32_t c : dirty_) {
    ScheduleCompletion(c);
    cards_[c].dirty = false;
  }
  dirty_.clear();
}

void Simulator::PopDeadJobs(PodRun& pod) {
  auto later = [this](int32_t a, int32_t b) { return jobs_[a].finish > jobs_[b].finish; };
  while (!pod.service.empty() && !jobs_[pod.service.front()].in_service) {
    std::pop_heap(pod.service.begin(), pod.service.end(), later);
    FreeJob(pod.service.back());
    pod.service.pop_back();
  }
}

void Simulator::ScheduleCompletion(int32_t c) {
  CardRun& card = cards_[c];
  double best = std::numeric_limits<double>::infinity();
  for (int32_t p : card.running) {
    PodRun& pod = pods_[p];
    if (pod.jobs == 0 || pod.rate <= 0) continue;
    if (!jobs_[pod.service.front()].in_service) PopDeadJobs(pod);
    const double attained =
        pod.attained + pod.rate * static_cast<double>(now_ - pod.last_update);
    const double remaining = jobs_[pod.service.front()].finish - attained;
    best = std::min(best, remaining / pod.rate);
  }
  if (!std::isfinite(best)) {
    if (card.scheduled >= 0) {
      ++card.generation;
      card.scheduled = -1;
    }
    return;
  }
  const SimTime at = now_ + std::max<SimTime>(0, static_cast<SimTime>(std::ceil(best)));
  if (at == card.scheduled) return;
  ++card.generation;
  card.scheduled = at;
  queue_.Push(at, kCardCompletion, static_cast<uint32_t>(c), card.generation);
}

// ---------------------------------------------------------------------------------------------
// Requests

int32_t Simulator::NewRequest() {
  if (!free_requests_.empty()) {
    const int32_t r = free_requests_.back();
    free_requests_.pop_back();
    return r;
  }
  requests_.emplace_back();
  return static_cast<int32_t>(requests_.size() - 1);
}

void Simulator::FreeRequest(int32_t r) {
  Request& req = requests_[r];
  req.stage = RequestStage::kGone;
  ++req.generation;
  free_requests_.push_back(r);
}

int32_t Simulator::NewJob() {
  if (!free_jobs_.empty()) {
    const int32_t j = free_jobs_.back();
    free_jobs_.pop_back();
    return j;
  }
  jobs_.emplace_back();
  return static_cast<int32_t>(jobs_.size() - 1);
}

void Simulator::FreeJob(int32_t j) {
  jobs_[j] = Job{};
  free_jobs_.push_back(j);
}

void Simulator::AccountInSystem(WorkloadRun& w) {
  if (now_ > w.in_system_last) {
    w.in_system_integral += static_cast<double>(w.in_system) * static_cast<double>(now_ - w.in_system_last);
    w.in_system_last = now_;
  }
}

int32_t Simulator::Route(WorkloadRun& w) {
  const auto& ready = w.ready;
  if (ready.empty()) return kNone;
  switch (w.spec->routing) {
    case Routing::kRandom:
      return ready[w.route_stream.Below(ready.size())];
    case Routing::kRoundRobin:
      return ready[w.round_robin++ % ready.size()];
    case Routing::kLeastOutstanding: {
      // Ties go to a uniformly random replica (reservoir sampling over the tied ones): always
      // taking the first would pile an idle service's requests onto one pod.
      int32_t best = ready[0];
      uint64_t tied = 1;
      for (size_t i = 1; i < ready.size(); ++i) {
        const int32_t p = ready[i];
        if (pods_[p].outstanding < pods_[best].outstanding) {
          best = p;
          tied = 1;
        } else if (pods_[p].outstanding == pods_[best].outstanding && w.route_stream.Below(++tied) == 0) {
          best = p;
        }
      }
      return best;
    }
  }
  return kNone;
}

void Simulator::Arrive(int32_t w_index) {
  WorkloadRun& w = workloads_[w_index];
  const Workload& spec = *w.spec;
  // Draw the work first, whatever happens to the request, so that variants stay in step.
  const double work_s = DrawWorkSeconds(spec.work, w.work_stream);
  const SimTime next = w.arrivals.Next(now_);
  if (next < end_) queue_.Push(next, kArrival, static_cast<uint32_t>(w_index));
  ++arrivals_;

  const int32_t r = NewRequest();
  Request& req = requests_[r];
  req.arrival = now_;
  req.work_s = work_s;
  req.workload = w_index;
  req.pod = kNone;
  req.next = kNone;
  req.job = kNone;
  req.counted = now_ >= warmup_;
  if (options_.timeline_step > 0) ++StepAt(w, now_).arrivals;
  if (req.counted) {
    AccountInSystem(w);
    ++w.result.requests;
    ++w.in_system;
  }
  const int32_t p = Route(w);
  if (p == kNone) {
    Depart(r, false, &ErrorCounts::no_replica);
    return;
  }
  if (pods_[p].phase == PodPhase::kFakeReady) {
    // The server answers from a process with no model loaded: the request fails at once.
    Depart(r, false, &ErrorCounts::fake_ready);
    return;
  }
  req.pod = p;
  ++pods_[p].outstanding;
  if (spec.timeout > 0)
    queue_.Push(now_ + spec.timeout, kTimeout, static_cast<uint32_t>(r), req.generation);
  if (spec.cpu_before > 0) {
    req.stage = RequestStage::kCpuBefore;
    queue_.Push(now_ + spec.cpu_before, kCpuBeforeDone, static_cast<uint32_t>(r), req.generation);
    return;
  }
  Enqueue(r);
}

void Simulator::Enqueue(int32_t r) {
  Request& req = requests_[r];
  PodRun& pod = pods_[req.pod];
  req.stage = RequestStage::kQueued;
  req.enqueued = now_;
  req.next = kNone;
  if (pod.queue_tail == kNone) {
    pod.queue_head = r;
  } else {
    requests_[pod.queue_tail].next = r;
  }
  pod.queue_tail = r;
  ++pod.queue_len;
  TryStartService(req.pod);
}

void Simulator::TryStartService(int32_t p) {
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  while (pod.queue_len > 0 && (spec.concurrency == 0 || pod.jobs < spec.concurrency)) {
    int batch = 1;
    if (spec.batching.max_batch > 1) {
      const SimTime oldest = requests_[pod.queue_head].enqueued;
      if (pod.queue_len < spec.batching.max_batch && now_ < oldest + spec.batching.max_wait) {
        ++pod.batch_generation;
        queue_.Push(oldest + spec.batching.max_wait, kBatchWait, static_cast<uint32_t>(p),
                    pod.batch_generation);
        return;
      }
      batch = std::min(pod.queue_len, spec.batching.max_batch);
    }
    // Take `batch` requests off the queue into one job.
    const int32_t j = NewJob();
    Job& job = jobs_[j];
    job.pod = p;
    job.first = pod.queue_head;
    double max_work = 0;
    int32_t last = kNone;
    for (int i = 0; i < batch; ++i) {
      const int32_t r = pod.queue_head;
      pod.queue_head = requests_[r].next;
      requests_[r].job = j;
      requests_[r].stage = RequestStage::kOnGpu;
      max_work = std::max(max_work, requests_[r].work_s);
      last = r;
    }
    requests_[last].next = kNone;
    if (pod.queue_head == kNone) pod.queue_tail = kNone;
    pod.queue_len -= batch;
    job.live = batch;
    job.activation_mib = pod.activation_mib * batch;

    if (!pod.cards.empty()) Touch(p);
    if (!ChangeMemory(p, job.activation_mib, true)) {
      // The activation does not fit: CUDA OOM for every request of the job.
      for (int32_t r = job.first; r != kNone;) {
        const int32_t next = requests_[r].next;
        Depart(r, false, &ErrorCounts::oom);
        r = next;
      }
      FreeJob(j);
      continue;
    }
    const double work_ns = max_work * 1e9 * (1 + spec.batching.beta * (batch - 1));
    if (pod.jobs == 0) {
      // Rebasing while idle keeps the counter small and exact; whatever is left in the service
      // heap then is dead (aborted) jobs.
      for (int32_t dead : pod.service) FreeJob(dead);
      pod.service.clear();
      pod.attained = 0;
      pod.last_update = now_;
    }
    job.finish = pod.attained + work_ns;
    job.in_service = true;
    pod.service.push_back(j);
    std::push_heap(pod.service.begin(), pod.service.end(),
                   [this](int32_t a, int32_t b) { return jobs_[a].finish > jobs_[b].finish; });
    ++pod.jobs;
  }
}

// Every job on the card whose remaining work is at most its progress in 1 ns completes, in
// arrival order of its first request.
void Simulator::CompleteCard(int32_t c) {
  CardRun& card = cards_[c];
  card.scheduled = -1;
  AdvanceCard(c);
  done_jobs_.clear();
  auto later = [this](int32_t a, int32_t b) { return jobs_[a].finish > jobs_[b].finish; };
  for (int32_t p : card.running) {
    PodRun& pod = pods_[p];
    if (pod.jobs == 0) continue;
    const double slack = pod.rate * 1.0 + 1e-13 * std::max(1.0, pod.attained);
    while (!pod.service.empty()) {
      PopDeadJobs(pod);
      if (pod.service.empty()) break;
      const int32_t j = pod.service.front();
      if (jobs_[j].finish - pod.attained > slack) break;
      std::pop_heap(pod.service.begin(), pod.service.end(), later);
      pod.service.pop_back();
      done_jobs_.push_back(j);
    }
  }
  std::sort(done_jobs_.begin(), done_jobs_.end(), [this](int32_t a, int32_t b) {
    return requests_[jobs_[a].first].arrival < requests_[jobs_[b].first].arrival;
  });
  for (size_t i = 0; i < done_jobs_.size(); ++i) FinishJob(done_jobs_[i]);
  if (!card.dirty) {
    card.dirty = true;
    dirty_.push_back(c);
  }
}

void Simulator::FinishJob(int32_t j) {
  Job& job = jobs_[j];
  const int32_t p = job.pod;
  PodRun& pod = pods_[p];
  const Workload& spec = *workloads_[pod.workload].spec;
  Touch(p);
  --pod.jobs;
  ChangeMemory(p, -job.activation_mib, false);
  for (int32_t r = job.first; r != kNone;) {
    Request& req = requests_[r];
    const int32_t next = req.next;
    if (req.stage == RequestStage::kGone) {
      FreeRequest(r);  // timed out while on the GPU; already counted
    } else if (spec.cpu_after > 0) {
      req.job = kNone;
      req.stage = RequestStage::kCpuAfter;
      queue_.Push(now_ + spec.cpu_after, kCpuAfterDone, static_cast<uint32_t>(r), req.generation);
    } else {
      Depart(r, true, nullptr);
    }
    r = next;
  }
  FreeJob(j);
  TryStartService(p);
}

// The request leaves the system (success, or failure by `cause`): count it, free its record.
void Simulator::Depart(int32_t r, bool success, int64_t ErrorCounts::*cause) {
  Account(r, success, cause);
  FreeRequest(r);
}

// Counts the request's departure. Its record stays allocated (a request that left its job early
// is still linked in it until the job ends; see FreeJobRequests).
void Simulator::Account(int32_t r, bool success, int64_t ErrorCounts::*cause) {
  Request& req = requests_[r];
  WorkloadRun& w = workloads_[req.workload];
  if (req.pod != kNone) {
    PodRun& pod = pods_[req.pod];
    // A terminating pod whose last request left is gone now, before its grace period ends.
    if (--pod.outstanding == 0 && pod.terminating)
      queue_.Push(now_, kTerminated, static_cast<uint32_t>(req.pod));
  }
  req.pod = kNone;
  req.stage = RequestStage::kGone;
  ++req.generation;
  if (options_.timeline_step > 0) {
    TimelineStep& step = StepAt(w, now_);
    if (success) {
      const double ms = static_cast<double>(now_ - req.arrival) / 1e6;
      ++step.completed;
      step.latency_sum_ms += ms;
      step.histogram.Record(ms);
    } else {
      ++(step.errors.*cause);
    }
  }
  if (!req.counted) return;
  req.counted = false;
  AccountInSystem(w);
  --w.in_system;
  ++w.departures;
  const SimTime sojourn = now_ - req.arrival;
  w.time_in_system_sum_ns += static_cast<double>(sojourn);
  if (success) {
    ++w.result.completed;
    const double ms = static_cast<double>(sojourn) / 1e6;
    w.latency_sum_ms += ms;
    w.result.histogram.Record(ms);
  } else {
    ++(w.result.errors.*cause);
  }
}

// Frees the records of the requests of job j that already left it (timed out on the GPU).
void Simulator::FreeJobRequests(int32_t j) {
  for (int32_t q = jobs_[j].first; q != kNone;) {
    const int32_t next = requests_[q].next;
    if (requests_[q].stage == RequestStage::kGone) free_requests_.push_back(q);
    q = next;
  }
}

void Simulator::Timeout(int32_t r) {
  Request& req = requests_[r];
  const Workload& spec = *workloads_[req.workload].spec;
  switch (req.stage) {
    case RequestStage::kQueued: {
      PodRun& pod = pods_[req.pod];
      // Unlink from the FIFO (a singly linked list: find the predecessor).
      int32_t prev = kNone;
      for (int32_t q = pod.queue_head; q != r; q = requests_[q].next) prev = q;
      if (prev == kNone) pod.queue_head = req.next; else requests_[prev].next = req.next;
      if (pod.queue_tail == r) pod.queue_tail = prev;
      --pod.queue_len;
      Depart(r, false, &ErrorCounts::timeout);
      return;
    }
    case RequestStage::kOnGpu: {
      const int32_t j = req.job;
      Job& job = jobs_[j];
      const int32_t p = job.pod;
      // The client gives up now. Its record stays linked in the job until the job ends.
      Account(r, false, &ErrorCounts::timeout);
      // complete: the GPU finishes the job anyway (wasted work). abort: the request leaves the
      // GPU; the job ends when no request is left in it.
      if (spec.on_timeout == TimeoutAction::kComplete || --job.live > 0) return;
      PodRun& pod = pods_[p];
      Touch(p);
      --pod.jobs;
      job.in_service = false;  // dropped lazily from the service heap
      ChangeMemory(p, -job.activation_mib, false);
      FreeJobRequests(j);
      TryStartService(p);
      return;
    }
    case RequestStage::kCpuBefore:
    case RequestStage::kCpuAfter:
      Depart(r, false, &ErrorCounts::timeout);
      return;
    case RequestStage::kGone:
      return;
  }
}

// ---------------------------------------------------------------------------------------------

RunResult Simulator::Run() {
  PlacePods();
  queue_.Push(warmup_, kWarmupEnd, 0);
  for (int32_t n = 0; n < static_cast<int32_t>(nodes_.size()); ++n)
    if (nodes_[n].reclaim_mean_ns > 0) ScheduleReclaim(n);
  for (int32_t w = 0; w < static_cast<int32_t>(workloads_.size()); ++w) {
    const SimTime first = workloads_[w].arrivals.Next(0);
    if (first < end_) queue_.Push(first, kArrival, static_cast<uint32_t>(w));
  }
  if (options_.cluster_operator != nullptr) options_.cluster_operator->Start(*this);
  while (!queue_.empty() && queue_.top().time <= end_) {
    const Event e = queue_.Pop();
    now_ = e.time;
    ++events_;
    switch (e.kind) {
      case kArrival:
        Arrive(static_cast<int32_t>(e.target));
        break;
      case kCardCompletion:
        if (cards_[e.target].generation == e.generation) CompleteCard(static_cast<int32_t>(e.target));
        break;
      case kCpuBeforeDone:
        if (requests_[e.target].generation == e.generation) Enqueue(static_cast<int32_t>(e.target));
        break;
      case kCpuAfterDone:
        if (requests_[e.target].generation == e.generation) Depart(static_cast<int32_t>(e.target), true, nullptr);
        break;
      case kTimeout:
        if (requests_[e.target].generation == e.generation) Timeout(static_cast<int32_t>(e.target));
        break;
      case kContainerStart:
        if (pods_[e.target].generation == e.generation) StartContainer(static_cast<int32_t>(e.target));
        break;
      case kLoadDone:
        if (pods_[e.target].generation == e.generation) FinishLoad(static_cast<int32_t>(e.target));
        break;
      case kWarmupEnd:
        // Memory peaks count from the end of the warm-up.
        for (size_t c = 0; c < cards_.size(); ++c)
          cards_[c].memory_peak_mib = std::max(cards_[c].memory_peak_mib, cards_[c].memory_used_mib);
        break;
      case kBatchWait:
        if (pods_[e.target].batch_generation == e.generation) TryStartService(static_cast<int32_t>(e.target));
        break;
      case kSpotReclaim:
        ReclaimNode(static_cast<int32_t>(e.target));
        break;
      case kNodeReplaced:
        ReplaceNode(static_cast<int32_t>(e.target));
        break;
      case kTerminated:
        Terminate(static_cast<int32_t>(e.target));
        break;
      case kPodReady: {
        const int32_t p = static_cast<int32_t>(e.target);
        if (pods_[p].generation == e.generation && pods_[p].phase == PodPhase::kUnready &&
            pods_[p].start_unready) {
          pods_[p].start_unready = false;
          pods_[p].message.clear();
          SetPhase(p, PodPhase::kServing);
        }
        break;
      }
      case kOperatorWake:
        options_.cluster_operator->Wake(*this, wake_tokens_[e.target]);
        break;
    }
    Flush();
  }
  now_ = end_;
  return Collect();
}

RunResult Simulator::Collect() {
  RunResult result;
  const double measured_ns = static_cast<double>(std::max<SimTime>(0, end_ - warmup_));
  const double measured_s = measured_ns / 1e9;
  for (auto& w : workloads_) AccountAvailability(w);
  if (options_.timeline_step > 0) result.timeline = CollectTimeline();
  result.end = end_;
  for (auto& w : workloads_) {
    AccountInSystem(w);
    WorkloadResult r = std::move(w.result);
    const Slo& slo = w.spec->slo;
    r.measured_s = measured_s;
    r.in_system_end = w.in_system;
    r.in_system_mean = measured_ns > 0 ? w.in_system_integral / measured_ns : 0;
    r.time_in_system_mean_ms = w.departures > 0 ? w.time_in_system_sum_ns / 1e6 / static_cast<double>(w.departures) : 0;
    r.throughput_rps = measured_s > 0 ? static_cast<double>(r.completed) / measured_s : 0;
    if (r.completed > 0) {
      r.latency_ms.mean = w.latency_sum_ms / static_cast<double>(r.completed);
      r.latency_ms.p50 = r.histogram.Quantile(0.50);
      r.latency_ms.p90 = r.histogram.Quantile(0.90);
      r.latency_ms.p99 = r.histogram.Quantile(0.99);
      r.latency_ms.p999 = r.histogram.Quantile(0.999);
    }
    r.error_ratio = r.requests > 0 ? static_cast<double>(r.errors.total()) / static_cast<double>(r.requests) : 0;
    r.slo_latency_ms = r.completed > 0 ? r.histogram.Quantile(slo.percentile / 100.0) : 0;
    const bool latency_ok =
        slo.latency <= 0 || (r.completed > 0 && r.slo_latency_ms <= static_cast<double>(slo.latency) / 1e6);
    // A workload none of whose requests finished (all still queued at the end) is not meeting
    // any objective, even one without a latency bound.
    const bool stuck = r.requests > 0 && r.completed == 0 && r.errors.total() == 0;
    r.slo_met = latency_ok && r.error_ratio <= slo.error_budget && !stuck;
    cluster_result_.request_oom_errors += r.errors.oom;
    result.workloads.push_back(std::move(r));
  }
  for (size_t c = 0; c < cards_.size(); ++c) {
    AdvanceCard(static_cast<int32_t>(c));
    const CardRun& run = cards_[c];
    const Card& card = cluster_.cards[c];
    CardResult r;
    r.node = cluster_.nodes[card.node].name;
    r.index = card.index;
    r.gpu = card.gpu->name;
    if (measured_ns > 0) {
      r.busy = run.busy_ns / measured_ns;
      r.effective = run.effective_ns / measured_ns;
      r.switch_overhead = run.switch_ns / measured_ns;
      r.waste = std::max(0.0, r.busy - r.effective - r.switch_overhead);
      r.memory_used_mib = run.memory_integral / measured_ns;
    }
    r.memory_physical_mib = run.physical_mib;
    r.memory_peak_mib = run.memory_peak_mib;
    result.cards.push_back(std::move(r));
  }
  const auto& node_pools = scenario_.node_pools;
  for (const Card& card : cluster_.cards)
    if (SharingNode(node_pools[cluster_.nodes[card.node].pool])) cluster_result_.gpu_mem_total_units += card.units;
  // The pods that exist at the end, by workload and replica (a replacement after the pod it
  // replaced while that one still terminates).
  std::vector<int32_t> existing;
  for (int32_t p = 0; p < static_cast<int32_t>(pods_.size()); ++p)
    if (!pods_[p].gone) existing.push_back(p);
  std::stable_sort(existing.begin(), existing.end(), [this](int32_t a, int32_t b) {
    if (pods_[a].workload != pods_[b].workload) return pods_[a].workload < pods_[b].workload;
    return pods_[a].replica < pods_[b].replica;
  });
  for (int32_t p : existing) {
    const PodRun& pod = pods_[p];
    const Workload& spec = *workloads_[pod.workload].spec;
    PodResult r;
    r.namespace_ = spec.namespace_;
    r.name = pod.name;
    r.workload = spec.name;
    // A restarting container that is loading again still shows CrashLoopBackOff to the user.
    r.state = pod.terminating                                       ? "Terminating"
              : pod.restarts > 0 && pod.phase == PodPhase::kLoading ? "CrashLoopBackOff"
                                                                    : PhaseName(pod.phase);
    r.restarts = pod.restarts;
    r.bottleneck_gbps = pod.bottleneck_gbps;
    r.throughput_factor = pod.throughput_factor;
    r.message = pod.message;
    // A pod whose node was reclaimed waits, Pending and unbound, for the replacement node.
    if (pod.node >= 0 && !nodes_[pod.node].down()) {
      r.node = cluster_.nodes[pod.node].name;
      cluster_result_.gpu_mem_allocated_units += spec.gpu_mem;
      for (int32_t c : pod.cards) {
        r.cards.push_back(cluster_.cards[c].index);
        CardResult& card = result.cards[c];
        card.memory_quota_mib += pod.quota_mib;
        card.pods.push_back(spec.namespace_ + "/" + pod.name);
      }
    } else {
      ++cluster_result_.pending_pods;
    }
    if (pod.phase == PodPhase::kFakeReady) ++cluster_result_.fake_ready_pods;
    result.pods.push_back(std::move(r));
  }
  if (cluster_result_.gpu_mem_total_units > 0)
    cluster_result_.allocation_ratio = static_cast<double>(cluster_result_.gpu_mem_allocated_units) /
                                       static_cast<double>(cluster_result_.gpu_mem_total_units);
  result.cluster = std::move(cluster_result_);
  result.events_processed = events_;
  result.requests_simulated = arrivals_;
  result.fragmentation = std::move(fragmentation_);
  return result;
}

}  // namespace

RunResult Simulate(const Scenario& scenario, uint64_t seed) {
  return Simulate(scenario, seed, RunOptions{});
}

RunResult Simulate(const Scenario& scenario, uint64_t seed, const RunOptions& options) {
  Simulator simulator(scenario, seed, options);
  return simulator.Run();
}

}  // namespace knobsim
