// NodeResourcesBalancedAllocation score (docs/semantics.md §3.6, upstream
// noderesources/balanced_allocation.go): on the actual requests (no non-zero defaults), the
// fractions f = min(1, requested/allocatable) of cpu and memory after placing the pod; score =
// int((1 − std)×100) with std = |f_cpu − f_mem|/2 (0 when fewer than two resources have
// allocatable). Weight 1 (§3.1).
//
// Best-effort pods (no cpu and no memory request): upstream's PreScore returns Skip since
// kubernetes#129138 (1.33), so the plugin adds nothing to any node, and its Score without
// PreScore state returns 0 for them. Here Skipped() says so and Score returns 0 — the same
// totals — whatever the Kubernetes version setting; older releases scored them (1 − std)×100,
// a constant shift only where every node has the same fractions.
#include <cmath>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/resource_allocation.h"

namespace knobsim {
namespace {

class BalancedAllocationScore final : public ScorePlugin {
 public:
  std::string_view Name() const override { return "NodeResourcesBalancedAllocation"; }
  int Weight() const override { return 1; }

  void PreScore(const PodSpec& pod, const ClusterState&, std::span<const int>) override {
    pod_ = CpuMemoryOf(pod.requests);
    best_effort_ = pod_.cpu == 0 && pod_.memory == 0;
  }

  int64_t Score(const PodSpec&, const ClusterState& cluster, int node) const override {
    if (best_effort_) return 0;
    const NodeState& n = cluster.node(node);
    const CpuMemory& allocatable = allocatable_.Of(cluster, node);
    const CpuMemory requested = CpuMemoryOf(n.requested);
    const int64_t req[2] = {requested.cpu + pod_.cpu, requested.memory + pod_.memory};
    const int64_t alloc[2] = {allocatable.cpu, allocatable.memory};
    double fractions[2];
    int count = 0;
    for (int r = 0; r < 2; ++r) {
      if (alloc[r] == 0) continue;
      const double f = static_cast<double>(req[r]) / static_cast<double>(alloc[r]);
      fractions[count++] = f > 1 ? 1 : f;
    }
    // Same float64 operations as upstream, so the truncation lands on the same integer.
    const double std_dev = count == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0.0;
    return static_cast<int64_t>((1 - std_dev) * 100.0);
  }

  bool Skipped() const override { return best_effort_; }

 private:
  CpuMemory pod_;
  bool best_effort_ = false;
  AllocatableCpuMemory allocatable_;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewBalancedAllocationScore() {
  return std::make_unique<BalancedAllocationScore>();
}

}  // namespace knobsim
