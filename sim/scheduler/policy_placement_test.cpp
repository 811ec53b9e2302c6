#include "sim/scheduler/policy_placement.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::kGiB;
using testing::MakeNode;
using testing::MakePod;

// An ACK sharing node of A10-sized cards (22 units), with room enough in cpu and memory that
// kube-scheduler's default scores barely tell nodes apart.
NodeSpec ShareNode(std::string name, int cards, std::string placement, int units = 22) {
  NodeSpec node = MakeNode(std::move(name), {{"ack.node.gpu.schedule", "share"}},
                           {{"cpu", 64'000}, {"memory", 256 * kGiB}, {"pods", 110}});
  node.allocatable[kGpuMemResource] = int64_t{cards} * units;
  node.allocatable[kGpuCountResource] = cards;
  node.capacity = node.allocatable;
  node.gpu_cards = cards;
  node.card_mem_units = units;
  node.gpu_model = "A10";
  node.gpu_schedule = "share";
  node.placement = std::move(placement);
  return node;
}

PodSpec GpuPod(std::string name, int units, int count = 1) {
  PodSpec pod = MakePod(std::move(name), {}, {{"cpu", 1000}, {"memory", 4 * kGiB}});
  pod.requests[kGpuMemResource] = units;
  pod.nonzero_cpu_milli = 1000;
  pod.nonzero_memory_bytes = 4 * kGiB;
  pod.gpu_mem = units;
  pod.gpu_count = count;
  pod.container_gpus = {{units, 0}};
  return pod;
}

void Occupy(ClusterState& cluster, int node, int card, int units) {
  PodSpec pod = GpuPod("bound", units);
  pod.node_name = cluster.node(node).spec.name;
  Placement at;
  at.node = node;
  at.cards = {card};
  at.mem_units = {units};
  at.core_units = {0};
  cluster.Bind(pod, at);
}

// The workload FGD plans for: half-card (11-unit) pods.
std::shared_ptr<const std::vector<fgd::TargetPod>> HalfCardWorkload() {
  return std::make_shared<const std::vector<fgd::TargetPod>>(8,
                                                             fgd::TargetPod{1000, 4096, 11, 1, 0});
}

}  // namespace

TEST_CASE("paper placement values map to the replay's policies; ACK's do not") {
  CHECK(PaperPolicyKind(CardPolicy::kFgd) == fgd::PolicyKind::kFgd);
  CHECK(PaperPolicyKind(CardPolicy::kBestFit) == fgd::PolicyKind::kBestFit);
  CHECK(PaperPolicyKind(CardPolicy::kRandom) == fgd::PolicyKind::kRandom);
  CHECK_FALSE(PaperPolicyKind(CardPolicy::kBinpack).has_value());
  CHECK_FALSE(PaperPolicyKind(CardPolicy::kExtenderBestFit).has_value());
}

TEST_CASE("fgd keeps a half card usable where ACK binpack fills it") {
  // Node a: its card holds 11 of 22 units (500 milli free, just what the typical pod needs).
  // Node b: 4 units used (818 free). A 4-unit pod: binpack prefers the fuller a (score 90 vs
  // 80); FGD sees a's free 500 drop to 318, below the typical share (fragmentation +318, score
  // trunc(100 σ(−0.318)) = 42), while b keeps 636 ≥ 500 (no change, score 50): b.
  for (const char* placement : {"binpack", "fgd"}) {
    CAPTURE(placement);
    ClusterState cluster;
    const int a = cluster.AddNode(ShareNode("a", 1, placement));
    const int b = cluster.AddNode(ShareNode("b", 1, placement));
    Occupy(cluster, a, 0, 11);
    Occupy(cluster, b, 0, 4);
    SchedulerConfig config;
    config.target_workload = HalfCardWorkload();
    Scheduler scheduler(cluster, config);
    const ScheduleResult r = scheduler.Schedule(GpuPod("p", 4), /*explain=*/true);
    CHECK(r.placement.node == (std::string(placement) == "fgd" ? b : a));
    // The explanation shows the paper's score only where a paper policy places cards.
    bool shown = false;
    for (const auto& s : r.explain[a].scores) {
      if (s.plugin != "PlacementPolicy") continue;
      shown = true;
      CHECK(s.weight == 1000);
      CHECK(s.raw == 42);
      CHECK(r.explain[b].total > r.explain[a].total);
    }
    CHECK(shown == (std::string(placement) == "fgd"));
  }
}

TEST_CASE("fgd chooses the card inside the node; binpack the fuller one") {
  // Card 0: 11 used (500 free), card 1: 4 used (818 free); a 4-unit pod. Binpack takes card 0;
  // FGD card 1, where the typical half-card pod still fits afterwards.
  for (const char* placement : {"binpack", "fgd"}) {
    CAPTURE(placement);
    ClusterState cluster;
    const int n = cluster.AddNode(ShareNode("n", 2, placement));
    Occupy(cluster, n, 0, 11);
    Occupy(cluster, n, 1, 4);
    SchedulerConfig config;
    config.target_workload = HalfCardWorkload();
    Scheduler scheduler(cluster, config);
    const ScheduleResult r = scheduler.ScheduleAndBind(GpuPod("p", 4));
    REQUIRE(r.placement.node == n);
    CHECK(r.placement.cards == std::vector<int>{std::string(placement) == "fgd" ? 1 : 0});
    CHECK(r.placement.mem_units == std::vector<int>{4});
  }
}

TEST_CASE("bestfit ranks by the least free resources left, normalised over its nodes") {
  // BestFit (§4.5) prefers the node the pod fills most: a (11 free units) over b (18 free).
  ClusterState cluster;
  const int a = cluster.AddNode(ShareNode("a", 1, "bestfit"));
  const int b = cluster.AddNode(ShareNode("b", 1, "bestfit"));
  Occupy(cluster, a, 0, 11);
  Occupy(cluster, b, 0, 4);
  Scheduler scheduler(cluster, SchedulerConfig{});
  const ScheduleResult r = scheduler.Schedule(GpuPod("p", 4), true);
  CHECK(r.placement.node == a);
  for (const auto& s : r.explain[a].scores) {
    if (s.plugin == "PlacementPolicy") CHECK(s.normalized == 100);
  }
  for (const auto& s : r.explain[b].scores) {
    if (s.plugin == "PlacementPolicy") CHECK(s.normalized == 0);
  }
}

TEST_CASE("random draws among the feasible nodes, reproducibly for a seed") {
  auto run = [](uint64_t seed) {
    ClusterState cluster;
    for (int i = 0; i < 6; ++i) cluster.AddNode(ShareNode("n" + std::to_string(i), 2, "random"));
    SchedulerConfig config;
    config.seed = seed;
    Scheduler scheduler(cluster, config);
    std::vector<int> nodes;
    for (int i = 0; i < 12; ++i)
      nodes.push_back(scheduler.ScheduleAndBind(GpuPod("p", 5)).placement.node);
    return nodes;
  };
  const std::vector<int> first = run(42);
  CHECK(first == run(42));
  CHECK(first != run(43));
  // Not the lowest-index tie-break: the draw spreads the pods.
  CHECK(std::count(first.begin(), first.end(), 0) < 12);
}

TEST_CASE("whole-GPU and multi-card pods under a paper policy get sets ACK accepts") {
  ClusterState cluster;
  const int n = cluster.AddNode(ShareNode("n", 4, "packing"));
  Occupy(cluster, n, 1, 3);
  Scheduler scheduler(cluster, SchedulerConfig{});
  // 2 × 6 units over two distinct cards (aliyun.com/gpu-count 2).
  const ScheduleResult multi = scheduler.ScheduleAndBind(GpuPod("multi", 12, 2));
  REQUIRE(multi.placement.node == n);
  CHECK(multi.placement.cards.size() == 2);
  CHECK(multi.placement.cards[0] != multi.placement.cards[1]);
  CHECK(multi.placement.mem_units == std::vector<int>{6, 6});
}

TEST_CASE("a card the paper's view cannot judge falls back to ACK's choice") {
  // FGD sees gpu-mem only. On a core_mem node, card 0 holds 11 units and no gpu-core, card 1
  // 4 units and 90 % of its cores. A 4-unit, 20 % pod: FGD prefers card 1 (its free 818 milli
  // stays above the typical 500), which lacks the cores; ACK's binpack choice, card 0, is taken.
  ClusterState cluster;
  NodeSpec spec = ShareNode("n", 2, "fgd");
  spec.card_core_percent = 100;
  const int n = cluster.AddNode(spec);
  Occupy(cluster, n, 0, 11);
  PodSpec busy = GpuPod("busy", 4);
  busy.gpu_core = 90;
  Placement at;
  at.node = n;
  at.cards = {1};
  at.mem_units = {4};
  at.core_units = {90};
  cluster.Bind(busy, at);
  SchedulerConfig config;
  config.target_workload = HalfCardWorkload();
  PolicyPlacement placement(config);
  PodSpec pod = GpuPod("p", 4);
  pod.gpu_core = 20;
  pod.container_gpus = {{4, 20}};
  const CardPlacementResult r = placement.ChooseCards(pod, cluster, n);
  REQUIRE(r.choice.has_value());
  CHECK(r.choice->cards == std::vector<int>{0});
  CHECK(r.choice->core_units == std::vector<int>{20});
  CHECK(placement.fallbacks() == 1);
  // Without the core request FGD's own choice stands.
  const CardPlacementResult plain = placement.ChooseCards(GpuPod("q", 4), cluster, n);
  REQUIRE(plain.choice.has_value());
  CHECK(plain.choice->cards == std::vector<int>{1});
  CHECK(placement.fallbacks() == 1);
}

TEST_CASE("CPU-only pods are not scored by a paper policy beside a CPU pool") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("cpu", {}, {{"cpu", 64'000}, {"memory", 256 * kGiB}, {"pods", 110}}));
  cluster.AddNode(ShareNode("gpu", 1, "fgd"));
  SchedulerConfig config;
  config.target_workload = HalfCardWorkload();
  Scheduler scheduler(cluster, config);
  PodSpec cpu = MakePod("cpu-pod", {}, {{"cpu", 1000}, {"memory", kGiB}});
  const ScheduleResult r = scheduler.Schedule(cpu, true);
  for (const NodeVerdict& v : r.explain) {
    for (const auto& s : v.scores) CHECK(s.plugin != "PlacementPolicy");
  }
}

}  // namespace knobsim
