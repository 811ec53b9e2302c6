#include <doctest/doctest.h>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::MakeNode;
using testing::MakePod;

TEST_CASE("the untolerated-taint reason reads as the cluster's Kubernetes release wrote it") {
  ClusterState cluster;
  NodeSpec control = MakeNode("control");
  control.taints = {{"node-role.kubernetes.io/control-plane", "", "NoSchedule"}};
  cluster.AddNode(control);
  NodeSpec gpu = MakeNode("gpu");
  gpu.taints = {{"soft", "", "PreferNoSchedule"}, {"dedicated", "gpu", "NoExecute"}};
  cluster.AddNode(gpu);

  struct Case {
    int minor;
    const char* control_reason;
    const char* gpu_reason;
  };
  const std::vector<Case> cases = {
      {24,
       "node(s) had taint {node-role.kubernetes.io/control-plane: }, that the pod didn't tolerate",
       "node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"},
      {25,
       "node(s) had taint {node-role.kubernetes.io/control-plane: }, that the pod didn't tolerate",
       "node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"},
      {26, "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
       "node(s) had untolerated taint {dedicated: gpu}"},
      {28, "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
       "node(s) had untolerated taint {dedicated: gpu}"},
      {29, "node(s) had untolerated taint(s)", "node(s) had untolerated taint(s)"},
      {35, "node(s) had untolerated taint(s)", "node(s) had untolerated taint(s)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.minor);
    KubeVersion version;
    version.minor = c.minor;
    auto filter = NewTaintTolerationFilter(version);
    const PodSpec pod = MakePod("p");
    PluginStatus s = filter->Filter(pod, cluster, 0);
    CHECK(s.code == StatusCode::kUnschedulableAndUnresolvable);
    CHECK(s.reasons == std::vector<std::string>{c.control_reason});
    s = filter->Filter(pod, cluster, 1);
    CHECK(s.code == StatusCode::kUnschedulableAndUnresolvable);
    CHECK(s.reasons == std::vector<std::string>{c.gpu_reason});
  }
}

TEST_CASE("tolerated and PreferNoSchedule taints do not filter") {
  ClusterState cluster;
  NodeSpec gpu = MakeNode("gpu");
  gpu.taints = {{"soft", "", "PreferNoSchedule"}, {"dedicated", "gpu", "NoExecute"}};
  cluster.AddNode(gpu);
  auto filter = NewTaintTolerationFilter(KubeVersion{});
  CHECK(filter->Name() == "TaintToleration");
  PodSpec pod = MakePod("p");
  pod.tolerations = {{"dedicated", "Equal", "gpu", "NoExecute", 300}};
  CHECK(filter->Filter(pod, cluster, 0).ok());
  pod.tolerations = {{"dedicated", "Equal", "cpu", "NoExecute", {}}};
  CHECK_FALSE(filter->Filter(pod, cluster, 0).ok());
}

}  // namespace
}  // namespace knobsim
