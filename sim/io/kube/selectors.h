// The scheduling constraints of the Kubernetes export reader: node selector terms (required and
// preferred node affinity), label selectors, tolerations and topology spread constraints, each
// validated as the API server does, so a hand-written pending pod means here what the cluster
// would accept.
#pragma once

#include <vector>

#include "sim/io/kube/fields.h"
#include "sim/kube_types.h"

namespace knobsim::kube {

// A nodeSelectorTerm: matchExpressions, then matchFields as requirements on the key
// "metadata.name" (the only node field selector), which the NodeAffinity filter matches
// against the node's name.
std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(FieldReader& r, const Field& term);

LabelSelector ReadLabelSelector(FieldReader& r, const Field& f);
Toleration ReadToleration(FieldReader& r, const Field& f);

// A constraint without labelSelector matches no pod, as upstream's nil selector
// (labels.Nothing()): it is stored as the never-matching requirement {key: "", op: In,
// values: {}}.
TopologySpreadConstraint ReadSpreadConstraint(FieldReader& r, const Field& f);

// An inter-pod (anti-)affinity term, validated as the API server does (non-empty topologyKey;
// matchLabelKeys / mismatchLabelKeys only beside a labelSelector, no key in both). A term without
// labelSelector matches no pod, stored as ReadSpreadConstraint stores it.
PodAffinityTerm ReadPodAffinityTerm(FieldReader& r, const Field& f);
// podAffinity / podAntiAffinity: required terms and weighted (1-100) preferred terms.
PodAffinity ReadPodAffinity(FieldReader& r, const Field& f);

}  // namespace knobsim::kube
