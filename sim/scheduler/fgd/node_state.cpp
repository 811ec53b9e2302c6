#include "sim/scheduler/fgd/node_state.h"

namespace knobsim::fgd {

int64_t NodeState::gpu_free() const {
  int64_t sum = 0;
  for (int g = 0; g < cards; ++g) sum += free[g];
  return sum;
}

int NodeState::full_cards() const {
  int n = 0;
  for (int g = 0; g < cards; ++g) n += free[g] == kMilliPerCard ? 1 : 0;
  return n;
}

bool CardsFit(const NodeState& node, const PodRequest& pod) {
  if (pod.num_gpu == 1) {
    for (int g = 0; g < node.cards; ++g) {
      if (node.free[g] >= pod.milli) return true;
    }
    return false;
  }
  int64_t takeable = 0;
  for (int g = 0; g < node.cards; ++g) takeable += node.free[g] / pod.milli;
  return takeable >= pod.num_gpu;
}

bool Feasible(const NodeState& node, const PodRequest& pod) {
  if (pod.cpu > node.cpu_free || pod.mem > node.mem_free) return false;
  if (node.pods + 1 > kMaxPodsPerNode) return false;
  if (!pod.wants_gpu()) return true;
  if (node.cards == 0 || node.model < 0) return false;
  if ((pod.models >> node.model & 1) == 0) return false;
  return CardsFit(node, pod);
}

CardTake LowestCards(const NodeState& node, const PodRequest& pod) {
  CardTake take{};
  if (!pod.wants_gpu()) return take;
  int left = pod.num_gpu;
  for (int g = 0; g < node.cards && left > 0; ++g) {
    while (left > 0 && node.free[g] - take[g] >= pod.milli) {
      take[g] += pod.milli;
      --left;
    }
  }
  return take;
}

CardTake OneCard(int card, const PodRequest& pod) {
  CardTake take{};
  take[card] = pod.milli;
  return take;
}

int BestFitCard(const NodeState& node, int milli) {
  int best = -1;
  for (int g = 0; g < node.cards; ++g) {
    if (node.free[g] >= milli && (best < 0 || node.free[g] < node.free[best])) best = g;
  }
  return best;
}

void Commit(NodeState& node, const PodRequest& pod, const CardTake& take) {
  node.cpu_free -= pod.cpu;
  node.mem_free -= pod.mem;
  ++node.pods;
  for (int g = 0; g < node.cards; ++g) node.free[g] -= take[g];
  node.tags |= pod.tag();
}

}  // namespace knobsim::fgd
