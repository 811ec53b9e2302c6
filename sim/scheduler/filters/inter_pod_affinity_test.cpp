// InterPodAffinity filter. Cases translated from upstream
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go (named per case); the
// upstream helpers st.MakePod().PodAffinityIn / PodAntiAffinityExists ... become Term(...).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::MakeNode;
using testing::MakePod;

const std::string kOk = "ok";
const std::string kAffinity = "node(s) didn't match pod affinity rules";
const std::string kAnti = "node(s) didn't match pod anti-affinity rules";
const std::string kExisting = "node(s) didn't satisfy existing pods anti-affinity rules";

// One term: `key` `op` `values` on pod labels, counted per `topology`.
PodAffinityTerm Term(std::string key, std::string op, std::vector<std::string> values,
                     std::string topology) {
  PodAffinityTerm t;
  t.label_selector.match_expressions.push_back({std::move(key), std::move(op), std::move(values)});
  t.topology_key = std::move(topology);
  return t;
}
PodAffinityTerm In(std::string key, std::vector<std::string> values, std::string topology) {
  return Term(std::move(key), "In", std::move(values), std::move(topology));
}
PodAffinityTerm Exists(std::string key, std::string topology) {
  return Term(std::move(key), "Exists", {}, std::move(topology));
}

PodSpec Pod(Labels labels, std::vector<PodAffinityTerm> affinity = {},
            std::vector<PodAffinityTerm> anti = {}, std::string ns = "default") {
  PodSpec pod = MakePod("p", std::move(labels));
  pod.namespace_ = std::move(ns);
  pod.pod_affinity.required = std::move(affinity);
  pod.pod_anti_affinity.required = std::move(anti);
  return pod;
}

NodeSpec Node(std::string name, Labels labels) {
  NodeSpec node = MakeNode(name, std::move(labels));
  node.labels.erase(kHostnameLabel);  // upstream's test nodes carry only the labels given
  return node;
}

struct Bound {
  std::string node;
  PodSpec pod;
};

// Each node's verdict: "ok" or the InterPodAffinity reason; "skip" when PreFilter skipped.
std::vector<std::string> Verdicts(const std::vector<NodeSpec>& nodes, const std::vector<Bound>& pods,
                                  const PodSpec& incoming, const ClusterState* base = nullptr) {
  ClusterState cluster = base != nullptr ? *base : ClusterState{};
  for (const NodeSpec& n : nodes) cluster.AddNode(n);
  for (const Bound& b : pods) {
    Placement at;
    at.node = cluster.FindNode(b.node);
    if (at.node < 0) continue;  // a pod on a node the snapshot lacks counts nowhere
    PodSpec pod = b.pod;
    pod.node_name = b.node;
    cluster.Bind(pod, at);
  }
  auto filter = NewInterPodAffinityFilter();
  CHECK(filter->PreFilter(incoming, cluster).ok());
  std::vector<std::string> out;
  if (filter->Skipped()) {
    out.push_back("skip");
    return out;
  }
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const PluginStatus s = filter->Filter(incoming, cluster, n);
    if (s.ok()) {
      out.push_back(kOk);
      continue;
    }
    out.push_back(s.reasons.front());
    CHECK(s.code == (s.reasons.front() == kAffinity ? StatusCode::kUnschedulableAndUnresolvable
                                                    : StatusCode::kUnschedulable));
  }
  return out;
}

using V = std::vector<std::string>;
const Labels kScan = {{"service", "securityscan"}};
const Labels kS1 = {{"security", "S1"}};
const NodeSpec kNode1 = Node("node1", {{"region", "r1"}, {"zone", "z11"}});

// TestRequiredAffinitySingleNode: `pod` (service=securityscan) runs on node1.
TEST_CASE("required inter-pod affinity on a single node (upstream TestRequiredAffinitySingleNode)") {
  const Bound scan{"node1", Pod(kScan)};
  struct Case {
    const char* name;  // upstream's
    PodSpec pod;
    std::vector<Bound> pods;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
       "existing pods",
       Pod({}), {}, "skip"},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that matches the existing pod",
       Pod(kS1, {In("service", {"securityscan", "value2"}, "region")}), {scan}, kOk},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
       "not in operator in labelSelector that matches the existing pod",
       Pod(kS1, {Term("service", "NotIn", {"securityscan3", "value3"}, "region")}), {scan}, kOk},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       Pod(kScan, {In("service", {"antivirusscan", "value2"}, "")}), {scan}, kAffinity},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       Pod(kS1, {In("service", {"securityscan", "value2"}, "region")},
           {In("service", {"antivirusscan", "value2"}, "node")}),
       {scan}, kOk},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       Pod(kS1, {In("service", {"securityscan", "value2"}, "region")},
           {In("service", {"antivirusscan", "value2"}, "node")}),
       {{"node1", Pod(kScan, {}, {In("service", {"antivirusscan", "value2"}, "node")})}}, kOk},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       Pod(kS1, {In("service", {"securityscan", "value2"}, "region")},
           {In("service", {"securityscan", "value2"}, "zone")}),
       {scan}, kAnti},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry "
       "with the existing pod",
       Pod(kScan, {In("service", {"securityscan", "value2"}, "region")},
           {In("service", {"antivirusscan", "value2"}, "node")}),
       {{"node1", Pod(kScan, {}, {In("service", {"securityscan", "value2"}, "zone")})}}, kExisting},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       Pod(kScan, {Term("service", "NotIn", {"securityscan", "value2"}, "region")}),
       {{"node2", Pod(kScan)}}, kAffinity},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
       Pod(kScan), {{"node1", Pod(kScan, {}, {In("service", {"securityscan", "value2"}, "zone")})}},
       kExisting},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
       Pod(kScan),
       {{"node1", Pod(kScan, {}, {Term("service", "NotIn", {"securityscan", "value2"}, "zone")})}},
       "skip"},
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
       "symmetry with incoming pod",
       Pod(kScan, {}, {Exists("service", "region"), Exists("security", "region")}),
       {{"node1", Pod(kS1, {}, {Exists("security", "zone")})}}, kAnti},
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       Pod(kScan, {}, {Exists("service", "zone"), Exists("security", "zone")}),
       {{"node1", Pod(kS1, {}, {Exists("security", "zone")})}}, kAnti},
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       Pod(kS1, {}, {Exists("security", "zone")}),
       {{"node1", Pod(kScan, {}, {Exists("service", "zone"), Exists("security", "zone")})}},
       kExisting},
      {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       Pod({{"abc", ""}, {"xyz", ""}}, {}, {Exists("abc", "zone"), Exists("def", "zone")}),
       {{"node1", Pod({{"def", ""}, {"xyz", ""}}, {}, {Exists("abc", "zone"), Exists("def", "zone")})}},
       kAnti},
      {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       Pod({{"def", ""}, {"xyz", ""}}, {}, {Exists("abc", "zone"), Exists("def", "zone")}),
       {{"node1", Pod({{"abc", ""}, {"xyz", ""}}, {}, {Exists("abc", "zone"), Exists("def", "zone")})}},
       kAnti},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Verdicts({kNode1}, c.pods, c.pod) == V{c.want});
  }
}

TEST_CASE("required affinity terms are ANDed, selector requirements too (upstream "
          "TestRequiredAffinitySingleNode)") {
  const Bound scan{"node1", Pod(kScan)};
  // "satisfies the PodAffinity with different label Operators in multiple
  // RequiredDuringSchedulingIgnoredDuringExecution"
  PodAffinityTerm a = Exists("service", "region");
  a.label_selector.match_expressions.push_back({"wrongkey", "DoesNotExist", {}});
  PodAffinityTerm b = In("service", {"securityscan"}, "region");
  b.label_selector.match_expressions.push_back({"service", "NotIn", {"WrongValue"}});
  CHECK(Verdicts({kNode1}, {scan}, Pod(kS1, {a, b})) == V{kOk});
  // "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule
  // onto the node because one of the matchExpression item don't match."
  PodAffinityTerm b2 = In("service", {"securityscan2"}, "region");
  b2.label_selector.match_expressions.push_back({"service", "NotIn", {"WrongValue"}});
  CHECK(Verdicts({kNode1}, {scan}, Pod(kS1, {a, b2})) == V{kAffinity});
}

TEST_CASE("namespaces and namespaceSelector of a term (upstream TestRequiredAffinitySingleNode)") {
  ClusterState base;
  base.SetNamespaceLabels("subteam1.team1", {{"team", "team1"}});
  base.SetNamespaceLabels("subteam2.team1", {{"team", "team1"}});
  base.SetNamespaceLabels("subteam1.team2", {{"team", "team2"}});
  auto pod_in = [](std::string ns) {
    PodSpec p = Pod(kScan);
    p.namespace_ = std::move(ns);
    return Bound{"node1", p};
  };
  PodAffinityTerm team1 = In("service", {"securityscan", "value2"}, "region");
  team1.namespace_selector = LabelSelector{{}, {{"team", "In", {"team1"}}}};

  // "Does not satisfy the PodAffinity with labelSelector because of diff Namespace"
  PodAffinityTerm diff = In("service", {"securityscan", "value2"}, "");
  diff.namespaces = {"DiffNameSpace"};
  CHECK(Verdicts({kNode1}, {pod_in("ns")}, Pod(kS1, {diff}), &base) == V{kAffinity});
  // "affinity with NamespaceSelector"
  CHECK(Verdicts({kNode1}, {pod_in("subteam1.team1")}, Pod(kS1, {team1}), &base) == V{kOk});
  // "affinity with non-matching NamespaceSelector"
  CHECK(Verdicts({kNode1}, {pod_in("subteam1.team2")}, Pod(kS1, {team1}), &base) == V{kAffinity});
  // "anti-affinity with matching NamespaceSelector"
  PodAffinityTerm anti = team1;
  anti.topology_key = "zone";
  CHECK(Verdicts({kNode1}, {pod_in("subteam2.team1")}, Pod(kS1, {}, {anti}, "subteam1.team1"),
                 &base) == V{kAnti});
  // "anti-affinity with matching all NamespaceSelector"
  PodAffinityTerm all = anti;
  all.namespace_selector = LabelSelector{};
  CHECK(Verdicts({kNode1}, {pod_in("subteam2.team1")}, Pod(kS1, {}, {all}, "subteam1.team1"),
                 &base) == V{kAnti});
  // "anti-affinity with non-matching NamespaceSelector"
  CHECK(Verdicts({kNode1}, {pod_in("subteam1.team2")}, Pod(kS1, {}, {anti}, "subteam1.team1"),
                 &base) == V{kOk});
}

const Labels kChina = {{"region", "China"}};
const Labels kChinaAz1 = {{"region", "China"}, {"az", "az1"}};
const Labels kIndia = {{"region", "India"}};

TEST_CASE("required inter-pod affinity across nodes (upstream TestRequiredAffinityMultipleNodes)") {
  struct Case {
    const char* name;
    PodSpec pod;
    std::vector<Bound> pods;
    std::vector<NodeSpec> nodes;
    V want;
  };
  const Labels foo_bar = {{"foo", "bar"}};
  const Labels both = {{"foo", "bar"}, {"service", "securityscan"}};
  const std::vector<Case> cases = {
      {"A pod can be scheduled onto all the nodes that have the same topology key & label value "
       "with one of them has an existing pod that matches the affinity rules",
       Pod({}, {In("foo", {"bar"}, "region")}), {{"node1", Pod(foo_bar)}},
       {Node("node1", kChina), Node("node2", kChinaAz1), Node("node3", kIndia)},
       {kOk, kOk, kAffinity}},
      {"The affinity rule is to schedule all of the pods of this collection to the same zone. The "
       "first pod of the collection should not be blocked from being scheduled onto any node, even "
       "there's no existing pod that matches the rule anywhere.",
       Pod(both, {In("foo", {"bar"}, "zone"), In("service", {"securityscan"}, "zone")}),
       {{"nodeA", Pod(foo_bar)}},
       {Node("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        Node("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {kOk, kOk}},
      {"The first pod of the collection can only be scheduled on nodes labelled with the requested "
       "topology keys",
       Pod(both, {In("foo", {"bar"}, "zone"), In("service", {"securityscan"}, "zone")}),
       {{"nodeA", Pod(foo_bar)}},
       {Node("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        Node("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinity, kAffinity}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
       Pod({}, {}, {In("foo", {"abc"}, "region")}), {{"nodeA", Pod({{"foo", "abc"}})}},
       {Node("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        Node("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {kAnti, kAnti}},
      {"This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
       "matches a pod.",
       Pod({}, {}, {In("foo", {"abc"}, "region"), In("service", {"securityscan"}, "zone")}),
       {{"nodeA", Pod({{"foo", "abc"}, {"service", "securityscan"}})}},
       {Node("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        Node("nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}})},
       {kAnti, kAnti}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but "
       "can be scheduled onto nodeC",
       Pod({}, {}, {In("foo", {"abc"}, "region")}), {{"nodeA", Pod({{"foo", "abc"}})}},
       {Node("nodeA", kChina), Node("nodeB", kChinaAz1), Node("nodeC", kIndia)},
       {kAnti, kAnti, kOk}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but "
       "can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity "
       "rule but in different namespace)",
       Pod({{"foo", "123"}}, {}, {In("foo", {"bar"}, "region")}, "NS1"),
       {{"nodeA", Pod(foo_bar, {}, {}, "NS1")},
        {"nodeC", Pod({}, {}, {In("foo", {"123"}, "region")}, "NS2")}},
       {Node("nodeA", kChina), Node("nodeB", kChinaAz1), Node("nodeC", kIndia)},
       {kAnti, kAnti, kOk}},
      {"Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
       "labelSelector of the term is firstly checked, and then topologyKey of the term is also "
       "checked",
       Pod({{"foo", ""}}), {{"nodeA", Pod({}, {}, {Exists("foo", "invalid-node-label")})}},
       {Node("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        Node("nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}})},
       {"skip"}},
      {"Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
       "topologyKey matches",
       Pod({}, {}, {Exists("foo", "invalid-node-label")}), {{"nodeA", Pod({{"foo", ""}})}},
       {Node("nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}),
        Node("nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}})},
       {kOk, kOk}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Verdicts(c.nodes, c.pods, c.pod) == c.want);
  }
}

TEST_CASE("matchLabelKeys and mismatchLabelKeys merge the pod's own values into the selector") {
  // Replicas of revision h1 repel only their own revision; an h2 pod may share the node.
  PodAffinityTerm t = Exists("app", kHostnameLabel);
  t.match_label_keys = {"pod-template-hash"};
  PodSpec h1 = Pod({{"app", "web"}, {"pod-template-hash", "h1"}}, {}, {t});
  PodSpec h2 = Pod({{"app", "web"}, {"pod-template-hash", "h2"}}, {}, {t});
  const std::vector<NodeSpec> nodes = {MakeNode("a"), MakeNode("b")};
  // The bound h1 pod repels the incoming h1 pod both ways (its own term and the incoming one's).
  CHECK(Verdicts(nodes, {{"a", h1}}, h1) == V{kAnti, kOk});
  CHECK(Verdicts(nodes, {{"a", h1}}, h2) == V{kOk, kOk});
  // mismatchLabelKeys: affinity to pods of *other* tenants only.
  PodAffinityTerm other = Exists("app", kHostnameLabel);
  other.mismatch_label_keys = {"tenant"};
  PodSpec mine = Pod({{"app", "db"}, {"tenant", "t1"}}, {other});
  CHECK(Verdicts(nodes, {{"a", Pod({{"app", "db"}, {"tenant", "t1"}})}}, mine) ==
        V{kAffinity, kAffinity});
  CHECK(Verdicts(nodes, {{"b", Pod({{"app", "db"}, {"tenant", "t2"}})}}, mine) ==
        V{kAffinity, kOk});
}

TEST_CASE("a term without labelSelector matches no pod, the incoming pod itself included") {
  PodAffinityTerm none;
  none.label_selector.match_expressions.push_back({"", "In", {}});
  none.topology_key = kHostnameLabel;
  const std::vector<NodeSpec> nodes = {MakeNode("a")};
  CHECK(Verdicts(nodes, {{"a", Pod({{"app", "x"}})}}, Pod({{"app", "x"}}, {none})) == V{kAffinity});
  CHECK(Verdicts(nodes, {{"a", Pod({{"app", "x"}})}}, Pod({{"app", "x"}}, {}, {none})) == V{kOk});
}

TEST_CASE("terminating pods still count; unbound ones do not") {
  PodSpec old = Pod({{"app", "web"}});
  old.terminating = true;
  const std::vector<NodeSpec> nodes = {MakeNode("a"), MakeNode("b")};
  const PodSpec web = Pod({{"app", "web"}}, {}, {In("app", {"web"}, kHostnameLabel)});
  CHECK(Verdicts(nodes, {{"a", old}}, web) == V{kAnti, kOk});
}

}  // namespace
}  // namespace knobsim
