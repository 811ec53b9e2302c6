// NodeUnschedulable: a cordoned node (spec.unschedulable) takes no new pods, except pods that
// tolerate the taint the node controller puts on cordoned nodes (docs/semantics.md §3.4).
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

class NodeUnschedulableFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "NodeUnschedulable"; }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    if (!cluster.node(node).spec.unschedulable) return PluginStatus::Success();
    // Upstream asks whether the pod tolerates node.kubernetes.io/unschedulable:NoSchedule (empty
    // value), so `operator: Exists` on that key or an empty-key Exists toleration lets it in.
    static const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};
    if (ToleratesTaint(pod.tolerations, kUnschedulableTaint)) return PluginStatus::Success();
    // Unresolvable: evicting pods never uncordons a node.
    return PluginStatus::Unresolvable("node(s) were unschedulable");
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> NewNodeUnschedulableFilter() {
  return std::make_unique<NodeUnschedulableFilter>();
}

}  // namespace knobsim
