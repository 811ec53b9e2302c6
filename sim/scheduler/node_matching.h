// Matching rules shared by several plugins: tolerations against taints (docs/semantics.md §3.4),
// nodeSelector and node affinity against node labels (§3.3), label selectors against pod labels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/kube_types.h"

namespace knobsim {

// A toleration matches a taint when effects agree (empty = all), keys agree (empty key with
// Exists = every key) and, for Equal (or empty) operators, values agree.
bool ToleratesTaint(const Toleration& toleration, const Taint& taint);
bool ToleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

// The first taint with effect NoSchedule or NoExecute that no toleration matches, or nullptr.
const Taint* FindUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                  const std::vector<Taint>& taints);

bool MatchesNodeSelectorRequirement(const NodeSelectorRequirement& r, const Labels& labels);
// Node selector terms (ORed; a term's requirements ANDed; an empty term matches nothing) against
// labels alone, as upstream matches a PersistentVolume's node affinity and a StorageClass's
// allowedTopologies: a matchFields metadata.name requirement sees an empty name.
bool MatchesNodeSelectorTerms(const std::vector<std::vector<NodeSelectorRequirement>>& terms,
                              const Labels& labels);
// nodeSelector (every key=value) and required node affinity (terms ORed, expressions ANDed).
bool MatchesNodeSelectorAndAffinity(const PodSpec& pod, const NodeSpec& node);
// The node names required node affinity confines a pod to (upstream nodeaffinity.PreFilter's
// result): when every required term pins names with matchFields metadata.name In [...], the
// union over the terms of each term's intersection of those lists, sorted and unique (empty:
// the terms conflict). nullopt when there are no required terms or some term pins no name
// (it admits nodes by label). No node outside the names matches the affinity.
std::optional<std::vector<std::string>> PinnedNodeNames(const NodeAffinity& affinity);
// Keys equal exactly when the inputs are: of FindUntoleratedTaint's tolerations (key, operator,
// value, effect), and of MatchesNodeSelectorAndAffinity's pod fields (nodeSelector, required
// terms). Caches of verdicts that are fixed for a node's life (its labels and taints never
// change after ClusterState::AddNode) share them across pods by these keys.
std::string TolerationsKey(const std::vector<Toleration>& tolerations);
std::string NodeAffinityKey(const PodSpec& pod);
// Σ weights of the pod's preferred node-affinity terms that the node matches.
int64_t PreferredAffinityWeight(const PodSpec& pod, const NodeSpec& node);

// matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) against labels. An empty
// selector matches everything.
bool MatchesLabelSelector(const LabelSelector& selector, const Labels& labels);

}  // namespace knobsim
