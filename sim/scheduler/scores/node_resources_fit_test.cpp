#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

struct Case {
  const char* rule;
  int64_t alloc_cpu, alloc_mem;  // node allocatable (0 = absent)
  int64_t node_cpu, node_mem;    // node's non-zero requested
  int64_t pod_cpu, pod_mem;      // pod's non-zero request
  int64_t least, most;           // expected raw score per strategy
};

TEST_CASE("NodeResourcesFit score: LeastAllocated and MostAllocated on cpu and memory") {
  const Case cases[] = {
      {"half used: 50 either way", 4000, 8 * kGi, 1000, 2 * kGi, 1000, 2 * kGi, 50, 50},
      {"mean of cpu and memory, integer division", 4000, 10 * kGi, 500, 1 * kGi, 500, 2 * kGi, 72,
       27},  // cpu least 75 most 25, memory least 70 most 30
      {"requested above allocatable: least 0, most 100", 4000, 8 * kGi, 3000, 7 * kGi, 2000,
       2 * kGi, 0, 100},
      {"resource with allocatable 0 drops out", 4000, 0, 1000, 2 * kGi, 1000, 2 * kGi, 50, 50},
      {"nothing allocatable: 0", 0, 0, 0, 0, 100, 200, 0, 0},
      {"per-resource scores truncate before the mean", 3000, 3 * kGi, 0, 0, 1000, 1 * kGi, 66, 33},
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
    bound.nonzero_cpu_milli = c.node_cpu;
    bound.nonzero_memory_bytes = c.node_mem;
    Placement at;
    at.node = 0;
    cluster.Bind(bound, at);
    PodSpec pod;
    pod.nonzero_cpu_milli = c.pod_cpu;
    pod.nonzero_memory_bytes = c.pod_mem;
    auto least = NewNodeResourcesFitScore("LeastAllocated");
    auto most = NewNodeResourcesFitScore("MostAllocated");
    CHECK(testing::RunScorePlugin(*least, pod, cluster).normalized[0] == c.least);
    CHECK(testing::RunScorePlugin(*most, pod, cluster).normalized[0] == c.most);
  }
}

TEST_CASE("NodeResourcesFit score uses the non-zero requests, not the actual ones") {
  NodeSpec spec;
  spec.name = "n";
  spec.allocatable = {{"cpu", 1000}, {"memory", 1000 * 1024 * 1024}};
  ClusterState cluster;
  cluster.AddNode(spec);
  PodSpec pod;  // requests nothing: scored as 100m and 200Mi
  pod.nonzero_cpu_milli = 100;
  pod.nonzero_memory_bytes = 200 * 1024 * 1024;
  auto least = NewNodeResourcesFitScore("LeastAllocated");
  CHECK(testing::RunScorePlugin(*least, pod, cluster).raw[0] == 85);  // (90 + 80) / 2
}

TEST_CASE("NodeResourcesFit score names its strategies and weighs 1") {
  CHECK(NewNodeResourcesFitScore("LeastAllocated")->Weight() == 1);
  CHECK(NewNodeResourcesFitScore("MostAllocated")->Name() == "NodeResourcesFit");
  CHECK_THROWS_AS(NewNodeResourcesFitScore("RequestedToCapacityRatio"), std::invalid_argument);
  CHECK_THROWS_AS(NewNodeResourcesFitScore(""), std::invalid_argument);
}

}  // namespace
}  // namespace knobsim
