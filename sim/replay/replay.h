// One replay run (docs/fgd-policies.md §2.4, §2.5): the pods of a RunOrder arrive one by one, each
// is placed by the policy or dropped for good, nothing departs, and every event leaves one row of
// metrics.
//
// The placements are sim/replay/placer.h's: the reference's scheduler with its work cached
// (scores, ties and card choices exactly those of the uncached pipeline of §3).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/replay/protocol.h"
#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::replay {

// §2.5's row, with the two fragmentation values as the reference prints them (`%.2f`).
struct EventMetrics {
  int64_t arrived = 0;     // Σ GPU request of the pods so far, placed or not (milli)
  int64_t used = 0;        // Σ GPU request of the placed pods (milli)
  double frag_amount = 0;  // F = Σ_n F_n (milli), rounded to 2 decimals
  double frag_ratio = 0;   // 100·F / idle, rounded to 2 decimals
};

struct RunResult {
  std::vector<EventMetrics> events;
  std::vector<int> node_of_event;  // Workload::nodes index each pod went to; -1 = dropped
  int placed = 0;
  int failed = 0;
  RunOrder order;
};

RunResult Replay(const Workload& workload, fgd::PolicyKind policy, int64_t seed, double tune);

// Rounds like Python's round(x, 2) and Go's `%.2f` (correctly rounded, ties to even).
double Round2(double x);

}  // namespace knobsim::replay
