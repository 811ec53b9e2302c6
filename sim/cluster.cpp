#include "sim/cluster.h"

#include "sim/scenario_objects.h"

namespace knobsim {

Cluster BuildCluster(const Scenario& scenario) {
  Cluster cluster;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    const NodePool& pool = scenario.node_pools[p];
    const GpuType* gpu = pool.gpu_type.empty() ? nullptr : scenario.catalog.Find(pool.gpu_type);
    const int num_cards = gpu ? pool.gpus_per_node : 0;
    // An autoscaled pool keeps a node slot up to its maximum; the run says which are present.
    for (int i = 0; i < pool.slots(); ++i) {
      // Names, zones and labels as the scheduler's nodes have them (scenario_objects.h).
      const NodeSpec spec = NodeSpecForPool(scenario, static_cast<int>(p), i);
      Node node;
      node.name = spec.name;
      node.pool = static_cast<int>(p);
      node.zone = PoolNodeZone(pool, i);
      node.labels = spec.labels;
      node.first_card = static_cast<int>(cluster.cards.size());
      node.num_cards = num_cards;
      for (int c = 0; c < num_cards; ++c) {
        Card card;
        card.node = static_cast<int>(cluster.nodes.size());
        card.index = c;
        card.gpu = gpu;
        card.units = CardMemoryUnits(gpu->memory_mib);
        cluster.cards.push_back(card);
      }
      cluster.nodes.push_back(std::move(node));
    }
  }
  return cluster;
}

}  // namespace knobsim
