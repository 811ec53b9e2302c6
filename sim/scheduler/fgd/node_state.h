// A node as the replay's placement policies see it (docs/fgd-policies.md §3 "Node state"): free CPU
// and memory, each card's free milli-GPU, the card model, the number of pods and the GPU-pod
// tags GpuClustering reads. Plain data of fixed size, so a run keeps 1 213 of them in one array
// and copies one in a few cycles to try a hypothetical placement (FGD, §5.4).
#pragma once

#include <array>
#include <cstdint>

#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {

inline constexpr int kMaxPodsPerNode = 1001;  // `pods: 1001` in the node YAML (§1.1)
// The most cards a node may have here: the policies keep a node's cards in a fixed array.
inline constexpr int kMaxCardsPerNode = 16;

struct NodeState {
  int64_t cpu_free = 0;  // milli-cores
  int64_t mem_free = 0;  // MiB
  int pods = 0;
  int model = -1;  // ModelTable id; -1 for a node without cards
  int cards = 0;
  std::array<int, kMaxCardsPerNode> free{};  // milli-GPU free per card, by index
  uint64_t tags = 0;  // PodRequest::tag() of every GPU pod placed here (§4.3)

  int64_t gpu_free() const;  // Σ free
  int full_cards() const;    // cards with nothing allocated
};

// The milli-GPU a placement takes from each card.
using CardTake = std::array<int, kMaxCardsPerNode>;

// §3 filter 4's card test: a 1-card pod needs one card with free ≥ its share; a multi-card pod
// takes cards left to right, one card again while its remaining free ≥ the share (with whole
// cards: counts the fully free ones).
bool CardsFit(const NodeState& node, const PodRequest& pod);

// All of §3's filters: CPU, memory, the pod count and, for a pod with a GPU share, cards, model
// and card fit.
bool Feasible(const NodeState& node, const PodRequest& pod);

// Whole-card pods, and every pod under a policy that picks no card, get the lowest-indexed
// cards that fit (§3 "Card assignment"). Empty for a pod without a GPU share.
CardTake LowestCards(const NodeState& node, const PodRequest& pod);
// `pod`'s share on one card.
CardTake OneCard(int card, const PodRequest& pod);
// The `best` method (§3): the card with the least free among those with free ≥ milli, lowest
// index on ties; -1 when none fits.
int BestFitCard(const NodeState& node, int milli);

// Commits a placement: CPU, memory, the cards' shares, the pod count and the tag.
void Commit(NodeState& node, const PodRequest& pod, const CardTake& take);

}  // namespace knobsim::fgd
