// Results of one simulation run (one variant, one replication), as plain data.
//
// Field meanings are those of docs/design.md §3.5 and docs/results.md. Counts refer to requests
// that arrived after warm-up; conservation holds exactly per workload:
//   completed + oom + fake_ready + timeout + no_replica + in_system_end == requests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/latency_histogram.h"

namespace knobsim {

struct ErrorCounts {
  int64_t oom = 0;          // CUDA OOM: activation beyond quota (hard) or beyond the card (soft)
  int64_t fake_ready = 0;   // routed to a Ready pod whose model never loaded
  int64_t timeout = 0;      // deadline passed
  int64_t no_replica = 0;   // no Ready replica at arrival
  int64_t interrupted = 0;  // on a pod whose node went away (spot reclaim, reset) or that
                            // terminated with it still in flight
  int64_t total() const { return oom + fake_ready + timeout + no_replica + interrupted; }
};

struct LatencySummary {  // milliseconds, over successful requests only
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0;
};

// A closed-loop job's progress (Workload::closed_loop): its iterations are its requests, so
// throughput, latency and errors above are per iteration; these say what they mean for the job.
struct ClosedLoopResult {
  int64_t steps_done = 0;     // iterations that succeeded, from t = 0 (warm-up included)
  SimTime completed_at = -1;  // when the `steps`-th succeeded; -1: not within the run (or no steps)
  // Over the iterations counted after the warm-up, while the job ran (to the end of the run, or
  // to its completion):
  double steps_per_s = 0;
  double step_ms_mean = 0;  // an iteration's latency + think: one turn of a loop
  // The same turn with the GPU phase alone on a whole card of its type (work / card speed), the
  // CPU stages and think unchanged; slowdown = step_ms_mean / solo_step_ms.
  double solo_step_ms = 0;
  double slowdown = 0;
};

struct WorkloadResult {
  std::string name;
  std::string namespace_;  // a workload is namespace/name (names are unique in a scenario)
  int64_t requests = 0;
  int64_t completed = 0;
  ErrorCounts errors;
  LatencySummary latency_ms;
  double throughput_rps = 0;
  bool slo_met = false;       // every rule of sim/slo_check.h
  double slo_latency_ms = 0;  // the SLO percentile's value that was compared (ms)
  double error_ratio = 0;     // Σ errors / requests
  int64_t in_system_end = 0;
  // Of those, the ones older than the SLO's overdue age at the end (sim/slo_check.h), and the
  // age of the oldest (ms; 0 when none is left).
  int64_t in_system_overdue = 0;
  double in_system_oldest_ms = 0;
  double in_system_mean = 0;
  double measured_s = 0;
  double time_in_system_mean_ms = 0;
  // Where a success's latency went: waiting (arrival to the GPU start of its job: the pod's queue,
  // a batch wait and cpu_before) and service (GPU start to departure: the GPU, shared as the
  // policy says, then cpu_after). wait + service = latency, request by request.
  double queue_wait_ms_mean = 0;
  double queue_wait_ms_p99 = 0;
  double service_ms_mean = 0;
  LatencyHistogram histogram;  // successes, ms (kept for merging replications)
  bool closed_loop = false;    // a closed-loop job: `loop` holds its progress
  ClosedLoopResult loop;
};

struct CardResult {
  std::string node;
  int index = 0;
  std::string gpu;
  double busy = 0;             // fraction of time with >= 1 active pod
  double effective = 0;        // time-average of Σ_A share
  double switch_overhead = 0;  // time-average of (1 - eta) while >= 2 pods active (POLICY 5)
  double waste = 0;            // busy - effective - switch_overhead
  int64_t memory_physical_mib = 0;
  int64_t memory_quota_mib = 0;   // Σ visible quotas of the pods placed on the card
  double memory_used_mib = 0;     // time-average after warm-up
  int64_t memory_peak_mib = 0;    // maximum after warm-up
  std::vector<std::string> pods;  // namespace/name of the pods placed on the card
};

struct PodResult {
  std::string namespace_;
  std::string name;
  std::string workload;
  std::string node;        // empty when Pending
  std::vector<int> cards;  // card indexes on that node
  std::string state;       // Running, Pending, Unready, FakeReady, CrashLoopBackOff, Starting,
                           // ImagePullBackOff, Terminating
  int restarts = 0;
  std::string message;           // FailedScheduling text, or why it is not serving
  double bottleneck_gbps = 0;    // multi-card pods: slowest link between their cards (GB/s)
  double throughput_factor = 1;  // multi-card pods: work rate relative to NVLink (gpu_topology)
};

struct ClusterEvent {
  SimTime time = 0;
  std::string kind;  // LoadOOM, FakeReady, CrashLoopBackOff, FailedScheduling
  std::string pod;   // namespace/name
  std::string message;
};

struct ClusterResult {
  int64_t gpu_mem_allocated_units = 0;  // Σ gpu-mem of placed pods
  int64_t gpu_mem_total_units = 0;      // Σ card units of shared-GPU nodes
  double allocation_ratio = 0;          // allocated / total
  int pending_pods = 0;
  int fake_ready_pods = 0;
  int preempted_pods = 0;          // evicted by the scheduler for a higher-priority pod
  int64_t request_oom_errors = 0;  // runtime CUDA OOMs over all workloads
  std::vector<ClusterEvent> events;
};

// FGD fragmentation after placement (docs/fgd-policies.md §5;
// sim/scheduler/fgd/fragmentation_report.h has the unit mapping). Milli-GPU, 1000 per card.
struct NodeFragmentation {
  std::string node;
  double idle_milli = 0;
  double fragmented_milli = 0;
};

struct FragmentationResult {
  double gpu_milli_total = 0;            // 1000 × cards
  double idle_milli = 0;                 // Σ free milli-GPU
  double fragmented_milli = 0;           // Σ F_n
  double frag_ratio = 0;                 // fragmented / idle, 0..1 (0 when nothing is idle)
  std::vector<NodeFragmentation> nodes;  // node order
};

// The run over time (RunOptions::timeline_step), per workload. Requests count in the step they
// arrive (`arrivals`) or leave (`completed`, `errors`); latency is over the successes leaving in
// the step. A pod is *available* when it is Ready with its model loaded and not terminating: a
// fake-Ready pod is Ready for Kubernetes but never available.
struct TimelinePoint {
  SimTime start = 0;
  int64_t arrivals = 0;
  int64_t completed = 0;
  ErrorCounts errors;
  double latency_mean_ms = 0, latency_p50_ms = 0, latency_p99_ms = 0;  // 0 when no success
  double queue_wait_mean_ms = 0, service_mean_ms = 0;  // of those successes (WorkloadResult)
  double available_mean = 0;  // time-average of available pods over the step
  int available_min = 0;
  double ready_mean = 0;  // time-average of Ready pods (fake-Ready included)
  // Time-average of the replicas wanted over the step: `replicas`, or what the workload's HPA
  // or CronHPA last set.
  double desired_mean = 0;
  // Pending pods: existing, not started on a node that is up — waiting for the scheduler or for
  // a node the cluster-autoscaler provisions (sim/controllers/endpoints.h). The time-average over
  // the step, and the most at any moment of it (a state that lasts no time does not count).
  double pending_mean = 0;
  int pending_max = 0;
  // The step's successes with latency at or below each of the workload's bucket bounds
  // (RunOptions::timeline_latency_bounds_ms; empty without), cumulative like a Prometheus
  // histogram's buckets; the count of the last bound at most `completed`.
  std::vector<int64_t> latency_at_or_below;
};

struct WorkloadTimeline {
  std::string name;
  std::string namespace_;
  int desired = 0;  // replicas
  std::vector<TimelinePoint> points;
  // Over the whole run (t = 0 to its end):
  double available_fraction = 0;  // time-average of min(available, desired) / desired
  SimTime below_desired_ns = 0;   // time with fewer available pods than desired
  SimTime unavailable_ns = 0;     // time with no available pod
};

// A card over time: fractions of the step (busy: >= 1 pod with a job in service; effective:
// Σ shares, as CardResult) and its memory (time-average and peak within the step, MiB).
struct CardTimelinePoint {
  SimTime start = 0;
  double busy = 0, effective = 0;
  double memory_used_mib = 0;
  int64_t memory_peak_mib = 0;
};

struct CardTimeline {
  std::string node;
  int index = 0;
  std::string gpu;
  std::vector<CardTimelinePoint> points;
};

// A node pool over time: the time-average of its size (the nodes that exist) over each step.
struct PoolTimelinePoint {
  SimTime start = 0;
  double nodes_mean = 0;
};

struct PoolTimeline {
  std::string name;
  std::vector<PoolTimelinePoint> points;
};

struct RunTimeline {
  SimTime step = 0;                         // 0: not collected
  SimTime end = 0;                          // the run's end
  std::vector<WorkloadTimeline> workloads;  // scenario order
  std::vector<CardTimeline> cards;          // node order, then card index (as RunResult::cards)
  std::vector<PoolTimeline> pools;          // the autoscaled pools, scenario order
};

// A node pool over the run. Its size counts the nodes that exist (an autoscaler's new node from
// its scale-up, a removed one until its last pod left); a pool without `autoscaling` keeps
// `count`. In a variant summary each value is the mean over the replications.
struct PoolResult {
  std::string name;
  bool autoscaled = false;
  double nodes_start = 0, nodes_end = 0, nodes_min = 0, nodes_max = 0;
  double nodes_mean = 0;   // time-average over the run
  double node_hours = 0;   // ∫ size dt over the run, warm-up included
  double nodes_added = 0;  // by the autoscaler
  double nodes_removed = 0;
  // Spot pools (NodePool::spot) only: instances the provider released, scale-ups given up on
  // (a stock-out's node that never registered), and the node-hours of the pay-as-you-go nodes
  // created instead of spot ones (compensate_with_on_demand), which `cost` prices on-demand.
  bool spot = false;
  double nodes_reclaimed = 0;
  double failed_scale_ups = 0;
  double on_demand_node_hours = 0;
  // With a price file (`--prices`, docs/prices.md): node_hours priced at the instance's monthly
  // price / 730 h. Empty currency: not priced.
  std::string currency;
  std::string instance_type;  // the price file's instance that priced it
  std::string pricing;        // on_demand | spot
  double cost = 0;
};

struct RunResult {
  std::vector<WorkloadResult> workloads;  // in scenario order
  std::vector<CardResult> cards;          // node order, then card index
  std::vector<PodResult> pods;            // workload order, then replica ordinal
  ClusterResult cluster;
  uint64_t events_processed = 0;
  uint64_t requests_simulated = 0;    // all arrivals, warm-up included
  FragmentationResult fragmentation;  // after placement
  RunTimeline timeline;               // RunOptions::timeline_step > 0
  std::vector<PoolResult> pools;      // scenario order
  SimTime end = 0;                    // when the run ended (RunOptions / ClusterControl)
};

}  // namespace knobsim
