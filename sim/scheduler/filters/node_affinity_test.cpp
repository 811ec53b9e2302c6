#include <doctest/doctest.h>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST_CASE("nodes failing the nodeSelector or required affinity are unresolvable") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a100", {{"gpu", "a100"}, {"zone", "a"}}));
  cluster.AddNode(MakeNode("t4", {{"gpu", "t4"}, {"zone", "b"}}));
  auto filter = NewNodeAffinityFilter(KubeVersion{});
  CHECK(filter->Name() == "NodeAffinity");

  struct Case {
    const char* what;
    std::map<std::string, std::string> selector;
    std::vector<std::vector<NodeSelectorRequirement>> terms;
    bool a100, t4;
  };
  const std::vector<Case> cases = {
      {"nothing asked", {}, {}, true, true},
      {"selector", {{"gpu", "t4"}}, {}, false, true},
      {"term", {}, {{{"zone", "In", {"a"}}}}, true, false},
      {"selector AND term", {{"gpu", "t4"}}, {{{"zone", "In", {"a"}}}}, false, false},
      {"terms OR", {}, {{{"zone", "In", {"a"}}}, {{"gpu", "In", {"t4"}}}}, true, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    PodSpec pod = MakePod("p");
    pod.node_selector = c.selector;
    pod.node_affinity.required_terms = c.terms;
    for (int n = 0; n < 2; ++n) {
      PluginStatus s = filter->Filter(pod, cluster, n);
      CHECK(s.ok() == (n == 0 ? c.a100 : c.t4));
      if (!s.ok()) {
        CHECK(s.code == StatusCode::kUnschedulableAndUnresolvable);
        CHECK(s.reasons ==
              std::vector<std::string>{"node(s) didn't match Pod's node affinity/selector"});
      }
    }
  }
}

// Upstream pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go, TestNodeAffinity:
// the cases with wantPreFilterResult / wantPreFilterStatus (matchFields on metadata.name), each
// against the node it names (node1, or node2 with foo=bar).
TEST_CASE("NodeAffinity PreFilter narrows to the nodes matchFields metadata.name pins") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("node1", {{"foo", "bar"}}));
  cluster.AddNode(MakeNode("node2", {{"foo", "bar"}}));
  using Term = std::vector<NodeSelectorRequirement>;
  const NodeSelectorRequirement field1{"metadata.name", "In", {"node1"}};
  const NodeSelectorRequirement field2{"metadata.name", "In", {"node2"}};
  const NodeSelectorRequirement foo_bar{"foo", "In", {"bar"}};
  const NodeSelectorRequirement foo_other{"foo", "In", {"not-match-to-bar"}};
  struct Case {
    const char* upstream_name;
    std::vector<Term> terms;
    const char* node;                     // the node Filter is asked about
    std::vector<std::string> pre_filter;  // the PreFilterResult; empty = every node
    const char* pre_filter_reason;        // a PreFilter rejection, or nullptr
    bool filter_passes;
  };
  const std::vector<Case> cases = {
      {"Pod with matchFields using In operator that matches the existing node",
       {{field1}}, "node1", {"node1"}, nullptr, true},
      {"Pod with matchFields using In operator that does not match the existing node",
       {{field1}}, "node2", {"node1"}, nullptr, false},
      {"Pod with two terms: matchFields does not match, but matchExpressions matches",
       {{field1}, {foo_bar}}, "node2", {}, nullptr, true},
      {"Pod with one term: matchFields does not match, but matchExpressions matches",
       {{field1, foo_bar}}, "node2", {"node1"}, nullptr, false},
      {"Pod with one term: both matchFields and matchExpressions match",
       {{field1, foo_bar}}, "node1", {"node1"}, nullptr, true},
      {"Pod with two terms: both matchFields and matchExpressions do not match",
       {{field1}, {foo_other}}, "node2", {}, nullptr, false},
      {"Pod with two terms of node.Name affinity",
       {{field1}, {field2}}, "node2", {"node1", "node2"}, nullptr, true},
      {"Pod with two conflicting mach field requirements",
       {{field1, field2}}, "node2", {}, "pod affinity terms conflict", false},
  };
  auto filter = NewNodeAffinityFilter(KubeVersion{});
  for (const Case& c : cases) {
    CAPTURE(c.upstream_name);
    PodSpec pod = MakePod("p");
    pod.node_affinity.required_terms = c.terms;
    const PluginStatus pre = filter->PreFilter(pod, cluster);
    if (c.pre_filter_reason != nullptr) {
      CHECK(pre.code == StatusCode::kUnschedulableAndUnresolvable);
      CHECK(pre.reasons == std::vector<std::string>{c.pre_filter_reason});
      continue;
    }
    REQUIRE(pre.ok());
    const std::vector<std::string>* names = filter->PreFilterNodeNames();
    if (c.pre_filter.empty()) {
      CHECK(names == nullptr);
    } else {
      REQUIRE(names != nullptr);
      CHECK(*names == c.pre_filter);
    }
    CHECK(filter->Filter(pod, cluster, cluster.FindNode(c.node)).ok() == c.filter_passes);
  }
}

TEST_CASE("NodeAffinity PreFilter gives no node list before 1.24 (no PreFilterResult then)") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("node1"));
  PodSpec pod = MakePod("p");
  pod.node_affinity.required_terms = {{{"metadata.name", "In", {"node1"}},
                                       {"metadata.name", "In", {"node2"}}}};
  auto old = NewNodeAffinityFilter(*KubeVersion::Parse("1.23"));
  CHECK(old->PreFilter(pod, cluster).ok());  // not even the conflict: Filter rejects node1
  CHECK(old->PreFilterNodeNames() == nullptr);
  CHECK_FALSE(old->Filter(pod, cluster, 0).ok());
}

}  // namespace
}  // namespace knobsim
