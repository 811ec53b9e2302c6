// What a plan learns from one simulated configuration (sim/plan/plan.h, "Meets"): each
// workload's SLO bounds over the replications — the one-sided upper confidence bounds of its SLO
// percentile latency, error ratio and overdue ratio against its objective — the cards' use, and
// each node pool's mean size (an autoscaled pool moves).
#pragma once

#include <string>
#include <vector>

#include "sim/plan/plan.h"
#include "sim/run_set.h"
#include "sim/scenario.h"

namespace knobsim {

struct Evaluation {
  bool met = false;
  std::string why_not;                  // when no simulation could run (too few slots)
  std::vector<PlanWorkload> workloads;  // `scenario`'s, in its order
  std::vector<PlanCard> cards;
  // Per pool of `scenario`, its time-average size, the mean over the replications.
  std::vector<double> pool_nodes_mean;
};

// The mean latency at the SLO percentile over the SLO latency (an option's worst_p99_ratio is
// the largest); 0 for a workload without a latency objective or without a success.
double SloLatencyRatio(const PlanWorkload& w);

// `rs` is `scenario` run `replications` times (fewer: stopped early, a miss). Met when every
// workload's bounds are within its objective and, with `pending_misses`, no pod was left Pending
// in any replication (a fixed deployment's pod that never found room; under the autoscaler a
// pod can be Pending at the end while its node joins).
Evaluation AssessRuns(const Scenario& scenario, const RunSetResult& rs, int replications,
                      double confidence, bool pending_misses = true);

}  // namespace knobsim
