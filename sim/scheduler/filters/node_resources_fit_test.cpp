#include <doctest/doctest.h>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::BindOn;
using testing::kGiB;
using testing::MakeNode;
using testing::MakePod;

KubeVersion Minor(int minor) {
  KubeVersion v;
  v.minor = minor;
  return v;
}

PluginStatus Fit(const ClusterState& cluster, const PodSpec& pod, int node,
                 KubeVersion version = {}) {
  auto filter = NewNodeResourcesFitFilter(version);
  REQUIRE(filter->PreFilter(pod, cluster).ok());
  return filter->Filter(pod, cluster, node);
}

using Reasons = std::vector<std::string>;

TEST_CASE("a pod fits when each request is at most allocatable minus what is requested") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("n", {}, {{"cpu", 4000}, {"memory", 8 * kGiB}}));
  BindOn(cluster, "n", MakePod("old", {}, {{"cpu", 3000}, {"memory", 6 * kGiB}}));

  struct Case {
    const char* what;
    ResourceList requests;
    Reasons reasons;
  };
  const std::vector<Case> cases = {
      {"exactly the rest", {{"cpu", 1000}, {"memory", 2 * kGiB}}, {}},
      {"one millicore too many", {{"cpu", 1001}}, {"Insufficient cpu"}},
      {"one byte too many", {{"memory", 2 * kGiB + 1}}, {"Insufficient memory"}},
      {"both", {{"cpu", 2000}, {"memory", 3 * kGiB}}, {"Insufficient cpu", "Insufficient memory"}},
      {"requests, not limits, and nothing else", {}, {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    PluginStatus s = Fit(cluster, MakePod("p", {}, c.requests), 0);
    CHECK(s.reasons == c.reasons);
    CHECK(s.code == (c.reasons.empty() ? StatusCode::kSuccess : StatusCode::kUnschedulable));
  }
}

TEST_CASE("every shortage is reported in upstream order: pods, cpu, memory, storage, extended") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("full", {},
                           {{"pods", 1},
                            {"cpu", 1000},
                            {"memory", kGiB},
                            {"ephemeral-storage", kGiB},
                            {"aliyun.com/gpu-mem", 15},
                            {"nvidia.com/gpu", 1},
                            {"aliyun.com/gpu-core.percentage", 100}}));
  BindOn(cluster, "full",
         MakePod("old", {},
                 {{"cpu", 1000},
                  {"memory", kGiB},
                  {"ephemeral-storage", kGiB},
                  {"aliyun.com/gpu-mem", 15},
                  {"nvidia.com/gpu", 1},
                  {"aliyun.com/gpu-core.percentage", 100}}));
  const PodSpec pod = MakePod("p", {},
                              {{"nvidia.com/gpu", 1},
                               {"memory", 1},
                               {"aliyun.com/gpu-mem", 1},
                               {"ephemeral-storage", 1},
                               {"cpu", 1},
                               {"aliyun.com/gpu-core.percentage", 10}});
  PluginStatus s = Fit(cluster, pod, 0);
  CHECK(s.code == StatusCode::kUnschedulable);
  CHECK(s.reasons == Reasons{"Too many pods", "Insufficient cpu", "Insufficient memory",
                             "Insufficient ephemeral-storage",
                             "Insufficient aliyun.com/gpu-core.percentage",
                             "Insufficient aliyun.com/gpu-mem", "Insufficient nvidia.com/gpu"});
}

TEST_CASE("a pod requesting nothing only meets the pod-count check") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("over", {}, {{"pods", 2}, {"cpu", 1000}}));
  BindOn(cluster, "over", MakePod("hog", {}, {{"cpu", 5000}}));  // over-committed export
  CHECK(Fit(cluster, MakePod("empty"), 0).ok());
  // A zero cpu request never fails on cpu, even with the node over-committed.
  CHECK(Fit(cluster, MakePod("mem-only", {}, {{"memory", 1}}), 0).ok());
  BindOn(cluster, "over", MakePod("second"));
  PluginStatus s = Fit(cluster, MakePod("empty"), 0);
  CHECK(s.code == StatusCode::kUnschedulable);
  CHECK(s.reasons == Reasons{"Too many pods"});
}

TEST_CASE("a node without an allocatable pods entry admits no pod") {
  ClusterState cluster;
  NodeSpec node = MakeNode("bare");
  node.allocatable.erase("pods");
  cluster.AddNode(node);
  CHECK(Fit(cluster, MakePod("p"), 0).reasons == Reasons{"Too many pods"});
}

TEST_CASE("an extended resource the node does not list counts as allocatable 0") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("cpu-only"));
  PluginStatus s = Fit(cluster, MakePod("p", {}, {{"aliyun.com/gpu-mem", 4}}), 0);
  CHECK(s.reasons == Reasons{"Insufficient aliyun.com/gpu-mem"});
  // Zero extended requests are skipped, and names that are no resource upstream knows (no '/')
  // are not checked at all.
  CHECK(Fit(cluster, MakePod("p", {}, {{"nvidia.com/gpu", 0}, {"gpu", 1}}), 0).ok());
}

TEST_CASE("a request above the node's whole allocatable is unresolvable from 1.34 on") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("small", {}, {{"cpu", 2000}, {"memory", 4 * kGiB}}));
  BindOn(cluster, "small", MakePod("old", {}, {{"cpu", 1500}}));
  struct Case {
    const char* what;
    int minor;
    ResourceList requests;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {"short but would fit an empty node", 35, {{"cpu", 1000}}, StatusCode::kUnschedulable},
      {"larger than the node", 35, {{"cpu", 3000}}, StatusCode::kUnschedulableAndUnresolvable},
      {"larger than the node, 1.34",
       34,
       {{"cpu", 3000}},
       StatusCode::kUnschedulableAndUnresolvable},
      {"larger than the node, 1.33", 33, {{"cpu", 3000}}, StatusCode::kUnschedulable},
      {"one resource too big is enough",
       35,
       {{"cpu", 1000}, {"memory", 5 * kGiB}},
       StatusCode::kUnschedulableAndUnresolvable},
      {"missing extended resource",
       35,
       {{"nvidia.com/gpu", 1}},
       StatusCode::kUnschedulableAndUnresolvable},
      {"missing extended resource, 1.28", 28, {{"nvidia.com/gpu", 1}}, StatusCode::kUnschedulable},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(Fit(cluster, MakePod("p", {}, c.requests), 0, Minor(c.minor)).code == c.code);
  }
  // Too many pods stays resolvable: evicting a pod frees a slot.
  ClusterState one_slot;
  one_slot.AddNode(MakeNode("n", {}, {{"pods", 1}}));
  BindOn(one_slot, "n", MakePod("old"));
  CHECK(Fit(one_slot, MakePod("p"), 0).code == StatusCode::kUnschedulable);
}

TEST_CASE("one filter instance follows binds, unbinds and new resource names across pods") {
  // The Scheduler keeps one instance for every pod; its per-node amounts must stay true.
  ClusterState cluster;
  ResourceList extended = {{"cpu", 4000}};
  for (int r = 0; r < 12; ++r) {  // more extended resources than the first row width
    std::string name = "example.com/r";
    name.append(std::to_string(r));
    extended[name] = 2;
  }
  cluster.AddNode(MakeNode("n", {}, extended));
  cluster.AddNode(MakeNode("m", {}, {{"cpu", 4000}}));
  auto filter = NewNodeResourcesFitFilter(KubeVersion{});
  auto fits = [&](const PodSpec& pod, int node) {
    REQUIRE(filter->PreFilter(pod, cluster).ok());
    return filter->Filter(pod, cluster, node).reasons;
  };
  const PodSpec cpu3 = MakePod("cpu3", {}, {{"cpu", 3000}});
  CHECK(fits(cpu3, 0) == Reasons{});
  const int first = BindOn(cluster, "n", MakePod("a", {}, {{"cpu", 2000}}));
  CHECK(fits(cpu3, 0) == Reasons{"Insufficient cpu"});
  CHECK(fits(cpu3, 1) == Reasons{});
  cluster.Unbind(first);
  CHECK(fits(cpu3, 0) == Reasons{});
  // Unbind and bind on one node between two pods: same pod count, other requests.
  const int second = BindOn(cluster, "n", MakePod("b", {}, {{"cpu", 500}}));
  CHECK(fits(cpu3, 0) == Reasons{});
  cluster.Unbind(second);
  BindOn(cluster, "n", MakePod("c", {}, {{"cpu", 1500}}));
  CHECK(fits(cpu3, 0) == Reasons{"Insufficient cpu"});

  // Extended resources met for the first time, one by one, keep the earlier ones right.
  for (int r = 0; r < 12; ++r) {
    std::string name = "example.com/r";
    name.append(std::to_string(r));
    CAPTURE(name);
    const PodSpec two = MakePod("two", {}, {{name, 2}});
    CHECK(fits(two, 0) == Reasons{});
    BindOn(cluster, "n", MakePod("holder", {}, {{name, 1}}));
    CHECK(fits(two, 0) == Reasons{"Insufficient " + name});
    CHECK(fits(MakePod("one", {}, {{name, 1}, {"example.com/r0", 1}}), 0) == Reasons{});
  }
  CHECK(fits(cpu3, 0) == Reasons{"Insufficient cpu"});
  CHECK(fits(MakePod("r11", {}, {{"example.com/r11", 1}}), 1) ==
        Reasons{"Insufficient example.com/r11"});
}

TEST_CASE("a filter instance meeting another cluster starts afresh") {
  // (Clusters alive side by side: a cluster rebuilt in the storage of a dead one is not
  // detected, which is why a plugin serves one ClusterState for its life; node_cache.h.)
  auto filter = NewNodeResourcesFitFilter(KubeVersion{});
  const PodSpec pod = MakePod("p", {}, {{"cpu", 3000}});
  std::vector<ClusterState> clusters(3);
  const int64_t cpus[] = {2000, 4000, 1000};
  for (int k = 0; k < 3; ++k) clusters[k].AddNode(MakeNode("n", {}, {{"cpu", cpus[k]}}));
  for (int k : {0, 1, 2, 1, 0}) {
    REQUIRE(filter->PreFilter(pod, clusters[k]).ok());
    CHECK(filter->Filter(pod, clusters[k], 0).ok() == (cpus[k] >= 3000));
  }
  // Nodes added between pods.
  ClusterState cluster;
  cluster.AddNode(MakeNode("small", {}, {{"cpu", 1000}}));
  REQUIRE(filter->PreFilter(pod, cluster).ok());
  CHECK_FALSE(filter->Filter(pod, cluster, 0).ok());
  cluster.AddNode(MakeNode("big", {}, {{"cpu", 8000}}));
  REQUIRE(filter->PreFilter(pod, cluster).ok());
  CHECK_FALSE(filter->Filter(pod, cluster, 0).ok());
  CHECK(filter->Filter(pod, cluster, 1).ok());
}

}  // namespace
}  // namespace knobsim
