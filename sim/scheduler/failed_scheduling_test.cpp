// Golden FailedScheduling texts (docs/semantics.md §3.7), each built by running the real filters
// over a small cluster, so the reasons, their status codes and the message composition are checked
// together. Several are real events copied from clusters (docs/semantics.md §3.7 and public logs).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::BindOn;
using testing::InTreeFilters;
using testing::kGiB;
using testing::MakeNode;
using testing::MakePod;
using testing::RunFilters;

// Stands in for the ACK GPU-share filter (written elsewhere) with its two texts: a card must hold
// the pod's gpu-mem, and ack.node.gpu.max-pod caps the pods on a card. Assumed Unschedulable.
class FakeGpuShareFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "GpuShare"; }
  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    if (pod.gpu_mem <= 0) return PluginStatus::Success();
    const NodeState& n = cluster.node(node);
    bool blocked_by_max_pod = false;
    for (const CardState& card : n.cards) {
      if (card.total_mem - card.used_mem < pod.gpu_mem) continue;
      if (n.spec.max_pods_per_card > 0 && card.pods >= n.spec.max_pods_per_card) {
        blocked_by_max_pod = true;
        continue;
      }
      return PluginStatus::Success();
    }
    return PluginStatus::Unschedulable(
        blocked_by_max_pod ? "The number of pods per gpu device has reached the maximum allowed"
                           : "Insufficient GPU Memory in one device");
  }
};

// "<prefix><i>", appended: GCC 12 warns falsely (-Wrestrict) on `"lit" + std::string` at -O3.
std::string Numbered(std::string prefix, int i) {
  prefix.append(std::to_string(i));
  return prefix;
}

KubeVersion Version(int minor, bool dra = false) {
  KubeVersion v;
  v.minor = minor;
  v.dra = dra;
  return v;
}

struct Situation {
  ClusterState cluster;
  PodSpec pod = MakePod("incoming");
  KubeVersion version;
  bool gpu_share = false;
};

std::string Message(const Situation& s) {
  testing::Filters filters = InTreeFilters(s.version);
  if (s.gpu_share) filters.push_back(std::make_unique<FakeGpuShareFilter>());
  const auto run = RunFilters(filters, s.pod, s.cluster);
  REQUIRE(run.feasible.empty());
  const bool never = s.pod.preemption_policy == "Never";
  return FailedSchedulingMessage(static_cast<int>(s.cluster.nodes().size()), run.nodes, s.version,
                                 run.pre_filter.ok() ? nullptr : &run.pre_filter, never);
}

NodeSpec Tainted(std::string name, std::string key, std::string value = "") {
  NodeSpec node = MakeNode(std::move(name));
  node.taints = {{std::move(key), std::move(value), "NoSchedule"}};
  return node;
}

NodeSpec Cordoned(std::string name) {
  NodeSpec node = MakeNode(std::move(name));
  node.unschedulable = true;
  return node;
}

// A sharing node: `cards` cards of 15 GiB units (docs/semantics.md §1.1).
NodeSpec GpuNode(std::string name, int cards, int max_pod = 0) {
  NodeSpec node = MakeNode(std::move(name), {}, {{"aliyun.com/gpu-mem", 15 * cards}});
  node.gpu_cards = cards;
  node.card_mem_units = 15;
  node.max_pods_per_card = max_pod;
  return node;
}

void BindGpu(ClusterState& cluster, const std::string& node, int card, int units) {
  PodSpec pod = MakePod("gpu-user", {}, {{"aliyun.com/gpu-mem", units}});
  pod.gpu_mem = units;
  Placement p;
  p.node = cluster.FindNode(node);
  p.cards = {card};
  p.mem_units = {units};
  cluster.Bind(pod, p);
}

struct Golden {
  const char* what;
  std::function<void(Situation&)> build;
  const char* message;
};

const std::vector<Golden>& Goldens() {
  static const std::vector<Golden> goldens = {
      {"Appendix B: 10 nodes short of cpu, 2 cordoned",
       [](Situation& s) {
         for (int i = 0; i < 10; ++i) {
           const std::string name = Numbered("busy-", i);
           s.cluster.AddNode(MakeNode(name));
           BindOn(s.cluster, name, MakePod("filler", {}, {{"cpu", 6000}}));
         }
         s.cluster.AddNode(Cordoned("cordoned-0"));
         s.cluster.AddNode(Cordoned("cordoned-1"));
         s.pod.requests = {{"cpu", 4000}};  // within every node's 8-cpu allocatable
       },
       "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable. preemption: "
       "0/12 nodes are available: 10 No preemption victims found for incoming pod, 2 Preemption "
       "is not helpful for scheduling."},

      {"whole GPU taken on the one GPU node, selector misses the others",
       [](Situation& s) {
         s.cluster.AddNode(MakeNode("gpu", {{"accelerator", "a100"}}, {{"nvidia.com/gpu", 1}}));
         s.cluster.AddNode(MakeNode("cpu-0"));
         s.cluster.AddNode(MakeNode("cpu-1"));
         BindOn(s.cluster, "gpu", MakePod("trainer", {}, {{"nvidia.com/gpu", 1}}));
         s.pod.requests = {{"nvidia.com/gpu", 1}};
         s.pod.node_selector = {{"accelerator", "a100"}};
       },
       "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's node "
       "affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims found for "
       "incoming pod, 2 Preemption is not helpful for scheduling."},

      {"control-plane taint on 1.27 names the taint and doubles the final period",
       [](Situation& s) {
         s.version = Version(27);
         s.cluster.AddNode(Tainted("control-plane", "node-role.kubernetes.io/control-plane"));
       },
       "0/1 nodes are available: 1 node(s) had untolerated taint "
       "{node-role.kubernetes.io/control-plane: }. preemption: 0/1 nodes are available: 1 "
       "Preemption is not helpful for scheduling.."},

      {"taint and selector on current releases",
       [](Situation& s) {
         s.cluster.AddNode(Tainted("control-plane", "node-role.kubernetes.io/control-plane"));
         s.cluster.AddNode(MakeNode("w1"));
         s.cluster.AddNode(MakeNode("w2"));
         s.pod.node_selector = {{"pool", "gpu"}};
       },
       "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's "
       "node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful "
       "for scheduling."},

      {"DRA cluster, every node tainted",
       [](Situation& s) {
         s.version = Version(35, /*dra=*/true);
         for (int i = 0; i < 17; ++i) {
           s.cluster.AddNode(Tainted(Numbered("n", i), "dedicated", "infra"));
         }
       },
       "0/17 nodes are available: 17 node(s) had untolerated taint(s). no new claims to "
       "deallocate, preemption: 0/17 nodes are available: 17 Preemption is not helpful for "
       "scheduling."},

      {"DRA cluster, pod with preemptionPolicy Never",
       [](Situation& s) {
         s.version = Version(35, /*dra=*/true);
         s.cluster.AddNode(MakeNode("n"));
         BindOn(s.cluster, "n", MakePod("filler", {}, {{"cpu", 7000}}));
         s.pod.requests = {{"cpu", 2000}};
         s.pod.preemption_policy = "Never";
       },
       "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not "
       "eligible due to preemptionPolicy=Never."},

      {"DRA cluster, control plane tainted and workers short of cpu",
       [](Situation& s) {
         s.version = Version(35, /*dra=*/true);
         s.cluster.AddNode(Tainted("control-plane", "node-role.kubernetes.io/control-plane"));
         for (const char* name : {"worker", "worker2"}) {
           s.cluster.AddNode(MakeNode(name));
           BindOn(s.cluster, name, MakePod("filler", {}, {{"cpu", 7000}}));
         }
         s.pod.requests = {{"cpu", 2000}};
       },
       "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new "
       "claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful "
       "for scheduling, 2 No preemption victims found for incoming pod."},

      {"a request above every node's allocatable: preemption cannot help anywhere",
       [](Situation& s) {
         s.version = Version(35, /*dra=*/true);
         s.cluster.AddNode(Tainted("control-plane", "node-role.kubernetes.io/control-plane"));
         s.cluster.AddNode(MakeNode("worker"));
         s.cluster.AddNode(MakeNode("worker2"));
         s.pod.requests = {{"cpu", 500'000}};  // cpu: "500"
       },
       "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new "
       "claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful "
       "for scheduling."},

      {"several reasons from one node, each counted",
       [](Situation& s) {
         for (int i = 0; i < 3; ++i) {
           const std::string name = Numbered("small-", i);
           s.cluster.AddNode(MakeNode(name, {}, {{"cpu", 2000}, {"memory", 4 * kGiB}}));
           BindOn(s.cluster, name, MakePod("filler", {}, {{"cpu", 1500}, {"memory", 3 * kGiB}}));
         }
         s.cluster.AddNode(MakeNode("crowded", {}, {{"pods", 1}}));
         BindOn(s.cluster, "crowded", MakePod("filler"));
         s.pod.requests = {{"cpu", 1000}, {"memory", 2 * kGiB}};
       },
       "0/4 nodes are available: 1 Too many pods, 3 Insufficient cpu, 3 Insufficient memory. "
       "preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod."},

      {"histogram entries sort as strings: 1 < 10 < 2",
       [](Situation& s) {
         const std::string zone = "topology.kubernetes.io/zone";
         s.cluster.AddNode(MakeNode("a1", {{zone, "A"}}));
         s.cluster.AddNode(MakeNode("b1", {{zone, "B"}}));
         for (int i = 0; i < 10; ++i) {
           const std::string name = Numbered("small-", i);
           s.cluster.AddNode(MakeNode(name, {{zone, "B"}}, {{"memory", 2 * kGiB}}));
           BindOn(s.cluster, name, MakePod("filler", {}, {{"memory", kGiB}}));
         }
         s.cluster.AddNode(Tainted("t1", "dedicated"));
         s.cluster.AddNode(Tainted("t2", "dedicated"));
         for (int i = 0; i < 2; ++i) BindOn(s.cluster, "a1", MakePod("web", {{"app", "web"}}));
         s.pod.labels = {{"app", "web"}};
         s.pod.requests = {{"memory", 2 * kGiB}};
         TopologySpreadConstraint c;
         c.topology_key = zone;
         c.max_skew = 1;
         c.label_selector.match_labels = {{"app", "web"}};
         s.pod.topology_spread = {c};
         // Zone A holds 2 matching pods, B none: a1's skew is 3. b1 and the small nodes are
         // short of memory; the tainted nodes have no zone, which matters less than their taint.
         BindOn(s.cluster, "b1", MakePod("filler", {}, {{"memory", 31 * kGiB}}));
       },
       "0/14 nodes are available: 1 node(s) didn't match pod topology spread constraints, 11 "
       "Insufficient memory, 2 node(s) had untolerated taint(s). preemption: 0/14 nodes are "
       "available: 12 No preemption victims found for incoming pod, 2 Preemption is not helpful "
       "for scheduling."},

      {"GPU memory: node-level sum, one card, and max-pod",
       [](Situation& s) {
         s.gpu_share = true;
         // 2 x 15 GiB, 10 + 10 used: 10 free in total but 5 on each card.
         s.cluster.AddNode(GpuNode("fragmented", 2));
         BindGpu(s.cluster, "fragmented", 0, 10);
         BindGpu(s.cluster, "fragmented", 1, 10);
         // 1 x 15 GiB with 12 used: the node-level aliyun.com/gpu-mem sum is short already.
         s.cluster.AddNode(GpuNode("full", 1));
         BindGpu(s.cluster, "full", 0, 12);
         // 1 x 15 GiB with room, but ack.node.gpu.max-pod 1 and one pod on the card.
         s.cluster.AddNode(GpuNode("capped", 1, /*max_pod=*/1));
         BindGpu(s.cluster, "capped", 0, 2);
         s.pod.requests = {{"aliyun.com/gpu-mem", 8}};
         s.pod.gpu_mem = 8;
       },
       "0/3 nodes are available: 1 Insufficient GPU Memory in one device, 1 Insufficient "
       "aliyun.com/gpu-mem, 1 The number of pods per gpu device has reached the maximum allowed. "
       "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."},

      {"topology spread with nodeAffinityPolicy Ignore (Appendix B)",
       [](Situation& s) {
         const std::string zone = "topology.kubernetes.io/zone";
         s.cluster.AddNode(MakeNode("a1", {{zone, "A"}, {"disk", "ssd"}}));
         s.cluster.AddNode(MakeNode("b1", {{zone, "B"}, {"disk", "ssd"}}));
         s.cluster.AddNode(MakeNode("c1", {{zone, "C"}}));
         for (int i = 0; i < 2; ++i) BindOn(s.cluster, "a1", MakePod("web", {{"app", "web"}}));
         BindOn(s.cluster, "b1", MakePod("web", {{"app", "web"}}));
         s.pod.labels = {{"app", "web"}};
         s.pod.node_selector = {{"disk", "ssd"}};
         TopologySpreadConstraint c;
         c.topology_key = zone;
         c.max_skew = 1;
         c.label_selector.match_labels = {{"app", "web"}};
         c.node_affinity_policy = "Ignore";
         s.pod.topology_spread = {c};
       },
       "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) "
       "didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 1 "
       "Preemption is not helpful for scheduling, 2 No preemption victims found for incoming "
       "pod."},

      {"a node without the topology key",
       [](Situation& s) {
         s.cluster.AddNode(MakeNode("unlabelled"));
         s.cluster.AddNode(Cordoned("cordoned"));
         TopologySpreadConstraint c;
         c.topology_key = "topology.kubernetes.io/zone";
         c.max_skew = 1;
         s.pod.topology_spread = {c};
       },
       "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing "
       "required label), 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 "
       "Preemption is not helpful for scheduling."},

      {"1.25 wording: the taint named, that the pod didn't tolerate",
       [](Situation& s) {
         s.version = Version(25);
         s.cluster.AddNode(Tainted("gpu", "dedicated", "gpu"));
         s.cluster.AddNode(Cordoned("cordoned"));
       },
       "0/2 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't "
       "tolerate, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 "
       "Preemption is not helpful for scheduling.."},

      {"1.24: preemption suffix with a single period",
       [](Situation& s) {
         s.version = Version(24);
         s.cluster.AddNode(MakeNode("n", {}, {{"memory", kGiB}}));
         s.pod.requests = {{"memory", 512 * (int64_t{1} << 20)}};
         BindOn(s.cluster, "n", MakePod("filler", {}, {{"memory", kGiB}}));
       },
       "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No "
       "preemption victims found for incoming pod."},

      {"1.23: no preemption suffix yet",
       [](Situation& s) {
         s.version = Version(23);
         s.cluster.AddNode(MakeNode("n", {}, {{"memory", kGiB}}));
         s.pod.requests = {{"memory", 2 * kGiB}};
       },
       "0/1 nodes are available: 1 Insufficient memory."},
  };
  return goldens;
}

TEST_CASE("golden FailedScheduling messages from real filter verdicts") {
  for (const Golden& g : Goldens()) {
    CAPTURE(g.what);
    Situation s;
    g.build(s);
    CHECK(Message(s) == g.message);
  }
}

TEST_CASE("a PreFilter rejection replaces the histogram and applies to every node") {
  const std::vector<PluginStatus> none;
  PluginStatus unresolvable =
      PluginStatus::Unresolvable("pod has unbound immediate PersistentVolumeClaims");
  CHECK(FailedSchedulingMessage(3, none, Version(35), &unresolvable) ==
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: "
        "0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  PluginStatus resolvable{StatusCode::kUnschedulable, {"first reason", "second reason"}};
  CHECK(FailedSchedulingMessage(2, none, Version(35, true), &resolvable) ==
        "0/2 nodes are available: first reason, second reason. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.");
  // Before 1.25 the PreFilter status sat on every node and showed up in the histogram.
  CHECK(FailedSchedulingMessage(3, none, Version(24), &unresolvable) ==
        "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims. preemption: "
        "0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  // A successful PreFilter status is no rejection.
  const PluginStatus ok;
  CHECK(FailedSchedulingMessage(1, {PluginStatus::Unschedulable("Insufficient cpu")}, Version(35),
                                &ok) ==
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No "
        "preemption victims found for incoming pod.");
}

TEST_CASE("nodes without a status of their own count as unresolvable for preemption") {
  // Upstream's absent-node status: UnschedulableAndUnresolvable, no reason.
  CHECK(
      FailedSchedulingMessage(3, {PluginStatus::Unschedulable("Insufficient cpu")}, Version(35)) ==
      "0/3 nodes are available: 1 Insufficient cpu. preemption: 0/3 nodes are available: 1 No "
      "preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.");
}

TEST_CASE("an empty cluster has no nodes available") {
  CHECK(FailedSchedulingMessage(0, {}, Version(35)) == "no nodes available to schedule pods");
}

}  // namespace
}  // namespace knobsim
