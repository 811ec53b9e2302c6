// NodeAffinity filter: spec.nodeSelector and the required node-affinity terms must both hold
// (docs/semantics.md §3.3). A pod with neither passes every node without looking at labels.
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

class NodeAffinityFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "NodeAffinity"; }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    if (MatchesNodeSelectorAndAffinity(pod, cluster.node(node).spec))
      return PluginStatus::Success();
    // Unresolvable: evicting pods never changes a node's labels.
    return PluginStatus::Unresolvable("node(s) didn't match Pod's node affinity/selector");
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> NewNodeAffinityFilter() {
  return std::make_unique<NodeAffinityFilter>();
}

}  // namespace knobsim
