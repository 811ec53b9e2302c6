#include "sim/scheduler/pod_equivalence.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <functional>

namespace knobsim {
namespace {

PodSpec Replica() {
  PodSpec pod;
  pod.name = "web-0";
  pod.labels = {{"app", "web"}};
  pod.requests = {{"cpu", 1000}, {"memory", 1 << 30}, {kGpuMemResource, 4}};
  pod.nonzero_cpu_milli = 1000;
  pod.nonzero_memory_bytes = 1 << 30;
  pod.images = {"web:1"};
  pod.node_selector = {{"pool", "gpu"}};
  pod.node_affinity.required_terms = {{{"zone", "In", {"a", "b"}}}};
  pod.node_affinity.preferred = {{10, {{"gpu", "In", {"a10"}}}}};
  pod.tolerations = {{"dedicated", "Equal", "gpu", "NoSchedule", {}}};
  pod.container_gpus = {{4, 0}};
  pod.gpu_mem = 4;
  return pod;
}

struct Case {
  const char* rule;
  std::function<void(PodSpec&)> change;
  bool same;
};

TEST_CASE("pods are equivalent when every node-local plugin input agrees") {
  const Case cases[] = {
      {"another replica of the workload", [](PodSpec& p) { p.name = std::string("web-1"); }, true},
      {"namespace and labels are PodTopologySpread's, read every cycle",
       [](PodSpec& p) {
         p.namespace_ = "other";
         p.labels["pod-template-hash"] = "x";
       },
       true},
      {"topology spread constraints are read every cycle",
       [](PodSpec& p) { p.topology_spread.emplace_back(); }, true},
      {"priority does not filter or score", [](PodSpec& p) { p.priority = 1000; }, true},
      {"requests (NodeResourcesFit, BalancedAllocation)",
       [](PodSpec& p) { p.requests["cpu"] = 2000; }, false},
      {"non-zero scoring sums", [](PodSpec& p) { p.nonzero_memory_bytes += 1; }, false},
      {"containers (ImageLocality threshold)", [](PodSpec& p) { p.num_containers = 2; }, false},
      {"images", [](PodSpec& p) { p.images = {"web:2"}; }, false},
      {"nodeSelector", [](PodSpec& p) { p.node_selector["pool"] = "cpu"; }, false},
      {"required affinity values",
       [](PodSpec& p) { p.node_affinity.required_terms[0][0].values = {"a"}; }, false},
      {"preferred affinity weight", [](PodSpec& p) { p.node_affinity.preferred[0].weight = 20; },
       false},
      {"toleration effect", [](PodSpec& p) { p.tolerations[0].effect = ""; }, false},
      {"toleration seconds", [](PodSpec& p) { p.tolerations[0].toleration_seconds = 30; }, false},
      {"per-container GPU split",
       [](PodSpec& p) {
         p.container_gpus = {{2, 0}, {2, 0}};
       },
       false},
      {"gpu-core", [](PodSpec& p) { p.gpu_core = 30; }, false},
      {"gpu-count", [](PodSpec& p) { p.gpu_count = 2; }, false},
      {"whole GPUs", [](PodSpec& p) { p.whole_gpus = 1; }, false},
      {"require-whole-device", [](PodSpec& p) { p.require_whole_device = true; }, false},
  };
  const PodSpec base = Replica();
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    PodSpec other = Replica();
    c.change(other);
    CHECK(SameNodeLocalInputs(base, other) == c.same);
    CHECK(SameNodeLocalInputs(other, base) == c.same);
    if (c.same) CHECK(NodeLocalHash(base) == NodeLocalHash(other));
  }
}

TEST_CASE("the hash separates fields, not just their concatenation") {
  PodSpec a = Replica();
  PodSpec b = Replica();
  a.node_selector = {{"ab", "c"}};
  b.node_selector = {{"a", "bc"}};
  CHECK_FALSE(SameNodeLocalInputs(a, b));
  CHECK(NodeLocalHash(a) != NodeLocalHash(b));
}

}  // namespace
}  // namespace knobsim
