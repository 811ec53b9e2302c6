// The cpu and memory amounts the two resource scores compare, after upstream's
// noderesources/resource_allocation.go: NodeResourcesFit scores the non-zero-defaulted
// requests (docs/semantics.md §3.6), BalancedAllocation the actual ones; both against allocatable,
// both skipping a resource whose allocatable is 0.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/filters/node_cache.h"

namespace knobsim {

struct CpuMemory {
  int64_t cpu = 0;     // millicores
  int64_t memory = 0;  // bytes
};

// The "cpu" and "memory" entries of a resource list (0 when absent).
CpuMemory CpuMemoryOf(const ResourceList& list);

// Each node's allocatable cpu and memory, read once per node list: a node's allocatable never
// changes after ClusterState::AddNode, and a score asks for it on every node of every new pod
// class (two map lookups, mostly cache misses, on 5 000 nodes). One instance serves one
// ClusterState, as a plugin's caches do (node_cache.h); a const Score may fill it.
class AllocatableCpuMemory {
 public:
  const CpuMemory& Of(const ClusterState& cluster, int node) const {
    if (nodes_.Changed(cluster)) {
      by_node_.resize(cluster.nodes().size());
      for (size_t n = 0; n < by_node_.size(); ++n) {
        by_node_[n] = CpuMemoryOf(cluster.node(static_cast<int>(n)).spec.allocatable);
      }
    }
    return by_node_[static_cast<size_t>(node)];
  }

 private:
  mutable NodeListIdentity nodes_;
  mutable std::vector<CpuMemory> by_node_;
};

}  // namespace knobsim
