// RunRecorder: the observer that turns one run into its RunResult.
//
// The kernel and the controllers tell it what happened, it keeps the counts and the integrals:
//  * Arrived / Departed: every request, with its fate (completed, or failed by one
//    ErrorCounts cause). Only requests that arrived after the warm-up are counted in the
//    results; the timeline (RunOptions::timeline_step > 0) counts every one, in the step of its
//    arrival or departure.
//  * IntegrateAvailability(w): called just BEFORE workload w's endpoints change (its Ready,
//    available or Pending pods, sim/controllers/endpoints.h) or its desired replicas; integrates
//    the counts they had since the last change, for the timeline and the availability figures
//    (from the warm-up on).
//  * PodEvent / NodeEvent / Event: the cluster events of the results (the first 1000).
// Collect() builds the RunResult once the clock stands at the end: the workloads (latency
// quantiles, SLO), the cards (busy/effective/switch time and memory from card sharing), the pods
// that exist at the end, the cluster totals and the timeline. It reads the engine's tables and
// never changes them.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/engine/engine_state.h"
#include "sim/latency_histogram.h"
#include "sim/prefetch.h"
#include "sim/results.h"
#include "sim/scheduler/fgd/fragmentation_report.h"

namespace knobsim::engine {

class CardSharing;

class RunRecorder {
 public:
  explicit RunRecorder(const EngineState& state);

  // A request of workload w arrived now; `counted`: after the warm-up.
  void Arrived(int32_t w, bool counted);
  // A hint: the records Arrived and Departed read for workload w will be wanted soon.
  void Prefetch(int32_t w) const;
  // A request of workload w that arrived at `arrival` and whose job entered service at
  // `gpu_start` (-1: never) left now: success, or failure by `cause`.
  void Departed(int32_t w, SimTime arrival, SimTime gpu_start, bool counted, bool success,
                int64_t ErrorCounts::*cause);
  void IntegrateAvailability(int32_t w);
  // A closed-loop job's iteration counted after the warm-up succeeded before the job was done (a
  // step); its GPU phase would have taken solo_gpu_ns alone on a whole card
  // (sim/controllers/closed_loops.h).
  void IterationSucceeded(int32_t w, double solo_gpu_ns);
  // The job reached its steps now.
  void JobCompleted(int32_t w);

  void PodEvent(const char* kind, int32_t p, std::string message);
  // A pod the scheduler preempted: its Preempted event, counted in ClusterResult.
  void PodPreempted(int32_t p, std::string message);
  void NodeEvent(const char* kind, int32_t n, std::string message);  // "node <name> <message>"
  void Event(const std::string& kind, const std::string& pod, const std::string& message);
  void SetFragmentation(FragmentationResult fragmentation);

  // At the end of the run (now == end). Advances the cards to the end first.
  RunResult Collect(CardSharing& sharing);

 private:
  // One step of a workload's timeline while it is collected.
  struct TimelineStep {
    int64_t arrivals = 0;
    int64_t completed = 0;
    ErrorCounts errors;
    double latency_sum_ms = 0;
    double wait_sum_ms = 0;
    LatencyHistogram histogram;
    // Successes per latency bucket (WorkloadMetrics::bounds_ms): index i counts latencies in
    // (bounds[i-1], bounds[i]], the last those above every bound. Empty without bounds.
    std::vector<int64_t> in_bucket;
    double available_ns = 0;  // ∫ available pods dt over the step
    double ready_ns = 0;
    double desired_ns = 0;  // ∫ desired replicas dt
    double pending_ns = 0;  // ∫ Pending pods dt
    int available_min = std::numeric_limits<int>::max();
    int pending_max = 0;  // over the stretches of the step with a length
  };
  struct WorkloadMetrics {
    WorkloadResult result;
    int64_t in_system = 0;  // counted requests in the system
    SimTime in_system_last = 0;
    double in_system_integral = 0;
    int64_t departures = 0;
    double time_in_system_sum_ns = 0;
    double latency_sum_ms = 0;
    double wait_sum_ms = 0;
    LatencyHistogram wait_histogram;
    // availability
    SimTime available_last = 0;        // integrated up to here
    double available_fraction_ns = 0;  // ∫ min(available, desired) / desired dt
    double below_desired_ns = 0;
    double unavailable_ns = 0;
    std::vector<TimelineStep> timeline;
    std::vector<double> bounds_ms;  // RunOptions::timeline_latency_bounds_ms of the workload
    // A closed-loop job's steps counted after the warm-up, and the Σ of their solo GPU phases.
    int64_t steps = 0;
    double solo_gpu_sum_ns = 0;
  };

  TimelineStep& StepAt(WorkloadMetrics& m, SimTime t);
  static void CountInBucket(const WorkloadMetrics& m, TimelineStep& step, double ms);
  void AccountInSystem(WorkloadMetrics& m);
  void CollectWorkloads(RunResult& result);
  void CollectClosedLoop(size_t w, WorkloadResult& r) const;
  void CollectCards(CardSharing& sharing, RunResult& result);
  void CollectPods(RunResult& result);
  RunTimeline CollectTimeline(const CardSharing& sharing);
  std::vector<CardTimeline> CollectCardTimelines(const CardSharing& sharing, size_t steps) const;

  const EngineState& s_;
  std::vector<WorkloadMetrics> workloads_;  // by workload index
  ClusterResult cluster_;
  FragmentationResult fragmentation_;
};

// ---------------------------------------------------------------------------------------------
// Inline definitions (the hot path: once or twice per request)

inline RunRecorder::TimelineStep& RunRecorder::StepAt(WorkloadMetrics& m, SimTime t) {
  const size_t k = static_cast<size_t>(t / s_.options.timeline_step);
  if (m.timeline.size() <= k) m.timeline.resize(k + 1);
  return m.timeline[k];
}

inline void RunRecorder::AccountInSystem(WorkloadMetrics& m) {
  const SimTime now = s_.now;
  if (now > m.in_system_last) {
    m.in_system_integral +=
        static_cast<double>(m.in_system) * static_cast<double>(now - m.in_system_last);
    m.in_system_last = now;
  }
}

inline void RunRecorder::Prefetch(int32_t w) const {
  const WorkloadMetrics& m = workloads_[static_cast<size_t>(w)];
  knobsim::Prefetch(&m.result.requests);
  knobsim::Prefetch(&m.in_system);
  knobsim::Prefetch(&m.wait_histogram);
  knobsim::Prefetch(&m.result.histogram);
}

inline void RunRecorder::Arrived(int32_t w, bool counted) {
  WorkloadMetrics& m = workloads_[w];
  if (s_.options.timeline_step > 0) ++StepAt(m, s_.now).arrivals;
  if (counted) {
    AccountInSystem(m);
    ++m.result.requests;
    ++m.in_system;
  }
}

inline void RunRecorder::Departed(int32_t w, SimTime arrival, SimTime gpu_start, bool counted,
                                  bool success, int64_t ErrorCounts::*cause) {
  WorkloadMetrics& m = workloads_[w];
  const SimTime now = s_.now;
  // A success always went through the GPU; its wait is 0 if a record ever lacked the start.
  const double wait_ms = gpu_start >= arrival ? static_cast<double>(gpu_start - arrival) / 1e6 : 0;
  if (s_.options.timeline_step > 0) {
    TimelineStep& step = StepAt(m, now);
    if (success) {
      const double ms = static_cast<double>(now - arrival) / 1e6;
      ++step.completed;
      step.latency_sum_ms += ms;
      step.wait_sum_ms += wait_ms;
      step.histogram.Record(ms);
      if (!m.bounds_ms.empty()) CountInBucket(m, step, ms);
    } else {
      ++(step.errors.*cause);
    }
  }
  if (!counted) return;
  AccountInSystem(m);
  --m.in_system;
  ++m.departures;
  const SimTime sojourn = now - arrival;
  m.time_in_system_sum_ns += static_cast<double>(sojourn);
  if (success) {
    ++m.result.completed;
    const double ms = static_cast<double>(sojourn) / 1e6;
    m.latency_sum_ms += ms;
    m.wait_sum_ms += wait_ms;
    m.result.histogram.Record(ms);
    m.wait_histogram.Record(wait_ms);
  } else {
    ++(m.result.errors.*cause);
  }
}

}  // namespace knobsim::engine
