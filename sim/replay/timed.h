// The timed replay (`knobsim replay --timed`, docs/replay.md "Timed replay"): the trace's own
// creation and deletion times drive arrivals and departures through the event engine
// (sim/event_queue.h), under the same policies and placement code as the paper's protocol
// (sim/replay/placer.h), so a user sees what a policy does to a living cluster, not only to one
// that fills up.
//
// The rules, in full:
// - Pod p arrives at creation_time / compress (seconds; `compress` > 1 packs the arrivals
//   closer and so loads the cluster more) and, if it has a deletion_time, leaves its lifetime
//   later: at arrival + (deletion_time − creation_time), a lifetime never below 0. Without a
//   deletion_time it stays to the end.
// - At one instant: first the departures of pods that arrived earlier, then the arrivals in
//   name order, then the departures of pods that arrived at that same instant. A pod leaving at
//   t thus frees its place for a pod arriving at t, and a pod created and deleted in the same
//   second still arrives before it leaves.
// - An arriving pod is placed at once (§3's filters, the policy's score and card choice) or
//   becomes Pending.
// - Retry rule: after every departure of a running pod, the Pending pods are tried again, one by
//   one in arrival order, each through the full pipeline. Nothing else frees resources, so a
//   Pending pod can only have become feasible on the node just freed: a pod that does not fit
//   there is skipped without scoring, which changes no outcome (TimedOptions::retry_all turns
//   the shortcut off; a test checks both agree).
// - A Pending pod reaching its deletion time leaves the queue (withdrawn, never placed).
// - The lifetime is the trace's: a pod that waited leaves at the same time it would have had it
//   started at once.
// - The seed orders ties between equal node scores (node ranks = Go's Perm over the name-sorted
//   nodes, drawn right after seeding) and feeds 01-Random's draws; arrivals are not shuffled and
//   nothing is tuned.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event_queue.h"
#include "sim/input_error.h"
#include "sim/replay/placer.h"
#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::replay {

// Why a Pending pod fits no node, in the spirit of FailedScheduling's "0/1213 nodes are
// available: 1186 Insufficient GPU, 26 Insufficient cpu, …": each node fails a first filter in
// the order card fit, CPU, memory, pod count, and the pod's reason is the one most nodes of
// the models it allows fail (ties to the earlier filter). GPU-spec mismatch comes first when a
// node of an excluded model would take the pod, or no node has an allowed model: then the
// constraint, not the cluster's capacity, keeps it out.
enum class PendingReason {
  kInsufficientGpu,     // most nodes lack the free cards (or card share)
  kGpuSpecMismatch,     // only a node of a model gpu_spec excludes would take it
  kInsufficientCpu,     // most nodes have the cards but not the CPU
  kInsufficientMemory,  // most nodes have the cards and CPU but not the memory
  kTooManyPods,         // most nodes have everything but a free pod slot (1001 pods)
};
inline constexpr int kPendingReasons = 5;

// "insufficient GPU", "gpu_spec mismatch", ...; and the CSV column, "pending_insufficient_gpu".
std::string_view PendingReasonName(PendingReason reason);
std::string_view PendingReasonColumn(PendingReason reason);

// The reason pod `p` fits nowhere in `placer`'s cluster; nullopt when some node takes it.
std::optional<PendingReason> WhyPending(const Placer& placer, const fgd::PodRequest& pod);

// `interval` and `until` must be at most 1e18 ns (the command line checks), so that the sample
// clock never overflows.
struct TimedOptions {
  SimTime interval = 3600 * kNanosPerSecond;  // between samples (trace time), > 0
  double compress = 1;                        // arrivals `compress` times denser, >= 1
  // Stop here (> 0): later events are not run, the samples end at the last multiple of
  // `interval` not after it. For a look at the busy stretch of a compressed trace, whose few
  // months-long pods would otherwise keep the run going for months.
  SimTime until = 0;
  bool retry_all = false;     // retry every Pending pod through the full pipeline (tests)
  bool record_steps = false;  // fill TimedResult::steps
};

// The state just after every event at or before `time`.
struct TimedSample {
  SimTime time = 0;
  int running = 0;
  int pending = 0;
  int64_t used = 0;                            // Σ GPU request of the running pods (milli)
  int64_t pending_gpu = 0;                     // Σ GPU request of the Pending pods (milli)
  double frag = 0;                             // the cluster's fragmented GPU F (milli, §5.3)
  double idle = 0;                             // the idle GPU the classes account for (milli)
  std::array<int, kPendingReasons> reasons{};  // Pending pods by reason
};

enum class StepKind {
  kPlaced,     // arrived and placed at once
  kPending,    // arrived, fits nowhere
  kRetried,    // a Pending pod placed after a departure
  kDeparted,   // a running pod left
  kWithdrawn,  // a Pending pod reached its deletion time
};

struct TimedStep {
  SimTime time = 0;
  StepKind kind = StepKind::kPlaced;
  int pod = 0;    // Workload::pods index
  int node = -1;  // Workload::nodes index, where there is one
};

// Time averages from the first arrival to the end of the run (the last event, or
// TimedOptions::until): exact integrals over the events, not means of the samples. For a run
// that is over in one instant, the state it leaves.
struct TimedAverages {
  double used = 0;     // milli-GPU allocated
  double frag = 0;     // milli-GPU fragmented (F)
  double pending = 0;  // Pending pods
};

struct TimedResult {
  // At 0, interval, 2·interval, …: up to the first at or after the last event, or with
  // TimedOptions::until, up to the last at or before it.
  std::vector<TimedSample> samples;
  std::vector<TimedStep> steps;  // every step in order, with TimedOptions::record_steps
  SimTime end = 0;               // the last event's time
  SimTime first_arrival = 0;
  TimedAverages averages;
  int64_t peak_used = 0;  // after any event (samples may miss a short peak)
  int peak_pending = 0;
  int arrived = 0;
  int placed_at_once = 0;
  int placed_after_wait = 0;
  double wait_seconds = 0;  // Σ time from arrival to placement of the pods that waited
  int withdrawn = 0;        // deleted while Pending
  int pending_at_end = 0;   // Pending when the events ran out (or at `until`)
};

// Whether `w`'s pods can be replayed by time: every pod needs a creation_time (the 5-column
// multigpu files have none), and times must stay within the clock's range. The error names
// `w`'s file (`file`) and the pod's line.
Status CheckTimes(const Workload& w, const std::string& file);

// Where the samples end: `until` if set, else the time of the last event (0 for no pods).
SimTime TimedEnd(const Workload& w, const TimedOptions& options);

TimedResult ReplayTimed(const Workload& w, fgd::PolicyKind policy, int64_t seed,
                        const TimedOptions& options);

}  // namespace knobsim::replay
