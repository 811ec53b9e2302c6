#include <doctest/doctest.h>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST_CASE("a cordoned node rejects pods that do not tolerate the unschedulable taint") {
  ClusterState cluster;
  NodeSpec cordoned = MakeNode("cordoned");
  cordoned.unschedulable = true;
  cluster.AddNode(cordoned);
  cluster.AddNode(MakeNode("open"));
  auto filter = NewNodeUnschedulableFilter();
  CHECK(filter->Name() == "NodeUnschedulable");

  struct Case {
    const char* what;
    std::vector<Toleration> tolerations;
    bool admitted;
  };
  const std::vector<Case> cases = {
      {"no toleration", {}, false},
      {"Exists on the key",
       {{"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", {}}},
       true},
      {"Exists on the key, any effect",
       {{"node.kubernetes.io/unschedulable", "Exists", "", "", {}}},
       true},
      {"tolerate everything", {{"", "Exists", "", "", {}}}, true},
      {"NoExecute only",
       {{"node.kubernetes.io/unschedulable", "Exists", "", "NoExecute", {}}},
       false},
      {"other key", {{"node.kubernetes.io/not-ready", "Exists", "", "", {}}}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    PodSpec pod = MakePod("p");
    pod.tolerations = c.tolerations;
    PluginStatus s = filter->Filter(pod, cluster, 0);
    CHECK(s.ok() == c.admitted);
    if (!c.admitted) {
      CHECK(s.code == StatusCode::kUnschedulableAndUnresolvable);
      CHECK(s.reasons == std::vector<std::string>{"node(s) were unschedulable"});
    }
    CHECK(filter->Filter(pod, cluster, 1).ok());
  }
}

}  // namespace
}  // namespace knobsim
