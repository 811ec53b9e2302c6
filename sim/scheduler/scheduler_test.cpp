#include "sim/scheduler/scheduler.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/random_stream.h"
#include "sim/scheduler/card_placement.h"
#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

using testing::kGiB;
using testing::MakeNode;
using testing::MakePod;

// A pod as the manifest reader makes it: requests, and the non-zero scoring sums (one
// container; 100m / 200Mi where it sets none).
PodSpec Pod(std::string name, int64_t cpu, int64_t memory) {
  PodSpec pod = MakePod(std::move(name));
  if (cpu) pod.requests["cpu"] = cpu;
  if (memory) pod.requests["memory"] = memory;
  pod.nonzero_cpu_milli = cpu ? cpu : 100;
  pod.nonzero_memory_bytes = memory ? memory : 200 * 1024 * 1024;
  return pod;
}

// A GPU-sharing pod asking `units` of aliyun.com/gpu-mem in one container.
PodSpec GpuPod(std::string name, int units) {
  PodSpec pod = Pod(std::move(name), 0, 0);
  pod.requests[kGpuMemResource] = units;
  pod.gpu_mem = units;
  pod.container_gpus = {{units, 0}};
  return pod;
}

// An ACK sharing node: `cards` cards of `units` gpu-mem units each, resources large enough
// that cpu and memory scores do not tell nodes apart.
NodeSpec ShareNode(std::string name, int cards, int units, std::string placement = "") {
  NodeSpec node = MakeNode(std::move(name), {{"ack.node.gpu.schedule", "share"}},
                           {{"cpu", 1'000'000}, {"memory", 1'000'000 * kGiB}});
  node.allocatable[kGpuMemResource] = int64_t{cards} * units;
  node.allocatable[kGpuCountResource] = cards;
  node.capacity = node.allocatable;
  node.gpu_cards = cards;
  node.card_mem_units = units;
  node.gpu_schedule = "share";
  node.placement = std::move(placement);
  return node;
}

int BindOnCard(ClusterState& cluster, int node, int card, int units) {
  PodSpec pod = GpuPod("bound", units);
  pod.node_name = cluster.node(node).spec.name;
  Placement at;
  at.node = node;
  at.cards = {card};
  at.mem_units = {units};
  at.core_units = {0};
  return cluster.Bind(pod, at);
}

const NodeVerdict::PluginScore& ScoreOf(const NodeVerdict& v, const std::string& plugin) {
  for (const auto& s : v.scores) {
    if (s.plugin == plugin) return s;
  }
  FAIL("no score from " << plugin);
  return v.scores.front();
}

// Three nodes for the score arithmetic: A empty 4 cpu / 8 GiB, B the same with 2 cpu / 2 GiB
// requested, C empty 8 cpu / 8 GiB. The pod asks 1 cpu / 1 GiB.
ClusterState ThreeNodes() {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a", {}, {{"cpu", 4000}, {"memory", 8 * kGiB}}));
  cluster.AddNode(MakeNode("b", {}, {{"cpu", 4000}, {"memory", 8 * kGiB}}));
  cluster.AddNode(MakeNode("c", {}, {{"cpu", 8000}, {"memory", 8 * kGiB}}));
  testing::BindOn(cluster, "b", Pod("busy", 2000, 2 * kGiB));
  return cluster;
}

TEST_CASE("node total is the weighted sum of normalised plugin scores (LeastAllocated)") {
  ClusterState cluster = ThreeNodes();
  Scheduler scheduler(cluster, {});
  const ScheduleResult r = scheduler.Schedule(Pod("p", 1000, kGiB), /*explain=*/true);
  REQUIRE(r.explain.size() == 3);
  struct Want {
    int64_t fit, balanced, total;
  };
  // Fit: mean of (alloc - req) x 100 / alloc over cpu and memory. Balanced: (1 - |f_cpu -
  // f_mem| / 2) x 100. TaintToleration 100 x 3 everywhere; the other plugins 0.
  const Want want[] = {
      {(75 + 87) / 2, 93, 300 + 81 + 93},   // a: cpu 1/4, memory 1/8
      {(25 + 62) / 2, 81, 300 + 43 + 81},   // b: cpu 3/4, memory 3/8
      {(87 + 87) / 2, 100, 300 + 87 + 100}  // c: cpu 1/8, memory 1/8
  };
  for (int n = 0; n < 3; ++n) {
    CAPTURE(n);
    const NodeVerdict& v = r.explain[n];
    CHECK(v.node == n);
    CHECK(v.failed_plugin.empty());
    CHECK(ScoreOf(v, "NodeResourcesFit").normalized == want[n].fit);
    CHECK(ScoreOf(v, "NodeResourcesFit").weight == 1);
    CHECK(ScoreOf(v, "NodeResourcesBalancedAllocation").normalized == want[n].balanced);
    CHECK(ScoreOf(v, "TaintToleration").normalized == 100);
    CHECK(ScoreOf(v, "TaintToleration").weight == 3);
    CHECK(ScoreOf(v, "NodeAffinity").weight == 2);
    CHECK(ScoreOf(v, "PodTopologySpread").weight == 2);
    CHECK(ScoreOf(v, "ImageLocality").weight == 1);
    CHECK(v.total == want[n].total);
  }
  // Every score plugin, in upstream order, with its weight.
  std::vector<std::string> plugins;
  std::vector<int> weights;
  for (const auto& s : r.explain[0].scores) {
    plugins.push_back(s.plugin);
    weights.push_back(s.weight);
  }
  CHECK(plugins == std::vector<std::string>{"TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                            "PodTopologySpread", "NodeResourcesBalancedAllocation",
                                            "ImageLocality", "gpushare"});
  CHECK(weights == std::vector<int>{3, 2, 1, 2, 1, 1, 1});
  CHECK(ScoreOf(r.explain[0], "NodeResourcesFit").raw == 81);
  CHECK(r.placement.node == 2);
  CHECK(r.message.empty());
  // Without explain the skipped plugins are left out; the winner is the same.
  CHECK(scheduler.Schedule(Pod("p", 1000, kGiB)).placement.node == 2);
}

TEST_CASE("MostAllocated prefers the fuller node") {
  ClusterState cluster = ThreeNodes();
  SchedulerConfig config;
  config.node_resources_strategy = "MostAllocated";
  Scheduler scheduler(cluster, config);
  const ScheduleResult r = scheduler.Schedule(Pod("p", 1000, kGiB), true);
  // Fit: mean of min(req, alloc) x 100 / alloc: a (25 + 12)/2, b (75 + 37)/2, c (12 + 12)/2.
  CHECK(ScoreOf(r.explain[0], "NodeResourcesFit").normalized == 18);
  CHECK(ScoreOf(r.explain[1], "NodeResourcesFit").normalized == 56);
  CHECK(ScoreOf(r.explain[2], "NodeResourcesFit").normalized == 12);
  CHECK(r.explain[1].total == 300 + 56 + 81);
  CHECK(r.placement.node == 1);
}

TEST_CASE("an unknown NodeResourcesFit strategy is refused") {
  ClusterState cluster;
  SchedulerConfig config;
  config.node_resources_strategy = "Balanced";
  CHECK_THROWS_AS(Scheduler(cluster, config), std::invalid_argument);
}

TEST_CASE("ties go to the lowest node index by default") {
  ClusterState cluster;
  for (const char* name : {"n0", "n1", "n2", "n3"}) cluster.AddNode(MakeNode(name));
  Scheduler scheduler(cluster, {});
  CHECK(scheduler.Schedule(Pod("p", 1000, kGiB)).placement.node == 0);
  // LeastAllocated then spreads: each bind makes its node the fuller one.
  std::vector<int> order;
  for (int i = 0; i < 4; ++i) {
    order.push_back(scheduler.ScheduleAndBind(Pod("p", 1000, kGiB)).placement.node);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("the random tie-break is uniform over the tied nodes and reproducible by seed") {
  ClusterState cluster;
  for (int i = 0; i < 8; ++i) cluster.AddNode(MakeNode(fmt::format("n{}", i)));
  // A ninth node that loses: fuller.
  cluster.AddNode(MakeNode("full"));
  testing::BindOn(cluster, "full", Pod("busy", 4000, 16 * kGiB));
  auto draws = [&](uint64_t seed) {
    SchedulerConfig config;
    config.random_tie_break = true;
    config.seed = seed;
    Scheduler scheduler(cluster, config);
    std::vector<int> out;
    for (int i = 0; i < 800; ++i)
      out.push_back(scheduler.Schedule(Pod("p", 100, kGiB)).placement.node);
    return out;
  };
  const std::vector<int> a = draws(7);
  std::map<int, int> counts;
  for (int n : a) ++counts[n];
  CHECK(counts.size() == 8);
  CHECK(counts.count(8) == 0);
  for (const auto& [node, count] : counts) {
    CAPTURE(node);
    CHECK(count > 60);  // 100 expected each; 60 is over 4 standard deviations below
    CHECK(count < 140);
  }
  CHECK(draws(7) == a);
  CHECK(draws(8) != a);
}

TEST_CASE("a node stops at its first rejecting filter, in upstream order") {
  ClusterState cluster;
  NodeSpec tainted = MakeNode("tainted", {}, {{"cpu", 500}});
  tainted.taints = {{"dedicated", "gpu", "NoSchedule"}};
  cluster.AddNode(tainted);  // also too small, but the taint is reported
  NodeSpec cordoned = MakeNode("cordoned", {}, {{"cpu", 500}});
  cordoned.unschedulable = true;
  cordoned.taints = {{"dedicated", "gpu", "NoSchedule"}};
  cluster.AddNode(cordoned);  // unschedulable comes before the taint
  cluster.AddNode(MakeNode("small", {{"zone", "a"}}, {{"cpu", 500}}));
  Scheduler scheduler(cluster, {});
  PodSpec pod = Pod("p", 1000, kGiB);
  const ScheduleResult r = scheduler.Schedule(pod, true);
  CHECK(r.placement.node == -1);
  REQUIRE(r.explain.size() == 3);
  CHECK(r.explain[0].failed_plugin == "TaintToleration");
  CHECK(r.explain[1].failed_plugin == "NodeUnschedulable");
  CHECK(r.explain[2].failed_plugin == "NodeResourcesFit");
  CHECK(r.explain[2].status.reasons == std::vector<std::string>{"Insufficient cpu"});
  CHECK(r.explain[0].scores.empty());
}

struct MessageCase {
  const char* rule;
  int unschedulable, tainted, busy, other_zone;  // node counts of each kind
  bool with_selector;
  const char* want;
};

TEST_CASE("an absent node is outside the cluster: no candidate, no domain, not counted") {
  // Zone a: a1 holding one pod of the spread group; zone b: b1, absent. Present, b1 would be
  // an empty zone-b domain and the skew of a second pod in a would be 2 - 0 > 1; absent, zone a
  // is the only domain and the pod goes to a2.
  ClusterState cluster;
  const ResourceList big = {{"cpu", 8000}, {"memory", 32 * kGiB}};
  cluster.AddNode(MakeNode("a1", {{"zone", "a"}}, big));
  cluster.AddNode(MakeNode("a2", {{"zone", "a"}}, big));
  const int b1 = cluster.AddNode(MakeNode("b1", {{"zone", "b"}}, big));
  PodSpec spread = Pod("web-0", 1000, kGiB);
  spread.labels = {{"app", "web"}};
  TopologySpreadConstraint c;
  c.topology_key = "zone";
  c.label_selector.match_labels = {{"app", "web"}};
  spread.topology_spread = {c};
  testing::BindOn(cluster, "a1", spread);
  cluster.SetAbsent(b1, true);
  CHECK(cluster.present_count() == 2);
  Scheduler scheduler(cluster, {});
  PodSpec next = spread;
  next.name = "web-1";
  ScheduleResult r = scheduler.Schedule(next);
  REQUIRE(r.placement.node >= 0);
  CHECK(cluster.node(r.placement.node).spec.name != "b1");
  // A pod that fits nowhere counts the present nodes only.
  const ScheduleResult none = scheduler.Schedule(Pod("huge", 64000, kGiB));
  CHECK(none.message.starts_with("0/2 nodes are available: 2 Insufficient cpu."));
  // Back in the cluster, b1 is a domain again (and the emptiest one): the pod goes there.
  cluster.SetAbsent(b1, false);
  r = scheduler.Schedule(next);
  REQUIRE(r.placement.node >= 0);
  CHECK(r.placement.node == b1);
  CHECK(scheduler.Schedule(Pod("huge", 64000, kGiB))
            .message.starts_with("0/3 nodes are available: 3 Insufficient cpu."));
}

TEST_CASE("a pod that fits nowhere gets upstream's FailedScheduling message") {
  const MessageCase cases[] = {
      {"Appendix B: histogram sorted as strings, preemption verdict per node", 2, 0, 10, 0, false,
       "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable. preemption: "
       "0/12 nodes are available: 10 No preemption victims found for incoming pod, 2 Preemption "
       "is not helpful for scheduling."},
      {"taints and insufficient cpu", 0, 1, 3, 0, false,
       "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. "
       "preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No "
       "preemption victims found for incoming pod."},
      {"selector mismatch is unresolvable", 0, 1, 0, 2, true,
       "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's "
       "node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful "
       "for scheduling."},
  };
  for (const MessageCase& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster;
    int n = 0;
    auto add = [&](NodeSpec node) {
      cluster.AddNode(std::move(node));
      ++n;
    };
    for (int i = 0; i < c.unschedulable; ++i) {
      NodeSpec node = MakeNode(fmt::format("cordoned{}", i), {{"zone", "a"}});
      node.unschedulable = true;
      add(node);
    }
    for (int i = 0; i < c.tainted; ++i) {
      NodeSpec node = MakeNode(fmt::format("tainted{}", i), {{"zone", "a"}});
      node.taints = {{"dedicated", "infra", "NoSchedule"}};
      add(node);
    }
    for (int i = 0; i < c.busy; ++i) {
      const std::string name = fmt::format("busy{}", i);
      add(MakeNode(name, {{"zone", "a"}}));
      testing::BindOn(cluster, name, Pod("busy", 7500, kGiB));
    }
    for (int i = 0; i < c.other_zone; ++i) add(MakeNode(fmt::format("b{}", i), {{"zone", "b"}}));
    PodSpec pod = Pod("p", 1000, kGiB);
    if (c.with_selector) pod.node_selector = {{"zone", "a"}};
    Scheduler scheduler(cluster, {});
    const ScheduleResult r = scheduler.ScheduleAndBind(pod);
    CHECK(r.placement.node == -1);
    CHECK(r.message == c.want);
    CHECK(static_cast<int>(cluster.pods().size()) == c.busy);  // nothing bound
  }
}

TEST_CASE("a PreFilter rejection is the whole message") {
  ClusterState cluster;
  cluster.AddNode(ShareNode("g0", 4, 16));
  cluster.AddNode(ShareNode("g1", 4, 16));
  PodSpec pod = GpuPod("split", 3);
  pod.gpu_count = 2;  // 3 units do not split over 2 cards
  pod.labels[kGpuCountResource] = "2";
  Scheduler scheduler(cluster, {});
  const ScheduleResult r = scheduler.Schedule(pod, true);
  CHECK(r.placement.node == -1);
  std::string want = "0/2 nodes are available: ";
  want.append(CardFailureReason(CardFailure::kInvalidReplica, pod));
  want.append(". preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  CHECK(r.message == want);
  REQUIRE(r.explain.size() == 2);
  CHECK(r.explain[1].failed_plugin == "gpushare");
}

// NodeAffinity's PreFilterResult in the whole cycle: only the pinned nodes are filtered, the
// others carry the release's status for nodes outside the result (upstream schedule_one.go
// findNodesThatFitPod; FitError.Error()).
TEST_CASE("nodes outside the PreFilter result read the release's didn't-satisfy status") {
  const NodeSelectorRequirement pin_busy{"metadata.name", "In", {"busy"}};
  const NodeSelectorRequirement pin_gone{"metadata.name", "In", {"gone"}};
  const NodeSelectorRequirement pin_free{"metadata.name", "In", {"free"}};
  const NodeSelectorRequirement zone_b{"zone", "In", {"b"}};
  struct Case {
    const char* rule;
    const char* version;
    std::vector<std::vector<NodeSelectorRequirement>> terms;
    const char* want;  // "" = the pod binds on `free`
  };
  const char* kNotHelpful2 =
      " preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 "
      "Preemption is not helpful for scheduling.";
  const std::vector<Case> cases = {
      {"pinned to a full node (1.32+: the plugin named)",
       "1.35",
       {{pin_busy}},
       "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
       "[NodeAffinity]."},
      {"pinned to a full node (1.27-1.31: no reason of their own)",
       "1.30",
       {{pin_busy}},
       "0/3 nodes are available: 1 Insufficient cpu."},
      {"pinned to a full node (1.25-1.26 back-port)",
       "1.26",
       {{pin_busy}},
       "0/3 nodes are available: 1 Insufficient cpu, 2 node is filtered out by the prefilter "
       "result."},
      {"pinned to a full node (1.23: no PreFilterResult, every node filtered)",
       "1.23",
       {{pin_busy}},
       "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node "
       "affinity/selector."},
      {"pinned to a node that does not exist",
       "1.35",
       {{pin_gone}},
       "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: "
       "0/3 nodes are available: 3 Preemption is not helpful for scheduling."},
      {"pinned, and the pinned node fails the label term",
       "1.35",
       {{pin_free, zone_b}},
       "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) "
       "didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 3 "
       "Preemption is not helpful for scheduling."},
      {"conflicting pins are a PreFilter rejection",
       "1.35",
       {{pin_free, pin_busy}},
       "0/3 nodes are available: pod affinity terms conflict. preemption: 0/3 nodes are "
       "available: 3 Preemption is not helpful for scheduling."},
      {"pinned to a free node: it binds there", "1.35", {{pin_free}}, ""},
      {"a term without a pin lets every node in",
       "1.35",
       {{pin_busy}, {{"zone", "In", {"a"}}}},
       ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster;
    cluster.AddNode(MakeNode("busy", {{"zone", "a"}}));
    cluster.AddNode(MakeNode("other", {{"zone", "a"}}, {{"cpu", 64000}}));  // scores higher
    cluster.AddNode(MakeNode("free", {{"zone", "a"}}));
    testing::BindOn(cluster, "busy", Pod("hog", 7500, kGiB));
    testing::BindOn(cluster, "free", Pod("small", 500, kGiB));
    PodSpec pod = Pod("p", 1000, kGiB);
    pod.node_affinity.required_terms = c.terms;
    SchedulerConfig config;
    config.kube_version = *KubeVersion::Parse(c.version);
    Scheduler scheduler(cluster, config);
    const ScheduleResult r = scheduler.Schedule(pod, true);
    REQUIRE(r.explain.size() == 3);
    if (std::string(c.want).empty()) {
      // Pinned to `free`: `other` would score higher but is outside the result.
      const bool pinned = c.terms.size() == 1;
      CHECK(r.placement.node == cluster.FindNode(pinned ? "free" : "other"));
      if (pinned) CHECK(r.explain[1].failed_plugin == "NodeAffinity");
      continue;
    }
    CHECK(r.placement.node == -1);
    std::string want = c.want;
    if (want.find("preemption:") == std::string::npos && config.kube_version.minor >= 24) {
      want += kNotHelpful2;
      const int minor = config.kube_version.minor;
      if (minor >= 25 && minor <= 29) want += ".";  // those releases' doubled full stop
    }
    CHECK(r.message == want);
  }
}

TEST_CASE("a reason naming its node is given per node even when the nodes look alike") {
  // The legacy extender's "The node <n> is not for GPU share" on two identical plain nodes. The
  // pod lists no aliyun.com/gpu-mem request, so NodeResourcesFit lets it through.
  ClusterState cluster;
  cluster.AddNode(MakeNode("plain-a"));
  cluster.AddNode(MakeNode("plain-b"));
  PodSpec pod = GpuPod("g", 2);
  pod.requests.erase(kGpuMemResource);
  SchedulerConfig config;
  config.extender_best_fit = true;
  Scheduler scheduler(cluster, config);
  const ScheduleResult r = scheduler.Schedule(pod);
  CHECK(r.message ==
        "0/2 nodes are available: 1 The node plain-a is not for GPU share, need skip, 1 The node "
        "plain-b is not for GPU share, need skip. preemption: 0/2 nodes are available: 2 No "
        "preemption victims found for incoming pod.");
}

TEST_CASE("ACK binpack and spread choose the node through the GPU-share score") {
  // §1.5 B / Appendix B: 2 cards x 15 units; g0 has 10 units used on card 0, g1 is empty;
  // a 3-unit pod. Binpack: g0 card 0 scores 70 + 30 x 13/15 = 96, g1 70 + 30 x 3/15 = 76.
  // Spread: g0 card 1 scores 70 + 30 x (1 - 3/15) = 94 and g1 the same, so the lowest index.
  struct Case {
    const char* rule;
    std::string placement;
    int node, card, gpushare_g0, gpushare_g1;
  };
  const Case cases[] = {
      {"binpack fills the used card of the used node", "binpack", 0, 0, 96, 76},
      {"spread takes the emptiest card, ties to the lowest node", "spread", 0, 1, 94, 94},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    ClusterState cluster;
    cluster.AddNode(ShareNode("g0", 2, 15, c.placement));
    cluster.AddNode(ShareNode("g1", 2, 15, c.placement));
    BindOnCard(cluster, 0, 0, 10);
    Scheduler scheduler(cluster, {});
    const ScheduleResult r = scheduler.ScheduleAndBind(GpuPod("p", 3), true);
    CHECK(ScoreOf(r.explain[0], "gpushare").normalized == c.gpushare_g0);
    CHECK(ScoreOf(r.explain[1], "gpushare").normalized == c.gpushare_g1);
    CHECK(r.placement.node == c.node);
    CHECK(r.placement.cards == std::vector<int>{c.card});
    CHECK(r.placement.mem_units == std::vector<int>{3});
    CHECK(cluster.node(c.node).cards[c.card].used_mem == (c.card == 0 ? 13 : 3));
  }
}

TEST_CASE("binpack keeps filling one node's cards before opening the next node") {
  ClusterState cluster;
  for (int i = 0; i < 3; ++i) cluster.AddNode(ShareNode(fmt::format("g{}", i), 2, 16));
  Scheduler scheduler(cluster, {});  // default placement: binpack
  std::vector<int> nodes;
  for (int i = 0; i < 8; ++i)
    nodes.push_back(scheduler.ScheduleAndBind(GpuPod("p", 4)).placement.node);
  CHECK(nodes == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(scheduler.ScheduleAndBind(GpuPod("p", 4)).placement.node == 1);
}

TEST_CASE("the scheduler sees binds and unbinds made directly on the cluster") {
  ClusterState cluster;
  cluster.AddNode(ShareNode("g0", 1, 8));
  cluster.AddNode(ShareNode("g1", 1, 8));
  Scheduler scheduler(cluster, {});
  const int first = scheduler.ScheduleAndBind(GpuPod("p", 8)).placement.node;
  CHECK(first == 0);
  const int other = BindOnCard(cluster, 1, 0, 8);  // behind the scheduler's back
  CHECK(scheduler.Schedule(GpuPod("q", 8)).placement.node == -1);
  cluster.Unbind(other);
  CHECK(scheduler.Schedule(GpuPod("q", 8)).placement.node == 1);
  cluster.Unbind(0);
  CHECK(scheduler.Schedule(GpuPod("q", 8)).placement.node == 0);
}

TEST_CASE("a hostname selector picks its node among identical ones") {
  ClusterState cluster;
  for (int i = 0; i < 5; ++i) cluster.AddNode(MakeNode(fmt::format("n{}", i)));
  Scheduler scheduler(cluster, {});
  PodSpec pod = Pod("p", 100, kGiB);
  pod.node_selector = {{"kubernetes.io/hostname", "n3"}};
  CHECK(scheduler.Schedule(pod).placement.node == 3);
  pod.node_selector.clear();
  pod.node_affinity.preferred = {{10, {{"kubernetes.io/hostname", "In", {"n4"}}}}};
  CHECK(scheduler.Schedule(pod).placement.node == 4);
}

// Differential check of the equivalence cache: every pod of a random stream (GPU and cpu pods of
// a few shapes, zone and hostname spread, tolerations, preferences) is scheduled twice, with
// --explain (which recomputes every plugin on every node) and then for real (from the cache);
// both must agree on node, cards and message, and on what the pod's line reports (the nodes
// reached and feasible, the winner's total as --explain sums it, skipped plugins included).
// Pods also leave behind the scheduler's back.
TEST_CASE("the equivalence cache and skipped scores never change a placement or its score") {
  ClusterState cluster;
  for (int i = 0; i < 24; ++i) {
    const std::string name = fmt::format("n{}", i);
    const Labels zone = {
        {"topology.kubernetes.io/zone", std::string(1, static_cast<char>('a' + i % 3))}};
    NodeSpec node = i % 4 == 3 ? MakeNode(name, zone, {{"cpu", 16000}})
                               : ShareNode(name, i % 2 ? 2 : 4, 16, i % 5 == 0 ? "spread" : "");
    node.labels.insert(zone.begin(), zone.end());
    if (i % 6 == 1) node.taints = {{"spot", "", "PreferNoSchedule"}};
    if (i % 8 == 2) node.taints = {{"dedicated", "x", "NoSchedule"}};
    if (i % 7 == 0) node.images = {{{"app:1"}, 800 * 1024 * 1024}};
    cluster.AddNode(node);
  }
  Scheduler scheduler(cluster, {});
  RandomStream rng(3, "test/equivalence");
  std::vector<int> bound;
  int placed = 0, pending = 0;
  for (int step = 0; step < 800; ++step) {
    CAPTURE(step);
    PodSpec pod = rng.Below(3) == 0
                      ? Pod("cpu", 500 + 500 * static_cast<int64_t>(rng.Below(4)), kGiB)
                      : GpuPod("gpu", 2 + 2 * static_cast<int>(rng.Below(6)));
    pod.labels["app"] = rng.Below(2) ? "web" : "batch";
    switch (rng.Below(7)) {
      case 0: {
        TopologySpreadConstraint c;
        c.topology_key = "topology.kubernetes.io/zone";
        c.label_selector.match_labels = {{"app", pod.labels["app"]}};
        pod.topology_spread = {c};
        break;
      }
      case 1: {
        TopologySpreadConstraint c;
        c.topology_key = "kubernetes.io/hostname";
        c.when_unsatisfiable = "ScheduleAnyway";
        c.label_selector.match_labels = {{"app", pod.labels["app"]}};
        pod.topology_spread = {c};
        break;
      }
      case 2:
        pod.tolerations = {{"dedicated", "Equal", "x", "NoSchedule", {}}};
        pod.node_affinity.preferred = {{20, {{"topology.kubernetes.io/zone", "In", {"b"}}}}};
        break;
      case 3:
        pod.images = {"app:1"};
        break;
      case 4:  // one feasible node: not scored outside --explain
        pod.node_selector = {{"kubernetes.io/hostname", fmt::format("n{}", rng.Below(24))}};
        break;
      case 5: {  // InterPodAffinity scores only where some pod has a term to score
        WeightedPodAffinityTerm t;
        t.weight = 50;
        t.term.label_selector.match_labels = {{"app", pod.labels["app"]}};
        t.term.topology_key = "kubernetes.io/hostname";
        pod.pod_anti_affinity.preferred = {t};
        break;
      }
      default:
        break;
    }
    const ScheduleResult fresh = scheduler.Schedule(pod, /*explain=*/true);
    const ScheduleResult cached = scheduler.ScheduleAndBind(pod, /*explain=*/false, /*score=*/true);
    CHECK(cached.placement.node == fresh.placement.node);
    CHECK(cached.placement.cards == fresh.placement.cards);
    CHECK(cached.message == fresh.message);
    CHECK(cached.evaluated == fresh.evaluated);
    CHECK(cached.feasible == fresh.feasible);
    CHECK(cached.score == fresh.score);
    if (cached.placement.node >= 0) {
      ++placed;
      bound.push_back(static_cast<int>(cluster.pods().size()) - 1);
    } else {
      ++pending;
    }
    if (!bound.empty() && rng.Below(3) == 0) {
      const size_t k = rng.Below(bound.size());
      cluster.Unbind(bound[k]);
      bound.erase(bound.begin() + static_cast<long>(k));
    }
  }
  // The stream exercises both outcomes.
  CHECK(placed > 100);
  CHECK(pending > 20);
}

// TaintToleration's and NodeAffinity's verdicts are kept by the pod's tolerations and node
// affinity and shared by every class (they read only what a node keeps for life), so more
// classes than the cache holds read verdicts another class computed. A scheduler made afresh
// for each pod shares nothing: both must agree.
TEST_CASE("verdicts shared across pod classes equal a fresh scheduler's") {
  ClusterState cluster;
  for (int i = 0; i < 24; ++i) {
    NodeSpec node = MakeNode(fmt::format("n{}", i), {{"pool", i % 3 ? "a" : "b"}},
                             {{"cpu", 16000}, {"memory", 64 * kGiB}});
    if (i % 5 == 1) node.taints = {{"dedicated", "x", "NoSchedule"}};
    if (i % 7 == 2) node.taints = {{"gpu", "", "NoExecute"}};
    cluster.AddNode(node);
  }
  Scheduler scheduler(cluster, {});
  RandomStream rng(5, "test/fixed-verdicts");
  for (int step = 0; step < 300; ++step) {
    CAPTURE(step);
    // 150 cpu sizes: far more classes than the 64 kept, a few tolerations and selectors each.
    PodSpec pod = Pod("p", 100 + 10 * static_cast<int64_t>(rng.Below(150)), kGiB);
    if (rng.Below(2) == 0) pod.tolerations = {{"dedicated", "Equal", "x", "NoSchedule", {}}};
    if (rng.Below(3) == 0) pod.tolerations.push_back({"gpu", "Exists", "", "", {}});
    if (rng.Below(2) == 0) pod.node_selector = {{"pool", rng.Below(2) ? "a" : "b"}};
    Scheduler fresh_scheduler(cluster, {});
    const ScheduleResult fresh = fresh_scheduler.Schedule(pod, /*explain=*/false, /*score=*/true);
    const ScheduleResult kept = scheduler.ScheduleAndBind(pod, /*explain=*/false, /*score=*/true);
    CHECK(kept.placement.node == fresh.placement.node);
    CHECK(kept.message == fresh.message);
    CHECK(kept.feasible == fresh.feasible);
    CHECK(kept.score == fresh.score);
  }
}

TEST_CASE("NodeResourcesFit, BalancedAllocation and GPU-share scores need no normalising") {
  // The Scheduler sums these three straight from their raw scores outside --explain.
  SchedulerConfig config;
  const std::vector<int> feasible = {0, 1, 2};
  std::vector<std::unique_ptr<ScorePlugin>> plugins;
  plugins.push_back(NewNodeResourcesFitScore("LeastAllocated"));
  plugins.push_back(NewBalancedAllocationScore());
  plugins.push_back(NewGpuShareScore(config));
  for (const auto& plugin : plugins) {
    CAPTURE(plugin->Name());
    std::vector<int64_t> scores = {7, 100, 0};
    plugin->Normalize(feasible, scores);
    CHECK(scores == std::vector<int64_t>{7, 100, 0});
  }
}

TEST_CASE("replicas with required anti-affinity to their own kind spread one per node, then wait") {
  ClusterState cluster;
  for (const char* name : {"n0", "n1", "n2"}) cluster.AddNode(MakeNode(name, {}));
  Scheduler scheduler(cluster, {});
  PodSpec web = MakePod("web", {{"app", "web"}}, {{"cpu", 100}});
  PodAffinityTerm apart;
  apart.label_selector.match_labels = web.labels;
  apart.topology_key = kHostnameLabel;
  web.pod_anti_affinity.required = {apart};
  std::set<int> nodes;
  for (int i = 0; i < 3; ++i) {
    const ScheduleResult r = scheduler.ScheduleAndBind(web);
    REQUIRE(r.placement.node >= 0);
    nodes.insert(r.placement.node);
  }
  CHECK(nodes.size() == 3);
  const ScheduleResult fourth = scheduler.ScheduleAndBind(web);
  CHECK(fourth.placement.node == -1);
  CHECK(fourth.message ==
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 "
        "nodes are available: 3 No preemption victims found for incoming pod.");
  // A pod without terms of its own is kept off by the bound replicas' terms when it matches them.
  PodSpec plain = MakePod("plain", {{"app", "web"}}, {{"cpu", 100}});
  CHECK(scheduler.Schedule(plain).message ==
        "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity rules. "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.");
  // An unbound replica frees its node again.
  const int freed = cluster.placement(0).node;
  cluster.Unbind(0);
  CHECK(scheduler.ScheduleAndBind(web).placement.node == freed);
}

// The nodes the search reached in one cycle (explain: verdicts with evaluated set).
std::vector<int> EvaluatedNodes(const ScheduleResult& r) {
  std::vector<int> nodes;
  for (const NodeVerdict& v : r.explain) {
    if (v.evaluated) nodes.push_back(v.node);
  }
  return nodes;
}

std::vector<int> Range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; ++i) v.push_back(i);
  return v;
}

ClusterState NodesNamed(int n, const std::function<Labels(int)>& labels = {}) {
  ClusterState cluster;
  for (int i = 0; i < n; ++i)
    cluster.AddNode(MakeNode(std::to_string(i), labels ? labels(i) : Labels{}));
  return cluster;
}

// Upstream pkg/scheduler/schedule_one_test.go TestFairEvaluationForNodes: 500 nodes,
// percentageOfNodesToScore 30, every node feasible: each cycle finds 150 nodes and the next one
// starts 150 further on, around the node list more than twice.
TEST_CASE(
    "percentageOfNodesToScore: each cycle filters the next nodesToFind nodes (fair evaluation)") {
  ClusterState cluster = NodesNamed(500);
  SchedulerConfig config;
  config.percentage_of_nodes_to_score = 30;
  Scheduler scheduler(cluster, config);
  const int nodes_to_find = 150;
  for (int i = 0; i < 2 * (500 / nodes_to_find + 1); ++i) {
    CAPTURE(i);
    const ScheduleResult r = scheduler.Schedule(Pod("p", 100, 0), /*explain=*/true);
    const std::vector<int> evaluated = EvaluatedNodes(r);
    REQUIRE(evaluated.size() == nodes_to_find);
    // The evaluated nodes are the 150 from the start index on, wrapping around.
    std::set<int> want;
    for (int k = 0; k < nodes_to_find; ++k) want.insert((i * nodes_to_find + k) % 500);
    CHECK(std::set<int>(evaluated.begin(), evaluated.end()) == want);
    // Ties go to the lowest node index among the sampled ones.
    CHECK(r.placement.node == *want.begin());
  }
}

TEST_CASE(
    "percentageOfNodesToScore: rejected nodes count as processed, the surplus feasible one not") {
  // 200 nodes, 50 %: the search stops at the 101st feasible node. Nodes 0-49 are cordoned.
  ClusterState cluster = NodesNamed(200);
  for (int i = 0; i < 50; ++i) cluster.SetUnschedulable(i, true);
  SchedulerConfig config;
  config.percentage_of_nodes_to_score = 50;
  Scheduler scheduler(cluster, config);
  // Cycle 1 from node 0: 50 rejected, then 100 feasible (50-149); node 150 ends it uncounted.
  CHECK(EvaluatedNodes(scheduler.Schedule(Pod("p", 100, 0), true)) == Range(0, 150));
  // Cycle 2 from node 150: 150-199 feasible, 0-49 rejected, 50-99 feasible; 150 processed.
  std::vector<int> want = Range(0, 100);
  for (int i : Range(150, 200)) want.push_back(i);
  const ScheduleResult second = scheduler.Schedule(Pod("p", 100, 0), true);
  CHECK(EvaluatedNodes(second) == want);
  CHECK(second.placement.node == 50);
  // Cycle 3 from (150 + 150) % 200 = 100: 100-199 feasible, 0-49 rejected and counted, node 50 ends
  // it: 150 processed.
  want = Range(0, 50);
  for (int i : Range(100, 200)) want.push_back(i);
  const ScheduleResult third = scheduler.Schedule(Pod("p", 100, 0), true);
  CHECK(EvaluatedNodes(third) == want);
  CHECK(third.placement.node == 100);
  // Cycle 4 from (100 + 150) % 200 = 50.
  CHECK(EvaluatedNodes(scheduler.Schedule(Pod("p", 100, 0), true)) == Range(50, 150));
}

TEST_CASE("percentageOfNodesToScore: fewer feasible nodes than the count search every node") {
  ClusterState cluster = NodesNamed(300);
  for (int i = 0; i < 300; ++i) cluster.SetUnschedulable(i, i % 3 != 0);  // 100 feasible
  Scheduler scheduler(cluster, {});  // adaptive: 300 x 48 % = 144 > 100
  for (int cycle = 0; cycle < 3; ++cycle) {
    const ScheduleResult r = scheduler.Schedule(Pod("p", 100, 0), true);
    CHECK(EvaluatedNodes(r).size() == 300);
    CHECK(r.placement.node == 0);  // the start never moved: 300 processed of 300
  }
  // No feasible node at all: the message counts every node, as before.
  for (int i = 0; i < 300; ++i) cluster.SetUnschedulable(i, true);
  CHECK(scheduler.Schedule(Pod("p", 100, 0)).message ==
        "0/300 nodes are available: 300 node(s) were unschedulable. preemption: 0/300 nodes are "
        "available: 300 Preemption is not helpful for scheduling.");
}

TEST_CASE("percentageOfNodesToScore: below 100 nodes, and at 100 %, every node is scored") {
  for (const int percentage : {0, 10}) {
    ClusterState small = NodesNamed(99);
    SchedulerConfig config;
    config.percentage_of_nodes_to_score = percentage;
    Scheduler scheduler(small, config);
    CHECK(EvaluatedNodes(scheduler.ScheduleAndBind(Pod("p", 100, 0), true)).size() == 99);
    CHECK(EvaluatedNodes(scheduler.ScheduleAndBind(Pod("p", 100, 0), true)).size() == 99);
  }
  ClusterState large = NodesNamed(1000);
  SchedulerConfig all;
  all.percentage_of_nodes_to_score = 100;
  Scheduler scheduler(large, all);
  CHECK(EvaluatedNodes(scheduler.Schedule(Pod("p", 100, 0), true)).size() == 1000);
}

TEST_CASE("percentageOfNodesToScore: the search walks the node tree round-robin over zones") {
  // 400 nodes, the first 200 in zone a, the rest in zone b; adaptive: 400 x 47 % = 188.
  ClusterState cluster = NodesNamed(400, [](int i) {
    return Labels{{"topology.kubernetes.io/zone", i < 200 ? "a" : "b"}};
  });
  Scheduler scheduler(cluster, {});
  // The tree lists a0 b0 a1 b1 ...: the first 188 are nodes 0-93 and 200-293.
  std::vector<int> want = Range(0, 94);
  for (int i : Range(200, 294)) want.push_back(i);
  CHECK(EvaluatedNodes(scheduler.Schedule(Pod("p", 100, 0), true)) == want);
  // The next cycle starts at tree position 188: nodes 94-187 and 294-387.
  want = Range(94, 188);
  for (int i : Range(294, 388)) want.push_back(i);
  CHECK(EvaluatedNodes(scheduler.Schedule(Pod("p", 100, 0), true)) == want);
}

}  // namespace
}  // namespace knobsim
