// The FGD paper's experiment protocol up to the first scheduling event (docs/fgd-policies.md §2.2,
// §2.3): seed Go's generator, shuffle the pods, tune the list to `tune` × the cluster's GPU
// capacity, and give every node its tie-break rank. Each step draws from the one generator in
// the reference's exact order, discarded draws included, so that the arrival order and the ranks
// are the reference's, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/replay/workload.h"
#include "sim/scheduler/fgd/go_rand.h"

namespace knobsim::replay {

struct RunOrder {
  // Arrival order, as indexes into Workload::pods: the shuffled originals, then the tuned copies
  // (a copy is the index of the pod it copies).
  std::vector<int> events;
  int copies = 0;             // appended by tuning up
  int removed = 0;            // removed by tuning down
  int overshoot = -1;         // the candidate whose draw stopped tuning up (-1: none)
  int64_t total_request = 0;  // Σ GPU request of `events` (milli)
  std::vector<int> rank;      // rank[i]: tie-break rank of Workload::nodes[i] (§2.2 step 6)
};

// Steps 1-6 of §2.2 for seed `seed`. `rng` is reseeded; afterwards it holds the generator's
// state at the first scheduling event (01-Random keeps drawing from it, §4.1).
RunOrder PrepareRun(const Workload& workload, int64_t seed, double tune, fgd::GoRand& rng);

// Draws the reference discards: one debug-log rand.Int() before the shuffle, and one Float64
// per informer started before Perm (§2.2 steps 2 and 5).
inline constexpr int kDrawsBeforeShuffle = 1;
inline constexpr int kDrawsBeforePerm = 10;

}  // namespace knobsim::replay
