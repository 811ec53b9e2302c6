// Node selection in DRA: which nodes reach a device (a slice's or device's nodeName, allNodes or
// nodeSelector), and from which nodes an allocation is usable (the node selector upstream puts
// into the allocation result). Upstream: NodeMatches in pools_incubating.go and
// createNodeSelector in allocator_incubating.go (k8s.io/dynamic-resource-allocation
// structured/internal/incubating).
//
// DraNodeSelector keeps v1.NodeSelector's terms as flat requirement lists, a requirement on
// metadata.name being a matchFields one (sim/kube_dra.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/kube_types.h"

namespace knobsim::dra {

// The node an allocation is for: its name (what matchFields metadata.name sees) and its labels.
struct DraNodeRef {
  std::string_view name;
  const Labels* labels = nullptr;
};

// Upstream NodeMatches: a name wins over allNodes, which wins over a selector; none of the three
// reaches no node. A selector's terms are ORed, a term's requirements ANDed, an empty term
// matches nothing. A malformed requirement matches nothing (upstream reports a parse error;
// validation keeps such slices out of a real cluster).
bool NodeMatches(const DraNodeRef& node, const std::string& node_name, bool all_nodes,
                 const std::optional<DraNodeSelector>& selector);

// Upstream createNodeSelector, fed one allocated device at a time: the result is pinned to the
// node (matchFields metadata.name In [node]) once any device is node-local or binds to its
// node; else it is the union of the devices' one-term selectors (their slice's, or their own
// under perDeviceNodeSelection), requirements deduplicated; else absent (every node).
class AllocationNodeSelector {
 public:
  explicit AllocationNodeSelector(std::string_view node_name) : node_name_(node_name) {}

  // False when the device's selector has more than one term, which upstream refuses to merge
  // ("unsupported ResourceSlice.NodeSelector with N terms"; validation keeps them out).
  bool Add(const ResourceSliceSpec& slice, const DraDevice& device);
  // The term count of the selector Add refused.
  size_t refused_terms() const { return refused_terms_; }
  std::optional<DraNodeSelector> Result() const;

 private:
  std::string_view node_name_;
  bool local_ = false;
  std::vector<NodeSelectorRequirement> term_;
  size_t refused_terms_ = 0;
};

}  // namespace knobsim::dra
