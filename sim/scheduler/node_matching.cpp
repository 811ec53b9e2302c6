#include "sim/scheduler/node_matching.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "sim/text.h"

namespace knobsim {
namespace {

// A whole base-10 int64 the way Go's strconv.ParseInt(s, 10, 64) reads it (optional sign, no
// spaces), which is what the Gt / Lt node selector operators use.
bool ParseInt64(std::string_view text, int64_t& out) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return false;
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool IsNoScheduleOrNoExecute(const Taint& taint) {
  return taint.effect == "NoSchedule" || taint.effect == "NoExecute";
}

}  // namespace

// Upstream's Toleration.ToleratesTaint (k8s.io/api/core/v1/toleration.go), literally: an empty
// key passes the key check whatever the operator; validation is what keeps `key: "", Equal` out.
bool ToleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool ToleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return ToleratesTaint(t, taint); });
}

// §3.4: only NoSchedule and NoExecute taints keep a pod off a node (PreferNoSchedule only scores).
const Taint* FindUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                  const std::vector<Taint>& taints) {
  for (const Taint& taint : taints) {
    if (IsNoScheduleOrNoExecute(taint) && !ToleratesTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

// §3.3. A malformed requirement (In / NotIn without values, Exists / DoesNotExist with values,
// Gt / Lt without exactly one integer, an unknown operator) makes upstream's selector parse fail,
// and a term that fails to parse matches no node; so here it simply does not match.
bool MatchesNodeSelectorRequirement(const NodeSelectorRequirement& r, const Labels& labels) {
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  if (r.op == "In" || r.op == "NotIn") {
    if (r.values.empty()) return false;
    const bool in = has && Contains(r.values, it->second);
    return r.op == "In" ? in : !in;  // NotIn also matches a node without the label
  }
  if (r.op == "Exists" || r.op == "DoesNotExist") {
    if (!r.values.empty()) return false;
    return r.op == "Exists" ? has : !has;
  }
  if (r.op == "Gt" || r.op == "Lt") {
    int64_t bound = 0, value = 0;
    if (r.values.size() != 1 || !ParseInt64(r.values[0], bound)) return false;
    if (!has || !ParseInt64(it->second, value)) return false;  // non-integer label: no match
    return r.op == "Gt" ? value > bound : value < bound;
  }
  return false;
}

namespace {

// matchFields arrive as requirements on the key "metadata.name" (sim/io/kube/selectors.h): the
// only node field a selector may name, matched against the node's name rather than a label.
constexpr const char* kNodeNameField = "metadata.name";

bool MatchesRequirementOnNode(const NodeSelectorRequirement& r, const NodeSpec& node) {
  if (r.key != kNodeNameField) return MatchesNodeSelectorRequirement(r, node.labels);
  const Labels name_field{{kNodeNameField, node.name}};
  return MatchesNodeSelectorRequirement(r, name_field);
}

// A term with no expressions matches nothing (upstream skips empty terms).
bool MatchesTerm(const std::vector<NodeSelectorRequirement>& term, const NodeSpec& node) {
  if (term.empty()) return false;
  return std::all_of(term.begin(), term.end(), [&](const NodeSelectorRequirement& r) {
    return MatchesRequirementOnNode(r, node);
  });
}

}  // namespace

bool MatchesNodeSelectorTerms(const std::vector<std::vector<NodeSelectorRequirement>>& terms,
                              const Labels& labels) {
  static const Labels kNoName{{kNodeNameField, ""}};
  return std::any_of(terms.begin(), terms.end(), [&](const auto& term) {
    return !term.empty() && std::all_of(term.begin(), term.end(), [&](const auto& r) {
      return MatchesNodeSelectorRequirement(r, r.key == kNodeNameField ? kNoName : labels);
    });
  });
}

bool MatchesNodeSelectorAndAffinity(const PodSpec& pod, const NodeSpec& node) {
  for (const auto& [key, value] : pod.node_selector) {
    const auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  // No required terms = no required affinity (the struct cannot tell an empty
  // nodeSelectorTerms list from an absent one; the API server rejects the empty list anyway).
  const auto& terms = pod.node_affinity.required_terms;
  if (terms.empty()) return true;
  return std::any_of(terms.begin(), terms.end(),
                     [&](const auto& term) { return MatchesTerm(term, node); });
}

namespace {

// The node names one term pins (the intersection of its matchFields metadata.name In lists,
// sorted and unique), or nullopt when it pins none.
std::optional<std::vector<std::string>> TermNodeNames(
    const std::vector<NodeSelectorRequirement>& term) {
  std::optional<std::vector<std::string>> names;
  for (const NodeSelectorRequirement& r : term) {
    if (r.key != kNodeNameField || r.op != "In") continue;
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (!names) {
      names = std::move(values);
      continue;
    }
    std::vector<std::string> both;
    std::set_intersection(names->begin(), names->end(), values.begin(), values.end(),
                          std::back_inserter(both));
    *names = std::move(both);
  }
  return names;
}

}  // namespace

std::optional<std::vector<std::string>> PinnedNodeNames(const NodeAffinity& affinity) {
  if (affinity.required_terms.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& term : affinity.required_terms) {
    std::optional<std::vector<std::string>> own = TermNodeNames(term);
    if (!own) return std::nullopt;
    names.insert(names.end(), own->begin(), own->end());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string TolerationsKey(const std::vector<Toleration>& tolerations) {
  std::string key;
  for (const Toleration& t : tolerations) {
    key.append("\x1d").append(t.key).append("\x1c").append(t.op).append("\x1c");
    key.append(t.value).append("\x1c").append(t.effect);
  }
  return key;
}

std::string NodeAffinityKey(const PodSpec& pod) {
  std::string key;
  for (const auto& [label, value] : pod.node_selector) {
    key.append("\x1d").append(label).append("=").append(value);
  }
  for (const auto& term : pod.node_affinity.required_terms) {
    key.append("\x1e");
    for (const NodeSelectorRequirement& r : term) {
      key.append("\x1d").append(r.key).append("\x1c").append(r.op);
      for (const std::string& v : r.values) key.append("\x1b").append(v);
    }
  }
  return key;
}

int64_t PreferredAffinityWeight(const PodSpec& pod, const NodeSpec& node) {
  int64_t sum = 0;
  for (const NodeAffinity::Preferred& p : pod.node_affinity.preferred) {
    // Upstream drops weight-0 and empty preference terms before scoring.
    if (p.weight != 0 && MatchesTerm(p.expressions, node)) sum += p.weight;
  }
  return sum;
}

bool MatchesLabelSelector(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const LabelSelectorRequirement& r : selector.match_expressions) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    if (r.op == "In") {
      if (!has || !Contains(r.values, it->second)) return false;
    } else if (r.op == "NotIn") {
      if (has && Contains(r.values, it->second)) return false;
    } else if (r.op == "Exists") {
      if (!has) return false;
    } else if (r.op == "DoesNotExist") {
      if (has) return false;
    } else {
      return false;  // unknown operator: upstream refuses the selector; match nothing
    }
  }
  return true;
}

}  // namespace knobsim
