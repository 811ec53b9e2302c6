// What a plan learns from one simulated configuration (sim/plan/plan.h, "Meets"): each
// workload's SLO bounds over the replications — the one-sided upper confidence bounds of its SLO
// percentile latency, error ratio and overdue ratio against its objective — the cards' use, and
// each node pool's mean size (an autoscaled pool moves).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
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

// The evaluations of a plan, shared by its planning threads (one per cell being planned), keyed
// by what a simulation depends on: group, traffic, GPU type, POLICY, placement, spot, density,
// nodes and the elastic floor (-1 for the fixed deployment); on-demand and reserved cells share
// runs. The first thread to ask for a key computes it; one asking meanwhile waits for that answer
// instead of simulating the same size again. An evaluation is a function of its key alone, so
// which thread computes it changes nothing but the schedule.
class EvaluationCache {
 public:
  using Key = std::tuple<int, double, std::string, int, std::string, bool, int, int, int>;

  // The evaluation of `key`, from `compute` (on this thread) when no thread has asked for it yet.
  // The reference stays valid for the cache's life. A `compute` that throws makes every asker of
  // the key throw the same.
  const Evaluation& Get(const Key& key, const std::function<Evaluation()>& compute);

 private:
  struct Slot {
    bool ready = false;
    std::exception_ptr failure;
    Evaluation evaluation;
  };
  std::mutex mu_;
  std::condition_variable ready_cv_;
  std::map<Key, Slot> slots_;
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
