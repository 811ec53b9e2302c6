#include <doctest/doctest.h>

#include <string>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

struct Case {
  const char* rule;
  int64_t alloc_cpu, alloc_mem;  // 0 = absent
  int64_t node_cpu, node_mem;    // actual requests of the bound pods
  int64_t pod_cpu, pod_mem;      // the pod's actual request
  int64_t want;
};

TEST_CASE("BalancedAllocation score is int((1 - |f_cpu - f_mem|/2) x 100) after the pod") {
  const Case cases[] = {
      {"equal fractions: 100", 4000, 8000, 1000, 1000, 1000, 3000, 100},
      {"fractions 0.5 and 0.25: std 0.125 -> 87", 4000, 8000, 1000, 1000, 1000, 1000, 87},
      {"fractions cap at 1", 4000, 8000, 3000, 0, 3000, 0, 50},
      {"cpu-only pod on an empty node", 1000, 1000, 0, 0, 500, 0, 75},
      {"memory allocatable 0: one fraction, std 0", 4000, 0, 0, 0, 1000, 1000, 100},
      {"neither allocatable: 100", 0, 0, 0, 0, 1000, 1000, 100},
      {"best-effort pod: 0 (upstream skips the plugin)", 4000, 8000, 1000, 7000, 0, 0, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    NodeSpec spec;
    spec.name = "n";
    if (c.alloc_cpu) spec.allocatable["cpu"] = c.alloc_cpu;
    if (c.alloc_mem) spec.allocatable["memory"] = c.alloc_mem;
    ClusterState cluster;
    cluster.AddNode(spec);
    PodSpec bound;
    bound.name = "bound";
    bound.requests = {{"cpu", c.node_cpu}, {"memory", c.node_mem}};
    // Non-zero sums must not be read: set them far off.
    bound.nonzero_cpu_milli = 999999;
    bound.nonzero_memory_bytes = 999999;
    Placement at;
    at.node = 0;
    cluster.Bind(bound, at);
    PodSpec pod;
    if (c.pod_cpu) pod.requests["cpu"] = c.pod_cpu;
    if (c.pod_mem) pod.requests["memory"] = c.pod_mem;
    pod.nonzero_cpu_milli = 100;
    pod.nonzero_memory_bytes = 200;
    auto plugin = NewBalancedAllocationScore();
    const auto got = testing::RunScorePlugin(*plugin, pod, cluster);
    CHECK(got.normalized[0] == c.want);
    CHECK(got.skipped == (c.pod_cpu == 0 && c.pod_mem == 0));
  }
}

TEST_CASE("BalancedAllocation score is named as upstream and weighs 1") {
  auto plugin = NewBalancedAllocationScore();
  CHECK(plugin->Name() == "NodeResourcesBalancedAllocation");
  CHECK(plugin->Weight() == 1);
}

}  // namespace
}  // namespace knobsim
