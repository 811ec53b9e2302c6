#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

struct Case {
  const char* rule;
  std::vector<Labels> nodes;
  std::vector<NodeAffinity::Preferred> preferred;
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
  bool skipped;
};

const NodeSelectorRequirement kZoneA{"zone", "In", {"a"}};
const NodeSelectorRequirement kA100{"gpu", "In", {"a100"}};
const NodeSelectorRequirement kNotT4{"gpu", "NotIn", {"t4"}};

TEST_CASE("NodeAffinity score sums matching preferred weights and scales to the best node") {
  const std::vector<Labels> nodes = {
      {{"zone", "a"}}, {{"gpu", "a100"}}, {{"zone", "a"}, {"gpu", "a100"}}, {{"gpu", "t4"}}};
  const Case cases[] = {
      {"weights of matching terms add up; 100*s/max",
       nodes,
       {{10, {kZoneA}}, {30, {kA100}}},
       {10, 30, 40, 0},
       {25, 75, 100, 0},
       false},
      {"expressions in a term are ANDed",
       nodes,
       {{50, {kZoneA, kA100}}},
       {0, 0, 50, 0},
       {0, 0, 100, 0},
       false},
      {"integer division truncates",
       nodes,
       {{1, {kZoneA}}, {2, {kA100}}},
       {1, 2, 3, 0},
       {33, 66, 100, 0},
       false},
      {"NotIn matches nodes without the label",
       nodes,
       {{7, {kNotT4}}},
       {7, 7, 7, 0},
       {100, 100, 100, 0},
       false},
      {"no node matches: all 0",
       nodes,
       {{5, {{"zone", "In", {"b"}}}}},
       {0, 0, 0, 0},
       {0, 0, 0, 0},
       false},
      {"no preferred terms: skipped, all 0", nodes, {}, {0, 0, 0, 0}, {0, 0, 0, 0}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      NodeSpec spec;
      spec.name = fmt::format("n{}", i);
      spec.labels = c.nodes[i];
      cluster.AddNode(spec);
    }
    PodSpec pod;
    pod.node_affinity.preferred = c.preferred;
    auto plugin = NewNodeAffinityScore();
    const auto got = testing::RunScorePlugin(*plugin, pod, cluster);
    CHECK(got.raw == c.raw);
    CHECK(got.normalized == c.normalized);
    CHECK(got.skipped == c.skipped);
  }
}

TEST_CASE("NodeAffinity score weighs 2") {
  auto plugin = NewNodeAffinityScore();
  CHECK(plugin->Name() == "NodeAffinity");
  CHECK(plugin->Weight() == 2);
}

}  // namespace
}  // namespace knobsim
