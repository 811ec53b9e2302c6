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
  auto filter = NewNodeAffinityFilter();
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

}  // namespace
}  // namespace knobsim
