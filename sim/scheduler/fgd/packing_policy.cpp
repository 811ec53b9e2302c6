// 04-GpuPacking (docs/fgd-policies.md §4.4): prefer partly used cards, then nodes with some cards
// in use, then untouched nodes (smaller ones first).
#include <algorithm>

#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

class PackingPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kPacking; }
  int Score(const PodRequest& pod, const NodeState& node) const override {
    if (!pod.wants_gpu()) return 0;
    const int n0 = node.full_cards();
    if (n0 == node.cards) return std::max(33 - n0, n0);
    // Cards in ascending free order, index order on ties (a stable sort).
    std::array<int, kMaxCardsPerNode> order{};
    for (int g = 0; g < node.cards; ++g) order[g] = g;
    std::stable_sort(order.begin(), order.begin() + node.cards,
                     [&](int a, int b) { return node.free[a] < node.free[b]; });
    int taken = 0;
    int fully_free = 0;
    int64_t percent_sum = 0;
    for (int i = 0; i < node.cards && taken < pod.num_gpu; ++i) {
      const int free = node.free[order[i]];
      if (free < pod.milli) continue;
      ++taken;
      if (free == kMilliPerCard) ++fully_free;
      percent_sum += free * 100 / kMilliPerCard;
    }
    if (fully_free > 0) return std::max(50 - fully_free, 33);
    return static_cast<int>(std::max<int64_t>(100 - percent_sum / 10, 50));
  }
};

}  // namespace

std::unique_ptr<Policy> NewPackingPolicy() {
  return std::make_unique<PackingPolicy>();
}

}  // namespace knobsim::fgd
