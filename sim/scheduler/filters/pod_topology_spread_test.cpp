#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/random_stream.h"
#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::BindOn;
using testing::InTreeFilters;
using testing::MakeNode;
using testing::MakePod;
using testing::RunFilters;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHostname = "kubernetes.io/hostname";
const Labels kWeb = {{"app", "web"}};

TopologySpreadConstraint Spread(std::string key, int max_skew, std::string when = "DoNotSchedule") {
  TopologySpreadConstraint c;
  c.topology_key = std::move(key);
  c.max_skew = max_skew;
  c.when_unsatisfiable = std::move(when);
  c.label_selector.match_labels = kWeb;
  return c;
}

PodSpec Web(std::string name = "incoming") {
  return MakePod(std::move(name), kWeb);
}

void BindWeb(ClusterState& cluster, const std::string& node, int count) {
  for (int i = 0; i < count; ++i) BindOn(cluster, node, Web("old"));
}

// Each node's verdict in short: "ok", or the first reason of the plugin that rejected it.
std::vector<std::string> Verdicts(const ClusterState& cluster, const PodSpec& pod) {
  std::vector<std::string> out;
  for (const PluginStatus& s : RunFilters(InTreeFilters(), pod, cluster).nodes) {
    out.push_back(s.ok() ? "ok" : s.reasons.front());
  }
  return out;
}

std::string Message(const ClusterState& cluster, const PodSpec& pod) {
  const auto run = RunFilters(InTreeFilters(), pod, cluster);
  return FailedSchedulingMessage(static_cast<int>(cluster.nodes().size()), run.nodes,
                                 KubeVersion{});
}

const std::string kOk = "ok";
const std::string kSkew = "node(s) didn't match pod topology spread constraints";
const std::string kNoLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";
const std::string kAffinity = "node(s) didn't match Pod's node affinity/selector";
const std::string kTaint = "node(s) had untolerated taint(s)";

using V = std::vector<std::string>;

// zones A (2 matching pods), B (1), C (0): docs/semantics.md Appendix B, docs/validation.md rung 2.
ClusterState ThreeZones(Labels c_extra = {}) {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}, {"disk", "ssd"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}, {"disk", "ssd"}}));
  Labels c = {{kZone, "C"}};
  c.insert(c_extra.begin(), c_extra.end());
  cluster.AddNode(MakeNode("c1", c));
  BindWeb(cluster, "a1", 2);
  BindWeb(cluster, "b1", 1);
  return cluster;
}

TEST_CASE("an empty eligible zone pulls the global minimum to 0: only zone C is feasible") {
  ClusterState cluster = ThreeZones();
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1)};
  // skews: A 2+1-0 = 3, B 1+1-0 = 2, C 0+1-0 = 1
  CHECK(Verdicts(cluster, pod) == V{kSkew, kSkew, kOk});
}

TEST_CASE("a zone whose only node fails the nodeSelector is no domain under Honor") {
  ClusterState cluster = ThreeZones();
  PodSpec pod = Web();
  pod.node_selector = {{"disk", "ssd"}};  // c1 has no disk label
  pod.topology_spread = {Spread(kZone, 1)};
  // min = 1 over A, B: A skew 2 rejected, B skew 1 fits, C's node fails NodeAffinity first.
  CHECK(Verdicts(cluster, pod) == V{kSkew, kOk, kAffinity});

  // nodeAffinityPolicy Ignore: C stays a domain with 0 pods, min 0, nothing fits.
  pod.topology_spread[0].node_affinity_policy = "Ignore";
  CHECK(Verdicts(cluster, pod) == V{kSkew, kSkew, kAffinity});
  CHECK(Message(cluster, pod) ==
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) "
        "didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 1 "
        "Preemption is not helpful for scheduling, 2 No preemption victims found for incoming "
        "pod.");
}

TEST_CASE("a tainted node makes a domain under nodeTaintsPolicy Ignore, not under Honor") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  NodeSpec tainted = MakeNode("c1", {{kZone, "C"}});
  tainted.taints = {{"dedicated", "batch", "NoSchedule"}};
  cluster.AddNode(tainted);
  BindWeb(cluster, "a1", 1);
  BindWeb(cluster, "b1", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1)};

  struct Case {
    const char* what;
    std::string taints_policy;
    bool tolerates;
    V verdicts;
  };
  const std::vector<Case> cases = {
      // Ignore (the default): empty C counts, min 0, A and B at skew 2; c1 fails its taint.
      {"Ignore", "Ignore", false, {kSkew, kSkew, kTaint}},
      // Honor: C's node does not tolerate the taint, so C is no domain; min 1, skew 1 fits.
      {"Honor", "Honor", false, {kOk, kOk, kTaint}},
      // Honor with a toleration: C is a domain again and the only place to go.
      {"Honor, tolerated", "Honor", true, {kSkew, kSkew, kOk}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    pod.topology_spread[0].node_taints_policy = c.taints_policy;
    pod.tolerations.clear();
    if (c.tolerates) pod.tolerations = {{"dedicated", "Exists", "", "NoSchedule", {}}};
    CHECK(Verdicts(cluster, pod) == c.verdicts);
  }
}

TEST_CASE("a node missing any topology key is unresolvable and makes no domain") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}, {"rack", "r1"}}));
  cluster.AddNode(MakeNode("x", {{kZone, "A"}}));  // no rack label
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}, {"rack", "r2"}}));
  BindWeb(cluster, "x", 3);
  BindWeb(cluster, "b1", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1), Spread("rack", 5)};
  // x's pods count for no constraint (it lacks "rack"): zone A 0, B 1, min 0.
  CHECK(Verdicts(cluster, pod) == V{kOk, kNoLabel, kSkew});
  const auto run = RunFilters(InTreeFilters(), pod, cluster);
  CHECK(run.nodes[1].code == StatusCode::kUnschedulableAndUnresolvable);
  CHECK(run.nodes[2].code == StatusCode::kUnschedulable);
}

TEST_CASE("fewer domains than minDomains force the global minimum to 0") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  BindWeb(cluster, "a1", 1);
  BindWeb(cluster, "b1", 1);
  struct Case {
    std::optional<int> min_domains;
    V verdicts;
  };
  const std::vector<Case> cases = {
      {std::nullopt, {kOk, kOk}},  // min 1, skew 1
      {2, {kOk, kOk}},             // two domains: enough
      {3, {kSkew, kSkew}},         // two < three: min 0, skew 2
  };
  for (const Case& c : cases) {
    CAPTURE(c.min_domains.value_or(0));
    PodSpec pod = Web();
    pod.topology_spread = {Spread(kZone, 1)};
    pod.topology_spread[0].min_domains = c.min_domains;
    CHECK(Verdicts(cluster, pod) == c.verdicts);
  }
}

TEST_CASE("matchLabelKeys narrows the selector to the incoming pod's own values") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  for (int i = 0; i < 2; ++i)
    BindOn(cluster, "a1", MakePod("old-rev", {{"app", "web"}, {"pod-template-hash", "old"}}));
  BindOn(cluster, "b1", MakePod("new-rev", {{"app", "web"}, {"pod-template-hash", "new"}}));
  PodSpec pod = MakePod("incoming", {{"app", "web"}, {"pod-template-hash", "new"}});
  pod.topology_spread = {Spread(kZone, 1)};

  struct Case {
    std::vector<std::string> keys;
    V verdicts;
  };
  const std::vector<Case> cases = {
      {{}, {kSkew, kOk}},                     // all revisions: A 2, B 1, min 1
      {{"pod-template-hash"}, {kOk, kSkew}},  // this revision only: A 0, B 1, min 0
      {{"absent-key"}, {kSkew, kOk}},         // a key the pod lacks is ignored
  };
  for (const Case& c : cases) {
    CAPTURE(c.keys.size());
    pod.topology_spread[0].match_label_keys = c.keys;
    CHECK(Verdicts(cluster, pod) == c.verdicts);
  }
}

TEST_CASE("pods in other namespaces and terminating pods are not counted") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  for (int i = 0; i < 2; ++i) {
    PodSpec other = Web("other-ns");
    other.namespace_ = "other";
    BindOn(cluster, "a1", other);
  }
  PodSpec leaving = Web("leaving");
  leaving.terminating = true;
  BindOn(cluster, "a1", leaving);
  BindWeb(cluster, "b1", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1)};
  // A counts 0, B 1: min 0, A skew 1, B skew 2.
  CHECK(Verdicts(cluster, pod) == V{kOk, kSkew});
  // Same pod in namespace "other": A 2, B 0.
  pod.namespace_ = "other";
  CHECK(Verdicts(cluster, pod) == V{kSkew, kOk});
}

TEST_CASE("a pod its own selector does not match adds no skew") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  BindWeb(cluster, "a1", 1);
  PodSpec pod = MakePod("batch", {{"app", "batch"}});
  pod.topology_spread = {Spread(kZone, 1)};
  CHECK(Verdicts(cluster, pod) == V{kOk, kOk});  // A 1+0-0 = 1
  pod.labels = kWeb;
  CHECK(Verdicts(cluster, pod) == V{kSkew, kOk});  // A 1+1-0 = 2
}

TEST_CASE("an empty selector counts no pod but matches the incoming pod") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  BindWeb(cluster, "a1", 3);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1)};
  pod.topology_spread[0].label_selector = {};
  // Upstream countPodsMatchSelector returns 0 for an empty selector: every skew is 0+1-0.
  CHECK(Verdicts(cluster, pod) == V{kOk, kOk});
}

TEST_CASE("several constraints must all hold") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("a2", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  BindWeb(cluster, "a1", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 2), Spread(kHostname, 1)};
  // zone: A 1, B 0 → A skew 2, B skew 1, both within 2. hostname: a1 1+1-0 = 2 > 1.
  CHECK(Verdicts(cluster, pod) == V{kSkew, kOk, kOk});
}

TEST_CASE("ScheduleAnyway constraints never filter; DoNotSchedule ones never score") {
  ClusterState cluster = ThreeZones();
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1, "ScheduleAnyway")};
  CHECK(Verdicts(cluster, pod) == V{kOk, kOk, kOk});

  auto score = NewPodTopologySpreadScore();
  pod.topology_spread = {Spread(kZone, 1, "DoNotSchedule")};
  const std::vector<int> all = {0, 1, 2};
  score->PreScore(pod, cluster, all);
  CHECK(score->Skipped());
}

struct Scored {
  std::vector<int64_t> raw;
  std::vector<int64_t> normalized;
};

Scored ScoreSpread(const ClusterState& cluster, const PodSpec& pod,
                   const std::vector<int>& feasible) {
  auto plugin = NewPodTopologySpreadScore();
  CHECK(plugin->Name() == "PodTopologySpread");
  CHECK(plugin->Weight() == 2);
  plugin->PreScore(pod, cluster, feasible);
  Scored s;
  for (int n : feasible) s.raw.push_back(plugin->Score(pod, cluster, n));
  s.normalized = s.raw;
  plugin->Normalize(feasible, s.normalized);
  return s;
}

using I = std::vector<int64_t>;

TEST_CASE("ScheduleAnyway scores the emptiest zone highest: raw = round(count x ln(size+2))") {
  ClusterState cluster = ThreeZones();
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1, "ScheduleAnyway")};
  // 3 zones: w = ln 5 = 1.609; raw A round(3.219) = 3, B round(1.609) = 2, C 0.
  // normalised 100 x (3 + 0 - raw) / 3.
  const Scored s = ScoreSpread(cluster, pod, {0, 1, 2});
  CHECK(s.raw == I{3, 2, 0});
  CHECK(s.normalized == I{0, 33, 100});
}

TEST_CASE("hostname spreading counts each node's own pods and adds maxSkew - 1") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("n1"));
  cluster.AddNode(MakeNode("n2"));
  cluster.AddNode(MakeNode("n3"));
  BindWeb(cluster, "n1", 2);
  BindWeb(cluster, "n3", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kHostname, 2, "ScheduleAnyway")};
  // 3 nodes: w = ln 5; raw n1 round(2w + 1) = 4, n2 1, n3 round(w + 1) = 3.
  // normalised 100 x (4 + 1 - raw) / 4 = 25, 100, 50.
  const Scored s = ScoreSpread(cluster, pod, {0, 1, 2});
  CHECK(s.raw == I{4, 1, 3});
  CHECK(s.normalized == I{25, 100, 50});
}

TEST_CASE("scores count every node of a feasible node's zone, and only feasible zones") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}, {"disk", "ssd"}}));
  cluster.AddNode(MakeNode("a2", {{kZone, "A"}}));  // not feasible, no disk label
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}, {"disk", "ssd"}}));
  cluster.AddNode(MakeNode("d1", {{kZone, "D"}}));  // not feasible
  BindWeb(cluster, "a2", 2);
  BindWeb(cluster, "b1", 1);
  BindWeb(cluster, "d1", 5);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1, "ScheduleAnyway")};
  pod.topology_spread[0].node_affinity_policy = "Ignore";
  // Feasible a1, b1: size 2, w = ln 4 = 1.386; A counts a2's 2 pods: round(2.773) = 3; B 1.
  // D is no feasible value: neither counted nor part of the size.
  Scored s = ScoreSpread(cluster, pod, {0, 2});
  CHECK(s.raw == I{3, 1});
  CHECK(s.normalized == I{33, 100});

  // nodeAffinityPolicy Honor and a nodeSelector a2 fails: a2's pods no longer count.
  pod.node_selector = {{"disk", "ssd"}};
  pod.topology_spread[0].node_affinity_policy = "Honor";
  s = ScoreSpread(cluster, pod, {0, 2});
  CHECK(s.raw == I{0, 1});
  CHECK(s.normalized == I{100, 0});
}

TEST_CASE("feasible nodes missing a topology key score 0 and do not set min or max") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("nolabel"));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  BindWeb(cluster, "a1", 1);
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 3, "ScheduleAnyway")};
  // size 2: w = ln 4; raw a1 round(1.386 + 2) = 3, b1 2; min 2, max 3.
  const Scored s = ScoreSpread(cluster, pod, {0, 1, 2});
  CHECK(s.raw == I{3, 0, 2});
  CHECK(s.normalized == I{66, 0, 100});
}

TEST_CASE("all raw scores 0 normalise to 100") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1, "ScheduleAnyway")};
  const Scored s = ScoreSpread(cluster, pod, {0, 1});
  CHECK(s.raw == I{0, 0});
  CHECK(s.normalized == I{100, 100});
}

TEST_CASE("a pod without soft constraints skips the score") {
  ClusterState cluster = ThreeZones();
  auto plugin = NewPodTopologySpreadScore();
  const PodSpec pod = Web();
  const std::vector<int> all = {0, 1, 2};
  plugin->PreScore(pod, cluster, all);
  CHECK(plugin->Skipped());
}

TEST_CASE("counts follow the pods bound between two scheduling cycles") {
  // One plugin instance across pods, as the Scheduler uses it: its per-node count cache must
  // see every bind and unbind (NodeState::generation).
  ClusterState cluster;
  cluster.AddNode(MakeNode("a1", {{kZone, "A"}}));
  cluster.AddNode(MakeNode("b1", {{kZone, "B"}}));
  auto filter = NewPodTopologySpreadFilter();
  PodSpec pod = Web();
  pod.topology_spread = {Spread(kZone, 1)};
  auto verdicts = [&] {
    V out;
    REQUIRE(filter->PreFilter(pod, cluster).ok());
    for (int n = 0; n < 2; ++n) out.push_back(filter->Filter(pod, cluster, n).ok() ? kOk : kSkew);
    return out;
  };
  CHECK(verdicts() == V{kOk, kOk});
  const int first = BindOn(cluster, "a1", Web("first"));
  CHECK(verdicts() == V{kSkew, kOk});
  BindOn(cluster, "b1", Web("second"));
  CHECK(verdicts() == V{kOk, kOk});
  cluster.Unbind(first);
  CHECK(verdicts() == V{kOk, kSkew});
  // An unbind and a bind on one node between two cycles: same pod count, other pods.
  const int third = BindOn(cluster, "a1", Web("third"));
  CHECK(verdicts() == V{kOk, kOk});
  cluster.Unbind(third);
  BindOn(cluster, "a1", MakePod("batch", {{"app", "batch"}}));
  CHECK(verdicts() == V{kOk, kSkew});
}

// The long-lived plugins keep per-domain counts across pods and move them node by node with
// ClusterState's change record (falling back to a full count when the record no longer reaches
// back). Whatever happens between two pods, their verdicts and scores must be those of plugins
// that count everything afresh.
TEST_CASE("counts kept across pods equal a fresh count after any sequence of changes") {
  ClusterState cluster;
  const char* zones[] = {"A", "B", "C"};
  for (int n = 0; n < 12; ++n) {
    Labels labels = {{kZone, zones[n % 3]}};
    if (n % 4 != 0) labels["disk"] = "ssd";
    NodeSpec node = MakeNode("n" + std::to_string(n), labels);
    if (n == 5) node.taints = {{"dedicated", "batch", "NoSchedule"}};
    if (n == 11) node.labels.erase(kZone);  // no domain for zone constraints
    cluster.AddNode(node);
  }
  // The incoming pods, each with one soft and one hard constraint: plain; with a nodeSelector
  // (eligible nodes by affinity); pinned to two nodes by matchFields (the named-node sum);
  // honouring taints; two keys (eligible nodes need both).
  std::vector<PodSpec> incoming;
  auto with = [&](std::vector<TopologySpreadConstraint> constraints) {
    PodSpec pod = Web();
    pod.namespace_ = "default";
    pod.topology_spread = std::move(constraints);
    return pod;
  };
  TopologySpreadConstraint soft_zone = Spread(kZone, 1, "ScheduleAnyway");
  incoming.push_back(with({Spread(kZone, 1), soft_zone}));
  incoming.push_back(with({Spread(kZone, 1), soft_zone}));
  incoming.back().node_selector = {{"disk", "ssd"}};
  incoming.push_back(with({Spread(kZone, 1), soft_zone}));
  incoming.back().node_affinity.required_terms = {{{"metadata.name", "In", {"n3", "n4"}}},
                                                  {{"metadata.name", "In", {"n7"}}}};
  TopologySpreadConstraint honor = Spread(kZone, 2);
  honor.node_taints_policy = "Honor";
  incoming.push_back(with({honor, soft_zone}));
  incoming.push_back(with({Spread(kZone, 1), Spread(kHostname, 1, "ScheduleAnyway")}));
  incoming.push_back(with({Spread(kZone, 1), Spread("disk", 1)}));

  auto kept_filter = NewPodTopologySpreadFilter();
  auto kept_score = NewPodTopologySpreadScore();
  auto outcome = [&](FilterPlugin& filter, ScorePlugin& score, const PodSpec& pod) {
    std::vector<std::string> out;
    if (!filter.PreFilter(pod, cluster).ok()) return std::vector<std::string>{"prefilter"};
    std::vector<int> present;
    for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) {
      if (cluster.node(n).absent) continue;
      present.push_back(n);
      out.push_back(filter.Filter(pod, cluster, n).ok() ? "ok" : "no");
    }
    score.PreScore(pod, cluster, present);
    for (int n : present) out.push_back(std::to_string(score.Score(pod, cluster, n)));
    return out;
  };

  RandomStream rng(3, "test/topology-spread-counts");
  std::vector<int> bound;
  for (int step = 0; step < 400; ++step) {
    CAPTURE(step);
    // A burst of changes, sometimes long enough that the change record no longer reaches the
    // last cycle.
    const uint64_t changes = rng.Below(10) == 0 ? 40 : 1 + rng.Below(3);
    for (uint64_t c = 0; c < changes; ++c) {
      const uint64_t what = rng.Below(10);
      const int node = static_cast<int>(rng.Below(12));
      if (what < 5 && !cluster.node(node).absent) {
        PodSpec pod = Web("p" + std::to_string(step));
        pod.namespace_ = rng.Below(4) == 0 ? "other" : "default";
        if (rng.Below(4) == 0) pod.labels = {{"app", "batch"}};
        bound.push_back(BindOn(cluster, cluster.node(node).spec.name, pod));
      } else if (what < 8 && !bound.empty()) {
        const size_t k = rng.Below(bound.size());
        cluster.Unbind(bound[k]);
        bound.erase(bound.begin() + static_cast<long>(k));
      } else if (what == 8 && !bound.empty()) {
        cluster.MarkPreempted(bound[rng.Below(bound.size())]);
      } else if (cluster.node(node).pods.empty() || cluster.node(node).absent) {
        bool empty = true;
        for (int p : cluster.node(node).pods) empty = empty && !cluster.bound(p);
        if (empty) cluster.SetAbsent(node, !cluster.node(node).absent);
      }
    }
    const PodSpec& pod = incoming[rng.Below(incoming.size())];
    auto fresh_filter = NewPodTopologySpreadFilter();
    auto fresh_score = NewPodTopologySpreadScore();
    CHECK(outcome(*kept_filter, *kept_score, pod) == outcome(*fresh_filter, *fresh_score, pod));
  }
}

}  // namespace
}  // namespace knobsim
