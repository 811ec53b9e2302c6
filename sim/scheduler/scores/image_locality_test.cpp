#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/score_testing.h"

namespace knobsim {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

// Four nodes: two hold nginx:1.0 (500 MiB, the first also under its digest name), the second
// also an untagged app image (300 MiB); all four hold a 4000 MiB image.
ClusterState FourNodes() {
  ClusterState cluster;
  const ContainerImage big{{"registry.example.com/big:2"}, 4000 * kMiB};
  std::vector<std::vector<ContainerImage>> images = {
      {{{"nginx:1.0", "nginx@sha256:abcd"}, 500 * kMiB}, big},
      {{{"nginx:1.0"}, 500 * kMiB}, {{"registry:5000/app"}, 300 * kMiB}, big},
      {big},
      {big},
  };
  for (size_t i = 0; i < images.size(); ++i) {
    NodeSpec spec;
    spec.name = fmt::format("n{}", i);
    spec.images = images[i];
    cluster.AddNode(spec);
  }
  return cluster;
}

struct Case {
  const char* rule;
  std::vector<std::string> images;
  int num_containers;
  std::vector<int64_t> want;
};

TEST_CASE("ImageLocality score: size scaled by spread, clamped between 23 MiB and 1000 MiB") {
  const Case cases[] = {
      // 500 MiB x 2/4 = 250 MiB: 100 x (250 - 23) / (1000 - 23) = 23.2
      {"image on half the nodes counts half its size", {"nginx:1.0"}, 1, {23, 23, 0, 0}},
      // 300 MiB x 1/4 = 75 MiB: 100 x 52 / 977 = 5.3
      {"an untagged name is read as :latest on both sides", {"registry:5000/app"}, 1, {0, 5, 0, 0}},
      {"a registry port is not a tag", {"registry:5000/app:latest"}, 1, {0, 5, 0, 0}},
      {"an untagged pod image does not match a tagged node image", {"nginx"}, 1, {0, 0, 0, 0}},
      // The digest name is on one node: 500 MiB x 1/4 = 125 MiB, 100 x 102 / 977 = 10.4
      {"a digest is matched as written", {"nginx@sha256:abcd"}, 1, {10, 0, 0, 0}},
      // 2 x 250 MiB = 500 MiB of 2000: 100 x 477 / 1977 = 24.1
      {"every container's image counts, the threshold grows with containers",
       {"nginx:1.0", "nginx:1.0"},
       2,
       {24, 24, 0, 0}},
      {"above 1000 MiB per container clamps to 100",
       {"registry.example.com/big:2"},
       1,
       {100, 100, 100, 100}},
      {"an image on no node scores 0", {"busybox:1"}, 1, {0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster = FourNodes();
    PodSpec pod;
    pod.images = c.images;
    pod.num_containers = c.num_containers;
    auto plugin = NewImageLocalityScore();
    CHECK(testing::RunScorePlugin(*plugin, pod, cluster).normalized == c.want);
  }
}

TEST_CASE("ImageLocality score spreads over all nodes, not only the feasible ones") {
  ClusterState cluster = FourNodes();
  PodSpec pod;
  pod.images = {"nginx:1.0"};
  auto plugin = NewImageLocalityScore();
  const std::vector<int> feasible = {0};
  plugin->PreScore(pod, cluster, feasible);
  CHECK(plugin->Score(pod, cluster, 0) == 23);  // still 2 of 4 nodes
}

TEST_CASE("ImageLocality score is skipped when no node holds any of the pod's images") {
  ClusterState cluster = FourNodes();
  PodSpec pod;
  auto plugin = NewImageLocalityScore();
  CHECK(plugin->Name() == "ImageLocality");
  CHECK(plugin->Weight() == 1);
  CHECK(testing::RunScorePlugin(*plugin, pod, cluster).skipped);
  pod.images = {"busybox:1"};
  CHECK(testing::RunScorePlugin(*plugin, pod, cluster).skipped);
  pod.images = {"busybox:1", "nginx:1.0"};
  CHECK_FALSE(testing::RunScorePlugin(*plugin, pod, cluster).skipped);
}

}  // namespace
}  // namespace knobsim
