#include "sim/scheduler/cluster_state.h"

#include <doctest/doctest.h>

#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace knobsim {
namespace {

NodeSpec SharingNode(std::string name, int cards, int mem_units, int core_percent = 0) {
  NodeSpec n;
  n.name = std::move(name);
  n.gpu_schedule = core_percent > 0 ? "core_mem" : "cgpu";
  n.gpu_cards = cards;
  n.card_mem_units = mem_units;
  n.card_core_percent = core_percent;
  n.allocatable = {{"cpu", 16000}, {"memory", int64_t{64} << 30}, {"pods", 110}};
  n.capacity = n.allocatable;
  return n;
}

NodeSpec ExclusiveNode(std::string name, int cards) {
  NodeSpec n;
  n.name = std::move(name);
  n.gpu_schedule = "default";
  n.gpu_cards = cards;
  n.allocatable = {{"cpu", 82000}, {"nvidia.com/gpu", cards}, {"pods", 110}};
  return n;
}

PodSpec SharePod(std::string name, int mem, int64_t cpu_milli = 1000) {
  PodSpec p;
  p.name = std::move(name);
  p.requests = {{"cpu", cpu_milli}, {"aliyun.com/gpu-mem", mem}};
  p.nonzero_cpu_milli = cpu_milli;
  p.nonzero_memory_bytes = 200 << 20;
  p.container_gpus = {{mem, 0}};
  p.gpu_mem = mem;
  return p;
}

PodSpec WholePod(std::string name, std::string node, int gpus) {
  PodSpec p;
  p.name = std::move(name);
  p.node_name = std::move(node);
  p.requests = {{"nvidia.com/gpu", gpus}};
  p.whole_gpus = gpus;
  return p;
}

TEST_CASE("AddNode gives a sharing node one card slot per GPU with the per-card totals") {
  ClusterState cluster;
  CHECK(cluster.AddNode(SharingNode("t4", 1, 15)) == 0);
  CHECK(cluster.AddNode(SharingNode("a100", 4, 40, 100)) == 1);
  REQUIRE(cluster.node(1).cards.size() == 4);
  for (const CardState& card : cluster.node(1).cards) {
    CHECK(card.total_mem == 40);
    CHECK(card.total_core == 100);
    CHECK(card.used_mem == 0);
    CHECK(card.pods == 0);
  }
  CHECK(cluster.node(0).cards.at(0).total_core == 0);
}

TEST_CASE("AddNode gives an exclusive node card slots without units and a CPU node none") {
  ClusterState cluster;
  cluster.AddNode(ExclusiveNode("v100", 8));
  NodeSpec cpu;
  cpu.name = "cpu";
  cluster.AddNode(cpu);
  REQUIRE(cluster.node(0).cards.size() == 8);
  CHECK(cluster.node(0).cards[3].total_mem == 0);
  CHECK(cluster.node(1).cards.empty());
}

TEST_CASE("FindNode finds nodes by name and says -1 for a name it does not know") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a", 1, 15));
  cluster.AddNode(SharingNode("b", 1, 15));
  CHECK(cluster.FindNode("a") == 0);
  CHECK(cluster.FindNode("b") == 1);
  CHECK(cluster.FindNode("c") == -1);
  CHECK(cluster.FindNode("") == -1);
}

TEST_CASE("FindNode keeps the first node when a name is added twice") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a", 1, 15));
  cluster.AddNode(SharingNode("a", 2, 22));
  CHECK(cluster.FindNode("a") == 0);
  CHECK(cluster.nodes().size() == 2);
}

TEST_CASE("Bind adds every request, the non-zero sums, the pod and its card units") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a10", 2, 22));
  Placement at{0, {1}, {7}, {0}};
  const int p = cluster.Bind(SharePod("ocr", 7, 1500), at);
  CHECK(p == 0);
  const NodeState& node = cluster.node(0);
  CHECK(node.requested.at("cpu") == 1500);
  CHECK(node.requested.at("aliyun.com/gpu-mem") == 7);
  CHECK(node.nonzero_cpu_milli == 1500);
  CHECK(node.nonzero_memory_bytes == 200 << 20);
  CHECK(node.pods == std::vector<int>{0});
  CHECK(node.cards[1].used_mem == 7);
  CHECK(node.cards[1].pods == 1);
  CHECK(node.cards[0].used_mem == 0);
  CHECK(cluster.bound(p));
  CHECK(cluster.placement(p).cards == std::vector<int>{1});
  CHECK(cluster.pod(p).name == "ocr");

  cluster.Bind(SharePod("asr", 5, 500), Placement{0, {1}, {5}, {0}});
  CHECK(node.requested.at("cpu") == 2000);
  CHECK(node.requested.at("aliyun.com/gpu-mem") == 12);
  CHECK(node.cards[1].used_mem == 12);
  CHECK(node.cards[1].pods == 2);
  CHECK(node.pods == std::vector<int>{0, 1});
}

TEST_CASE("Bind of a multi-card pod counts the pod once on every card it spans") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a100", 4, 40, 100));
  PodSpec pod = SharePod("train", 8);
  pod.gpu_count = 4;
  pod.gpu_core = 200;
  cluster.Bind(pod, Placement{0, {0, 1, 2, 3}, {2, 2, 2, 2}, {50, 50, 50, 50}});
  for (const CardState& card : cluster.node(0).cards) {
    CHECK(card.used_mem == 2);
    CHECK(card.used_core == 50);
    CHECK(card.pods == 1);
  }
}

TEST_CASE("Bind of an nvidia.com/gpu pod marks its cards whole") {
  ClusterState cluster;
  cluster.AddNode(ExclusiveNode("v100", 8));
  cluster.Bind(WholePod("train", "v100", 2), Placement{0, {2, 5}, {0, 0}, {0, 0}});
  const NodeState& node = cluster.node(0);
  CHECK(node.cards[2].whole);
  CHECK(node.cards[5].whole);
  CHECK(node.cards[2].pods == 1);
  CHECK_FALSE(node.cards[0].whole);
  CHECK(node.requested.at("nvidia.com/gpu") == 2);
}

TEST_CASE("BindExisting puts a pod on its node's cards from the allocation it carries") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("t4-0", 1, 15));
  cluster.AddNode(SharingNode("a100-0", 4, 40, 100));
  PodSpec pod = SharePod("llm", 20);
  pod.node_name = "a100-0";
  pod.allocated_mem = {{1, 10}, {3, 10}};
  pod.allocated_core = {{1, 30}, {3, 30}};
  const int p = cluster.BindExisting(pod);
  REQUIRE(p == 0);
  CHECK(cluster.placement(p).node == 1);
  CHECK(cluster.placement(p).cards == std::vector<int>{1, 3});
  CHECK(cluster.placement(p).mem_units == std::vector<int>{10, 10});
  CHECK(cluster.placement(p).core_units == std::vector<int>{30, 30});
  CHECK(cluster.node(1).cards[3].used_core == 30);
  CHECK(cluster.node(1).cards[0].pods == 0);
}

TEST_CASE("BindExisting takes core-only cards too, with zero memory units there") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a100-0", 4, 40, 100));
  PodSpec pod = SharePod("x", 4);
  pod.node_name = "a100-0";
  pod.allocated_mem = {{0, 4}};
  pod.allocated_core = {{0, 25}, {2, 25}};
  const int p = cluster.BindExisting(pod);
  CHECK(cluster.placement(p).cards == std::vector<int>{0, 2});
  CHECK(cluster.placement(p).mem_units == std::vector<int>{4, 0});
  CHECK(cluster.node(0).cards[2].pods == 1);
}

TEST_CASE("BindExisting says -1 for a pod bound to a node it does not know") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("t4-0", 1, 15));
  PodSpec pod = SharePod("lost", 4);
  pod.node_name = "t4-9";
  CHECK(cluster.BindExisting(pod) == -1);
  CHECK(cluster.pods().empty());
  CHECK(cluster.node(0).requested.empty());
}

TEST_CASE("BindExisting drops allocated cards the node does not have") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a10-0", 2, 22));
  PodSpec pod = SharePod("x", 8);
  pod.node_name = "a10-0";
  pod.allocated_mem = {{1, 4}, {5, 4}};
  const int p = cluster.BindExisting(pod);
  CHECK(cluster.placement(p).cards == std::vector<int>{1});
  CHECK(cluster.node(0).requested.at("aliyun.com/gpu-mem") == 8);
}

TEST_CASE("BindExisting of a sharing pod without allocation occupies the node but no card") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a10-0", 2, 22));
  PodSpec pod = SharePod("x", 8);
  pod.node_name = "a10-0";
  const int p = cluster.BindExisting(pod);
  CHECK(cluster.bound(p));
  CHECK(cluster.placement(p).cards.empty());
  CHECK(cluster.node(0).requested.at("aliyun.com/gpu-mem") == 8);
  CHECK(cluster.node(0).cards[0].pods == 0);
}

TEST_CASE("BindExisting gives an nvidia.com/gpu pod the lowest-indexed free whole cards") {
  ClusterState cluster;
  cluster.AddNode(ExclusiveNode("v100", 8));
  const int a = cluster.BindExisting(WholePod("a", "v100", 2));
  const int b = cluster.BindExisting(WholePod("b", "v100", 3));
  CHECK(cluster.placement(a).cards == std::vector<int>{0, 1});
  CHECK(cluster.placement(b).cards == std::vector<int>{2, 3, 4});
  cluster.Unbind(a);
  const int c = cluster.BindExisting(WholePod("c", "v100", 3));
  CHECK(cluster.placement(c).cards == std::vector<int>{0, 1, 5});
  CHECK(cluster.node(0).requested.at("nvidia.com/gpu") == 6);
}

TEST_CASE("BindExisting of an over-committed whole-GPU pod takes only the free cards") {
  ClusterState cluster;
  cluster.AddNode(ExclusiveNode("v100", 2));
  cluster.BindExisting(WholePod("a", "v100", 1));
  const int b = cluster.BindExisting(WholePod("b", "v100", 2));
  CHECK(cluster.placement(b).cards == std::vector<int>{1});
  CHECK(cluster.node(0).requested.at("nvidia.com/gpu") == 3);
}

TEST_CASE("Unbind frees requests, cards and the pod list and leaves the index unbound") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a10", 2, 22));
  const int a = cluster.Bind(SharePod("a", 7, 1500), Placement{0, {1}, {7}, {0}});
  const int b = cluster.Bind(SharePod("b", 5, 500), Placement{0, {1}, {5}, {0}});
  cluster.Unbind(a);
  const NodeState& node = cluster.node(0);
  CHECK_FALSE(cluster.bound(a));
  CHECK(cluster.bound(b));
  CHECK(cluster.pod(a).name == "a");
  CHECK(node.pods == std::vector<int>{b});
  CHECK(node.requested.at("cpu") == 500);
  CHECK(node.requested.at("aliyun.com/gpu-mem") == 5);
  CHECK(node.nonzero_cpu_milli == 500);
  CHECK(node.cards[1].used_mem == 5);
  CHECK(node.cards[1].pods == 1);
  cluster.Unbind(a);  // twice is harmless
  CHECK(node.cards[1].used_mem == 5);
  cluster.Unbind(b);
  CHECK(node.requested.empty());
  CHECK(node.nonzero_memory_bytes == 0);
  CHECK(node.cards[1].pods == 0);
  CHECK(node.pods.empty());
}

TEST_CASE("every Bind and Unbind moves the generation of the node it touches, only that node") {
  ClusterState cluster;
  cluster.AddNode(SharingNode("a", 1, 15));
  cluster.AddNode(SharingNode("b", 1, 15));
  CHECK(cluster.node(0).generation == 0);
  const int p = cluster.Bind(SharePod("x", 4), Placement{0, {0}, {4}, {0}});
  const uint64_t after_bind = cluster.node(0).generation;
  CHECK(after_bind > 0);
  PodSpec existing = SharePod("y", 2);
  existing.node_name = "a";
  cluster.BindExisting(existing);
  CHECK(cluster.node(0).generation > after_bind);
  const uint64_t before_unbind = cluster.node(0).generation;
  cluster.Unbind(p);
  CHECK(cluster.node(0).generation > before_unbind);
  CHECK(cluster.node(1).generation == 0);
}

TEST_CASE("Unbind of a whole-GPU pod frees its cards for the next one") {
  ClusterState cluster;
  cluster.AddNode(ExclusiveNode("v100", 8));
  const int a = cluster.Bind(WholePod("a", "v100", 1), Placement{0, {4}, {0}, {0}});
  cluster.Unbind(a);
  CHECK_FALSE(cluster.node(0).cards[4].whole);
  CHECK(cluster.node(0).cards[4].pods == 0);
}

TEST_CASE("the revision moves with every change a scheduler sees, never to a used value") {
  ClusterState cluster;
  const uint64_t empty = cluster.revision();
  cluster.AddNode(SharingNode("a", 1, 15));
  CHECK(cluster.revision() != empty);
  const ClusterState copy = cluster;
  CHECK(copy.revision() == cluster.revision());  // the same cluster
  std::set<uint64_t> seen = {empty, cluster.revision()};
  auto moved = [&](const char* what) {
    CAPTURE(what);
    CHECK(seen.insert(cluster.revision()).second);
  };
  const int p = cluster.Bind(SharePod("x", 4), Placement{0, {0}, {4}, {0}});
  moved("bind");
  cluster.Unbind(p);
  moved("unbind");
  cluster.SetUnschedulable(0, true);
  moved("cordon");
  cluster.SetAbsent(0, true);
  moved("taken out");
  cluster.SetNamespaceLabels("ns", {});
  moved("namespace labels");
  cluster.SetVolumes({});
  moved("volumes");
  const uint64_t now = cluster.revision();
  cluster.SetAbsent(0, true);  // already out: no change
  CHECK(cluster.revision() == now);
}

TEST_CASE("the nodes changed since a change count, until the record no longer reaches back") {
  ClusterState cluster;
  for (const char* name : {"a", "b", "c"}) cluster.AddNode(SharingNode(name, 1, 15));
  const uint64_t start = cluster.change_count();
  CHECK(cluster.NodesChangedSince(start)->empty());
  const int p = cluster.Bind(SharePod("x", 4), Placement{2, {0}, {4}, {0}});
  cluster.SetUnschedulable(0, true);
  cluster.Unbind(p);
  const std::optional<std::span<const int>> changed = cluster.NodesChangedSince(start);
  REQUIRE(changed);
  CHECK(std::vector<int>(changed->begin(), changed->end()) == std::vector<int>{2, 0, 2});
  CHECK(cluster.change_count() == start + 3);
  CHECK_FALSE(cluster.NodesChangedSince(cluster.change_count() + 1));  // not a count yet
  // The record keeps about two changes per node: far enough back, the caller looks at all.
  for (int i = 0; i < 200; ++i) cluster.SetUnschedulable(1, i % 2 == 0);
  CHECK_FALSE(cluster.NodesChangedSince(start));
  const uint64_t recent = cluster.change_count() - 5;
  REQUIRE(cluster.NodesChangedSince(recent));
  CHECK(cluster.NodesChangedSince(recent)->size() == 5);
}
}  // namespace
}  // namespace knobsim
