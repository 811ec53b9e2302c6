// RunSet: the sweep behind one `knobsim run` — the base scenario and the chosen variants, each
// replicated R times — run in parallel and summarized per variant.
//
// Every (variant, replication) pair is one independent job. Jobs run on OpenMP threads (or on a
// shared JobPool, sim/job_pool.h), the variants estimated longest first (EstimatedEvents), and
// each result is stored at its job's index, never appended in completion order, so the summary
// is the same whatever the thread count. Replication r of every variant uses ReplicationSeed(seed,
// r): variants are paired by seed and see common random numbers (docs/design.md §3.1).
//
// Summaries (docs/design.md §3.5): every numeric workload and card field becomes the mean over the
// replications and its 95 % half-width (Student t, sim/replication_stats.h). Latency percentiles
// are the mean of the per-replication percentiles, over the replications that completed at least
// one request. Pods, cluster state and fragmentation are those of replication 0.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/job_pool.h"
#include "sim/replication_stats.h"
#include "sim/results.h"
#include "sim/run_limits.h"
#include "sim/scenario.h"

namespace knobsim {

// The name of the unchanged scenario in every run set, results table and results document.
inline constexpr std::string_view kBaseVariant = "base";

using SimulateFn = std::function<RunResult(const Scenario&, uint64_t seed)>;
using ProgressFn = std::function<void(int done, int total)>;

struct RunSetOptions {
  std::vector<std::string> variants;  // variant names to run after the base, in this order
  int replications = 1;               // R >= 1
  uint64_t seed = 1;
  int threads = 0;      // OpenMP threads; 0 = the OpenMP default
  SimulateFn simulate;  // empty = knobsim::Simulate (tests inject a fake)
  ProgressFn progress;  // after each finished job, one call at a time; may be empty
  // > 0: the default simulate records RunResult::timeline with this step; also what the timeline
  // memory estimate of CheckRunSetLimits reads when `simulate` records one itself.
  SimTime timeline_step = 0;
  RunLimits limits;  // checked before any job runs (sim/run_limits.h)
  // Sequential stopping, for a set without variants (the planner's, sim/plan/plan.h): when set,
  // the replications are queued in replication order and after each one finishes (unless it is
  // the last) `stop` sees the runs finished so far, in the order they finished; true cancels the
  // replications not yet started, and the set is summarized over the runs `stop` saw (in
  // replication order; one still running then is left out). Which runs have finished when it stops
  // depends on the thread count and the schedule, so `stop` may say true only where the caller's
  // conclusion cannot depend on the runs not made (and must not depend on their order).
  std::function<bool(const std::vector<RunResult>& finished)> stop;
  // Where the jobs run: a pool shared with other run sets (the planner's cells), the set's jobs
  // queued at `pool_rank` (JobPool::Run); nullptr = threads of this set's own (`threads`).
  JobPool* pool = nullptr;
  int64_t pool_rank = 0;
};

struct ErrorStats {
  MeanCi oom, fake_ready, timeout, no_replica, interrupted;
};

struct LatencyStats {  // milliseconds
  MeanCi mean, p50, p90, p99, p999;
};

// A closed-loop job over the replications (ClosedLoopResult): the iteration figures over the
// replications with a counted success, the completion time over those that completed.
struct ClosedLoopStats {
  MeanCi steps_done;
  int completed_replications = 0;
  MeanCi completion_s;
  int stepping_replications = 0;
  MeanCi steps_per_s, step_ms_mean, solo_step_ms, slowdown;
};

// One workload over the replications of one variant.
struct WorkloadStats {
  std::string name;
  std::string namespace_;
  MeanCi requests, completed;
  ErrorStats errors;
  int latency_replications = 0;  // replications with >= 1 success: latency is over these only
  LatencyStats latency_ms;
  MeanCi throughput_rps;
  MeanCi error_ratio;
  MeanCi slo_latency_ms;
  MeanCi queue_wait_ms_mean, queue_wait_ms_p99, service_ms_mean;  // successes (WorkloadResult)
  int slo_met_replications = 0;
  bool slo_met = false;  // met in every replication
  // How many replications met each rule of sim/slo_check.h (slo_met_replications: all three).
  int latency_met_replications = 0, errors_met_replications = 0, backlog_met_replications = 0;
  int nothing_left_replications = 0;  // replications where no request left the system
  MeanCi in_system_end, in_system_mean, measured_s, time_in_system_mean_ms;
  MeanCi in_system_overdue, in_system_oldest_ms;  // sim/results.h
  Slo slo;  // the objective, from the scenario this variant ran
  bool closed_loop = false;  // a closed-loop job: `loop` summarises its progress
  ClosedLoopStats loop;
};

// One card over the replications of one variant (cards are the same in every replication).
struct CardStats {
  std::string node;
  int index = 0;
  std::string gpu;
  MeanCi busy, effective, switch_overhead, waste;
  int64_t memory_physical_mib = 0;
  MeanCi memory_quota_mib, memory_used_mib, memory_peak_mib;
  std::vector<std::string> pods;  // replication 0
};

struct VariantSummary {
  std::string name;  // "base" for the unchanged scenario
  std::string description;
  int replications = 0;
  std::vector<RunResult> runs;  // index = replication
  std::vector<WorkloadStats> workloads;
  std::vector<CardStats> cards;
  std::vector<PodResult> pods;        // replication 0
  ClusterResult cluster;              // replication 0
  FragmentationResult fragmentation;  // replication 0
  std::vector<PoolResult> pools;      // means over the replications
};

struct RunSetResult {
  std::string scenario;  // scenario name
  uint64_t seed = 0;
  int replications = 0;
  SimTime duration = 0;
  SimTime warmup = 0;
  std::vector<VariantSummary> variants;  // base first, then the requested variants in order
  // Each worker thread's busy seconds (RunJobs, JobPool::BusySeconds): how evenly the jobs were
  // spread, for benchmarks; no document writes it.
  std::vector<double> worker_busy_s;
};

// The parallel job loop of RunSet, for every sweep of independent jobs (RunSet, a shard of one):
// runs job(0) .. job(count - 1) once each on `threads` OpenMP threads (0 = the OpenMP default;
// never more than `count`), in any order, and calls `progress(done, count)` after each job, one
// call at a time (a progress that throws is ignored). A job's exception never leaves the
// parallel region: each is kept at its job's index, and once every job has run the first by index
// is rethrown, so which failure is reported does not depend on the thread count. `job` must
// store its result at its index, never append. Returns each thread's busy seconds (its CPU time
// inside jobs, ThreadCpuSeconds): the sweep's load balance is max / (sum / threads).
std::vector<double> RunJobs(int count, int threads, const std::function<void(int job)>& job,
                            const ProgressFn& progress = {});

// The threads a sweep runs on when asked for `threads`: itself when positive, else the OpenMP
// default (OMP_NUM_THREADS, else the cores); at least 1.
int ResolveThreads(int threads);

// The variant of `scenario` named `name`; nullptr when there is none.
const Variant* FindVariant(const Scenario& scenario, std::string_view name);

// Whether the sweep RunSet(scenario, options) would run stays within options.limits
// (sim/run_limits.h): the first limit exceeded, with the estimate, when not. Unknown variant
// names are skipped here (RunSet refuses them).
Status CheckRunSetLimits(const Scenario& scenario, const RunSetOptions& options);

// Runs the base and `options.variants` (the names must exist: see FindVariant; "base" and repeats
// are skipped) with `options.replications` replications each (fewer when `options.stop` ends the
// set: RunSetResult::replications says how many). Throws std::invalid_argument on an
// unknown variant name, replications < 1 or a sweep over its limits (CheckRunSetLimits, before
// any job runs), and rethrows the first failing job's exception (by job
// index, so which one is reported does not depend on the thread count either).
RunSetResult RunSet(const Scenario& scenario, const RunSetOptions& options);

// Summarizes runs that already exist (index = replication); RunSet's second half, exposed for
// tests and for merging shards later.
VariantSummary SummarizeVariant(std::string name, std::string description, const Scenario& resolved,
                                std::vector<RunResult> runs);

// The pods (namespace/name) Pending at the end of any replication of `v`: replication 0's in
// its pod order, then those only later replications have. What `--fail-on-slo` fails on beside
// the SLOs (a workload that fits nowhere may still meet an errors-only objective with no traffic,
// or serve from the replicas that did fit).
std::vector<std::string> PendingPods(const VariantSummary& v);

}  // namespace knobsim
