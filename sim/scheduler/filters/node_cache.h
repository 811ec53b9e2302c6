// What a plugin may cache about nodes from one pod to the next, and how it tells when a cached
// value went stale. Plugins belong to one Scheduler and so to one ClusterState, whose nodes are
// only ever added and whose node specs never change after AddNode; what does change is the set
// of pods bound on a node (and with it the node's requests), only through Bind / Unbind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/scheduler/cluster_state.h"

namespace knobsim {

// The node list a cache was built for. Changed() is true (and the new list remembered) when the
// plugin meets another cluster or nodes were added: caches indexed by node must then be rebuilt.
// It compares addresses, so a cluster built where a destroyed one lived, with as many nodes, can
// pass for the old one: a plugin instance serves one ClusterState for its life, as a Scheduler's
// plugins do.
class NodeListIdentity {
 public:
  bool Changed(const ClusterState& cluster) {
    const auto& nodes = cluster.nodes();
    if (&cluster == cluster_ && nodes.data() == data_ && nodes.size() == size_) return false;
    cluster_ = &cluster;
    data_ = nodes.data();
    size_ = nodes.size();
    return true;
  }

 private:
  const ClusterState* cluster_ = nullptr;
  const NodeState* data_ = nullptr;
  size_t size_ = 0;
};

// The set of pods bound on a node, in two words read in O(1). NodeState::generation moves with
// every bind or unbind on the node (cluster_state.h). Should a ClusterState not keep it, size and
// last index still tell: pod indexes only grow and are never reused, and NodeState::pods keeps
// bind order, so a list that ends where it ended before with as many pods holds the same pods.
struct PodSetFingerprint {
  uint64_t generation = 0;
  uint64_t size_and_last = 0;  // 0 never occurs for a real node: see Of()

  static PodSetFingerprint Of(const NodeState& node) {
    const uint64_t last = node.pods.empty() ? 0 : static_cast<uint32_t>(node.pods.back()) + 1;
    return {node.generation, ((static_cast<uint64_t>(node.pods.size()) << 32) ^ last) + 1};
  }
  bool operator==(const PodSetFingerprint&) const = default;
};

// Node topology values of one label key, numbered 0..num_values-1 in node order.
struct KeyIndex {
  std::vector<int> value_of_node;  // -1: the node lacks the key
  int num_values = 0;

  static KeyIndex Of(const ClusterState& cluster, const std::string& key) {
    KeyIndex index;
    std::unordered_map<std::string, int> ids;
    const size_t num_nodes = cluster.nodes().size();
    index.value_of_node.assign(num_nodes, -1);
    for (size_t n = 0; n < num_nodes; ++n) {
      const Labels& labels = cluster.node(static_cast<int>(n)).spec.labels;
      const auto label = labels.find(key);
      if (label == labels.end()) continue;
      const auto [id, added] = ids.try_emplace(label->second, index.num_values);
      if (added) ++index.num_values;
      index.value_of_node[n] = id->second;
    }
    return index;
  }
};

}  // namespace knobsim
