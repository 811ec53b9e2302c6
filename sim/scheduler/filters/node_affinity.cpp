// NodeAffinity filter: spec.nodeSelector and the required node-affinity terms must both hold
// (docs/semantics.md §3.3). A pod with neither passes every node without looking at labels.
//
// PreFilter (upstream nodeaffinity.PreFilter, since 1.24): when every required term pins node
// names with matchFields metadata.name In [...], the pod may only go to the union over the terms
// of each term's intersection of those names; the Scheduler then filters just those nodes. A
// term without such a pin lets every node through (terms are ORed). When every term's names
// intersect to nothing the pod is rejected before any Filter with "pod affinity terms conflict".
// Before 1.24 there was no PreFilterResult: every node runs the Filter.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

// upstream errReasonConflict
constexpr const char* kTermsConflict = "pod affinity terms conflict";

class NodeAffinityFilter final : public FilterPlugin {
 public:
  explicit NodeAffinityFilter(const KubeVersion& version) : version_(version) {}

  std::string_view Name() const override { return "NodeAffinity"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState&) override {
    narrowed_ = false;
    node_names_.clear();
    if (version_.minor < 24) return PluginStatus::Success();
    std::optional<std::vector<std::string>> names = PinnedNodeNames(pod.node_affinity);
    if (!names) return PluginStatus::Success();  // some term admits nodes by label
    if (names->empty()) return PluginStatus::Unresolvable(kTermsConflict);
    node_names_ = std::move(*names);
    narrowed_ = true;
    return PluginStatus::Success();
  }

  const std::vector<std::string>* PreFilterNodeNames() const override {
    return narrowed_ ? &node_names_ : nullptr;
  }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    if (MatchesNodeSelectorAndAffinity(pod, cluster.node(node).spec))
      return PluginStatus::Success();
    // Unresolvable: evicting pods never changes a node's labels.
    return PluginStatus::Unresolvable("node(s) didn't match Pod's node affinity/selector");
  }

 private:
  KubeVersion version_;
  bool narrowed_ = false;
  std::vector<std::string> node_names_;  // sorted, unique; valid when narrowed_
};

}  // namespace

std::unique_ptr<FilterPlugin> NewNodeAffinityFilter(const KubeVersion& version) {
  return std::make_unique<NodeAffinityFilter>(version);
}

}  // namespace knobsim
