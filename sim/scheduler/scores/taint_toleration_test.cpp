#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

using Taints = std::vector<Taint>;

struct Case {
  const char* rule;
  std::vector<Taints> nodes;
  std::vector<Toleration> tolerations;
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
};

const Taint kPreferGpu{"gpu", "true", "PreferNoSchedule"};
const Taint kPreferSpot{"spot", "", "PreferNoSchedule"};
const Taint kPreferBatch{"batch", "x", "PreferNoSchedule"};
const Taint kNoScheduleGpu{"gpu", "true", "NoSchedule"};

TEST_CASE("TaintToleration score counts untolerated PreferNoSchedule taints, reversed") {
  const Case cases[] = {
      {"no PreferNoSchedule taint anywhere: every node 100",
       {{}, {}, {kNoScheduleGpu}},
       {},
       {0, 0, 0},
       {100, 100, 100}},
      {"fewer untolerated taints score higher",
       {{}, {kPreferGpu}, {kPreferGpu, kPreferSpot}},
       {},
       {0, 1, 2},
       {100, 50, 0}},
      {"100 - 100*count/max truncates the scaled count",
       {{}, {kPreferGpu}, {kPreferGpu, kPreferSpot, kPreferBatch}},
       {},
       {0, 1, 3},
       {100, 67, 0}},
      {"NoSchedule taints do not count", {{kNoScheduleGpu}, {kPreferSpot}}, {}, {0, 1}, {100, 0}},
      {"a toleration with effect PreferNoSchedule tolerates",
       {{kPreferGpu}, {kPreferSpot}},
       {{"gpu", "Equal", "true", "PreferNoSchedule", {}}},
       {0, 1},
       {100, 0}},
      {"a toleration with an empty effect tolerates",
       {{kPreferGpu}, {kPreferSpot}},
       {{"gpu", "Equal", "true", "", {}}},
       {0, 1},
       {100, 0}},
      {"a NoSchedule toleration does not tolerate a PreferNoSchedule taint",
       {{kPreferGpu}, {}},
       {{"gpu", "Equal", "true", "NoSchedule", {}}},
       {1, 0},
       {0, 100}},
      {"empty key with Exists tolerates every taint",
       {{kPreferGpu}, {kPreferSpot, kPreferBatch}},
       {{"", "Exists", "", "", {}}},
       {0, 0},
       {100, 100}},
      {"a value mismatch does not tolerate",
       {{kPreferGpu}, {}},
       {{"gpu", "Equal", "false", "", {}}},
       {1, 0},
       {0, 100}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      NodeSpec spec;
      spec.name = fmt::format("n{}", i);
      spec.taints = c.nodes[i];
      cluster.AddNode(spec);
    }
    PodSpec pod;
    pod.tolerations = c.tolerations;
    auto plugin = NewTaintTolerationScore();
    const auto got = testing::RunScorePlugin(*plugin, pod, cluster);
    CHECK(got.raw == c.raw);
    CHECK(got.normalized == c.normalized);
  }
}

TEST_CASE("TaintToleration score is skippable only when no node has a PreferNoSchedule taint") {
  auto plugin = NewTaintTolerationScore();
  CHECK(plugin->Name() == "TaintToleration");
  CHECK(plugin->Weight() == 3);
  ClusterState cluster;
  NodeSpec plain;
  plain.name = "plain";
  plain.taints = {kNoScheduleGpu};
  cluster.AddNode(plain);
  PodSpec pod;
  CHECK(testing::RunScorePlugin(*plugin, pod, cluster).skipped);
  // A node added later is seen by the same plugin on the next pod.
  NodeSpec tainted;
  tainted.name = "tainted";
  tainted.taints = {kPreferSpot};
  cluster.AddNode(tainted);
  const auto got = testing::RunScorePlugin(*plugin, pod, cluster);
  CHECK_FALSE(got.skipped);
  CHECK(got.normalized == std::vector<int64_t>{100, 0});
}

}  // namespace
}  // namespace knobsim
