#include "sim/upgrade/rolling_upgrade.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "sim/scenario_objects.h"

namespace knobsim {
namespace {

// The error's text, or "" when there is none: doctest evaluates a message even on success
// (with -s), where error() would throw.
template <class T>
std::string Why(const Expected<T>& e) {
  return e.ok() ? std::string() : e.error().ToString();
}

constexpr SimTime kS = kNanosPerSecond;
constexpr SimTime kMin = 60 * kS;

// ClusterControl as the tests drive it: pods and nodes by hand, a timed queue the test pumps
// (the operator's wakes and the fake's own actions: a pod gone after its grace period, a
// replacement turning Ready), and everything the operator did kept for the assertions.
class FakeCluster : public ClusterControl {
 public:
  explicit FakeCluster(Scenario s) : scenario_(std::move(s)) {
    for (size_t p = 0; p < scenario_.node_pools.size(); ++p) {
      const NodePool& pool = scenario_.node_pools[p];
      for (int i = 0; i < pool.count; ++i)
        nodes_.push_back(
            {PoolNodeName(pool, i), static_cast<int>(p), PoolNodeZone(pool, i), false, false});
    }
  }

  // -- the test's side --
  void Attach(ClusterOperator* op) {
    op_ = op;
    op_->Start(*this);
  }
  int NodeIndex(const std::string& name) const {
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].name == name) return static_cast<int>(i);
    FAIL("no node " << name);
    return -1;
  }
  int WorkloadIndex(const std::string& name) const {
    for (size_t i = 0; i < scenario_.workloads.size(); ++i)
      if (scenario_.workloads[i].name == name) return static_cast<int>(i);
    FAIL("no workload " << name);
    return -1;
  }
  int AddPod(const std::string& workload, const std::string& name, const std::string& node,
             bool ready = true) {
    PodView p;
    p.id = next_id_++;
    p.workload = WorkloadIndex(workload);
    p.namespace_ = scenario_.workloads[static_cast<size_t>(p.workload)].namespace_;
    p.name = name;
    p.node = NodeIndex(node);
    p.phase = "Running";
    p.ready = p.available = ready;
    p.status = "Running";
    pods_[p.id] = p;
    return p.id;
  }
  void SetReady(int id, bool ready) { pods_.at(id).ready = pods_.at(id).available = ready; }
  // A deleted pod finishes terminating after `grace` (0: the test calls Gone itself).
  SimTime grace = 0;
  // Called when a pod is gone, before the operator hears it (a StatefulSet's replacement).
  std::function<void(const PodView&)> on_gone;
  void Gone(int id) {
    auto it = pods_.find(id);
    if (it == pods_.end()) return;
    const PodView p = it->second;
    pods_.erase(it);
    if (on_gone) on_gone(p);
    if (op_ != nullptr) op_->PodGone(*this, id);
  }
  void At(SimTime t, std::function<void()> f) {
    queue_.emplace(std::make_tuple(t, seq_++), Item{0, std::move(f)});
  }
  // Runs everything due up to `until`, in time order (then in the order asked).
  void RunUntil(SimTime until) {
    while (!queue_.empty() && std::get<0>(queue_.begin()->first) <= until) {
      if (end_at_ >= 0 && std::get<0>(queue_.begin()->first) > end_at_) break;
      auto node = queue_.extract(queue_.begin());
      now_ = std::get<0>(node.key());
      if (node.mapped().action) {
        node.mapped().action();
      } else {
        op_->Wake(*this, node.mapped().token);
      }
    }
    now_ = std::max(now_, std::min(until, end_at_ >= 0 ? end_at_ : until));
  }
  const PodView* Find(const std::string& name) const {
    for (const auto& [id, p] : pods_)
      if (p.name == name) return &p;
    return nullptr;
  }
  bool Cordoned(const std::string& node) const {
    return nodes_[static_cast<size_t>(NodeIndex(node))].cordoned;
  }

  struct Recorded {
    SimTime at;
    std::string kind, pod, message;
  };
  std::vector<Recorded> recorded;
  std::vector<std::pair<SimTime, std::string>> deleted;  // (when, pod name)
  std::vector<std::pair<SimTime, std::string>> brought_up;
  SimTime end_at_ = -1;
  int max_cordoned = 0;
  std::vector<SimTime> wake_times;  // every WakeAt the operator asked for

  // -- ClusterControl --
  SimTime Now() const override { return now_; }
  const Scenario& scenario() const override { return scenario_; }
  int NodeCount() const override { return static_cast<int>(nodes_.size()); }
  NodeView Node(int node) const override { return nodes_.at(static_cast<size_t>(node)); }
  std::vector<PodView> Pods() const override {
    std::vector<PodView> out;
    for (const auto& [id, p] : pods_) out.push_back(p);
    return out;
  }
  void SetCordoned(int node, bool cordoned) override {
    nodes_.at(static_cast<size_t>(node)).cordoned = cordoned;
    const int n = static_cast<int>(
        std::count_if(nodes_.begin(), nodes_.end(), [](const NodeView& v) { return v.cordoned; }));
    max_cordoned = std::max(max_cordoned, n);
  }
  void DeletePod(int id, const std::string& /*why*/) override {
    auto it = pods_.find(id);
    if (it == pods_.end() || it->second.terminating) return;
    it->second.terminating = true;
    it->second.available = false;
    it->second.status = "Terminating";
    deleted.emplace_back(now_, it->second.name);
    if (grace > 0) At(now_ + grace, [this, id] { Gone(id); });
  }
  void TakeNodeDown(int node, const std::string& /*why*/) override {
    nodes_.at(static_cast<size_t>(node)).down = true;
    for (auto it = pods_.begin(); it != pods_.end();) {
      const Workload& w = scenario_.workloads[static_cast<size_t>(it->second.workload)];
      if (it->second.node == node && w.kind != "DaemonSet") {
        it = pods_.erase(it);
      } else {
        ++it;
      }
    }
  }
  void BringNodeUp(int node, const NodeSettings& settings) override {
    nodes_.at(static_cast<size_t>(node)).down = false;
    brought_up.emplace_back(now_,
                            nodes_.at(static_cast<size_t>(node)).name +
                                (settings.isolation == MemoryIsolation::kHard ? " hard" : ""));
  }
  void WakeAt(SimTime at, uint64_t token) override {
    CHECK(at >= now_);
    wake_times.push_back(at);
    queue_.emplace(std::make_tuple(at, seq_++), Item{token, nullptr});
  }
  void EndRunAt(SimTime at) override { end_at_ = at; }
  void Record(const std::string& kind, const std::string& pod,
              const std::string& message) override {
    recorded.push_back({now_, kind, pod, message});
  }

 private:
  struct Item {
    uint64_t token;
    std::function<void()> action;
  };
  Scenario scenario_;
  std::vector<NodeView> nodes_;
  std::map<int, PodView> pods_;
  std::map<std::tuple<SimTime, uint64_t>, Item> queue_;
  ClusterOperator* op_ = nullptr;
  SimTime now_ = 0;
  uint64_t seq_ = 0;
  int next_id_ = 1;
};

NodePool Pool(std::string name, int count, bool gpu, std::vector<std::string> zones = {"z-a"}) {
  NodePool p;
  p.name = std::move(name);
  p.count = count;
  if (gpu) {
    p.gpu_type = "A10";
    p.gpus_per_node = 1;
  }
  p.zones = std::move(zones);
  return p;
}

Workload MakeWorkload(std::string name, std::string ns, std::string kind, int replicas) {
  Workload w;
  w.name = name;
  w.namespace_ = std::move(ns);
  w.kind = std::move(kind);
  w.replicas = replicas;
  w.labels = {{"app", name}};
  return w;
}

PodDisruptionBudgetSpec Budget(std::string ns, std::string name, std::string app,
                               std::optional<IntOrPercent> min_available,
                               std::optional<IntOrPercent> max_unavailable = std::nullopt) {
  PodDisruptionBudgetSpec pdb;
  pdb.namespace_ = std::move(ns);
  pdb.name = std::move(name);
  pdb.min_available = min_available;
  pdb.max_unavailable = max_unavailable;
  pdb.selector = LabelSelector{{{"app", std::move(app)}}, {}};
  return pdb;
}

// Three CPU nodes c-0..c-2 holding etcd (StatefulSet of 3, PDB minAvailable 51 %), three spare
// nodes s-0..s-2 for the replacements, and a GPU pool g-0..g-1.
Scenario EtcdScenario() {
  Scenario s;
  s.run.warmup = 120 * kS;
  s.node_pools = {Pool("g", 2, true), Pool("c", 3, false), Pool("s", 3, false)};
  s.workloads = {MakeWorkload("etcd", "infra", "StatefulSet", 3),
                 MakeWorkload("web", "ai", "Deployment", 2),
                 MakeWorkload("agent", "kube-system", "DaemonSet", 1)};
  s.kube.pdbs = {Budget("infra", "etcd", "etcd", IntOrPercent{51, true})};
  return s;
}

UpgradeOptions NodeList(std::vector<std::string> nodes, int max_unavailable) {
  UpgradeOptions o;
  o.order = UpgradeOrder::kNodeList;
  o.nodes = std::move(nodes);
  o.max_unavailable = max_unavailable;
  o.after.isolation = MemoryIsolation::kHard;
  o.after.cgpu_version = "1.5.10";
  return o;
}

std::vector<int> Order(const Scenario& s, const UpgradeOptions& o) {
  Expected<std::vector<int>> order = UpgradePlanOrder(s, o);
  REQUIRE_MESSAGE(order.ok(), Why(order));
  return *order;
}

const NodeUpgrade& NodeOf(const UpgradeTimeline& t, const std::string& node) {
  for (const NodeUpgrade& n : t.nodes)
    if (n.node == node) return n;
  FAIL("no node " << node << " in the timeline");
  return t.nodes.front();
}

std::vector<std::string> Whats(const NodeUpgrade& n) {
  std::vector<std::string> out;
  for (const NodeStep& s : n.steps) out.push_back(s.what);
  return out;
}

int CountSteps(const NodeUpgrade& n, const std::string& what) {
  return static_cast<int>(std::count_if(n.steps.begin(), n.steps.end(),
                                        [&](const NodeStep& s) { return s.what == what; }));
}

// Starts a not-Ready replacement of a gone etcd member on the next spare node, Ready 30 s later.
void ReplaceEtcdMembers(FakeCluster& c, int* spare) {
  c.on_gone = [&c, spare](const PodView& p) {
    if (p.namespace_ != "infra") return;
    const int id = c.AddPod("etcd", p.name, "s-" + std::to_string((*spare)++), false);
    c.At(c.Now() + 30 * kS, [&c, id] { c.SetReady(id, true); });
  };
}

}  // namespace

TEST_CASE(
    "Appendix B: with 3 Ready etcd members under minAvailable 51%, the first eviction goes "
    "through and the second gets 429 'needs 2 healthy pods and has 2 currently'") {
  FakeCluster c(EtcdScenario());
  c.AddPod("etcd", "etcd-0", "c-0");
  c.AddPod("etcd", "etcd-1", "c-1");
  c.AddPod("etcd", "etcd-2", "c-2");
  const UpgradeOptions o = NodeList({"c-0", "c-1"}, 2);
  RollingUpgrade up(o, Order(c.scenario(), o));
  c.Attach(&up);
  c.RunUntil(120 * kS);
  const UpgradeTimeline& t = up.timeline();
  CHECK(t.started == 120 * kS);
  const NodeUpgrade& c0 = NodeOf(t, "c-0");
  const NodeUpgrade& c1 = NodeOf(t, "c-1");
  CHECK(Whats(c0) == std::vector<std::string>{"cordoned", "evicted"});
  CHECK(c0.steps[1].pod == "infra/etcd-0");
  CHECK(c0.steps[1].detail == "evicted: budget etcd allowed 1 disruption");
  REQUIRE(Whats(c1) == std::vector<std::string>{"cordoned", "eviction-refused"});
  CHECK(c1.steps[1].pod == "infra/etcd-1");
  CHECK(c1.steps[1].detail ==
        "The disruption budget etcd needs 2 healthy pods and has 2 currently");
  CHECK(c1.refusals == 1);
  REQUIRE(t.blocked.size() == 1);
  CHECK(t.blocked[0].node == "c-1");
  CHECK(t.blocked[0].pod == "infra/etcd-1");
  CHECK(t.blocked[0].budget == "infra/etcd");
  CHECK(t.blocked[0].from == 120 * kS);
  CHECK(t.blocked[0].until == -1);
  // The cluster events name the node and the pod, with kubectl's wording.
  const auto refused =
      std::find_if(c.recorded.begin(), c.recorded.end(),
                   [](const FakeCluster::Recorded& r) { return r.kind == "EvictionRefused"; });
  REQUIRE(refused != c.recorded.end());
  CHECK(refused->pod == "infra/etcd-1");
  CHECK(refused->message.find("c-1") != std::string::npos);
  CHECK(refused->message.find("will retry after 5s") != std::string::npos);
  CHECK(refused->message.find("needs 2 healthy pods and has 2 currently") != std::string::npos);
}

TEST_CASE(
    "while an etcd member is unready, a Ready member's node waits on 429 every 5 s and the "
    "unready member's node drains at once (IfHealthyBudget)") {
  FakeCluster c(EtcdScenario());
  c.grace = 10 * kS;
  c.AddPod("etcd", "etcd-0", "c-0");
  c.AddPod("etcd", "etcd-1", "c-1");
  const int unready = c.AddPod("etcd", "etcd-2", "c-2", false);
  const UpgradeOptions o = NodeList({"c-0", "c-2"}, 2);
  RollingUpgrade up(o, Order(c.scenario(), o));
  c.Attach(&up);
  c.RunUntil(120 * kS);
  // The unready member goes at once, without touching the budget.
  const NodeUpgrade& c2 = NodeOf(up.timeline(), "c-2");
  REQUIRE(Whats(c2) == std::vector<std::string>{"cordoned", "deleted"});
  CHECK(c2.steps[1].pod == "infra/etcd-2");
  CHECK(c2.steps[1].detail.find("IfHealthyBudget") != std::string::npos);
  CHECK(c.Find("etcd-2")->terminating);
  CHECK(c2.refusals == 0);
  (void)unready;
  // The Ready member's node is refused and retries every 5 s, one step for the first refusal.
  c.RunUntil(120 * kS + 9 * kS);
  const NodeUpgrade& c0 = NodeOf(up.timeline(), "c-0");
  CHECK(c0.refusals == 2);         // t+0 and t+5 s
  c.RunUntil(120 * kS + 10 * kS);  // etcd-2 gone: c-2 drains and goes down
  CHECK(c2.drained == 130 * kS);
  CHECK(Whats(c2) == std::vector<std::string>{"cordoned", "deleted", "drained", "reset"});
  c.RunUntil(120 * kS + 25 * kS);
  CHECK(c0.refusals == 6);  // 0, 5, 10, 15, 20, 25 s
  CHECK(CountSteps(c0, "eviction-refused") == 1);
  CHECK(CountSteps(c0, "evicted") == 0);
  CHECK(std::count_if(c.recorded.begin(), c.recorded.end(), [](const FakeCluster::Recorded& r) {
          return r.kind == "EvictionRefused";
        }) == 1);
  // The operator asked for one retry wake per 5 s, no more.
  CHECK(std::count(c.wake_times.begin(), c.wake_times.end(), 125 * kS) == 1);
}

TEST_CASE(
    "once every etcd member is Ready again, the blocked drain goes on; drains proceed one "
    "member at a time") {
  FakeCluster c(EtcdScenario());
  c.grace = 10 * kS;
  int spare = 0;
  ReplaceEtcdMembers(c, &spare);
  c.AddPod("etcd", "etcd-0", "c-0");
  c.AddPod("etcd", "etcd-1", "c-1");
  c.AddPod("etcd", "etcd-2", "c-2");
  UpgradeOptions o = NodeList({"c-0", "c-1", "c-2"}, 3);
  o.reset_time = 5 * kMin;
  RollingUpgrade up(o, Order(c.scenario(), o));
  c.Attach(&up);
  c.RunUntil(3 * 3600 * kS);
  const UpgradeTimeline& t = up.timeline();
  // etcd-0 evicted at 120 s, gone at 130 s, its replacement Ready at 160 s; the next retry of
  // c-1 (every 5 s from 120 s) then finds 3 healthy: evicted at 160 s; and so on.
  CHECK(c.deleted == std::vector<std::pair<SimTime, std::string>>{
                         {120 * kS, "etcd-0"}, {160 * kS, "etcd-1"}, {200 * kS, "etcd-2"}});
  CHECK(NodeOf(t, "c-0").refusals == 0);
  CHECK(NodeOf(t, "c-1").refusals == 8);   // 120..155 s
  CHECK(NodeOf(t, "c-2").refusals == 16);  // 120..195 s
  for (const NodeUpgrade& n : t.nodes) CHECK(n.outcome == "upgraded");
  REQUIRE(t.blocked.size() == 2);
  CHECK(t.blocked[0].pod == "infra/etcd-1");
  CHECK(t.blocked[0].until == 160 * kS);
  CHECK(t.blocked[0].refusals == 8);
  CHECK(t.blocked[0].cause ==
        "The disruption budget etcd needs 2 healthy pods and has 2 currently");
  CHECK_FALSE(t.blocked[0].gave_up);
  CHECK(t.blocked[1].until == 200 * kS);
  // Never more than one member down: at each eviction the other two were healthy.
  CHECK(t.finished == 210 * kS + 5 * kMin);
  CHECK(c.end_at_ == t.finished + o.tail);
}

TEST_CASE(
    "max_unavailable bounds the nodes cordoned at once, and the run ends the tail after the "
    "last node is back") {
  for (int max_unavailable : {1, 2}) {
    CAPTURE(max_unavailable);
    Scenario s;
    s.run.warmup = 300 * kS;
    s.node_pools = {Pool("g", 4, true)};
    s.workloads = {MakeWorkload("web", "ai", "Deployment", 4)};
    FakeCluster c(s);
    c.grace = 10 * kS;
    for (int i = 0; i < 4; ++i)
      c.AddPod("web", "web-" + std::to_string(i), "g-" + std::to_string(i));
    UpgradeOptions o;
    o.max_unavailable = max_unavailable;
    o.after.isolation = MemoryIsolation::kHard;
    RollingUpgrade up(o, Order(s, o));
    c.Attach(&up);
    c.RunUntil(24 * 3600 * kS);
    const UpgradeTimeline& t = up.timeline();
    CHECK(c.max_cordoned == max_unavailable);
    // Each node: evicted, gone after 10 s of grace, 15 min of reset.
    const SimTime per_node = 10 * kS + 15 * kMin;
    CHECK(t.finished == 300 * kS + (4 / max_unavailable) * per_node);
    CHECK(c.end_at_ == t.finished + 10 * kMin);
    for (const NodeUpgrade& n : t.nodes) {
      CHECK(n.outcome == "upgraded");
      CHECK(n.attempts == 1);
      CHECK(n.back - n.drained == 15 * kMin);
      CHECK(Whats(n) == std::vector<std::string>{"cordoned", "deleted", "drained", "reset", "back",
                                                 "uncordoned"});
      CHECK(n.steps[1].detail == "no disruption budget selects the pod");
    }
    CHECK(NodeOf(t, "g-1").cordoned == (max_unavailable == 1 ? 300 * kS + per_node : 300 * kS));
    const NodeUpgrade& g0 = NodeOf(t, "g-0");
    CHECK(g0.steps[4].detail == "isolation=hard");
    CHECK_FALSE(c.Cordoned("g-0"));
    CHECK(c.brought_up.size() == 4);
  }
}

TEST_CASE("DaemonSet pods are neither evicted nor waited for") {
  FakeCluster c(EtcdScenario());
  c.grace = 5 * kS;
  c.AddPod("agent", "agent-g0", "g-0");
  c.AddPod("web", "web-0", "g-0");
  UpgradeOptions o;  // pool order, the GPU pool only
  RollingUpgrade up(o, Order(c.scenario(), o));
  c.Attach(&up);
  c.RunUntil(125 * kS);
  CHECK(c.deleted == std::vector<std::pair<SimTime, std::string>>{{120 * kS, "web-0"}});
  const NodeUpgrade& g0 = NodeOf(up.timeline(), "g-0");
  CHECK(g0.drained == 125 * kS);
  CHECK(c.Find("agent-g0") != nullptr);  // still there while the node is down
}

TEST_CASE("a pod without a controller fails kubectl's pre-flight unless --force") {
  Scenario s = EtcdScenario();
  s.workloads.push_back(MakeWorkload("debug", "ai", "Pod", 1));
  for (const bool force : {false, true}) {
    CAPTURE(force);
    FakeCluster c(s);
    c.grace = 5 * kS;
    c.AddPod("debug", "debug", "g-0");
    c.AddPod("web", "web-0", "g-0");
    c.AddPod("web", "web-1", "g-1");
    UpgradeOptions o;  // pool order, the GPU pool only
    o.force = force;
    RollingUpgrade up(o, Order(c.scenario(), o));
    c.Attach(&up);
    c.RunUntil(3600 * kS);
    up.Finish();
    const NodeUpgrade& g0 = NodeOf(up.timeline(), "g-0");
    if (force) {
      CHECK(g0.outcome == "upgraded");
      CHECK(c.Find("debug") == nullptr);
    } else {
      // Nothing evicted from g-0: kubectl refuses the whole drain, the node is uncordoned and
      // left; g-1 goes on.
      CHECK(g0.outcome == "blocked");
      CHECK(Whats(g0) == std::vector<std::string>{"cordoned", "drain-failed", "uncordoned"});
      CHECK(g0.steps[1].detail ==
            "cannot delete Pods that declare no controller (use --force to override): ai/debug");
      CHECK(c.Find("debug") != nullptr);
      CHECK(c.Find("web-0") != nullptr);
      CHECK(NodeOf(up.timeline(), "g-1").outcome == "upgraded");
    }
  }
}

TEST_CASE("a drain that times out uncordons the node and puts it back at the end of the queue") {
  Scenario s;
  s.run.warmup = 0;
  s.node_pools = {Pool("g", 2, true)};
  // One replica under minAvailable 1: the budget never allows its eviction.
  s.workloads = {MakeWorkload("db", "ai", "Deployment", 1),
                 MakeWorkload("web", "ai", "Deployment", 1)};
  s.kube.pdbs = {Budget("ai", "db", "db", IntOrPercent{1, false})};
  FakeCluster c(s);
  c.grace = 10 * kS;
  c.AddPod("db", "db-0", "g-0");
  c.AddPod("web", "web-0", "g-1");
  UpgradeOptions o;
  o.drain_timeout = 60 * kS;
  o.reset_time = 5 * kMin;
  RollingUpgrade up(o, Order(s, o));
  c.Attach(&up);
  c.RunUntil(60 * kS);
  const UpgradeTimeline& t = up.timeline();
  const NodeUpgrade& g0 = NodeOf(t, "g-0");
  const NodeUpgrade& g1 = NodeOf(t, "g-1");
  CHECK(Whats(g0) ==
        std::vector<std::string>{"cordoned", "eviction-refused", "drain-timeout", "uncordoned"});
  CHECK(g0.steps[2].at == 60 * kS);
  CHECK(g0.steps[2].detail ==
        "drain did not finish within 1m: ai/db-0 (PDB ai/db: The disruption budget db needs 1 "
        "healthy "
        "pods and has 1 currently)");
  CHECK(g0.refusals == 12);  // 0, 5, ..., 55 s: the timeout at 60 s wins over that instant's retry
  CHECK_FALSE(c.Cordoned("g-0"));
  REQUIRE(t.blocked.size() == 1);
  CHECK(t.blocked[0].gave_up);
  CHECK(t.blocked[0].until == 60 * kS);
  // g-1 goes next; g-0 is tried again after it.
  CHECK(g1.cordoned == 60 * kS);
  c.RunUntil(60 * kS + 10 * kS + 5 * kMin);
  CHECK(g1.outcome == "upgraded");
  CHECK(g0.attempts == 2);
  CHECK(c.Cordoned("g-0"));
  CHECK(g0.steps.back().what == "eviction-refused");
  CHECK(g0.steps[4].detail == "attempt 2");
  c.RunUntil(3600 * kS);
  CHECK(c.end_at_ == -1);  // kubectl would go on retrying: the run's own end stops it
  CHECK(t.finished == -1);
  const UpgradeTimeline& f = up.Finish();
  CHECK(NodeOf(f, "g-0").outcome == "blocked");
  CHECK(NodeOf(f, "g-1").outcome == "upgraded");
  // The drain open at the end keeps until = -1.
  CHECK(f.blocked.back().until == -1);
  CHECK_FALSE(f.blocked.back().gave_up);
}

TEST_CASE("a pod two budgets select fails the drain with a 500 and its node is blocked for good") {
  Scenario s;
  s.run.warmup = 0;
  s.node_pools = {Pool("g", 2, true)};
  s.workloads = {MakeWorkload("db", "ai", "Deployment", 3),
                 MakeWorkload("web", "ai", "Deployment", 1)};
  s.kube.pdbs = {Budget("ai", "db-a", "db", IntOrPercent{1, false}),
                 Budget("ai", "db-b", "db", std::nullopt, IntOrPercent{1, false})};
  FakeCluster c(s);
  c.grace = 10 * kS;
  c.AddPod("db", "db-0", "g-0");
  c.AddPod("db", "db-1", "g-1");
  c.AddPod("web", "web-0", "g-1");
  UpgradeOptions o;
  o.drain_timeout = 0;  // waits forever: the failure must not depend on a timeout
  o.reset_time = 5 * kMin;
  RollingUpgrade up(o, Order(s, o));
  c.Attach(&up);
  c.RunUntil(3600 * kS);
  const UpgradeTimeline& t = up.Finish();
  const NodeUpgrade& g0 = NodeOf(t, "g-0");
  REQUIRE(Whats(g0) == std::vector<std::string>{"cordoned", "drain-failed", "uncordoned"});
  CHECK(g0.steps[1].detail ==
        "evicting pod ai/db-0: This pod has more than one PodDisruptionBudget, which the eviction "
        "subresource does not support. (ai/db-a, ai/db-b)");
  CHECK(g0.outcome == "blocked");
  CHECK(g0.attempts == 1);
  CHECK_FALSE(c.Cordoned("g-0"));
  // g-1's db pod is selected by both budgets too: its node fails the same way, and the run
  // ends the tail after the last failure, unfinished.
  const NodeUpgrade& g1 = NodeOf(t, "g-1");
  CHECK(g1.outcome == "blocked");
  CHECK(CountSteps(g1, "deleted") ==
        1);  // web-0 (no budget) went: kubectl evicts the others concurrently
  CHECK(t.finished == -1);
  CHECK(c.end_at_ == 0 + o.tail);
  REQUIRE(t.blocked.size() == 2);
  CHECK(t.blocked[0].budget == "ai/db-a, ai/db-b");
  CHECK(t.blocked[0].gave_up);
}

TEST_CASE(
    "a node blocked for good does not stop the others, and the run ends once only it is left") {
  Scenario s;
  s.run.warmup = 0;
  s.node_pools = {Pool("g", 2, true)};
  s.workloads = {MakeWorkload("db", "ai", "Deployment", 1),
                 MakeWorkload("web", "ai", "Deployment", 1)};
  s.kube.pdbs = {Budget("ai", "db-a", "db", IntOrPercent{0, false}),
                 Budget("ai", "db-b", "db", IntOrPercent{0, false})};
  FakeCluster c(s);
  c.grace = 10 * kS;
  c.AddPod("db", "db-0", "g-0");
  c.AddPod("web", "web-0", "g-1");
  UpgradeOptions o;
  o.reset_time = 5 * kMin;
  RollingUpgrade up(o, Order(s, o));
  c.Attach(&up);
  c.RunUntil(3600 * kS);
  const UpgradeTimeline& t = up.Finish();
  CHECK(NodeOf(t, "g-0").outcome == "blocked");
  CHECK(NodeOf(t, "g-1").outcome == "upgraded");
  CHECK(NodeOf(t, "g-1").back == 10 * kS + 5 * kMin);
  CHECK(t.finished == -1);
  CHECK(c.end_at_ == 10 * kS + 5 * kMin + o.tail);
}

TEST_CASE("at the end of the run, nodes down are in-progress and nodes never reached not-started") {
  Scenario s;
  s.run.warmup = 0;
  s.node_pools = {Pool("g", 3, true)};
  s.workloads = {MakeWorkload("web", "ai", "Deployment", 3)};
  FakeCluster c(s);
  c.grace = 10 * kS;
  for (int i = 0; i < 3; ++i) c.AddPod("web", "web-" + std::to_string(i), "g-" + std::to_string(i));
  UpgradeOptions o;
  RollingUpgrade up(o, Order(s, o));
  c.Attach(&up);
  c.RunUntil(5 * kS);
  CHECK(NodeOf(up.Finish(), "g-0").outcome == "blocked");  // still draining
  c.RunUntil(20 * kMin);
  const UpgradeTimeline& t = up.Finish();
  CHECK(NodeOf(t, "g-0").outcome == "upgraded");
  CHECK(NodeOf(t, "g-1").outcome == "in-progress");
  CHECK(NodeOf(t, "g-2").outcome == "not-started");
  CHECK(t.finished == -1);
}

TEST_CASE(
    "UpgradePlanOrder: pools in scenario order, zones sorted by name, a node list as given, "
    "and by default only the pools with GPUs") {
  Scenario s;
  s.node_pools = {Pool("gpu-a", 3, true, {"z-b", "z-a"}), Pool("cpu", 2, false),
                  Pool("gpu-b", 2, true, {"z-a"})};
  // BuildCluster's order: gpu-a-0..2 (0,1,2), cpu-0..1 (3,4), gpu-b-0..1 (5,6).
  UpgradeOptions o;
  CHECK(Order(s, o) == std::vector<int>{0, 1, 2, 5, 6});
  o.order = UpgradeOrder::kZone;  // z-a: gpu-a-1, gpu-b-0, gpu-b-1; z-b: gpu-a-0, gpu-a-2
  CHECK(Order(s, o) == std::vector<int>{1, 5, 6, 0, 2});
  o.pools = {"gpu-b", "cpu"};  // the pools name the scope; the order stays the scenario's
  o.order = UpgradeOrder::kPool;
  CHECK(Order(s, o) == std::vector<int>{3, 4, 5, 6});
  UpgradeOptions list;
  list.order = UpgradeOrder::kNodeList;
  list.nodes = {"gpu-b-1", "cpu-0", "gpu-a-2"};
  CHECK(Order(s, list) == std::vector<int>{6, 3, 2});
}

TEST_CASE(
    "UpgradePlanOrder rejects unknown names with a hint, duplicates, an empty scope and bad "
    "numbers") {
  Scenario s;
  s.node_pools = {Pool("gpu-a10", 2, true), Pool("cpu", 1, false)};
  auto error = [&s](const UpgradeOptions& o) {
    Expected<std::vector<int>> r = UpgradePlanOrder(s, o);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  UpgradeOptions list;
  list.order = UpgradeOrder::kNodeList;
  list.nodes = {"gpu-a10-O"};
  InputError e = error(list);
  CHECK(e.path == "--nodes");
  CHECK(e.message == "unknown node \"gpu-a10-O\"");
  CHECK(e.hint.find("gpu-a10-0") != std::string::npos);
  list.nodes = {"gpu-a10-1", "gpu-a10-1"};
  CHECK(error(list).message == "node \"gpu-a10-1\" is listed twice");
  list.nodes.clear();
  CHECK(error(list).path == "--nodes");
  list.nodes = {"cpu-0"};
  list.pools = {"cpu"};
  CHECK(error(list).path == "--pools");

  UpgradeOptions pools;
  pools.pools = {"gpu-a1O"};
  e = error(pools);
  CHECK(e.path == "--pools");
  CHECK(e.message == "unknown node pool \"gpu-a1O\"");
  CHECK(e.hint.find("gpu-a10") != std::string::npos);
  pools.pools = {"cpu", "cpu"};
  CHECK(error(pools).message == "node pool \"cpu\" is listed twice");
  pools.pools.clear();
  pools.nodes = {"cpu-0"};
  CHECK(error(pools).message == "--nodes needs --order node-list");

  UpgradeOptions bad;
  bad.max_unavailable = 0;
  CHECK(error(bad).path == "--max-unavailable");
  bad = UpgradeOptions{};
  bad.reset_time = -1;
  CHECK(error(bad).path == "--reset-time");
  bad = UpgradeOptions{};
  bad.drain_timeout = -kS;
  CHECK(error(bad).path == "--drain-timeout");

  Scenario cpu_only;
  cpu_only.node_pools = {Pool("cpu", 2, false)};
  Expected<std::vector<int>> r = UpgradePlanOrder(cpu_only, UpgradeOptions{});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "no node pool with GPUs to upgrade");
}

}  // namespace knobsim
