#include "sim/scheduler/pod_affinity_terms.h"

#include <algorithm>

#include "sim/scheduler/node_matching.h"

namespace knobsim {
namespace {

AffinityTerm Build(const PodSpec& owner, const PodAffinityTerm& t, int weight) {
  AffinityTerm term;
  term.topology_key = t.topology_key;
  term.weight = weight;
  if (t.namespaces.empty() && !t.namespace_selector) {
    term.namespaces.push_back(owner.namespace_);
  } else {
    term.namespaces = t.namespaces;
    std::sort(term.namespaces.begin(), term.namespaces.end());
    term.namespaces.erase(std::unique(term.namespaces.begin(), term.namespaces.end()),
                          term.namespaces.end());
  }
  if (t.namespace_selector) {
    term.has_namespace_selector = true;
    term.namespace_selector = *t.namespace_selector;
  }
  term.selector = t.label_selector;
  for (const auto& [keys, op] : {std::pair{&t.match_label_keys, "In"},
                                 std::pair{&t.mismatch_label_keys, "NotIn"}}) {
    for (const std::string& key : *keys) {
      const auto label = owner.labels.find(key);
      if (label == owner.labels.end()) continue;  // keys the owner lacks are ignored
      term.selector.match_expressions.push_back({key, op, {label->second}});
    }
  }
  return term;
}

void AppendSelector(std::string& sig, const LabelSelector& s) {
  for (const auto& [key, value] : s.match_labels) {
    sig.append("\x1f").append(key).append("=").append(value);
  }
  for (const LabelSelectorRequirement& r : s.match_expressions) {
    sig.append("\x1e").append(r.key).append(" ").append(r.op);
    for (const std::string& v : r.values) sig.append("\x1d").append(v);
  }
}

}  // namespace

bool AffinityTerm::Matches(const PodSpec& pod, const ClusterState& cluster) const {
  const bool in_namespaces =
      std::binary_search(namespaces.begin(), namespaces.end(), pod.namespace_) ||
      (has_namespace_selector &&
       MatchesLabelSelector(namespace_selector, cluster.NamespaceLabels(pod.namespace_)));
  return in_namespaces && MatchesLabelSelector(selector, pod.labels);
}

std::string AffinityTerm::Signature() const {
  std::string sig = topology_key;
  sig.append("\x1c").append(std::to_string(weight));
  for (const std::string& ns : namespaces) sig.append("\x1b").append(ns);
  if (has_namespace_selector) {
    sig.append("\x1a");
    AppendSelector(sig, namespace_selector);
  }
  sig.append("\x19");
  AppendSelector(sig, selector);
  return sig;
}

std::vector<AffinityTerm> RequiredAffinityTerms(const PodSpec& owner,
                                                const std::vector<PodAffinityTerm>& terms) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const PodAffinityTerm& t : terms) out.push_back(Build(owner, t, 0));
  return out;
}

std::vector<AffinityTerm> PreferredAffinityTerms(
    const PodSpec& owner, const std::vector<WeightedPodAffinityTerm>& terms) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const WeightedPodAffinityTerm& t : terms) out.push_back(Build(owner, t.term, t.weight));
  return out;
}

bool MatchesAllTerms(const std::vector<AffinityTerm>& terms, const PodSpec& pod,
                     const ClusterState& cluster) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(),
                     [&](const AffinityTerm& t) { return t.Matches(pod, cluster); });
}

}  // namespace knobsim
