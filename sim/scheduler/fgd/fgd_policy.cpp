// 06-FGD (docs/fgd-policies.md §5.4): place the pod where it grows the expected fragmentation
// least. The score is trunc(100·σ((F_n − F_n')/1000)); the truncation is part of the policy, since
// it makes close nodes tie and the node rank decide (§7 pitfall 2).
#include <cmath>

#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

int FragScore(double before, double after) {
  const double x = (before - after) / 1000;
  return static_cast<int>(1.0 / (1.0 + std::exp(-x)) * 100);
}

class FgdPolicy final : public Policy {
 public:
  explicit FgdPolicy(std::span<const TypicalPod> types) : types_(types) {}
  PolicyKind kind() const override { return PolicyKind::kFgd; }
  bool expensive() const override { return true; }

  int Score(const PodRequest& pod, const NodeState& node) const override {
    return Evaluate(pod, node).score;
  }

  CardTake Cards(const PodRequest& pod, const NodeState& node) const override {
    const Choice c = Evaluate(pod, node);
    return c.card >= 0 ? OneCard(c.card, pod) : LowestCards(node, pod);
  }

 private:
  struct Choice {
    int score = 0;
    int card = -1;
  };

  Choice Evaluate(const PodRequest& pod, const NodeState& node) const {
    const double before = NodeFrag(node, types_);
    NodeState after = node;
    after.cpu_free -= pod.cpu;
    if (!pod.shared()) {
      // Which whole cards are zeroed does not change F (§5.4).
      const CardTake take = LowestCards(node, pod);
      for (int g = 0; g < node.cards; ++g) after.free[g] -= take[g];
      return {FragScore(before, NodeFrag(after, types_)), -1};
    }
    // One hypothetical per card that fits; the first card reaching the best truncated score
    // wins. Cards with the same free give the same F', so each free value is tried once.
    Choice best;
    std::array<int, kMaxCardsPerNode> tried_free{};
    std::array<int, kMaxCardsPerNode> tried_score{};
    int tried = 0;
    for (int g = 0; g < node.cards; ++g) {
      if (node.free[g] < pod.milli) continue;
      int score = -1;
      for (int t = 0; t < tried; ++t) {
        if (tried_free[t] == node.free[g]) score = tried_score[t];
      }
      if (score < 0) {
        after.free[g] -= pod.milli;
        score = FragScore(before, NodeFrag(after, types_));
        after.free[g] += pod.milli;
        tried_free[tried] = node.free[g];
        tried_score[tried] = score;
        ++tried;
      }
      if (best.card < 0 || score > best.score) best = {score, g};
    }
    return best;
  }

  std::span<const TypicalPod> types_;
};

}  // namespace

std::unique_ptr<Policy> NewFgdPolicy(std::span<const TypicalPod> types) {
  return std::make_unique<FgdPolicy>(types);
}

}  // namespace knobsim::fgd
