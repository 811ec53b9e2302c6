// DefaultPreemption's tables, translated from upstream
// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go (TestPostFilter,
// TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers): each case is
// a whole cluster run through knobsim's Scheduler, so the filters' own statuses decide which
// nodes preemption tries (upstream hands them in).
#include "sim/scheduler/preemption.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::MakeNode;

// Upstream's priorities and resources (cpu in millicores, memory in bytes).
constexpr int kNeg = -100, kLow = 0, kMid = 100, kHigh = 1000, kVeryHigh = 10000;
struct Res {
  int64_t cpu, memory;
};
constexpr Res kNone{0, 0}, kSmall{100, 100}, kMedium{200, 200}, kLarge{300, 300},
    kVeryLarge{500, 500};

// st.MakeNode().Capacity(res): the resources given plus 32 pods.
NodeSpec Node(const std::string& name, Res capacity = kVeryLarge, int pods = 32,
              Labels labels = {}) {
  NodeSpec node = MakeNode(name, std::move(labels));
  node.allocatable = {{"pods", pods}, {"cpu", capacity.cpu}, {"memory", capacity.memory}};
  node.capacity = node.allocatable;
  return node;
}

PodSpec Pod(const std::string& name, int priority, Res requests = kNone,
            std::optional<double> start = std::nullopt, Labels labels = {}) {
  PodSpec pod = testing::MakePod(name, std::move(labels));
  if (requests.cpu) pod.requests["cpu"] = requests.cpu;
  if (requests.memory) pod.requests["memory"] = requests.memory;
  pod.nonzero_cpu_milli = requests.cpu ? requests.cpu : 100;
  pod.nonzero_memory_bytes = requests.memory ? requests.memory : 200 << 20;
  pod.priority = priority;
  pod.start_time = start;
  return pod;
}

struct Bound {
  std::string node;
  PodSpec pod;
};

ClusterState Cluster(const std::vector<NodeSpec>& nodes, const std::vector<Bound>& pods) {
  ClusterState cluster;
  for (const NodeSpec& n : nodes) cluster.AddNode(n);
  for (const Bound& b : pods) testing::BindOn(cluster, b.node, b.pod);
  return cluster;
}

std::vector<NodeSpec> Nodes(std::initializer_list<const char*> names, Res capacity = kVeryLarge) {
  std::vector<NodeSpec> nodes;
  for (const char* n : names) nodes.push_back(Node(n, capacity));
  return nodes;
}

std::vector<std::string> Names(const ClusterState& cluster, const std::vector<int>& pods) {
  std::vector<std::string> names;
  for (int p : pods) names.push_back(cluster.pod(p).name);
  return names;
}

std::vector<std::string> Sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

SchedulerConfig Config(int minor = 35) {
  SchedulerConfig config;
  config.kube_version.minor = minor;
  return config;
}

// One cycle for `pod`: the nominated node ("" when none) and its victims.
struct Outcome {
  std::string node;
  std::vector<std::string> victims;
  int violations = 0;
  std::string message;
};
Outcome Preempt(ClusterState& cluster, const PodSpec& pod, SchedulerConfig config = Config(),
                std::vector<PreemptionBudget> budgets = {}) {
  Scheduler scheduler(cluster, config);
  scheduler.SetBudgetSource([budgets] { return budgets; });
  const ScheduleResult r = scheduler.Schedule(pod);
  REQUIRE(r.placement.node < 0);
  Outcome o;
  o.message = r.message;
  if (r.preemption.node >= 0) {
    o.node = cluster.node(r.preemption.node).spec.name;
    o.victims = Names(cluster, r.preemption.victims);
    o.violations = r.preemption.pdb_violations;
  }
  return o;
}

PreemptionBudget AppFoo(int allowed, std::set<std::string> disrupted = {}) {
  PreemptionBudget b;
  b.selector = LabelSelector{{{"app", "foo"}}, {}};
  b.disruptions_allowed = allowed;
  b.disrupted_pods = std::move(disrupted);
  return b;
}

const Labels kAppFoo{{"app", "foo"}};

// The dry run itself, every potential node in node order from `offset`.
std::vector<std::pair<std::string, std::vector<std::string>>> DryRun(
    ClusterState& cluster, const PodSpec& pod, int offset, PreemptionSettings settings,
    std::vector<PreemptionBudget> budgets = {}) {
  Scheduler scheduler(cluster, Config());
  std::vector<int> potential;
  for (int i = 0; i < static_cast<int>(cluster.nodes().size()); ++i) potential.push_back(i);
  const NodeFit fit = [&](const PodSpec& p, int node) { return scheduler.FilterOnNode(p, node); };
  const DryRunResult dry = DryRunPreemption(
      cluster, pod, potential, offset,
      NumPreemptionCandidates(static_cast<int>(potential.size()), settings), budgets, fit);
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const PreemptionCandidate& c : dry.candidates) {
    out.emplace_back(cluster.node(c.node).spec.name, Names(cluster, c.victims));
  }
  return out;
}

using Candidates = std::vector<std::pair<std::string, std::vector<std::string>>>;

TEST_CASE("preemption: TestDryRunPreemption's candidates and victims") {
  SUBCASE("a pod that fits on both nodes when lower priority pods are preempted") {
    ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("p1", kMid, kLarge)},
                                                         {"node2", Pod("p2", kMid, kLarge)}});
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 0, {}) ==
          Candidates{{"node1", {"p1"}}, {"node2", {"p2"}}});
  }
  SUBCASE("a pod that would fit on the nodes, but other pods running are higher priority") {
    ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("p1", kMid, kLarge)},
                                                         {"node2", Pod("p2", kMid, kLarge)}});
    CHECK(DryRun(c, Pod("p", kLow, kLarge), 0, {}).empty());
  }
  SUBCASE("medium priority pod is preempted, but lower priority one stays as it is small") {
    ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("p1.1", kLow, kSmall)},
                                                         {"node1", Pod("p1.2", kMid, kLarge)},
                                                         {"node2", Pod("p2", kMid, kLarge)}});
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 0, {}) ==
          Candidates{{"node1", {"p1.2"}}, {"node2", {"p2"}}});
  }
  SUBCASE("mixed priority pods are preempted") {
    ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("p1.1", kMid, kSmall)},
                                                         {"node1", Pod("p1.2", kLow, kSmall)},
                                                         {"node1", Pod("p1.3", kMid, kMedium)},
                                                         {"node1", Pod("p1.4", kHigh, kSmall)},
                                                         {"node2", Pod("p2", kHigh, kLarge)}});
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 0, {}) == Candidates{{"node1", {"p1.3", "p1.2"}}});
  }
  SUBCASE("mixed priority pods are preempted, pick later StartTime one when priorities are equal") {
    ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("p1.1", kLow, kSmall, 5)},
                                                         {"node1", Pod("p1.2", kLow, kSmall, 4)},
                                                         {"node1", Pod("p1.3", kMid, kMedium, 3)},
                                                         {"node1", Pod("p1.4", kHigh, kSmall, 2)},
                                                         {"node2", Pod("p2", kHigh, kLarge, 1)}});
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 0, {}) == Candidates{{"node1", {"p1.3", "p1.1"}}});
  }
  SUBCASE("preemption with violation of same pdb") {
    ClusterState c =
        Cluster(Nodes({"node1"}), {{"node1", Pod("p1.1", kMid, kMedium, {}, kAppFoo)},
                                   {"node1", Pod("p1.2", kMid, kMedium, {}, kAppFoo)}});
    const Outcome o = Preempt(c, Pod("p", kHigh, kVeryLarge), Config(), {AppFoo(1)});
    CHECK(o.node == "node1");
    // Equal pods: upstream's order among them is arbitrary (its test sorts victims by name).
    CHECK(Sorted(o.victims) == std::vector<std::string>{"p1.1", "p1.2"});
    CHECK(o.violations == 1);
  }
  SUBCASE("the pdb's disruptedPods: another pod listed there counts as before") {
    ClusterState c =
        Cluster(Nodes({"node1"}), {{"node1", Pod("p1.1", kMid, kMedium, {}, kAppFoo)},
                                   {"node1", Pod("p1.2", kMid, kMedium, {}, kAppFoo)}});
    CHECK(Preempt(c, Pod("p", kHigh, kVeryLarge), Config(), {AppFoo(1, {"p2"})}).violations == 1);
  }
  SUBCASE("the pdb's disruptedPods: a victim listed there does not count against it") {
    ClusterState c =
        Cluster(Nodes({"node1"}), {{"node1", Pod("p1.1", kMid, kMedium, {}, kAppFoo)},
                                   {"node1", Pod("p1.2", kMid, kMedium, {}, kAppFoo)}});
    CHECK(Preempt(c, Pod("p", kHigh, kVeryLarge), Config(), {AppFoo(1, {"p1.2"})}).violations == 0);
  }
  SUBCASE("the pdb's disruptedPods: the listed victim is non-violating, the others still count") {
    ClusterState c =
        Cluster(Nodes({"node1"}), {{"node1", Pod("p1.1", kMid, kMedium, {}, kAppFoo)},
                                   {"node1", Pod("p1.2", kMid, kMedium, {}, kAppFoo)},
                                   {"node1", Pod("p1.3", kMid, kMedium, {}, kAppFoo)}});
    const Outcome o = Preempt(c, Pod("p", kHigh, kVeryLarge), Config(), {AppFoo(1, {"p1.3"})});
    CHECK(Sorted(o.victims) == std::vector<std::string>{"p1.1", "p1.2", "p1.3"});
    CHECK(o.violations == 1);
  }
  const PreemptionSettings forty_one{40, 1};
  SUBCASE("all nodes are possible candidates, but DefaultPreemptionArgs limits to 2") {
    std::vector<Bound> pods;
    for (int i = 1; i <= 5; ++i) {
      pods.push_back({"node" + std::to_string(i), Pod("p" + std::to_string(i), kMid, kLarge)});
    }
    ClusterState c = Cluster(Nodes({"node1", "node2", "node3", "node4", "node5"}), pods);
    // Upstream's cycle 0 draws offset 4: node5, then node1.
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 4, forty_one) ==
          Candidates{{"node5", {"p5"}}, {"node1", {"p1"}}});
  }
  SUBCASE("some nodes are not possible candidates, DefaultPreemptionArgs limits to 2") {
    const int priority[] = {kMid, kVeryHigh, kMid, kMid, kVeryHigh};
    std::vector<Bound> pods;
    for (int i = 1; i <= 5; ++i) {
      pods.push_back(
          {"node" + std::to_string(i), Pod("p" + std::to_string(i), priority[i - 1], kLarge)});
    }
    ClusterState c = Cluster(Nodes({"node1", "node2", "node3", "node4", "node5"}), pods);
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 4, forty_one) ==
          Candidates{{"node1", {"p1"}}, {"node3", {"p3"}}});
  }
  SUBCASE("preemption looks past numCandidates until a non-PDB violating node is found") {
    const bool foo[] = {true, true, false, false, true};
    std::vector<Bound> pods;
    for (int i = 1; i <= 5; ++i) {
      pods.push_back({"node" + std::to_string(i), Pod("p" + std::to_string(i), kMid, kLarge, {},
                                                      foo[i - 1] ? kAppFoo : Labels{})});
    }
    ClusterState c = Cluster(Nodes({"node1", "node2", "node3", "node4", "node5"}), pods);
    // node5 and node1 fill the two violating slots, node2 finds none free, node3 ends the run.
    CHECK(DryRun(c, Pod("p", kHigh, kLarge), 4, {40, 2}, {AppFoo(0)}) ==
          Candidates{{"node3", {"p3"}}, {"node5", {"p5"}}, {"node1", {"p1"}}});
  }
}

TEST_CASE("preemption: the dry run restores the cluster exactly") {
  ClusterState c = Cluster(Nodes({"node1", "node2"}), {{"node1", Pod("a", kLow, kSmall)},
                                                       {"node1", Pod("b", kMid, kMedium)},
                                                       {"node2", Pod("c", kLow, kLarge)}});
  auto snapshot = [&] {
    std::vector<std::string> s;
    for (const NodeState& n : c.nodes()) {
      std::string line = n.spec.name + ":";
      for (int p : n.pods) line += " " + std::to_string(p);
      for (const auto& [r, v] : n.requested) line += " " + r + "=" + std::to_string(v);
      s.push_back(line);
    }
    return s;
  };
  const auto before = snapshot();
  DryRun(c, Pod("p", kHigh, kLarge), 0, {});
  CHECK(snapshot() == before);
}

// TestSelectBestCandidate: every node holds 500m / 500; the pod asks it all.
TEST_CASE("preemption: TestSelectBestCandidate picks the node") {
  struct Case {
    const char* name;
    int nodes;
    int priority;
    std::vector<Bound> pods;
    const char* expected;
  };
  auto P = [](const char* name, int priority, Res res, double start = 0) {
    return Pod(name, priority, res, start);
  };
  const std::vector<Case> cases = {
      {"node with min highest priority pod is picked",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kMedium)},
        {"node1", P("p1.2", kMid, kLarge)},
        {"node2", P("p2.1", kMid, kMedium)},
        {"node2", P("p2.2", kLow, kMedium)},
        {"node3", P("p3.1", kLow, kMedium)},
        {"node3", P("p3.2", kLow, kMedium)}},
       "node3"},
      {"when highest priorities are the same, minimum sum of priorities is picked",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kMedium)},
        {"node1", P("p1.2", kMid, kLarge)},
        {"node2", P("p2.1", kMid, kLarge)},
        {"node2", P("p2.2", kLow, kMedium)},
        {"node3", P("p3.1", kMid, kMedium)},
        {"node3", P("p3.2", kMid, kMedium)}},
       "node2"},
      {"when highest priority and sum are the same, minimum number of pods is picked",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kSmall)},
        {"node1", P("p1.2", kNeg, kSmall)},
        {"node1", P("p1.3", kMid, kSmall)},
        {"node1", P("p1.4", kNeg, kSmall)},
        {"node2", P("p2.1", kMid, kLarge)},
        {"node2", P("p2.2", kNeg, kMedium)},
        {"node3", P("p3.1", kMid, kMedium)},
        {"node3", P("p3.2", kNeg, kSmall)},
        {"node3", P("p3.3", kLow, kSmall)}},
       "node2"},
      {"sum of adjusted priorities is considered",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kSmall)},
        {"node1", P("p1.2", kNeg, kSmall)},
        {"node1", P("p1.3", kNeg, kSmall)},
        {"node2", P("p2.1", kMid, kLarge)},
        {"node2", P("p2.2", kNeg, kMedium)},
        {"node3", P("p3.1", kMid, kMedium)},
        {"node3", P("p3.2", kNeg, kSmall)},
        {"node3", P("p3.3", kLow, kSmall)}},
       "node2"},
      {"non-overlapping lowest high priority, sum priorities, and number of pods",
       4,
       kVeryHigh,
       {{"node1", P("p1.1", kMid, kSmall)},
        {"node1", P("p1.2", kLow, kSmall)},
        {"node1", P("p1.3", kLow, kSmall)},
        {"node2", P("p2.1", kHigh, kLarge)},
        {"node3", P("p3.1", kMid, kMedium)},
        {"node3", P("p3.2", kLow, kSmall)},
        {"node3", P("p3.3", kLow, kSmall)},
        {"node3", P("p3.4", kLow, kMedium)},
        {"node4", P("p4.1", kMid, kMedium)},
        {"node4", P("p4.2", kMid, kSmall)},
        {"node4", P("p4.3", kMid, kSmall)},
        {"node4", P("p4.4", kNeg, kSmall)}},
       "node1"},
      {"same priority, same number of victims, different start time for each node's pod",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kMedium, 2)},
        {"node1", P("p1.2", kMid, kMedium, 2)},
        {"node2", P("p2.1", kMid, kMedium, 3)},
        {"node2", P("p2.2", kMid, kMedium, 3)},
        {"node3", P("p3.1", kMid, kMedium, 1)},
        {"node3", P("p3.2", kMid, kMedium, 1)}},
       "node2"},
      {"same priority, same number of victims, different start time for all pods",
       3,
       kHigh,
       {{"node1", P("p1.1", kMid, kMedium, 4)},
        {"node1", P("p1.2", kMid, kMedium, 2)},
        {"node2", P("p2.1", kMid, kMedium, 5)},
        {"node2", P("p2.2", kMid, kMedium, 1)},
        {"node3", P("p3.1", kMid, kMedium, 3)},
        {"node3", P("p3.2", kMid, kMedium, 6)}},
       "node3"},
      {"different priority, same number of victims, different start time for all pods",
       3,
       kHigh,
       {{"node1", P("p1.1", kLow, kMedium, 4)},
        {"node1", P("p1.2", kMid, kMedium, 2)},
        {"node2", P("p2.1", kMid, kMedium, 6)},
        {"node2", P("p2.2", kLow, kMedium, 1)},
        {"node3", P("p3.1", kLow, kMedium, 3)},
        {"node3", P("p3.2", kMid, kMedium, 5)}},
       "node2"},
  };
  for (const Case& tc : cases) {
    CAPTURE(tc.name);
    std::vector<NodeSpec> nodes;
    for (int i = 1; i <= tc.nodes; ++i) nodes.push_back(Node("node" + std::to_string(i)));
    ClusterState c = Cluster(nodes, tc.pods);
    CHECK(Preempt(c, Pod("p", tc.priority, kVeryLarge)).node == tc.expected);
  }
}

TEST_CASE("preemption: TestPostFilter's nominated nodes and messages") {
  const Res node_res{200, 400};
  SUBCASE("pod with higher priority can be made schedulable") {
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", Pod("p1", kLow)}});
    const Outcome o = Preempt(c, Pod("p", kHigh));
    CHECK(o.node == "node1");
    // A nomination ends the PostFilter with success: the message has no preemption part.
    CHECK(o.message == "0/1 nodes are available: 1 Too many pods.");
  }
  SUBCASE("pod with tied priority is still unschedulable") {
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", Pod("p1", kLow)}});
    const Outcome o = Preempt(c, Pod("p", kLow));
    CHECK(o.node.empty());
    CHECK(o.message ==
          "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No "
          "preemption victims found for incoming pod.");
  }
  SUBCASE("preemption should respect filteredNodesStatuses (an untolerated taint)") {
    NodeSpec tainted = Node("node1", kNone, 1);
    tainted.taints.push_back({"dedicated", "x", "NoSchedule"});
    ClusterState c = Cluster({tainted}, {{"node1", Pod("p1", kLow)}});
    const Outcome o = Preempt(c, Pod("p", kHigh));
    CHECK(o.node.empty());
    CHECK(o.message.ends_with(
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."));
  }
  SUBCASE("pod can be made schedulable on one node") {
    ClusterState c = Cluster({Node("node1", kNone, 1), Node("node2", kNone, 1)},
                             {{"node1", Pod("p1", kHigh)}, {"node2", Pod("p2", kLow)}});
    CHECK(Preempt(c, Pod("p", kMid)).node == "node2");
  }
  SUBCASE("no candidate nodes found, no enough resource after removing low priority pods") {
    // Upstream hands in Unschedulable for both nodes; since 1.34 a request above the node's
    // whole allocatable is unresolvable, so the table's wording is that of 1.33.
    ClusterState c = Cluster({Node("node1", node_res), Node("node2", node_res)},
                             {{"node1", Pod("p1", kLow)}, {"node2", Pod("p2", kLow)}});
    const Outcome o = Preempt(c, Pod("p", kHigh, kLarge), Config(33));
    CHECK(o.node.empty());
    CHECK(o.message.ends_with("preemption: 0/2 nodes are available: 2 Insufficient cpu."));
    CHECK(Preempt(c, Pod("p", kHigh, kLarge))
              .message.ends_with("preemption: 0/2 nodes are available: 2 Preemption is not helpful "
                                 "for scheduling."));
  }
  SUBCASE("no candidate nodes found with mixed reasons") {
    ClusterState c = Cluster(
        {Node("node1", kNone, 1), Node("node2", node_res), Node("node3", kNone, 1)},
        {{"node1", Pod("p1", kHigh)}, {"node2", Pod("p2", kLow)}, {"node3", Pod("p3", kHigh)}});
    CHECK(Preempt(c, Pod("p", kHigh, kLarge), Config(33))
              .message.ends_with("preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No "
                                 "preemption victims found for incoming pod."));
  }
  SUBCASE("no candidate nodes found, two nodes unresolvable") {
    std::vector<NodeSpec> nodes = {Node("node1", node_res), Node("node2", node_res),
                                   Node("node3", node_res), Node("node4", node_res)};
    nodes[2].taints.push_back({"dedicated", "x", "NoSchedule"});
    nodes[3].taints.push_back({"dedicated", "x", "NoSchedule"});
    ClusterState c = Cluster(nodes, {{"node1", Pod("p1", kLow)}, {"node2", Pod("p2", kLow)}});
    CHECK(Preempt(c, Pod("p", kHigh, kLarge), Config(33))
              .message.ends_with("preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 "
                                 "Preemption is not helpful for scheduling."));
  }
  SUBCASE("a profile without DefaultPreemption: no preemption part, nothing nominated") {
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", Pod("p1", kLow)}});
    SchedulerConfig config = Config();
    config.preemption = false;
    const Outcome o = Preempt(c, Pod("p", kHigh), config);
    CHECK(o.node.empty());
    CHECK(o.message == "0/1 nodes are available: 1 Too many pods.");
  }
}

TEST_CASE("preemption: TestPodEligibleToPreemptOthers") {
  SUBCASE("Pod with 'PreemptNever' preemption policy") {
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", Pod("p1", kLow)}});
    PodSpec pod = Pod("p", kHigh);
    pod.preemption_policy = "Never";
    const Outcome o = Preempt(c, pod);
    CHECK(o.node.empty());
    CHECK(o.message.ends_with("preemption: not eligible due to preemptionPolicy=Never."));
  }
  SUBCASE("a victim of this pod still terminating on its nominated node: wait") {
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", Pod("p1", kLow)}});
    c.MarkPreempted(0);
    PodSpec pod = Pod("p", kHigh);
    pod.nominated_node_name = "node1";
    const Outcome o = Preempt(c, pod);
    CHECK(o.node.empty());
    CHECK(o.message.ends_with(
        "preemption: not eligible due to a terminating pod on the nominated node."));
  }
  SUBCASE("Pod with nominated node, but the node is unresolvable now: preempt again") {
    NodeSpec tainted = Node("node1", kNone, 1);
    tainted.taints.push_back({"dedicated", "x", "NoSchedule"});
    ClusterState c = Cluster({tainted, Node("node2", kNone, 1)},
                             {{"node1", Pod("p1", kLow)}, {"node2", Pod("p2", kLow)}});
    c.MarkPreempted(0);
    PodSpec pod = Pod("p", kHigh);
    pod.nominated_node_name = "node1";
    CHECK(Preempt(c, pod).node == "node2");
  }
  SUBCASE("a terminating pod the scheduler did not preempt does not hold the pod back") {
    PodSpec victim = Pod("p1", kLow);
    victim.terminating = true;
    ClusterState c = Cluster({Node("node1", kNone, 1)}, {{"node1", victim}});
    PodSpec pod = Pod("p", kHigh);
    pod.nominated_node_name = "node1";
    CHECK(Preempt(c, pod).node == "node1");
  }
}

TEST_CASE("preemption: the nominated node is tried first and taken unscored") {
  ClusterState c = Cluster({Node("node1", kVeryLarge), Node("node2", kVeryLarge)},
                           {{"node1", Pod("big", kLow, kLarge)}});
  Scheduler scheduler(c, Config());
  PodSpec pod = Pod("p", kHigh, kSmall);
  // Without a nomination the emptier node2 scores higher.
  CHECK(c.node(scheduler.Schedule(pod).placement.node).spec.name == "node2");
  pod.nominated_node_name = "node1";
  const ScheduleResult r = scheduler.Schedule(pod, /*explain=*/false, /*score=*/true);
  CHECK(c.node(r.placement.node).spec.name == "node1");
  CHECK(r.on_nominated_node);
  CHECK(r.evaluated == 1);
  // A nominated node that no longer fits: the whole cycle runs.
  pod.requests["cpu"] = 300;
  const ScheduleResult full = scheduler.Schedule(pod);
  CHECK(!full.on_nominated_node);
  CHECK(c.node(full.placement.node).spec.name == "node2");
}

TEST_CASE("preemption: MoreImportantPod orders by priority, then by start (unset = latest)") {
  CHECK(MoreImportantPod(Pod("a", kMid), Pod("b", kLow)));
  CHECK(!MoreImportantPod(Pod("a", kLow), Pod("b", kMid)));
  CHECK(MoreImportantPod(Pod("a", kLow, kNone, 1), Pod("b", kLow, kNone, 2)));
  CHECK(MoreImportantPod(Pod("a", kLow, kNone, 1), Pod("b", kLow)));
  CHECK(!MoreImportantPod(Pod("a", kLow), Pod("b", kLow)));
}

TEST_CASE("preemption: calculateNumCandidates") {
  CHECK(NumPreemptionCandidates(10, {}) == 10);     // at least 100, at most the nodes
  CHECK(NumPreemptionCandidates(5000, {}) == 500);  // 10 %
  CHECK(NumPreemptionCandidates(500, {}) == 100);
  CHECK(NumPreemptionCandidates(5, {40, 1}) == 2);
  CHECK(NumPreemptionCandidates(0, {}) == 0);
}

TEST_CASE("preemption: filterPodsWithPDBViolation's budget arithmetic") {
  ClusterState c = Cluster(Nodes({"node1"}), {{"node1", Pod("a", kLow, kNone, {}, kAppFoo)},
                                              {"node1", Pod("b", kLow, kNone, {}, kAppFoo)},
                                              {"node1", Pod("c", kLow, kNone, {}, {})}});
  std::vector<int> violating, other;
  PreemptionBudget one = AppFoo(1);
  SplitByBudgetViolation(c, std::vector<int>{0, 1, 2}, std::vector<PreemptionBudget>{one},
                         violating, other);
  CHECK(violating == std::vector<int>{1});  // the second pod takes the budget below zero
  CHECK(other == std::vector<int>{0, 2});   // a pod without labels matches no budget
  // An empty selector matches nothing here (unlike the disruption controller).
  PreemptionBudget empty;
  empty.selector = LabelSelector{};
  violating.clear();
  other.clear();
  SplitByBudgetViolation(c, std::vector<int>{0, 1}, std::vector<PreemptionBudget>{empty}, violating,
                         other);
  CHECK(violating.empty());
  // Another namespace's budget does not count.
  PreemptionBudget elsewhere = AppFoo(0);
  elsewhere.namespace_ = "other";
  violating.clear();
  other.clear();
  SplitByBudgetViolation(c, std::vector<int>{0}, std::vector<PreemptionBudget>{elsewhere},
                         violating, other);
  CHECK(violating.empty());
}

}  // namespace
}  // namespace knobsim
