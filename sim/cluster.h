// Cluster: the nodes and cards a scenario's node pools expand to, with what is bound on them.
//
// Plain tables indexed by integers (ninja's State, not a pointer graph): nodes in pool order,
// each node's cards contiguous in `cards`. The scheduler reads the free capacity here and the
// simulation reads card speed and memory; neither owns the other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/scenario.h"

namespace knobsim {

struct Node {
  std::string name;       // "<pool>-<ordinal>"
  int pool = 0;           // index into Scenario::node_pools
  std::string zone;       // "" when the pool has no zones
  Labels labels;          // pool labels + kubernetes.io/hostname + topology.kubernetes.io/zone
  int first_card = 0;     // index of card 0 of this node in Cluster::cards
  int num_cards = 0;
  // Free allocatable capacity (requests of bound pods subtracted).
  int64_t cpu_free_milli = 0;
  int64_t memory_free_mib = 0;
  int pods_free = 0;
};

struct Card {
  int node = 0;               // index into Cluster::nodes
  int index = 0;              // card index on its node (ACK's GPU index)
  const GpuType* gpu = nullptr;
  int units = 0;              // gpu-mem units (GiB), floor(memory / 1024)
  int free_units = 0;
  int free_percent = 100;     // gpu-core.percentage left
  int pods = 0;               // pods bound to the card
  bool exclusive = false;     // held whole by an nvidia.com/gpu pod
};

struct Cluster {
  std::vector<Node> nodes;
  std::vector<Card> cards;
};

// Expands the scenario's node pools. Pools must name GPU types that exist in the catalog.
Cluster BuildCluster(const Scenario& scenario);

}  // namespace knobsim
