// Cluster: the nodes and cards a scenario's node pools expand to, as the simulation needs them
// (names, zones, GPU type, speed, memory).
//
// Plain tables indexed by integers (ninja's State, not a pointer graph): nodes in pool order,
// each node's cards contiguous in `cards`. What is bound where is the scheduler's business
// (sim/scheduler/cluster_state.h), which numbers nodes the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario.h"

namespace knobsim {

struct Node {
  std::string name;    // "<pool>-<ordinal>"
  int pool = 0;        // index into Scenario::node_pools
  std::string zone;    // "" when the pool has no zones
  Labels labels;       // pool labels + kubernetes.io/hostname + topology.kubernetes.io/zone
  int first_card = 0;  // index of card 0 of this node in Cluster::cards
  int num_cards = 0;
};

struct Card {
  int node = 0;   // index into Cluster::nodes
  int index = 0;  // card index on its node (ACK's GPU index)
  const GpuType* gpu = nullptr;
  int units = 0;  // gpu-mem units (GiB), floor(memory / 1024)
};

struct Cluster {
  std::vector<Node> nodes;
  std::vector<Card> cards;
};

// Expands the scenario's node pools. Pools must name GPU types that exist in the catalog.
Cluster BuildCluster(const Scenario& scenario);

}  // namespace knobsim
