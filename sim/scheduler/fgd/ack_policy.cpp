// 07-ACK-Binpack and 08-ACK-Spread: the card placement of ACK's scheduler-framework GPU-share
// plugin (docs/semantics.md §1.5 B) on the FGD protocol, as docs/validation.md rung 3 defines it:
// every card holds 1000, a shared or 1-GPU pod is SingleDevice asking for its gpu_milli, a
// multi-GPU pod is ReplicaDevice asking for num_gpu cards at gpu_milli each. Each candidate card
// set scores 30·avg + 70/n² in float32, the node scores int(best), and the pod gets the best set,
// the first in index order on ties (ACK's own order is a Go map's, i.e. random).
#include <vector>

#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

class AckPolicy final : public Policy {
 public:
  explicit AckPolicy(bool spread) : spread_(spread) {}
  PolicyKind kind() const override {
    return spread_ ? PolicyKind::kAckSpread : PolicyKind::kAckBinpack;
  }
  int Score(const PodRequest& pod, const NodeState& node) const override {
    if (!pod.wants_gpu()) return 0;  // the plugin scores only GPU-share pods
    return static_cast<int>(Best(pod, node).score);
  }
  CardTake Cards(const PodRequest& pod, const NodeState& node) const override {
    if (!pod.wants_gpu()) return {};
    const Candidate best = Best(pod, node);
    if (best.cards.empty()) return LowestCards(node, pod);
    CardTake take{};
    for (int g : best.cards) take[g] += pod.milli;
    return take;
  }

 private:
  struct Candidate {
    float score = 0;
    std::vector<int> cards;
  };

  // getAllocationScore, the same float32 arithmetic as the main scheduler's card placement.
  float CandidateScore(const NodeState& node, const std::vector<int>& cards, int request) const {
    const CardPolicy policy = spread_ ? CardPolicy::kSpread : CardPolicy::kBinpack;
    float terms[kMaxCardsPerNode];
    int n = 0;
    for (int g : cards) {
      terms[n++] = AckCardTerm(kMilliPerCard, kMilliPerCard - node.free[g], request, policy);
    }
    return AckCandidateScore(terms, n);
  }

  // The candidates in index order (combinations in lexicographic order); one replaces the best
  // only with a strictly larger score, starting from 0 (findBestCandidateAllocationCombination).
  Candidate Best(const PodRequest& pod, const NodeState& node) const {
    std::vector<int> usable;  // cards with avail > 0 and avail ≥ the per-card request
    for (int g = 0; g < node.cards; ++g) {
      if (node.free[g] > 0 && node.free[g] >= pod.milli) usable.push_back(g);
    }
    Candidate best;
    const int m = pod.num_gpu;
    if (m < 1 || static_cast<int>(usable.size()) < m) return best;
    std::vector<int> pick(static_cast<size_t>(m));
    for (int i = 0; i < m; ++i) pick[i] = i;  // positions into `usable`
    std::vector<int> cards(static_cast<size_t>(m));
    const int u = static_cast<int>(usable.size());
    while (true) {
      for (int i = 0; i < m; ++i) cards[i] = usable[pick[i]];
      const float score = 1.0f * CandidateScore(node, cards, pod.milli);
      if (score > best.score) best = {score, cards};
      int i = m - 1;
      while (i >= 0 && pick[i] == u - m + i) --i;
      if (i < 0) break;
      ++pick[i];
      for (int j = i + 1; j < m; ++j) pick[j] = pick[j - 1] + 1;
    }
    return best;
  }

  bool spread_;
};

}  // namespace

std::unique_ptr<Policy> NewAckPolicy(bool spread) {
  return std::make_unique<AckPolicy>(spread);
}

}  // namespace knobsim::fgd
