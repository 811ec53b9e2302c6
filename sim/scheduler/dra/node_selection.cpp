#include "sim/scheduler/dra/node_selection.h"

#include <algorithm>

#include "sim/scheduler/node_matching.h"
#include "sim/text.h"

namespace knobsim::dra {
namespace {

constexpr std::string_view kNodeNameField = "metadata.name";  // the one node field

// matchFields of a node selector: upstream's field selector knows metadata.name with In and
// NotIn; anything else is a parse error there and matches nothing here.
bool MatchesField(const NodeSelectorRequirement& r, std::string_view node_name) {
  if (r.values.empty()) return false;
  const bool in = Contains(r.values, node_name);
  if (r.op == "In") return in;
  if (r.op == "NotIn") return !in;
  return false;
}

// nodeaffinity.NodeSelector.Match.
bool MatchesSelector(const DraNodeSelector& selector, const DraNodeRef& node) {
  static const Labels kNoLabels;
  const Labels& labels = node.labels != nullptr ? *node.labels : kNoLabels;
  for (const std::vector<NodeSelectorRequirement>& term : selector) {
    if (term.empty()) continue;
    const bool all = std::all_of(term.begin(), term.end(), [&](const NodeSelectorRequirement& r) {
      return r.key == kNodeNameField ? MatchesField(r, node.name)
                                     : MatchesNodeSelectorRequirement(r, labels);
    });
    if (all) return true;
  }
  return false;
}

// containsNodeSelectorRequirement: same key and operator, same set of values.
bool SameRequirement(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b) {
  if (a.key != b.key || a.op != b.op) return false;
  std::vector<std::string> x = a.values, y = b.values;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  x.erase(std::unique(x.begin(), x.end()), x.end());
  y.erase(std::unique(y.begin(), y.end()), y.end());
  return x == y;
}

}  // namespace

bool NodeMatches(const DraNodeRef& node, const std::string& node_name, bool all_nodes,
                 const std::optional<DraNodeSelector>& selector) {
  if (!node_name.empty()) return node.name == node_name;
  if (all_nodes) return true;
  if (selector) return MatchesSelector(*selector, node);
  return false;
}

bool AllocationNodeSelector::Add(const ResourceSliceSpec& slice, const DraDevice& device) {
  if (local_) return true;  // upstream stops looking at the first node-local device
  const bool per_device = slice.per_device_node_selection;
  const std::string& node_name = per_device ? device.node_name : slice.node_name;
  const std::optional<DraNodeSelector>& selector =
      per_device ? device.node_selector : slice.node_selector;
  if (!node_name.empty() || device.binds_to_node) {
    local_ = true;
    return true;
  }
  if (!selector || selector->empty()) return true;
  if (selector->size() > 1) {
    refused_terms_ = selector->size();
    return false;
  }
  for (const NodeSelectorRequirement& r : selector->front()) {
    const bool known =
        std::any_of(term_.begin(), term_.end(),
                    [&](const NodeSelectorRequirement& t) { return SameRequirement(r, t); });
    if (!known) term_.push_back(r);
  }
  return true;
}

std::optional<DraNodeSelector> AllocationNodeSelector::Result() const {
  if (local_)
    return DraNodeSelector{{{std::string(kNodeNameField), "In", {std::string(node_name_)}}}};
  if (term_.empty()) return std::nullopt;
  return DraNodeSelector{term_};
}

}  // namespace knobsim::dra
