// What `knobsim replay --timed` writes: one CSV per run (the samples of sim/replay/timed.h),
// the run matrix in parallel, and the short table of medians over seeds on stdout.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sim/replay/timed.h"
#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/policy.h"
#include "sim/shard.h"

namespace knobsim::replay {

// "timed_openb_pod_list_default_fgd_42.csv": workload stem, policy name, seed.
std::string TimedCsvName(const std::string& workload, fgd::PolicyKind policy, int64_t seed);

// One row per sample:
//   time_s,running_pods,pending_pods,allocated_gpu_pct,pending_gpu_pct,frag_gpu_pct,
//   frag_ratio_pct,pending_insufficient_gpu,…,pending_too_many_pods
// GPU amounts as % of the cluster's capacity (`capacity_milli`), frag_ratio as % of the idle
// GPU (the replay's frag amount and ratio, §2.5), with 2 decimals; time in seconds of the
// (compressed) trace clock.
std::string FormatTimedCsv(const TimedResult& result, int64_t capacity_milli);

// One run in a few numbers: time averages from the first arrival to the end (TimedAverages),
// peaks over all events, and the waits.
struct TimedSummary {
  double alloc_mean = 0;  // allocated GPU, % of capacity
  double alloc_peak = 0;
  double frag_mean = 0;  // fragmented GPU, % of capacity
  double pending_mean = 0;
  int pending_peak = 0;
  int waited = 0;        // placed after waiting
  double mean_wait = 0;  // seconds, over the pods that waited
  int never = 0;         // withdrawn or still Pending at the end
};
TimedSummary Summarize(const TimedResult& result, int64_t capacity_milli);

struct TimedRun {
  const Workload* workload = nullptr;
  fgd::PolicyKind policy = fgd::PolicyKind::kFgd;
  int64_t seed = 0;
  TimedSummary summary;
};

// Called from worker threads, one call per finished run, possibly concurrently: it must only
// touch what belongs to its run (e.g. write the run's file).
using TimedSink = std::function<void(const TimedRun& run, const TimedResult& result)>;
// Called from one thread at a time after each run.
using TimedProgress = std::function<void(int done, int total)>;

// Every workload × policy × seed, in parallel (`threads` <= 0: OpenMP's default). Returns the
// runs in workload, policy, seed order, whatever the thread count. With a `shard`, only the
// runs it owns (run j is the j-th in that order, as RunSweep's).
std::vector<TimedRun> RunTimedSweep(std::span<const Workload> workloads,
                                    std::span<const fgd::PolicyKind> policies,
                                    std::span<const int64_t> seeds, const TimedOptions& options,
                                    int threads, const TimedSink& sink,
                                    const TimedProgress& progress = {}, const Shard& shard = {});

// Per workload and policy, the median over seeds of each summary number.
std::string FormatTimedTable(std::span<const TimedRun> runs);

}  // namespace knobsim::replay
