#include "sim/replay/timed_output.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/replay/medians.h"
#include "sim/run_set.h"
#include "sim/text.h"

namespace knobsim::replay {

using fgd::PolicyKind;
using fgd::PolicyName;

namespace {

// Seconds exactly: "3600", "1.5", "0.000000001" (the clock is in nanoseconds).
std::string Seconds(SimTime t) {
  std::string s = std::to_string(t / kNanosPerSecond);
  int64_t ns = t % kNanosPerSecond;
  if (ns == 0) return s;
  std::string frac = fmt::format("{:09d}", ns);
  while (frac.back() == '0') frac.pop_back();
  return s + "." + frac;
}

double Percent(double part, int64_t whole) {
  return whole > 0 ? 100 * part / static_cast<double>(whole) : 0;
}

}  // namespace

std::string TimedCsvName(const std::string& workload, PolicyKind policy, int64_t seed) {
  return fmt::format("timed_{}_{}_{}.csv", workload, PolicyName(policy), seed);
}

std::string FormatTimedCsv(const TimedResult& result, int64_t capacity_milli) {
  std::string out =
      "time_s,running_pods,pending_pods,allocated_gpu_pct,pending_gpu_pct,frag_gpu_pct,"
      "frag_ratio_pct";
  for (int r = 0; r < kPendingReasons; ++r) {
    out += ',';
    out.append(PendingReasonColumn(static_cast<PendingReason>(r)));
  }
  out += '\n';
  for (const TimedSample& s : result.samples) {
    out += fmt::format("{},{},{},{:.2f},{:.2f},{:.2f},{:.2f}", Seconds(s.time), s.running,
                       s.pending, Percent(static_cast<double>(s.used), capacity_milli),
                       Percent(static_cast<double>(s.pending_gpu), capacity_milli),
                       Percent(s.frag, capacity_milli), s.idle > 0 ? 100 * s.frag / s.idle : 0.0);
    for (int n : s.reasons) out += fmt::format(",{}", n);
    out += '\n';
  }
  return out;
}

TimedSummary Summarize(const TimedResult& result, int64_t capacity_milli) {
  TimedSummary sum;
  sum.alloc_mean = Percent(result.averages.used, capacity_milli);
  sum.alloc_peak = Percent(static_cast<double>(result.peak_used), capacity_milli);
  sum.frag_mean = Percent(result.averages.frag, capacity_milli);
  sum.pending_mean = result.averages.pending;
  sum.pending_peak = result.peak_pending;
  sum.waited = result.placed_after_wait;
  sum.mean_wait = result.placed_after_wait > 0 ? result.wait_seconds / result.placed_after_wait : 0;
  sum.never = result.withdrawn + result.pending_at_end;
  return sum;
}

std::vector<TimedRun> RunTimedSweep(std::span<const Workload> workloads,
                                    std::span<const PolicyKind> policies,
                                    std::span<const int64_t> seeds, const TimedOptions& options,
                                    int threads, const TimedSink& sink,
                                    const TimedProgress& progress, const Shard& shard) {
  std::vector<TimedRun> runs;
  long long job = 0;
  for (const Workload& w : workloads) {
    for (PolicyKind p : policies) {
      for (int64_t s : seeds) {
        if (shard.Owns(job++)) runs.push_back({&w, p, s, {}});
      }
    }
  }
  RunJobs(
      static_cast<int>(runs.size()), threads,
      [&](int i) {
        TimedRun& run = runs[i];
        const TimedResult result = ReplayTimed(*run.workload, run.policy, run.seed, options);
        run.summary = Summarize(result, run.workload->capacity_milli);
        if (sink) sink(run, result);
      },
      progress);
  return runs;
}

std::string FormatTimedTable(std::span<const TimedRun> runs) {
  size_t wl = 8;
  for (const TimedRun& r : runs) wl = std::max(wl, r.workload->name.size());
  std::string out =
      fmt::format("{:<{}}  {:<12} {:>5}  {:>7} {:>7}  {:>7}  {:>8} {:>8}  {:>7} {:>9} {:>7}\n",
                  "workload", wl, "policy", "seeds", "alloc%", "peak", "frag%", "pending", "peak",
                  "waited", "wait (s)", "never");
  // Runs come grouped by workload and policy (RunTimedSweep's order).
  for (size_t i = 0; i < runs.size();) {
    size_t j = i;
    while (j < runs.size() && runs[j].workload == runs[i].workload &&
           runs[j].policy == runs[i].policy) {
      ++j;
    }
    const auto median = [&](auto field) {
      std::vector<double> v;
      for (size_t k = i; k < j; ++k) v.push_back(static_cast<double>(field(runs[k].summary)));
      return *Median(std::move(v));
    };
    out += fmt::format(
        "{:<{}}  {:<12} {:>5}  {:>7.2f} {:>7.2f}  {:>7.2f}  {:>8.1f} {:>8.1f}  {:>7.1f} {:>9.1f} "
        "{:>7.1f}\n",
        runs[i].workload->name, wl, PolicyName(runs[i].policy), j - i,
        median([](const TimedSummary& s) { return s.alloc_mean; }),
        median([](const TimedSummary& s) { return s.alloc_peak; }),
        median([](const TimedSummary& s) { return s.frag_mean; }),
        median([](const TimedSummary& s) { return s.pending_mean; }),
        median([](const TimedSummary& s) { return s.pending_peak; }),
        median([](const TimedSummary& s) { return s.waited; }),
        median([](const TimedSummary& s) { return s.mean_wait; }),
        median([](const TimedSummary& s) { return s.never; }));
    i = j;
  }
  return out;
}

}  // namespace knobsim::replay
