// CapacitySearch: the smallest size (node count) at which a monotone predicate holds — "every
// workload meets its SLO" — found with few evaluations, because each one is a set of replicated
// simulations.
//
// The search starts at a lower bound (an analytic estimate from the offered load,
// OfferedLoadNodes), grows geometrically while the size misses, then bisects between the last
// miss and the first meet. When the estimate already meets, it shrinks geometrically until a
// size misses (or 1 meets) and bisects the same way, so the answer is the smallest size, not just
// a size that works. Every size is evaluated at most once and recorded in the order tried; it is
// never a scan. Monotonicity (more nodes never hurt) is the assumption that makes the answer exact;
// a predicate that is not monotone still gets a size that meets, next to one that misses.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace knobsim {

struct CapacitySearchSettings {
  int lower_bound = 1;  // where to start (clamped to 1..max_nodes)
  int max_nodes = 256;  // the largest size tried; beyond it the answer is "infeasible"
  double growth = 2.0;  // factor between sizes while growing or shrinking (> 1)
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

// The analytic starting point: ceil(load / (cards_per_node * target_utilization)), at least 1,
// where `load` is the offered work in card-seconds per second (Σ λ · E[work] / speed). Below it the
// cards would have to run busier than the target, which a latency SLO rarely allows.
int OfferedLoadNodes(double load, int cards_per_node, double target_utilization);

}  // namespace knobsim
