// The plan's pool groups (sim/plan/plan.h): the GPU pools one workload can run on are one group,
// sized together with one node count; pools that share no workload are in different groups,
// sized apart. A pool no GPU workload can run on is in no group.
#pragma once

#include <vector>

#include "sim/scenario.h"

namespace knobsim {

struct PoolGroup {
  std::vector<int> pools;      // scenario.node_pools indexes, in file order
  std::vector<int> workloads;  // scenario.workloads indexes, in file order
  bool whole = false;          // exclusive-card (nvidia.com/gpu) workloads
};

// The groups of the scenario's GPU pools, by their first pool. A GPU workload reaches the GPU
// pools of its kind (exclusive or shared cards) its node selector, affinity and tolerations
// allow. Throws std::invalid_argument when a GPU workload reaches no pool, or a group would
// serve both whole-card and shared workloads.
std::vector<PoolGroup> GroupPools(const Scenario& s);

}  // namespace knobsim
