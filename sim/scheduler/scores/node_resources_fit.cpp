// NodeResourcesFit score (docs/semantics.md §3.6, upstream noderesources/least_allocated.go and
// most_allocated.go): cpu and memory, weight 1 each, on the requests with upstream's non-zero
// defaults (100m cpu, 200Mi memory per container that sets none) — the node's sum plus the
// pod's. LeastAllocated (the default) prefers emptier nodes, MostAllocated fuller ones; a
// resource whose allocatable is 0 drops out of the weighted mean. Plugin weight 1 (§3.1).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/resource_allocation.h"

namespace knobsim {
namespace {

enum class Strategy { kLeastAllocated, kMostAllocated };

// (allocatable − requested)×100 / allocatable, 0 when the request exceeds allocatable.
int64_t LeastRequested(int64_t requested, int64_t allocatable) {
  if (requested > allocatable) return 0;
  return (allocatable - requested) * 100 / allocatable;
}

// min(requested, allocatable)×100 / allocatable.
int64_t MostRequested(int64_t requested, int64_t allocatable) {
  return std::min(requested, allocatable) * 100 / allocatable;
}

class NodeResourcesFitScore final : public ScorePlugin {
 public:
  explicit NodeResourcesFitScore(Strategy strategy) : strategy_(strategy) {}

  std::string_view Name() const override { return "NodeResourcesFit"; }
  int Weight() const override { return 1; }

  int64_t Score(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    const NodeState& n = cluster.node(node);
    const CpuMemory& allocatable = allocatable_.Of(cluster, node);
    const int64_t requested[2] = {n.nonzero_cpu_milli + pod.nonzero_cpu_milli,
                                  n.nonzero_memory_bytes + pod.nonzero_memory_bytes};
    const int64_t capacity[2] = {allocatable.cpu, allocatable.memory};
    int64_t sum = 0;
    int64_t weights = 0;
    for (int r = 0; r < 2; ++r) {
      if (capacity[r] == 0) continue;
      sum += strategy_ == Strategy::kLeastAllocated ? LeastRequested(requested[r], capacity[r])
                                                    : MostRequested(requested[r], capacity[r]);
      weights += 1;  // cpu and memory both weigh 1 in the default resource list
    }
    return weights == 0 ? 0 : sum / weights;
  }

 private:
  Strategy strategy_;
  AllocatableCpuMemory allocatable_;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewNodeResourcesFitScore(const std::string& strategy) {
  if (strategy == "LeastAllocated") {
    return std::make_unique<NodeResourcesFitScore>(Strategy::kLeastAllocated);
  }
  if (strategy == "MostAllocated") {
    return std::make_unique<NodeResourcesFitScore>(Strategy::kMostAllocated);
  }
  std::string message =
      "NodeResourcesFit scoring strategy must be LeastAllocated or MostAllocated, not ";
  message.append(strategy.empty() ? "an empty string" : strategy);
  throw std::invalid_argument(message);
}

}  // namespace knobsim
