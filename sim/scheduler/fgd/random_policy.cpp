#include "sim/scheduler/fgd/random_policy.h"

#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

// Every node scores the same: the choice is the draw, made by the caller (RandomNodePosition).
class RandomPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kRandom; }
  int Score(const PodRequest&, const NodeState&) const override { return 0; }
};

}  // namespace

std::unique_ptr<Policy> NewRandomPolicy() {
  return std::make_unique<RandomPolicy>();
}

int RandomNodePosition(int feasible, GoRand& rng) {
  return feasible > 1 ? rng.Intn(feasible) : 0;
}

CardTake RandomCards(const PodRequest& pod, const NodeState& node, GoRand& rng) {
  if (!pod.shared()) return LowestCards(node, pod);
  int chosen = -1;
  int fitting = 0;
  for (int g = 0; g < node.cards; ++g) {
    if (node.free[g] < pod.milli) continue;
    ++fitting;
    if (rng.Intn(fitting) == 0) chosen = g;
  }
  return chosen >= 0 ? OneCard(chosen, pod) : LowestCards(node, pod);
}

}  // namespace knobsim::fgd
