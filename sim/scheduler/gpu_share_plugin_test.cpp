#include "sim/scheduler/gpu_share_plugin.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

NodeSpec GpuNode(const std::string& name, const std::string& schedule, int cards, int units) {
  NodeSpec n;
  n.name = name;
  n.gpu_schedule = schedule;
  n.gpu_cards = cards;
  n.card_mem_units = units;
  if (!schedule.empty()) n.labels["ack.node.gpu.schedule"] = schedule;
  return n;
}

PodSpec SharePod(int mem, int count = 1) {
  PodSpec pod;
  pod.gpu_mem = mem;
  pod.gpu_count = count;
  pod.container_gpus = {ContainerGpu{mem, 0}};
  return pod;
}

// Binds a pod holding `units` on `card` of node `node`.
void Occupy(ClusterState& cluster, int node, int card, int units) {
  PodSpec pod = SharePod(units);
  Placement at;
  at.node = node;
  at.cards = {card};
  at.mem_units = {units};
  at.core_units = {0};
  cluster.Bind(pod, at);
}

TEST_CASE("the GPU-share filter passes pods without GPU and checks the cards of the others") {
  ClusterState cluster;
  const int share = cluster.AddNode(GpuNode("share", "cgpu", 2, 15));
  const int plain = cluster.AddNode(GpuNode("cpu", "", 0, 0));
  Occupy(cluster, share, 0, 14);
  Occupy(cluster, share, 1, 13);
  auto filter = NewGpuShareFilter(SchedulerConfig{});
  CHECK(filter->Name() == "gpushare");

  PodSpec cpu_pod;
  CHECK(filter->PreFilter(cpu_pod, cluster).ok());
  CHECK(filter->Filter(cpu_pod, cluster, share).ok());
  CHECK(filter->Filter(cpu_pod, cluster, plain).ok());

  CHECK(filter->Filter(SharePod(2), cluster, share).ok());
  const PluginStatus full = filter->Filter(SharePod(3), cluster, share);
  CHECK(full.code == StatusCode::kUnschedulable);
  CHECK(full.reasons ==
        std::vector<std::string>{"node(s) didn't have enough device resources to allocate"});

  // A node without GPU sharing (NodeResourcesFit usually rejects it first).
  const PluginStatus not_share = filter->Filter(SharePod(2), cluster, plain);
  CHECK(not_share.code == StatusCode::kUnschedulable);
  CHECK(not_share.reasons ==
        std::vector<std::string>{"none(s) should have at least one resource in "
                                 "[aliyun.com/gpu-mem aliyun.com/gpu-core.percentage "
                                 "aliyun.com/gpu-core.tflops]"});
  SchedulerConfig extender;
  extender.extender_best_fit = true;
  CHECK(NewGpuShareFilter(extender)->Filter(SharePod(2), cluster, plain).reasons ==
        std::vector<std::string>{"The node cpu is not for GPU share, need skip"});
}

TEST_CASE("the GPU-share filter rejects an uneven aliyun.com/gpu-count split in PreFilter") {
  ClusterState cluster;
  cluster.AddNode(GpuNode("n", "cgpu", 4, 15));
  auto filter = NewGpuShareFilter(SchedulerConfig{});
  const PluginStatus bad = filter->PreFilter(SharePod(8, 3), cluster);
  CHECK(bad.code == StatusCode::kUnschedulableAndUnresolvable);
  CHECK(bad.reasons == std::vector<std::string>{
                           "invalid replica for resource aliyun.com/gpu-mem,because 8 / 3 = 2.7"});
  CHECK(filter->PreFilter(SharePod(8, 4), cluster).ok());

  SchedulerConfig extender;
  extender.extender_best_fit = true;
  const PluginStatus multi = NewGpuShareFilter(extender)->PreFilter(SharePod(8, 4), cluster);
  CHECK(multi.code == StatusCode::kUnschedulableAndUnresolvable);
}

TEST_CASE("the GPU-share filter applies max-pod, POLICY 0's max_inst only where cGPU runs") {
  struct Row {
    const char* schedule;
    int label;
    int max_inst;
    bool disable_isolation;
    int limit;
  };
  for (const Row& row : {
           Row{"cgpu", 0, 0, false, 0}, Row{"cgpu", 4, 0, false, 4}, Row{"cgpu", 0, 3, false, 3},
           Row{"cgpu", 4, 3, false, 3}, Row{"core_mem", 2, 3, false, 2},
           Row{"share", 0, 3, false, 0},  // no cGPU: the driver time-slices, POLICY unused
           Row{"share", 5, 3, false, 5}, Row{"cgpu", 0, 3, true, 0},  // cgpu.disable.isolation=true
       }) {
    CAPTURE(row.schedule);
    CAPTURE(row.label);
    CAPTURE(row.max_inst);
    NodeSpec node = GpuNode("n", row.schedule, 1, 15);
    node.max_pods_per_card = row.label;
    if (row.disable_isolation) node.labels["cgpu.disable.isolation"] = "true";
    SchedulerConfig config;
    config.policy0_max_inst = row.max_inst;
    CHECK(MaxPodsPerCard(node, config) == row.limit);
  }

  ClusterState cluster;
  NodeSpec spec = GpuNode("n", "cgpu", 1, 15);
  spec.max_pods_per_card = 2;
  const int n = cluster.AddNode(spec);
  Occupy(cluster, n, 0, 1);
  Occupy(cluster, n, 0, 1);
  const PluginStatus full = NewGpuShareFilter(SchedulerConfig{})->Filter(SharePod(1), cluster, n);
  CHECK(full.reasons == std::vector<std::string>{
                            "The number of pods per gpu device has reached the maximum allowed"});
}

TEST_CASE("the card policy comes from the node label, else the default; extender overrides") {
  SchedulerConfig config;
  NodeSpec node = GpuNode("n", "cgpu", 1, 15);
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kBinpack);
  config.default_placement = CardPolicy::kSpread;
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kSpread);
  node.placement = "binpack";
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kBinpack);
  node.placement = "fgd";  // the FGD paper's policy
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kFgd);
  node.placement = "tetris";  // unknown: the default
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kSpread);
  config.extender_best_fit = true;
  CHECK(NodeCardPolicy(node, config) == CardPolicy::kExtenderBestFit);
}

TEST_CASE("the GPU-share score is int(best candidate score), 0 without a card choice") {
  // Appendix B's cards, one per node: binpack scores node "full" 96 and node "light" 80.
  ClusterState cluster;
  const int full = cluster.AddNode(GpuNode("full", "cgpu", 1, 15));
  const int light = cluster.AddNode(GpuNode("light", "cgpu", 1, 15));
  NodeSpec a10 = GpuNode("a10", "cgpu", 1, 22);
  const int a10_node = cluster.AddNode(a10);
  Occupy(cluster, full, 0, 10);
  Occupy(cluster, light, 0, 2);
  Occupy(cluster, a10_node, 0, 6);
  const std::vector<int> feasible = {full, light, a10_node};

  SchedulerConfig config;
  config.gpu_share_weight = 3;
  auto score = NewGpuShareScore(config);
  CHECK(score->Name() == "gpushare");
  CHECK(score->Weight() == 3);
  const PodSpec pod = SharePod(3);
  score->PreScore(pod, cluster, feasible);
  CHECK_FALSE(score->Skipped());
  CHECK(score->Score(pod, cluster, full) == 96);
  CHECK(score->Score(pod, cluster, light) == 80);
  CHECK(score->Score(SharePod(1), cluster, a10_node) == 79);  // 70 + 30*7/22 = 79.5

  config.default_placement = CardPolicy::kSpread;
  auto spread = NewGpuShareScore(config);
  spread->PreScore(pod, cluster, feasible);
  CHECK(spread->Score(pod, cluster, full) == 74);
  CHECK(spread->Score(pod, cluster, light) == 90);

  PodSpec cpu_pod;
  score->PreScore(cpu_pod, cluster, feasible);
  CHECK(score->Skipped());
  CHECK(score->Score(cpu_pod, cluster, full) == 0);

  SchedulerConfig extender;
  extender.extender_best_fit = true;
  auto best_fit = NewGpuShareScore(extender);
  best_fit->PreScore(pod, cluster, feasible);
  CHECK(best_fit->Skipped());
  CHECK(best_fit->Score(pod, cluster, full) == 0);
}

TEST_CASE("ChooseCards keeps a multi-card pod inside one fast island") {
  // Eight empty cards but card 1 full: every 4-card set of the others ties. Without topology
  // the lowest indexes (0, 2, 3, 4) straddle the islands; with nvlink-islands the pod takes
  // the island 4-7, and its bottleneck is reported.
  struct Row {
    const char* interconnect;
    std::vector<int> cards;
    double gbps;
  };
  for (const Row& row : {
           Row{"", {0, 2, 3, 4}, 0}, Row{"nvlink-islands", {4, 5, 6, 7}, 300},
           Row{"pcie", {4, 5, 6, 7}, 32},     // one CPU socket
           Row{"nvlink", {0, 2, 3, 4}, 300},  // NVSwitch: every set is one island
       }) {
    CAPTURE(row.interconnect);
    ClusterState cluster;
    NodeSpec spec = GpuNode("n", "cgpu", 8, 15);
    spec.interconnect = row.interconnect;
    const int n = cluster.AddNode(spec);
    Occupy(cluster, n, 1, 15);
    const CardPlacementResult r = ChooseCards(SharePod(8, 4), cluster.node(n), SchedulerConfig{});
    REQUIRE(r.choice.has_value());
    CHECK(r.choice->cards == row.cards);
    CHECK(r.choice->mem_units == std::vector<int>{2, 2, 2, 2});
    CHECK(r.choice->bottleneck_gbps == row.gbps);
  }

  // Whole GPUs: a 4-GPU job on an 8-card exclusive node whose card 1 is taken.
  ClusterState cluster;
  NodeSpec spec = GpuNode("x", "default", 8, 0);
  spec.interconnect = "nvlink-islands";
  const int n = cluster.AddNode(spec);
  PodSpec one;
  one.whole_gpus = 1;
  cluster.Bind(one, Placement{n, {1}, {0}, {0}});
  PodSpec four;
  four.whole_gpus = 4;
  const CardPlacementResult r = ChooseCards(four, cluster.node(n), SchedulerConfig{});
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{4, 5, 6, 7});
  CHECK(r.choice->bottleneck_gbps == 300);
}

TEST_CASE("ChooseCards uses the node's policy and limit like the filter and score") {
  ClusterState cluster;
  NodeSpec spec = GpuNode("n", "cgpu", 2, 15);
  spec.placement = "spread";
  const int n = cluster.AddNode(spec);
  Occupy(cluster, n, 0, 10);
  Occupy(cluster, n, 1, 2);
  const CardPlacementResult r = ChooseCards(SharePod(3), cluster.node(n), SchedulerConfig{});
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{1});
  CHECK(static_cast<int>(r.choice->score) == 90);

  SchedulerConfig config;
  config.policy0_max_inst = 1;
  const CardPlacementResult none = ChooseCards(SharePod(3), cluster.node(n), config);
  CHECK_FALSE(none.choice.has_value());
  CHECK(none.reason == "The number of pods per gpu device has reached the maximum allowed");
}

}  // namespace
}  // namespace knobsim
