// Inter-pod affinity terms as the InterPodAffinity plugin evaluates them (docs/semantics.md §3.8;
// upstream's framework.AffinityTerm, pkg/scheduler/framework/types.go): a PodAffinityTerm of the
// pod that owns it, with its namespaces resolved and its matchLabelKeys / mismatchLabelKeys
// merged into the label selector.
#pragma once

#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scheduler/cluster_state.h"

namespace knobsim {

struct AffinityTerm {
  // Namespaces named by the term; with neither namespaces nor namespaceSelector, the owner's
  // own (upstream getNamespacesFromPodAffinityTerm). Sorted, without duplicates.
  std::vector<std::string> namespaces;
  // namespaceSelector: absent selects no namespace (labels.Nothing()), an empty one every
  // namespace. It is matched against the labels of the other pod's namespace
  // (ClusterState::NamespaceLabels), which is what upstream's merge of the selected namespaces
  // into the incoming pod's term comes to for namespaces that hold pods.
  bool has_namespace_selector = false;
  LabelSelector namespace_selector;
  // labelSelector AND (key In [owner's value]) per matchLabelKeys key the owner has AND (key NotIn
  // [owner's value]) per mismatchLabelKeys key, as the API server merges them when it creates the
  // pod (a term without labelSelector gets nothing merged: it matches no pod anyway). Merging
  // again into an exported pod's already merged selector adds the same requirements: no change.
  LabelSelector selector;
  std::string topology_key;
  int weight = 0;  // preferred terms: their weight; required terms: 0

  // Whether `pod` is in the term's namespaces and matches its selector.
  bool Matches(const PodSpec& pod, const ClusterState& cluster) const;
  // Identity of the term for grouping equal terms of many pods (weight included).
  std::string Signature() const;
};

// The terms of `owner` built from `terms` / weighted `terms`.
std::vector<AffinityTerm> RequiredAffinityTerms(const PodSpec& owner,
                                                const std::vector<PodAffinityTerm>& terms);
std::vector<AffinityTerm> PreferredAffinityTerms(
    const PodSpec& owner, const std::vector<WeightedPodAffinityTerm>& terms);

// Whether `pod` matches every term; false for no terms (upstream podMatchesAllAffinityTerms).
bool MatchesAllTerms(const std::vector<AffinityTerm>& terms, const PodSpec& pod,
                     const ClusterState& cluster);

inline bool HasPodAffinity(const PodSpec& pod) {
  return !pod.pod_affinity.empty() || !pod.pod_anti_affinity.empty();
}

}  // namespace knobsim
