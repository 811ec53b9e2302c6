#include "sim/upgrade/rolling_upgrade.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "sim/controllers/disruption_budget.h"
#include "sim/io/spelling.h"
#include "sim/scenario_objects.h"
#include "sim/text.h"

namespace knobsim {

namespace {

// A wake token: what the wake is for, which node run and which drain attempt. A wake whose
// attempt is no longer the node's current one, or whose purpose no longer fits the node's
// state, is stale (a retry after the drain finished, a timeout after the node went down).
enum class Purpose : uint64_t { kBegin = 0, kRetry = 1, kTimeout = 2, kBack = 3 };
constexpr int kPurposeBits = 2;
constexpr int kRunBits = 24;

uint64_t Token(int run, int attempt, Purpose purpose) {
  return (static_cast<uint64_t>(attempt) << (kRunBits + kPurposeBits)) |
         (static_cast<uint64_t>(run) << kPurposeBits) | static_cast<uint64_t>(purpose);
}

struct Decoded {
  int run;
  int attempt;
  Purpose purpose;
};

Decoded Decode(uint64_t token) {
  return {static_cast<int>((token >> kPurposeBits) & ((uint64_t{1} << kRunBits) - 1)),
          static_cast<int>(token >> (kRunBits + kPurposeBits)),
          static_cast<Purpose>(token & ((uint64_t{1} << kPurposeBits) - 1))};
}

// 600 s -> "10m", 90 s -> "1m30s", 0.5 s -> "500ms": how kubectl and the options write them.
std::string FormatDuration(SimTime t) {
  if (t % kNanosPerSecond != 0) return std::to_string(t / kNanosPerMilli) + "ms";
  int64_t s = t / kNanosPerSecond;
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h", s %= 3600;
  if (s >= 60) out += std::to_string(s / 60) + "m", s %= 60;
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

const Workload* WorkloadOf(const Scenario& s, const PodView& pod) {
  if (pod.workload < 0 || pod.workload >= static_cast<int>(s.workloads.size())) return nullptr;
  return &s.workloads[static_cast<size_t>(pod.workload)];
}

// kubectl drain --ignore-daemonsets leaves DaemonSet pods where they are.
bool Drainable(const Scenario& s, const PodView& pod) {
  const Workload* w = WorkloadOf(s, pod);
  return w == nullptr || w->kind != "DaemonSet";
}

std::string PodKey(const PodView& pod) {
  return pod.namespace_ + "/" + pod.name;
}

const char* IsolationName(MemoryIsolation i) {
  return i == MemoryIsolation::kHard ? "hard" : "soft";
}

std::string SettingsText(const NodeSettings& s) {
  std::vector<std::string> parts;
  if (s.isolation) parts.push_back(std::string("isolation=") + IsolationName(*s.isolation));
  if (s.policy) parts.push_back("policy=" + std::to_string(static_cast<int>(*s.policy)));
  if (s.cgpu_version) parts.push_back("cgpu_version=" + *s.cgpu_version);
  return parts.empty() ? "settings unchanged" : Join(parts, " ");
}

}  // namespace

enum class RunState { kQueued, kDraining, kDown, kDone, kFailed };

struct RollingUpgrade::NodeRun {
  int node = -1;
  RunState state = RunState::kQueued;
  SimTime attempt_started = -1;
  SimTime retry_at = -1;               // the retry wake already asked for in this attempt
  bool timed_out = false;              // the last attempt gave up
  std::set<int> refused;               // pods answered 429 in this attempt
  std::map<int, size_t> open_blocked;  // pod id -> index in timeline_.blocked
};

RollingUpgrade::RollingUpgrade(UpgradeOptions options, std::vector<int> order)
    : options_(std::move(options)), order_(std::move(order)) {
  runs_.resize(order_.size());
  timeline_.nodes.resize(order_.size());
  for (size_t i = 0; i < order_.size(); ++i) runs_[i].node = order_[i];
}

RollingUpgrade::~RollingUpgrade() = default;

void RollingUpgrade::Start(ClusterControl& cluster) {
  const Scenario& s = cluster.scenario();
  for (size_t i = 0; i < order_.size(); ++i) {
    const NodeView v = cluster.Node(order_[i]);
    NodeUpgrade& nu = timeline_.nodes[i];
    nu.node = v.name;
    nu.pool = v.pool >= 0 && v.pool < static_cast<int>(s.node_pools.size())
                  ? s.node_pools[static_cast<size_t>(v.pool)].name
                  : "";
    nu.zone = v.zone;
    queue_.push_back(static_cast<int>(i));
  }
  SimTime at = options_.start;
  if (at < 0) {
    at = s.run.warmup;
    for (const Workload& w : s.workloads) at = std::max(at, w.image_pull + w.model_load);
  }
  cluster.WakeAt(std::max(at, cluster.Now()), Token(0, 0, Purpose::kBegin));
}

void RollingUpgrade::Wake(ClusterControl& cluster, uint64_t token) {
  const Decoded d = Decode(token);
  if (d.purpose == Purpose::kBegin) {
    if (timeline_.started < 0) {
      timeline_.started = cluster.Now();
      Advance(cluster);
    }
    return;
  }
  if (d.run < 0 || d.run >= static_cast<int>(runs_.size())) return;
  NodeRun& r = runs_[static_cast<size_t>(d.run)];
  if (d.attempt != timeline_.nodes[static_cast<size_t>(d.run)].attempts) return;  // stale
  switch (d.purpose) {
    case Purpose::kRetry:
      if (r.state != RunState::kDraining || r.retry_at != cluster.Now()) return;
      r.retry_at = -1;
      DrainPass(cluster, d.run);
      break;
    case Purpose::kTimeout:
      if (r.state == RunState::kDraining) GiveUp(cluster, d.run);
      break;
    case Purpose::kBack:
      if (r.state == RunState::kDown) BringBack(cluster, d.run);
      break;
    case Purpose::kBegin:
      break;
  }
}

void RollingUpgrade::PodGone(ClusterControl& cluster, int /*pod*/) {
  // The gone pod is no longer listed, so its node is unknown here: look at every node that
  // is draining (at most max_unavailable of them).
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].state == RunState::kDraining) CheckDrained(cluster, static_cast<int>(i));
}

void RollingUpgrade::Advance(ClusterControl& cluster) {
  while (in_progress_ < options_.max_unavailable && !queue_.empty()) {
    const int run = queue_.front();
    queue_.pop_front();
    StartAttempt(cluster, run);
  }
  if (in_progress_ > 0 || !queue_.empty() || end_requested_) return;
  // Nothing left to do: every node is upgraded, or the rest are blocked for good (a 500).
  const bool all_upgraded = std::all_of(
      runs_.begin(), runs_.end(), [](const NodeRun& r) { return r.state == RunState::kDone; });
  if (all_upgraded) timeline_.finished = cluster.Now();
  end_requested_ = true;
  cluster.EndRunAt(cluster.Now() + options_.tail);
}

void RollingUpgrade::StartAttempt(ClusterControl& cluster, int run) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const SimTime now = cluster.Now();
  ++in_progress_;
  ++nu.attempts;
  if (nu.cordoned < 0) nu.cordoned = now;
  r.state = RunState::kDraining;
  r.attempt_started = now;
  r.retry_at = -1;
  r.refused.clear();
  cluster.SetCordoned(r.node, true);
  nu.steps.push_back(
      {now, "cordoned", "", nu.attempts > 1 ? "attempt " + std::to_string(nu.attempts) : ""});
  cluster.Record("Cordoned", "", "node/" + nu.node + " cordoned");
  // kubectl drain's pre-flight filter (docs/semantics.md §4.3): pods that declare no controller
  // stop the whole drain unless --force.
  if (!options_.force) {
    const Scenario& s = cluster.scenario();
    std::vector<std::string> bare;
    for (const PodView& p : cluster.Pods()) {
      const Workload* w = WorkloadOf(s, p);
      if (p.node == r.node && !p.terminating && w != nullptr && w->kind == "Pod")
        bare.push_back(PodKey(p));
    }
    if (!bare.empty()) {
      FailDrain(
          cluster, run,
          "cannot delete Pods that declare no controller (use --force to override): " + Join(bare));
      return;
    }
  }
  if (options_.drain_timeout > 0)
    cluster.WakeAt(now + options_.drain_timeout, Token(run, nu.attempts, Purpose::kTimeout));
  DrainPass(cluster, run);
}

// One round of kubectl drain's evictions: every pod still on the node, one after the other
// within the same instant, each decision made against the pods as the previous one left them.
void RollingUpgrade::DrainPass(ClusterControl& cluster, int run) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const Scenario& s = cluster.scenario();
  const SimTime now = cluster.Now();
  std::vector<PodView> pods = cluster.Pods();
  std::vector<int> targets;
  for (const PodView& p : pods)
    if (p.node == r.node && !p.terminating && Drainable(s, p)) targets.push_back(p.id);
  bool refused_any = false;
  std::string failure;
  for (int id : targets) {
    auto it = std::find_if(pods.begin(), pods.end(), [id](const PodView& p) { return p.id == id; });
    if (it == pods.end() || it->terminating || it->node != r.node) continue;
    const PodView pod = *it;
    const std::string key = PodKey(pod);
    const RunEviction e = EvaluateEviction(s, pods, pod);
    const EvictionDecision& d = e.decision;
    switch (d.outcome) {
      case EvictionOutcome::kEvicted:
      case EvictionOutcome::kDeleted: {
        const bool evicted = d.outcome == EvictionOutcome::kEvicted;
        cluster.DeletePod(id, "drain of node " + nu.node + ": " + d.message);
        nu.steps.push_back({now, evicted ? "evicted" : "deleted", key, d.message});
        cluster.Record("Evicted", key,
                       "node " + nu.node + ": pod/" + pod.name + " evicted (" + d.message + ")");
        if (auto open = r.open_blocked.find(id); open != r.open_blocked.end()) {
          timeline_.blocked[open->second].until = now;
          r.open_blocked.erase(open);
        }
        pods = cluster.Pods();
        break;
      }
      case EvictionOutcome::kTooManyRequests: {
        refused_any = true;
        ++nu.refusals;
        if (r.refused.insert(id).second) {
          nu.steps.push_back({now, "eviction-refused", key, d.cause});
          cluster.Record("EvictionRefused", key,
                         "node " + nu.node + ": error when evicting pods/" + Quote(pod.name) +
                             " -n " + Quote(pod.namespace_) + " (will retry after " +
                             FormatDuration(options_.retry_interval) + "): " + d.message + " " +
                             d.cause);
        }
        auto open = r.open_blocked.find(id);
        if (open == r.open_blocked.end()) {
          BlockedDrain b;
          b.node = nu.node;
          b.pod = key;
          b.budget = e.budgets.empty() ? "" : e.budgets.front();
          b.from = now;
          open = r.open_blocked.emplace(id, timeline_.blocked.size()).first;
          timeline_.blocked.push_back(std::move(b));
        }
        BlockedDrain& b = timeline_.blocked[open->second];
        ++b.refusals;
        b.cause = d.cause;
        break;
      }
      case EvictionOutcome::kMultipleBudgets: {
        // kubectl drain reports the error and the drain fails once this round is done; the
        // budgets do not change by themselves, so retrying would fail the same way.
        const std::string why =
            "evicting pod " + key + ": " + d.message + " (" + Join(e.budgets) + ")";
        if (!failure.empty()) failure += "; ";
        failure += why;
        BlockedDrain b;
        b.node = nu.node;
        b.pod = key;
        b.budget = Join(e.budgets);
        b.from = now;
        b.until = now;
        b.refusals = 1;
        b.cause = d.message;
        b.gave_up = true;
        timeline_.blocked.push_back(std::move(b));
        break;
      }
    }
  }
  if (!failure.empty()) {
    FailDrain(cluster, run, failure);
    return;
  }
  if (refused_any && r.retry_at != now + options_.retry_interval) {
    r.retry_at = now + options_.retry_interval;
    cluster.WakeAt(r.retry_at, Token(run, nu.attempts, Purpose::kRetry));
  }
  CheckDrained(cluster, run);
}

// kubectl drain is done when no pod it evicts is left on the node, terminating ones included:
// it waits for them to be gone. Then the node goes down for its reset.
void RollingUpgrade::CheckDrained(ClusterControl& cluster, int run) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  if (r.state != RunState::kDraining) return;
  const Scenario& s = cluster.scenario();
  for (const PodView& p : cluster.Pods())
    if (p.node == r.node && Drainable(s, p)) return;
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const SimTime now = cluster.Now();
  nu.drained = now;
  nu.steps.push_back({now, "drained", "", ""});
  cluster.Record("Drained", "", "node/" + nu.node + " drained");
  CloseBlocked(run, now, false);
  r.state = RunState::kDown;
  r.timed_out = false;
  cluster.TakeNodeDown(r.node, "cGPU upgrade: node reset");
  nu.steps.push_back({now, "reset", "", "down for " + FormatDuration(options_.reset_time)});
  cluster.Record("NodeReset", "",
                 "node " + nu.node + " taken down for its reset (" +
                     FormatDuration(options_.reset_time) + ")");
  cluster.WakeAt(now + options_.reset_time, Token(run, nu.attempts, Purpose::kBack));
}

void RollingUpgrade::GiveUp(ClusterControl& cluster, int run) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const SimTime now = cluster.Now();
  // What still holds the drain: the budgets refusing, else the pods still terminating.
  std::vector<std::string> holding;
  for (const auto& [pod, index] : r.open_blocked) {
    const BlockedDrain& b = timeline_.blocked[index];
    holding.push_back(b.pod + " (PDB " + b.budget + ": " + b.cause + ")");
  }
  if (holding.empty()) {
    const Scenario& s = cluster.scenario();
    for (const PodView& p : cluster.Pods())
      if (p.node == r.node && Drainable(s, p))
        holding.push_back(PodKey(p) + (p.terminating ? " (terminating)" : ""));
  }
  const std::string detail = "drain did not finish within " +
                             FormatDuration(options_.drain_timeout) +
                             (holding.empty() ? "" : ": " + Join(holding));
  nu.steps.push_back({now, "drain-timeout", "", detail});
  cluster.Record("DrainTimeout", "", "node " + nu.node + ": " + detail);
  CloseBlocked(run, now, true);
  cluster.SetCordoned(r.node, false);
  nu.steps.push_back({now, "uncordoned", "", "requeued at the end"});
  cluster.Record("Uncordoned", "", "node/" + nu.node + " uncordoned");
  r.state = RunState::kQueued;
  r.timed_out = true;
  --in_progress_;
  queue_.push_back(run);
  Advance(cluster);
}

void RollingUpgrade::FailDrain(ClusterControl& cluster, int run, const std::string& why) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const SimTime now = cluster.Now();
  nu.steps.push_back({now, "drain-failed", "", why});
  cluster.Record("DrainFailed", "", "node " + nu.node + ": unable to drain: " + why);
  CloseBlocked(run, now, true);
  cluster.SetCordoned(r.node, false);
  nu.steps.push_back({now, "uncordoned", "", "blocked: not requeued"});
  cluster.Record("Uncordoned", "", "node/" + nu.node + " uncordoned");
  r.state = RunState::kFailed;
  --in_progress_;
  Advance(cluster);
}

void RollingUpgrade::BringBack(ClusterControl& cluster, int run) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  NodeUpgrade& nu = timeline_.nodes[static_cast<size_t>(run)];
  const SimTime now = cluster.Now();
  cluster.BringNodeUp(r.node, options_.after);
  const std::string settings = SettingsText(options_.after);
  nu.steps.push_back({now, "back", "", settings});
  cluster.Record("NodeBack", "", "node " + nu.node + " back after its reset (" + settings + ")");
  cluster.SetCordoned(r.node, false);
  nu.steps.push_back({now, "uncordoned", "", ""});
  cluster.Record("Uncordoned", "", "node/" + nu.node + " uncordoned");
  nu.back = now;
  nu.outcome = "upgraded";
  r.state = RunState::kDone;
  --in_progress_;
  Advance(cluster);
}

void RollingUpgrade::CloseBlocked(int run, SimTime at, bool gave_up) {
  NodeRun& r = runs_[static_cast<size_t>(run)];
  for (const auto& [pod, index] : r.open_blocked) {
    timeline_.blocked[index].until = at;
    timeline_.blocked[index].gave_up = gave_up;
  }
  r.open_blocked.clear();
}

const UpgradeTimeline& RollingUpgrade::Finish(const ClusterControl& /*cluster*/) {
  return Finish();
}

const UpgradeTimeline& RollingUpgrade::Finish() {
  for (size_t i = 0; i < runs_.size(); ++i) {
    const NodeRun& r = runs_[i];
    NodeUpgrade& nu = timeline_.nodes[i];
    switch (r.state) {
      case RunState::kDone:
        nu.outcome = "upgraded";
        break;
      case RunState::kFailed:
      case RunState::kDraining:
        nu.outcome = "blocked";
        break;
      case RunState::kDown:
        nu.outcome = "in-progress";
        break;
      case RunState::kQueued:
        nu.outcome = r.timed_out ? "blocked" : "not-started";
        break;
    }
  }
  return timeline_;
}

}  // namespace knobsim

namespace knobsim {

Expected<std::vector<int>> UpgradePlanOrder(const Scenario& scenario, const UpgradeOptions& o) {
  auto fail = [](std::string field, std::string message, std::string hint = "") {
    return InputError{"", 0, std::move(field), std::move(message), std::move(hint)};
  };
  if (o.max_unavailable < 1)
    return fail("--max-unavailable", std::to_string(o.max_unavailable) + " is not at least 1",
                "at most this many nodes are cordoned at once; 1 drains one node at a time");
  if (o.reset_time < 0) return fail("--reset-time", "the reset time is negative");
  if (o.drain_timeout < 0)
    return fail("--drain-timeout", "the drain timeout is negative", "0 waits forever");
  if (o.retry_interval <= 0) return fail("--retry-interval", "the retry interval is not positive");
  if (o.tail < 0) return fail("--tail", "the tail is negative");
  // The cluster-autoscaler adding and removing nodes during the rolling drain is not modelled.
  for (const NodePool& pool : scenario.node_pools) {
    if (pool.autoscaling)
      return fail("node_pools",
                  "pool " + pool.name +
                      " autoscales: a rolling upgrade with the cluster-autoscaler "
                      "at work is not modelled",
                  "remove the pool's autoscaling: (its count is the size upgraded)");
  }

  // Every node in BuildCluster's order, with its pool and zone.
  struct Entry {
    std::string name, zone;
    size_t pool;
  };
  std::vector<Entry> all;
  std::vector<std::string> names;
  for (size_t p = 0; p < scenario.node_pools.size(); ++p) {
    const NodePool& pool = scenario.node_pools[p];
    for (int i = 0; i < pool.count; ++i) {
      all.push_back({PoolNodeName(pool, i), PoolNodeZone(pool, i), p});
      names.push_back(all.back().name);
    }
  }

  std::vector<int> order;
  if (o.order == UpgradeOrder::kNodeList) {
    if (!o.pools.empty())
      return fail("--pools", "--pools does not apply to --order node-list",
                  "--nodes is the scope there");
    if (o.nodes.empty())
      return fail("--nodes", "--order node-list needs the nodes to upgrade", "--nodes N1,N2,...");
    for (const std::string& n : o.nodes) {
      auto it = std::find(names.begin(), names.end(), n);
      if (it == names.end())
        return fail("--nodes", "unknown node " + Quote(n), SuggestName(n, names, "nodes:"));
      const int index = static_cast<int>(it - names.begin());
      if (std::find(order.begin(), order.end(), index) != order.end())
        return fail("--nodes", "node " + Quote(n) + " is listed twice");
      order.push_back(index);
    }
    return order;
  }

  if (!o.nodes.empty())
    return fail("--nodes", "--nodes needs --order node-list", "or leave --order out");
  std::vector<bool> in_scope(scenario.node_pools.size(), false);
  if (o.pools.empty()) {
    for (size_t p = 0; p < scenario.node_pools.size(); ++p)
      in_scope[p] =
          scenario.node_pools[p].gpus_per_node > 0 && !scenario.node_pools[p].gpu_type.empty();
  } else {
    std::vector<std::string> pool_names;
    for (const NodePool& p : scenario.node_pools) pool_names.push_back(p.name);
    for (const std::string& name : o.pools) {
      auto it = std::find(pool_names.begin(), pool_names.end(), name);
      if (it == pool_names.end())
        return fail("--pools", "unknown node pool " + Quote(name),
                    SuggestName(name, pool_names, "node pools:"));
      const auto p = static_cast<size_t>(it - pool_names.begin());
      if (in_scope[p]) return fail("--pools", "node pool " + Quote(name) + " is listed twice");
      in_scope[p] = true;
    }
  }
  for (size_t i = 0; i < all.size(); ++i)
    if (in_scope[all[i].pool]) order.push_back(static_cast<int>(i));
  if (order.empty())
    return fail("--pools",
                o.pools.empty() ? "no node pool with GPUs to upgrade"
                                : "the node pools given have no nodes",
                o.pools.empty() ? "name the pools with --pools or the nodes with --nodes" : "");
  if (o.order == UpgradeOrder::kZone) {
    // Zone by zone, sorted by name; inside a zone the pool order stays (a stable sort).
    std::stable_sort(order.begin(), order.end(), [&all](int a, int b) {
      return all[static_cast<size_t>(a)].zone < all[static_cast<size_t>(b)].zone;
    });
  }
  return order;
}

}  // namespace knobsim
