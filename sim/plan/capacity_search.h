// CapacitySearch: the smallest size (node count) at which a monotone predicate holds — "every
// workload meets its SLO" — found with few evaluations, because each one is a set of replicated
// simulations.
//
// The search starts at a guess of the answer (the planner's queueing estimate, or the answer of a
// neighbouring density or traffic level) and gallops: while the size misses it moves up by 1, then
// by steps that grow geometrically, until a size meets; when the guess already meets it moves down
// the same way until a size misses (or 1 meets). It then bisects between the last miss and the
// first meet, so the answer is the smallest size, not just a size that works. A guess d nodes off
// costs about 2 log2(d) evaluations, a right one two (the answer meets, one node fewer misses).
// Every size is evaluated at most once and recorded in the order tried; it is never a scan.
// Monotonicity (more nodes never hurt) is the assumption that makes the answer exact, and with it
// the answer does not depend on the guess; a predicate that is not monotone still gets a size that
// meets, next to one that misses.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace knobsim {

struct CapacitySearchSettings {
  int start = 1;        // the guess, tried first (clamped to 1..max_nodes)
  int max_nodes = 256;  // the largest size tried; beyond it the answer is "infeasible"
  double growth = 2.0;  // factor between successive steps while moving away from the guess (> 1)
};

struct SearchStep {
  int nodes = 0;
  bool met = false;
};

struct CapacitySearchResult {
  std::optional<int> nodes;       // the smallest size that meets; empty when none does
  std::string reason;             // why not, when empty
  std::vector<SearchStep> steps;  // every evaluation, in the order made
};

// `meets(n)` evaluates size n (n >= 1); it is called at most once per size.
CapacitySearchResult FindSmallestSize(const CapacitySearchSettings& settings,
                                      const std::function<bool(int)>& meets);

// ceil(load / (cards_per_node * target_utilization)), at least 1, where `load` is offered work in
// card-seconds per second (Σ λ · E[work] / speed): the nodes whose cards run at the target
// utilization. The planner weighs each workload's load by its own target (sim/plan/plan.h).
int OfferedLoadNodes(double load, int cards_per_node, double target_utilization);

}  // namespace knobsim
