// The cluster's topology (plan.h's BuildNodes): five node pools from vocabulary.h, their nodes
// with names, addresses, zones and identities, and the cards on each GPU node.
//
// Contract: the first node of each pool is always there and the rest are shared by
// PoolSpec::share with the largest remainders; with fewer nodes than pools, kPoolPriority
// decides which pools get one. Every identity comes from the nodes' random stream, in node order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"

namespace knobsim::gen_export {
namespace {

std::vector<int> NodesPerPool(int n) {
  std::vector<int> count(kPoolCount, 0);
  if (n < kPoolCount) {
    for (int i = 0; i < n; ++i) count[kPoolPriority[i]] = 1;
    return count;
  }
  // One node each, the rest by share with the largest remainders (ties: pool order).
  std::vector<double> exact(kPoolCount);
  int given = kPoolCount;
  for (int p = 0; p < kPoolCount; ++p) {
    exact[p] = kPoolSpecs[p].share * (n - kPoolCount);
    count[p] = 1 + static_cast<int>(std::floor(exact[p]));
    given += static_cast<int>(std::floor(exact[p]));
  }
  std::vector<int> order(kPoolCount);
  for (int p = 0; p < kPoolCount; ++p) order[p] = p;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return exact[a] - std::floor(exact[a]) > exact[b] - std::floor(exact[b]);
  });
  for (int i = 0; given < n; ++i, ++given) ++count[order[i % kPoolCount]];
  return count;
}

}  // namespace

void BuildNodes(Plan& plan) {
  Rng rng = Stream(plan.o.seed, kNodesStream);
  plan.cluster_id = "c" + rng.Hex(32);
  const std::vector<int> counts = NodesPerPool(plan.o.nodes);
  for (int p = 0; p < kPoolCount; ++p) {
    Pool pool;
    pool.spec = &kPoolSpecs[p];
    pool.id = "np" + rng.Hex(32);
    if (!pool.spec->instance.gpu.empty()) {
      pool.gpu = plan.catalog.Find(pool.spec->instance.gpu);
      for (const GpuNames& names : kGpuNames) {
        if (names.catalog == pool.spec->instance.gpu) pool.names = &names;
      }
      pool.exclusive = pool.spec->schedule == "default";
      if (!pool.exclusive) pool.units = CardMemoryUnits(pool.gpu->memory_mib);
    }
    plan.pools.push_back(pool);
  }
  for (int p = 0; p < kPoolCount; ++p) {
    Pool& pool = plan.pools[p];
    const Instance& inst = pool.spec->instance;
    for (int k = 0; k < counts[p]; ++k) {
      const int i = static_cast<int>(plan.nodes.size());
      Node node;
      node.ip = fmt::format("10.0.{}.{}", 1 + i / 240, 10 + i % 240);
      node.name = fmt::format("{}.{}", kRegion, node.ip);
      node.zone = std::string(kZones[k % 3]);
      node.uid = rng.Uuid();
      node.instance_id = "i-bp1" + rng.Chars(kLowerAlnum, 17);
      node.machine_id = rng.Hex(32);
      node.boot_id = rng.Uuid();
      node.system_uuid = rng.Uuid();
      node.pool = p;
      node.ordinal = k;
      // NVML-like capacity (the kernel keeps ~2.5 %) and the kubelet's reservations.
      node.cap_mem_ki = static_cast<int64_t>(inst.memory_gib * 1048576.0 * 0.9745);
      node.alloc_mem_ki = node.cap_mem_ki - std::min<int64_t>(node.cap_mem_ki / 8, 20 * 1048576);
      node.cpu_free_m = inst.cpu_alloc_m;
      node.mem_free_mib = node.alloc_mem_ki / 1024;
      node.pods_free = inst.max_pods;
      node.fb_per_pod = k % 2 == 0;
      node.created = plan.o.start_unix - kDay * (60 + rng.Int(0, 30)) - rng.Int(0, kDay - 1);
      node.first_card = static_cast<int>(plan.cards.size());
      node.cards = inst.gpus;
      for (int c = 0; c < inst.gpus; ++c) {
        Card card;
        card.node = i;
        card.index = c;
        card.uuid = "GPU-" + rng.Uuid();
        card.units_free = pool.units;
        plan.cards.push_back(card);
      }
      pool.capacity += pool.exclusive ? inst.gpus : static_cast<int64_t>(inst.gpus) * pool.units;
      pool.nodes.push_back(i);
      plan.nodes.push_back(std::move(node));
    }
  }
}

}  // namespace knobsim::gen_export
