// Node affinity matchFields and topology spread selectors.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

TEST_CASE("matchFields become requirements on metadata.name") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchFields:
          - key: metadata.name
            operator: In
            values: [cn-hangzhou.10.0.1.21]
  containers: [{name: c}]
)");
  REQUIRE(p.node_affinity.required_terms.size() == 1);
  const NodeSelectorRequirement& r = p.node_affinity.required_terms[0].at(0);
  CHECK(r.key == "metadata.name");
  CHECK(r.op == "In");
  CHECK(r.values == std::vector<std::string>{"cn-hangzhou.10.0.1.21"});
}

TEST_CASE("a spread constraint without labelSelector matches no pod, as upstream's nil") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p}
spec:
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    minDomains: 3
    labelSelector:
      matchExpressions:
      - {key: app, operator: In, values: [web, api]}
  containers: [{name: c}]
)");
  REQUIRE(p.topology_spread.size() == 2);
  const TopologySpreadConstraint& host = p.topology_spread[0];
  CHECK(host.max_skew == 2);
  CHECK(host.node_affinity_policy == "Ignore");
  CHECK(host.node_taints_policy == "Honor");
  REQUIRE(host.label_selector.match_expressions.size() == 1);
  CHECK(host.label_selector.match_expressions[0].key.empty());
  CHECK(host.label_selector.match_expressions[0].op == "In");
  CHECK(host.label_selector.match_expressions[0].values.empty());
  const TopologySpreadConstraint& zone = p.topology_spread[1];
  CHECK(zone.min_domains == 3);
  CHECK(zone.label_selector.match_expressions.at(0).values ==
        std::vector<std::string>{"web", "api"});
}

}  // namespace
}  // namespace knobsim
