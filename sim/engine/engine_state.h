// EngineState: the plain tables one run works on, shared by the kernel (sim/engine/simulator.h)
// and its collaborators — card sharing (card_sharing.h), the run recorder (run_recorder.h) and
// the controllers of sim/controllers/.
//
// Every pod, card, node, workload, request and job is its index in the table of its kind; events
// name their target the same way (EventKind says which table). Records never move while they
// exist: pods and nodes are never removed (a gone pod keeps its record for its id), requests and
// jobs are recycled through free lists. Cancellation is by generation (sim/event_queue.h).
// Nothing here has behaviour beyond the free lists and CpuUsage's integral; who changes what is
// said at each field.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "models/memory_isolation.h"
#include "models/sharing_policy.h"
#include "sim/autoscaling/horizontal_controller.h"
#include "sim/autoscaling/node_group_backoff.h"
#include "sim/cluster.h"
#include "sim/engine/simulation.h"
#include "sim/event_queue.h"
#include "sim/huge_pages.h"
#include "sim/random_stream.h"
#include "sim/scenario.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/scheduler.h"
#include "sim/traffic.h"

namespace knobsim::engine {

constexpr int32_t kNone = -1;

// A short list kept inside its record, up to N elements (more move to the heap): a card's pods
// and a pod's cards and service heap are read on every request, and on a large cluster a heap
// block of their own is one more cache miss each (issue 23; docs/benchmarks.md "Cost per
// request and cluster size"). Boost.Container's small_vector: a std::vector's interface.
template <typename T, size_t N>
using InlineVector = boost::container::small_vector<T, N>;
// A pod's cards (most pods have one).
using PodCards = InlineVector<int32_t, 1>;

// What an event does; its target is an index into the table named here.
enum EventKind : uint32_t {
  kArrival,         // target: index into EngineState::streams; generation: its workload
  kCardCompletion,  // target: card
  kCpuBeforeDone,   // target: request
  kCpuAfterDone,    // target: request
  kTimeout,         // target: request
  kContainerStart,  // target: pod (image pulled, or restart back-off over)
  kLoadDone,        // target: pod
  kBatchWait,       // target: pod
  kWarmupEnd,
  kSpotReclaim,     // target: node
  kNodeReplaced,    // target: node
  kTerminated,      // target: pod (its grace period is over, or its last request left)
  kPodReady,        // target: pod (a pod unready at the start turns Ready: CurrentPod::ready_after)
  kOperatorWake,    // target: index into EngineState::wake_tokens
  kHpaSync,         // target: index into EngineState::hpas
  kCronHpaFire,     // target: index into EngineState::cron_hpas; generation: the job's index
  kAutoscalerScan,  // the cluster-autoscaler's loop (sim/controllers/node_autoscaling.h)
  kNodeProvisioned,   // target: node (a scale-up's new node is Ready)
  kSpotRelease,       // target: node (the end of its interruption notice)
  kProvisionTimeout,  // target: node (a scale-up's node never registered: max provision time)
  kIterationStart,    // target: pod; generation: its loop epoch (sim/controllers/closed_loops.h)
  kJobComplete,       // target: workload (a closed-loop job reached its steps)
  kSliceEnd,          // target: card (slice mode: its slice or switch ends; time_slices.h)
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

enum class RequestStage : uint8_t { kCpuBefore, kQueued, kOnGpu, kCpuAfter, kGone };

struct Request {
  SimTime arrival = 0;
  SimTime enqueued = 0;
  SimTime gpu_start = -1;  // its job entered service (-1: not yet, or never)
  double work_s = 0;
  int32_t workload = 0;
  int32_t pod = kNone;
  int32_t next = kNone;  // next in the pod's FIFO queue, or in its job
  int32_t job = kNone;
  uint32_t generation = 0;  // bumps cancel its pending timeout / cpu events
  RequestStage stage = RequestStage::kGone;
  bool counted = false;    // arrived after warm-up
  bool iteration = false;  // a closed-loop job's iteration (sim/controllers/closed_loops.h)
};

// A pod's CPU usage: its requests in a CPU stage (cpu_time before or after the GPU), each on a
// core of its own (the stages never contend, as their delays do not), and ∫ that count dt from
// t = 0 (warm-up included), in core-ns: what the kubelet's usage_core_nanoseconds counter of
// the pod holds, read by the HPA's cpu metric. Exact: integers, integrated at each change.
struct CpuUsage {
  int32_t busy = 0;     // requests in a CPU stage now
  SimTime last = 0;     // `core_ns` is integrated up to here
  int64_t core_ns = 0;  // ∫ busy dt up to `last`
  void Change(SimTime now, int32_t delta) {
    core_ns += int64_t{busy} * (now - last);
    last = now;
    busy += delta;
  }
  int64_t CoreNsAt(SimTime now) const { return core_ns + int64_t{busy} * (now - last); }
};

// One timeline step of a card (RunOptions::timeline_step > 0), from t = 0, warm-up included.
struct CardStep {
  double busy_ns = 0, effective_ns = 0, memory_integral = 0;  // ∫ over the step
  int64_t memory_peak_mib = 0;
};

// One request, or one dynamic batch, in service on a pod's cards.
struct Job {
  double finish = 0;  // the pod's attained value at which it completes
  int32_t first = kNone;
  int32_t pod = kNone;
  int32_t live = 0;            // requests of the job still waiting for it
  int64_t activation_mib = 0;  // per card
  bool in_service = false;
};

// One card as the sharing model sees it (owned by CardSharing).
//
// Layout: a run touches a card and each pod of its P on every request (card_sharing.h), and
// on a large cluster these records no longer fit the caches, so the cost per request is the
// cache lines touched (issue 23; docs/benchmarks.md "Cost per request and cluster size"). The
// fields every AdvanceCard / Flush reads come first, within a record aligned to a cache line,
// P and its view inside the record (no heap block of their own up to four pods); the metrics and
// the memory checks follow, then the shares; the policy's settings and the timeline last.
struct alignas(64) CardRun {
  // line 0: the state that the metrics integrate, and the completion event
  SimTime last = 0;  // metrics integrated up to here
  double sum_share = 0;
  double eta = 1;
  int64_t memory_used_mib = 0;
  double speed = 1;
  SimTime scheduled = -1;
  uint32_t generation = 0;
  int active = 0;
  bool dirty = false;
  bool membership_changed = false;  // P changed since the shares were last computed
  // cluster.time_slice applies: round-robin slices (time_slices.h) instead of the fluid split.
  bool sliced = false;
  // The device plugin's MPS: co-active clients overlap up to the card's SMs, each capped at its
  // active thread percentage (models/mps_overlap.h, docs/semantics.md §2.6).
  bool mps_overlap = false;
  // cluster.interference applies: the card is time-sliced natively (POLICY 5, or no cGPU) and
  // the scenario names a co-location model.
  bool co_location = false;
  // lines 1-2: P, and which of its pods were active when the shares were computed (every Flush
  // of the card compares them)
  InlineVector<int32_t, 4> running;  // pods in P (GPU container running)
  InlineVector<PodOnCard, 4> view;   // scratch for the policy
  // line 3: the metrics (after warm-up) and the memory checks
  double busy_ns = 0, effective_ns = 0, switch_ns = 0, memory_integral = 0;
  // ∫ busy dt from t = 0 up to `last` (warm-up included): what a DCGM exporter's utilization
  // counter has seen, read by the HPA's metrics (horizontal_autoscaling.h).
  double busy_total_ns = 0;  // per step while a timeline is collected
  int64_t memory_peak_mib = 0;
  int64_t physical_mib = 0;
  MemoryIsolation isolation = MemoryIsolation::kHard;
  int units = 0;
  // line 4: the shares of P (recomputed when P or its active pods change)
  InlineVector<double, 4> shares;  // scratch for the policy
  // the rest: the policy's settings and the timeline
  SharingParams params;
  std::vector<CardStep> timeline;
};

// One job in a pod's service heap: its finish (Job::finish) kept beside its id, so that finding
// the pod's next completion reads no job record.
struct ServiceEntry {
  double finish = 0;
  int32_t job = kNone;
};

// Layout: as CardRun's, the fields the request flow and card sharing read on every request come
// first — line 0 what advancing a card reads of each of its pods; line 1 the service heap (the
// next completion); line 2 its cards and shares (re-sharing); line 3 memory — the lifecycle's and
// the results' fields after them.
struct alignas(64) PodRun {
  // line 0: progress and queue
  double attained = 0;
  double rate = 0;  // reference-ns of progress per ns for each job
  SimTime last_update = 0;
  int32_t jobs = 0;  // jobs in service
  int32_t workload = 0;
  int32_t queue_head = kNone, queue_tail = kNone;
  int32_t queue_len = 0;
  int32_t outstanding = 0;  // routed here and not yet departed
  int weight = 1;
  PodPhase phase = PodPhase::kPending;
  // Aborted jobs (a timeout's abort) still in `service`, dropped lazily (PopDeadJobs): while
  // none, the heap's top is in service without a look at its job.
  int32_t dead_jobs = 0;
  // cards.size() == 1, set with them (BindPod): re-sharing then takes the pod's share from its
  // card's shares, without reading `cards` and `share_on` (line 2).
  bool one_card = false;
  // line 1: the service heap, ordered by finish (top: the earliest)
  InlineVector<ServiceEntry, 2> service;
  double throughput_factor = 1;  // multi-card pods: links slower than NVLink (gpu_topology)
  // line 2: its cards, and its share on each
  PodCards cards;
  InlineVector<double, 1> share_on;
  // line 3: memory, per card
  int64_t activation_mib = 0;
  int64_t used_mib = 0;
  int64_t quota_mib = 0;
  double percent = 0;
  int64_t routed = 0;       // requests ever routed here (the HPA's request-rate metric)
  uint32_t generation = 0;  // lifecycle events
  uint32_t batch_generation = 0;
  bool in_p = false;
  bool terminating = false;  // deleted: out of the endpoints, finishing its requests
  // the rest
  CpuUsage cpu;  // the simulator moves it as requests enter and leave CPU stages
  int64_t context_mib = 0;
  int64_t weights_mib = 0;
  int replica = 0;  // the replica ordinal it stands for (a replacement keeps it)
  std::string name;
  int state_pod = -1;          // its pod in the scheduler's ClusterState while bound
  bool gone = false;           // terminated: no longer exists (its record stays for the ids)
  bool start_unready = false;  // CurrentPod::ready == false, until it turns Ready
  bool scaled_away = false;    // deleted by a scale-down: its controller does not replace it
  // The kubelet refused it on `failed_on` (UnexpectedAdmissionError, placement.h AdmitOnNode):
  // phase Failed, unbound, holding nothing, never scheduled again.
  bool admission_failed = false;
  std::string failed_on;
  SimTime ready_after = -1;
  // status.startTime: when the kubelet took the pod (bound, Pending → pulling); -1 before, and
  // again once evicted (its replacement is a new pod). The Ready condition's lastTransitionTime:
  // that start (the condition begins False), then each change of readiness (SetPhase). The
  // HPA's CPU readiness rules read both (replica_calculator.h).
  SimTime started_at = -1;
  SimTime ready_changed = 0;
  int node = -1;
  bool model_loaded = false;
  bool context_ok = false;
  int restarts = 0;
  std::string message;
  std::string autoscaler_message;  // its last TriggeredScaleUp / NotTriggerScaleUp text
  std::string nominated_node;      // where its preemption made room (status.nominatedNodeName)
  std::string daemon_node;         // a DaemonSet's pod: the node it is pinned to (daemon_sets.h)
  // A closed-loop job's pod: its live iterations (in flight or thinking), and the epoch they
  // belong to; AbortWork ends them all by moving to the next epoch.
  int32_t loops = 0;
  uint32_t loop_epoch = 0;
  double bottleneck_gbps = 0;
};

// A node as the run sees it: which pods it holds (for a reclaim) and its spot reclaims.
struct NodeRun {
  int pool = 0;                     // index into Scenario::node_pools
  std::vector<int32_t> pods;        // pods placed on it, in binding order
  std::vector<std::string> images;  // image cache: what a pod starting here need not pull
  bool cordoned = false;            // set by a ClusterOperator
  double reclaim_mean_ns = 0;       // mean time between reclaims; 0 = on-demand, never reclaimed
  SimTime replace_after = 0;
  RandomStream reclaims;  // "spot/<pool>/<ordinal>": the same node in every variant
  // Down while either holds: a spot reclaim (until its replacement joins) or a ClusterOperator's
  // reset (until it brings the node back); each ends only its own.
  bool reclaimed = false;
  bool resetting = false;
  // Spot: between an interruption notice and the release; cordoned (spot_reclaims.h).
  bool notified = false;
  // When it joined (a spot node is not reclaimed in its protection period); the nodes there at
  // t = 0 count as long there.
  SimTime joined_at = std::numeric_limits<SimTime>::min() / 2;
  // A spot pool's node created as pay-as-you-go (compensate_with_on_demand): never reclaimed,
  // billed on-demand.
  bool on_demand = false;
  // A scale-up's node whose instance was never created (a spot stock-out): it never registers.
  bool stocked_out = false;
  // An autoscaled pool's slot (node_autoscaling.h): absent while it holds no node (before a
  // scale-up's node joins, after a scale-down removed it); provisioning from the scale-up to
  // the node Ready; removing from the scale-down's cordon until its last pod left.
  bool absent = false;
  bool provisioning = false;
  bool removing = false;
  SimTime unneeded_since = -1;  // -1: not unneeded at the last scan
  // Whether its pods fit elsewhere, as computed when the cluster was at `movable_revision` (the
  // sum of the scheduler's node generations): unchanged cluster, unchanged answer.
  uint64_t movable_revision = ~uint64_t{0};
  bool movable = false;
  bool down() const { return reclaimed || resetting || absent; }
};

// A node pool as the cluster-autoscaler sees it, and its size over the run (every pool has
// one; only autoscaled pools change size). The size counts the nodes that exist, billed from
// the scale-up (provisioning) to their removal.
struct PoolRun {
  std::vector<int32_t> nodes;  // its node slots, by ordinal
  RandomStream provisioning;   // "cluster-autoscaler/<pool>": each new node's delay
  int size = 0;
  int size_at_start = 0, size_min = 0, size_max = 0;
  int nodes_added = 0, nodes_removed = 0;
  int nodes_reclaimed = 0;   // spot releases
  int failed_scale_ups = 0;  // nodes given up on after max_node_provision_time
  // Nodes counted in `size` (the autoscaler's target) that have no instance: stock-outs that
  // have not timed out yet. They are not billed.
  int phantom = 0;
  int on_demand = 0;   // nodes of a spot pool created as pay-as-you-go
  RandomStream stock;  // "spot-stock/<pool>": whether each new spot instance can be created
  autoscaling::NodeGroupBackoff backoff;
  double node_ns = 0;            // ∫ (size − phantom) dt from t = 0 to `since`
  double on_demand_node_ns = 0;  // ∫ on_demand dt, the same way
  SimTime since = 0;
  std::vector<double> step_node_ns;  // the same per timeline step (RunOptions::timeline_step)
};

// A workload's traffic and its Service's endpoints (its metrics live in RunRecorder).
struct WorkloadRun {
  // Streams are named after the workload, so every variant draws the same arrivals and work.
  WorkloadRun(const Workload& w, uint64_t seed);

  const Workload* spec;
  RandomStream work_stream;
  RandomStream route_stream;
  std::vector<int32_t> ready;  // Ready pods (FakeReady included) not terminating, in pod order
  uint64_t round_robin = 0;
  int replacements = 0;  // Deployment replacements created so far (their names)
  int available = 0;     // Ready with the model loaded, not terminating
  int pending = 0;       // Pending: not started on a node that is up (endpoints.h)
  int desired = 0;       // spec.replicas now: the scenario's, then what its HPA sets
  int next_ordinal = 0;  // the ordinal of the next pod a scale-up creates (Deployments)
  int64_t arrivals = 0;  // requests ever arrived at its Service (external request-rate metric)
  int64_t steps_done = 0;  // a closed-loop job: iterations that succeeded, from t = 0
  bool job_done = false;   // ... and it reached its `steps`
  // A DaemonSet: per pool, whether one of its listed pods runs there (daemon_sets.h).
  std::vector<char> daemon_pools;
};

// One HPA of the run: the controller with its history, and the metric counters it saw at its
// past syncs (a pod's sample is the change since the oldest sync inside the metric window).
struct HpaRun {
  struct PodCounters {
    int32_t pod = -1;
    double busy_ns = 0;  // Σ over its cards of CardRun::busy_total_ns
    int64_t routed = 0;
    int64_t cpu_core_ns = 0;  // CpuUsage::CoreNsAt
  };
  struct Snapshot {
    SimTime at = 0;
    int64_t arrivals = 0;
    std::vector<PodCounters> pods;  // the workload's Running pods, by pod id
  };
  HpaRun(int32_t workload, autoscaling::HorizontalController controller)
      : workload(workload), controller(std::move(controller)) {}
  int32_t workload;
  autoscaling::HorizontalController controller;
  std::vector<Snapshot> snapshots;  // oldest first
};

// A workload's CronHPA on the simulated clock (sim/controllers/cron_autoscaling.h).
struct CronHpaRun {
  int32_t workload = -1;
  int32_t hpa = -1;          // index into EngineState::hpas when the CronHPA scales the HPA
  int64_t start_unix_s = 0;  // the wall clock at t = 0
};

// One stream of arrivals: a workload's requests at its Service (replica -1), or one pod's own
// recorded counts (Traffic's counts.per_pod), which go to the pod of that replica ordinal while
// it is Ready and to the Service otherwise. Its work is drawn from the workload's work stream.
struct ArrivalStream {
  // The arrival times are named after the workload (and the pod), so every variant draws them.
  ArrivalStream(int32_t workload, const Workload& w, int replica, const Traffic& traffic,
                uint64_t seed, const std::string& pod_name);

  int32_t workload;
  int replica;  // -1: the Service routes (Workload::routing)
  ArrivalProcess arrivals;
  int32_t pod = kNone;  // replica >= 0: the pod that served it last, checked first
};

struct EngineState {
  // The tables of `scenario`'s cluster and workloads (pods come with the placement).
  EngineState(const Scenario& scenario, uint64_t seed, const RunOptions& options);

  const Scenario& scenario;
  RunOptions options;
  uint64_t seed;  // the replication's: the placement draws (01-Random) use it too
  SimTime now = 0;
  SimTime warmup;
  SimTime end;  // the planned end; a ClusterOperator may bring it forward
  EventQueue queue;
  Cluster cluster;
  HugeVector<PodRun> pods;
  std::vector<NodeRun> nodes;
  std::vector<WorkloadRun> workloads;
  std::vector<ArrivalStream> streams;  // each workload's, in workload order
  HugeVector<Request> requests;
  std::vector<int32_t> free_requests;
  HugeVector<Job> jobs;
  std::vector<int32_t> free_jobs;
  uint64_t events = 0;    // events processed
  uint64_t arrivals = 0;  // requests simulated
  // The scheduler and its view of the cluster, kept for the whole run: pods are placed again
  // when a ClusterOperator deletes them (the Scheduler holds a reference to cluster_state).
  ClusterState cluster_state;
  SchedulerConfig config;
  std::unique_ptr<Scheduler> scheduler;
  std::vector<int32_t> pending;  // pods waiting for the scheduler, by id
  // SchedulePending is running (a preemption's deletions call it again): the inner call only
  // asks the outer one for another pass.
  bool scheduling_pending = false;
  bool pending_again = false;
  std::vector<uint64_t> wake_tokens;
  std::vector<HpaRun> hpas;
  std::vector<CronHpaRun> cron_hpas;
  std::vector<PoolRun> pools;  // by Scenario::node_pools index
  // The cluster-autoscaler's own clock marks and its expander's tie-break stream.
  SimTime last_scale_up = -1;  // -1: none yet
  SimTime last_scale_down = -1;
  RandomStream expander_stream;
  std::vector<std::string> missing_images;  // sorted

  int32_t NewRequest() {
    if (!free_requests.empty()) {
      const int32_t r = free_requests.back();
      free_requests.pop_back();
      return r;
    }
    requests.emplace_back();
    return static_cast<int32_t>(requests.size() - 1);
  }
  void FreeRequest(int32_t r) {
    Request& req = requests[r];
    req.stage = RequestStage::kGone;
    ++req.generation;
    free_requests.push_back(r);
  }
  int32_t NewJob() {
    if (!free_jobs.empty()) {
      const int32_t j = free_jobs.back();
      free_jobs.pop_back();
      return j;
    }
    jobs.emplace_back();
    return static_cast<int32_t>(jobs.size() - 1);
  }
  void FreeJob(int32_t j) {
    jobs[j] = Job{};
    free_jobs.push_back(j);
  }
};

}  // namespace knobsim::engine
