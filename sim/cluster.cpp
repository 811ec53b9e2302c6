#include "sim/cluster.h"

#include <cassert>

#include "models/mig_profiles.h"
#include "sim/scenario_objects.h"

namespace knobsim {

Cluster BuildCluster(const Scenario& scenario) {
  Cluster cluster;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    const NodePool& pool = scenario.node_pools[p];
    const GpuType* gpu = pool.gpu_type.empty() ? nullptr : scenario.catalog.Find(pool.gpu_type);
    const int num_cards = gpu ? pool.card_slots() : 0;
    // A MIG pool's slots are its cards' instances, card by card, each of its instance type
    // (AddMigInstanceTypes put them in the catalog).
    std::vector<const GpuType*> slot_types(num_cards, gpu);
    if (gpu != nullptr && pool.dra.dynamic_mig) {
      // DynamicMIG: each card whole, then each MIG placement of it (AddMigInstanceTypes).
      const std::vector<MigPlacement> placements = MigAllPlacements(pool.gpu_type);
      const size_t per_card = placements.size() + 1;
      for (int c = 0; c < num_cards; ++c) {
        const size_t k = c % per_card;
        if (k == 0) continue;
        slot_types[c] =
            scenario.catalog.Find(MigInstanceTypeName(gpu->name, placements[k - 1].profile->name));
        assert(slot_types[c] != nullptr);
      }
    } else if (gpu != nullptr && pool.mig.enabled()) {
      const size_t per_card = pool.mig.instances.size();
      for (int c = 0; c < num_cards; ++c) {
        slot_types[c] =
            scenario.catalog.Find(MigInstanceTypeName(gpu->name, pool.mig.instances[c % per_card]));
        assert(slot_types[c] != nullptr);
      }
    }
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
        card.gpu = slot_types[c];
        card.units = CardMemoryUnits(card.gpu->memory_mib);
        cluster.cards.push_back(card);
      }
      cluster.nodes.push_back(std::move(node));
    }
  }
  return cluster;
}

}  // namespace knobsim
