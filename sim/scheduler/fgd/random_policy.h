// 01-Random's draws (docs/fgd-policies.md §4.1). The node choice and the card choice of a shared
// pod consume the run's generator, so they live outside Policy::Score, which is a pure function.
#pragma once

#include "sim/scheduler/fgd/go_rand.h"
#include "sim/scheduler/fgd/node_state.h"
#include "sim/scheduler/fgd/request.h"

namespace knobsim::fgd {

// PreScore: one of `feasible` nodes, uniformly (position Intn(feasible) in the caller's list).
// With a single feasible node nothing is drawn: the reference takes it without scoring.
int RandomNodePosition(int feasible, GoRand& rng);

// Reserve: a shared pod walks the cards in index order and takes the c-th card that fits when
// Intn(c) == 0 (one draw per fitting card, Intn(1) included); other pods take the lowest free
// cards and draw nothing.
CardTake RandomCards(const PodRequest& pod, const NodeState& node, GoRand& rng);

}  // namespace knobsim::fgd
