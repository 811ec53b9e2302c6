// InterPodAffinity score. Cases translated from upstream
// pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go, TestPreferredAffinity and
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight (named per case).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

using testing::MakePod;
using testing::RunScorePlugin;

PodAffinityTerm Term(std::vector<LabelSelectorRequirement> exprs, std::string topology) {
  PodAffinityTerm t;
  t.label_selector.match_expressions = std::move(exprs);
  t.topology_key = std::move(topology);
  return t;
}
LabelSelectorRequirement In(std::string key, std::vector<std::string> values) {
  return {std::move(key), "In", std::move(values)};
}

struct Affinity {
  PodAffinity affinity;
  PodAffinity anti;
};

PodSpec Pod(Labels labels, const Affinity& a = {}, std::string ns = "default") {
  PodSpec pod = MakePod("p", std::move(labels));
  pod.namespace_ = std::move(ns);
  pod.pod_affinity = a.affinity;
  pod.pod_anti_affinity = a.anti;
  return pod;
}

NodeSpec Node(std::string name, Labels labels) {
  NodeSpec node;
  node.name = std::move(name);
  node.labels = std::move(labels);
  node.allocatable = {{"pods", 110}, {"cpu", 8000}};
  return node;
}

struct Bound {
  std::string node;
  PodSpec pod;
};

// Normalised scores per node; {-1} when PreScore skipped.
std::vector<int64_t> Scores(const std::vector<NodeSpec>& nodes, const std::vector<Bound>& pods,
                            const PodSpec& incoming, int hard_weight = 1) {
  ClusterState cluster;
  cluster.SetNamespaceLabels("subteam1.team1", {{"team", "team1"}});
  cluster.SetNamespaceLabels("subteam2.team1", {{"team", "team1"}});
  cluster.SetNamespaceLabels("subteam1.team2", {{"team", "team2"}});
  cluster.SetNamespaceLabels("subteam2.team2", {{"team", "team2"}});
  for (const NodeSpec& n : nodes) cluster.AddNode(n);
  for (const Bound& b : pods) {
    Placement at;
    at.node = cluster.FindNode(b.node);
    PodSpec pod = b.pod;
    pod.node_name = b.node;
    cluster.Bind(pod, at);
  }
  auto plugin = NewInterPodAffinityScore(hard_weight);
  const auto result = RunScorePlugin(*plugin, incoming, cluster);
  if (result.skipped) return {-1};
  return result.normalized;
}

using S = std::vector<int64_t>;
const Labels kChina = {{"region", "China"}};
const Labels kIndia = {{"region", "India"}};
const Labels kAz1 = {{"az", "az1"}};
const Labels kAz2 = {{"az", "az2"}};
const Labels kChinaAz1 = {{"region", "China"}, {"az", "az1"}};
const Labels kS1 = {{"security", "S1"}};
const Labels kS2 = {{"security", "S2"}};

Affinity StayWithS1InRegion() {
  Affinity a;
  a.affinity.preferred = {{5, Term({In("security", {"S1"})}, "region")}};
  return a;
}
Affinity StayWithS2InRegion() {
  Affinity a;
  a.affinity.preferred = {{6, Term({In("security", {"S2"})}, "region")}};
  return a;
}
Affinity Affinity3() {
  Affinity a;
  a.affinity.preferred = {
      {8, Term({{"security", "NotIn", {"S1"}}, In("security", {"S2"})}, "region")},
      {2, Term({{"security", "Exists", {}}, {"wrongkey", "DoesNotExist", {}}}, "region")}};
  return a;
}
Affinity HardAffinity() {
  Affinity a;
  a.affinity.required = {
      Term({In("security", {"S1", "value2"})}, "region"),
      Term({{"security", "Exists", {}}, {"wrongkey", "DoesNotExist", {}}}, "region")};
  return a;
}
Affinity AwayFromS1InAz() {
  Affinity a;
  a.anti.preferred = {{5, Term({In("security", {"S1"})}, "az")}};
  return a;
}
Affinity AwayFromS2InAz() {
  Affinity a;
  a.anti.preferred = {{5, Term({In("security", {"S2"})}, "az")}};
  return a;
}
Affinity StayWithS1InRegionAwayFromS2InAz() {
  Affinity a;
  a.affinity.preferred = {{8, Term({In("security", {"S1"})}, "region")}};
  a.anti.preferred = {{5, Term({In("security", {"S2"})}, "az")}};
  return a;
}
Affinity WithNamespaceSelector(bool anti) {
  PodAffinityTerm t = Term({In("security", {"S1"})}, "region");
  t.namespaces = {"subteam2.team2"};
  t.namespace_selector = LabelSelector{{}, {In("team", {"team1"})}};
  Affinity a;
  (anti ? a.anti : a.affinity).preferred = {{5, t}};
  return a;
}

TEST_CASE("preferred inter-pod affinity (upstream TestPreferredAffinity)") {
  struct Case {
    const char* name;  // upstream's
    PodSpec pod;
    std::vector<Bound> pods;
    std::vector<NodeSpec> nodes;
    S want;
  };
  const std::vector<NodeSpec> china_india_az1 = {Node("node1", kChina), Node("node2", kIndia),
                                                 Node("node3", kAz1)};
  const std::vector<Case> cases = {
      {"all nodes are same priority as Affinity is nil", Pod(kS1), {}, china_india_az1, {-1}},
      {"Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
       "otherswhich doesn't match either pods in nodes or in topology key",
       Pod(kS1, StayWithS1InRegion()),
       {{"node1", Pod(kS1)}, {"node2", Pod(kS2)}, {"node3", Pod(kS1)}}, china_india_az1,
       {100, 0, 0}},
      {"All the nodes that have the same topology key & label value with one of them has an "
       "existing pod that match the affinity rules, have the same score",
       Pod({}, StayWithS1InRegion()), {{"node1", Pod(kS1)}},
       {Node("node1", kChina), Node("node2", kChinaAz1), Node("node3", kIndia)}, {100, 100, 0}},
      {"Affinity: nodes in one region has more matching pods comparing to other region, so the "
       "region which has more matches will get high score",
       Pod(kS1, StayWithS2InRegion()),
       {{"node1", Pod(kS2)}, {"node1", Pod(kS2)}, {"node2", Pod(kS2)}, {"node3", Pod(kS2)},
        {"node4", Pod(kS2)}, {"node5", Pod(kS2)}},
       {Node("node1", kChina), Node("node2", kIndia), Node("node3", kChina), Node("node4", kChina),
        Node("node5", kIndia)},
       {100, 0, 100, 100, 0}},
      {"Affinity: different Label operators and values for pod affinity scheduling preference, "
       "including some match failures ",
       Pod(kS1, Affinity3()), {{"node1", Pod(kS1)}, {"node2", Pod(kS2)}, {"node3", Pod(kS1)}},
       china_india_az1, {20, 100, 0}},
      {"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in "
       "pod affinity symmetry",
       Pod(kS2),
       {{"node1", Pod(kS1, StayWithS1InRegion())}, {"node2", Pod(kS2, StayWithS2InRegion())}},
       china_india_az1, {0, 100, 0}},
      {"Affinity symmetry with namespace selector", Pod(kS1, {}, "subteam1.team1"),
       {{"node1", Pod(kS1, WithNamespaceSelector(false))},
        {"node2", Pod(kS2, StayWithS2InRegion())}},
       china_india_az1, {100, 0, 0}},
      {"AntiAffinity symmetry with namespace selector", Pod(kS1, {}, "subteam1.team1"),
       {{"node1", Pod(kS1, WithNamespaceSelector(true))},
        {"node2", Pod(kS2, StayWithS2InRegion())}},
       china_india_az1, {0, 100, 100}},
      {"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity symmetry",
       Pod(kS1), {{"node1", Pod(kS1, HardAffinity())}, {"node2", Pod(kS2, HardAffinity())}},
       china_india_az1, {100, 100, 0}},
      {"Anti Affinity: pod that does not match existing pods in node will get high score ",
       Pod(kS1, AwayFromS1InAz()), {{"node1", Pod(kS1)}, {"node2", Pod(kS2)}},
       {Node("node1", kAz1), Node("node2", kChina)}, {0, 100}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
       "higher score comparing to others ",
       Pod(kS1, AwayFromS1InAz()), {{"node1", Pod(kS1)}, {"node2", Pod(kS1)}},
       {Node("node1", kAz1), Node("node2", kChina)}, {0, 100}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node which "
       "has more unmatches will get high score",
       Pod(kS1, AwayFromS1InAz()), {{"node1", Pod(kS1)}, {"node1", Pod(kS1)}, {"node2", Pod(kS2)}},
       {Node("node1", kAz1), Node("node2", kIndia)}, {0, 100}},
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get "
       "high score",
       Pod(kS2), {{"node1", Pod(kS1, AwayFromS2InAz())}, {"node2", Pod(kS2, AwayFromS1InAz())}},
       {Node("node1", kAz1), Node("node2", kAz2)}, {0, 100}},
      {"Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution "
       "in both pod affinity & anti affinity",
       Pod(kS1, StayWithS1InRegionAwayFromS2InAz()), {{"node1", Pod(kS1)}, {"node2", Pod(kS1)}},
       {Node("node1", kChina), Node("node2", kAz1)}, {100, 0}},
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
       "schedule and existing pods have the same labels",
       Pod(kS1, StayWithS1InRegionAwayFromS2InAz()),
       {{"node1", Pod(kS1)}, {"node1", Pod(kS1)}, {"node2", Pod(kS1)}, {"node3", Pod(kS1)},
        {"node3", Pod(kS1)}, {"node4", Pod(kS1)}, {"node5", Pod(kS1)}},
       {Node("node1", kChinaAz1), Node("node2", kIndia), Node("node3", kChina),
        Node("node4", kChina), Node("node5", kIndia)},
       {100, 0, 100, 100, 0}},
      {"Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnored"
       "DuringExecution in both pod affinity & anti affinity & symmetry",
       Pod(kS1, StayWithS1InRegionAwayFromS2InAz()),
       {{"node1", Pod(kS1)}, {"node2", Pod(kS2)},
        {"node3", Pod({}, StayWithS1InRegionAwayFromS2InAz())}, {"node4", Pod({}, AwayFromS1InAz())}},
       {Node("node1", kChina), Node("node2", kAz1), Node("node3", kIndia), Node("node4", kAz2)},
       {100, 0, 100, 0}},
      {"Avoid panic when partial nodes in a topology don't have pods with affinity", Pod(kS1),
       {{"node1", Pod(kS1)}, {"node2", Pod({}, StayWithS1InRegionAwayFromS2InAz())}},
       {Node("node1", kChina), Node("node2", kChina)}, {0, 0}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Scores(c.nodes, c.pods, c.pod) == c.want);
  }
}

TEST_CASE("hardPodAffinityWeight (upstream TestPreferredAffinityWithHardPodAffinitySymmetricWeight)") {
  const std::vector<NodeSpec> nodes = {Node("node1", kChina), Node("node2", kIndia),
                                       Node("node3", kAz1)};
  // Upstream's "" namespace is knobsim's default one.
  PodAffinityTerm t = Term({In("service", {"S1"})}, "region");
  t.namespaces = {"default", "subteam2.team2"};
  t.namespace_selector = LabelSelector{{}, {In("team", {"team1"})}};
  Affinity hard;
  hard.affinity.required = {t};
  const Labels svc = {{"service", "S1"}};
  const std::vector<Bound> pods = {{"node1", Pod({}, hard)}, {"node2", Pod({}, hard)}};
  CAPTURE("with default weight");
  CHECK(Scores(nodes, pods, Pod(svc)) == S{100, 100, 0});
  CAPTURE("with zero weight");
  CHECK(Scores(nodes, pods, Pod(svc), 0) == S{-1});
  CAPTURE("with no matching namespace");
  CHECK(Scores(nodes, pods, Pod(svc, {}, "subteam1.team2")) == S{-1});
  CAPTURE("with matching NamespaceSelector");
  CHECK(Scores(nodes, pods, Pod(svc, {}, "subteam1.team1")) == S{100, 100, 0});
  CAPTURE("with matching Namespaces");
  CHECK(Scores(nodes, pods, Pod(svc, {}, "subteam2.team2")) == S{100, 100, 0});
}

TEST_CASE("preferred terms of existing pods count (upstream TestPreferredAffinity, \"Do not ignore "
          "preferred terms of existing pods\")") {
  CHECK(Scores({Node("node1", kChina), Node("node2", kIndia)},
               {{"node1", Pod(kS1, StayWithS1InRegionAwayFromS2InAz())},
                {"node2", Pod(kS2, StayWithS2InRegion())}},
               Pod(kS2)) == S{0, 100});
}

TEST_CASE("normalisation is min-max with negative sums: -5 → 0, 0 → 50, +5 → 100 (truncated)") {
  Affinity a;
  a.affinity.preferred = {{5, Term({In("app", {"a"})}, "zone")}};
  a.anti.preferred = {{5, Term({In("app", {"b"})}, "zone")}};
  const std::vector<NodeSpec> nodes = {Node("n1", {{"zone", "z1"}}), Node("n2", {{"zone", "z2"}}),
                                       Node("n3", {{"zone", "z3"}})};
  CHECK(Scores(nodes, {{"n1", Pod({{"app", "a"}})}, {"n3", Pod({{"app", "b"}})}}, Pod({}, a)) ==
        S{100, 50, 0});
  // Weights that cancel out in one domain still make the plugin score (all 0 here).
  CHECK(Scores(nodes, {{"n1", Pod({{"app", "a"}})}, {"n1", Pod({{"app", "b"}})}}, Pod({}, a)) ==
        S{0, 0, 0});
}

}  // namespace
}  // namespace knobsim
