#include "sim/controllers/node_autoscaling.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "sim/autoscaling/node_group_expander.h"
#include "sim/controllers/daemon_sets.h"
#include "sim/controllers/disruption_budget.h"
#include "sim/controllers/pending_pods.h"
#include "sim/controllers/termination.h"
#include "sim/engine/simulator.h"
#include "sim/scenario_objects.h"
#include "sim/text.h"

namespace knobsim::engine {

namespace {

constexpr const char* kSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
constexpr const char* kScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled";

int64_t Get(const ResourceList& list, const char* key) {
  const auto it = list.find(key);
  return it == list.end() ? 0 : it->second;
}

const ClusterAutoscalerSettings& Settings(const EngineState& s) {
  return s.scenario.cluster.cluster_autoscaler;
}

bool Autoscaled(const EngineState& s, int pool) {
  return s.scenario.node_pools[pool].autoscaling.has_value();
}

// A pod the autoscaler packs: its spec and its run id.
struct PendingPod {
  int32_t pod;
  PodSpec spec;
};

// The copy of the cluster a simulation works on, with its own scheduler.
struct Trial {
  explicit Trial(const ClusterState& base, const SchedulerConfig& config)
      : cluster(base), scheduler(cluster, config) {}
  ClusterState cluster;
  Scheduler scheduler;
};

// What one pool's new nodes would take (expander.Option), and which pods.
struct PoolOption {
  autoscaling::ExpansionOption option;
  std::vector<int32_t> pods;   // the pods its new nodes take
  std::vector<int32_t> nodes;  // the slots that become its new nodes, in order
};

// estimator.DecreasingPodOrderer: cpu/alloc + memory/alloc of the template, largest first.
void OrderForTemplate(std::vector<const PendingPod*>& pods, const NodeSpec& node) {
  const double cpu = std::max<double>(1, static_cast<double>(Get(node.allocatable, "cpu")));
  const double memory = std::max<double>(1, static_cast<double>(Get(node.allocatable, "memory")));
  const auto score = [&](const PendingPod* p) {
    return static_cast<double>(Get(p->spec.requests, "cpu")) / cpu +
           static_cast<double>(Get(p->spec.requests, "memory")) / memory;
  };
  std::stable_sort(pods.begin(), pods.end(),
                   [&](const PendingPod* a, const PendingPod* b) { return score(a) > score(b); });
}

// The binpacking estimate for one pool: new nodes are its absent slots in ordinal order; one is
// added when a pod fits on none of the nodes so far, and dropped again when the pod does not
// fit on it empty either (it would not fit on any new node of the pool).
PoolOption EstimatePool(const EngineState& s, const ClusterState& with_upcoming, int pool,
                        const std::vector<PendingPod>& pending) {
  const NodePool& spec = s.scenario.node_pools[pool];
  const PoolRun& run = s.pools[pool];
  PoolOption out;
  std::vector<int32_t> free_slots;
  for (int32_t n : run.nodes)
    if (s.nodes[n].absent && !s.nodes[n].provisioning) free_slots.push_back(n);
  const int room = std::min<int>(spec.autoscaling->max - run.size, free_slots.size());
  if (room <= 0 || free_slots.empty()) return out;
  const NodeSpec& template_node = with_upcoming.node(free_slots.front()).spec;
  std::vector<const PendingPod*> order;
  for (const PendingPod& p : pending) {
    // A template node without aliyun.com/gpu-mem (upstream's alicloud provider) takes no
    // shared-GPU pod.
    if (!Settings(s).knows_gpu_share && p.spec.gpu_mem > 0) continue;
    order.push_back(&p);
  }
  OrderForTemplate(order, template_node);
  Trial trial(with_upcoming, s.config);
  std::vector<char> is_new(with_upcoming.nodes().size(), 0);
  for (const PendingPod* p : order) {
    ScheduleResult r = trial.scheduler.ScheduleAndBind(p->spec);
    if (r.placement.node < 0 && static_cast<int>(out.nodes.size()) < room) {
      const int32_t slot = free_slots[out.nodes.size()];
      trial.cluster.SetAbsent(slot, false);
      // The template node holds the DaemonSet pods a new node would run.
      std::vector<int> daemons;
      BindTemplateDaemonPods(s, pool, trial.cluster, slot, &daemons);
      r = trial.scheduler.ScheduleAndBind(p->spec);
      if (r.placement.node == slot) {
        out.nodes.push_back(slot);
        is_new[slot] = 1;
      } else {
        if (r.placement.node >= 0) trial.cluster.Unbind(trial.cluster.pods().size() - 1);
        for (int d : daemons) trial.cluster.Unbind(d);
        trial.cluster.SetAbsent(slot, true);  // it does not fit the template: no node for it
        continue;
      }
    }
    if (r.placement.node < 0 || !is_new[r.placement.node]) continue;
    out.pods.push_back(p->pod);
    out.option.requested_cpu_milli += Get(p->spec.requests, "cpu");
    out.option.requested_memory_bytes += Get(p->spec.requests, "memory");
  }
  out.option.group = pool;
  out.option.node_count = static_cast<int>(out.nodes.size());
  out.option.pods = static_cast<int>(out.pods.size());
  out.option.node_cpu_milli = Get(template_node.capacity, "cpu");
  out.option.node_memory_bytes = Get(template_node.capacity, "memory");
  out.option.priority = spec.autoscaling->priority;
  return out;
}

// Why a pod fits no new node of a pool: the scheduler's reasons on the pool's template alone
// ("Insufficient cpu"), or the group's bound.
std::string TemplateReason(const EngineState& s, int pool, const PodSpec& pod) {
  const PoolRun& run = s.pools[pool];
  if (run.backoff.Active(s.now)) return "in backoff after failed scale-up";
  if (run.size >= s.scenario.node_pools[pool].autoscaling->max)
    return "max node group size reached";
  if (!Settings(s).knows_gpu_share && pod.gpu_mem > 0)
    return "Insufficient aliyun.com/gpu-mem";  // the template does not declare it
  int32_t slot = -1;
  for (int32_t n : run.nodes) {
    if (s.nodes[n].absent && !s.nodes[n].provisioning) {
      slot = n;
      break;
    }
  }
  if (slot < 0) return "max node group size reached";
  ClusterState alone;
  alone.AddNode(s.cluster_state.node(slot).spec);
  BindTemplateDaemonPods(s, pool, alone, 0, nullptr);
  Scheduler scheduler(alone, s.config);
  const ScheduleResult r = scheduler.Schedule(pod);
  // "0/1 nodes are available: 1 Insufficient cpu. preemption: ..." -> "Insufficient cpu".
  std::string reason = r.message;
  if (const size_t at = reason.find(": 1 "); at != std::string::npos)
    reason = reason.substr(at + 4);
  if (const size_t dot = reason.find('.'); dot != std::string::npos) reason.resize(dot);
  return reason.empty() ? "no fit on a new node" : reason;
}

std::string ScaleUpInfo(const EngineState& s, int pool, int added) {
  const PoolRun& run = s.pools[pool];
  const NodePool& spec = s.scenario.node_pools[pool];
  return "{" + spec.name + " " + std::to_string(run.size) + "->" +
         std::to_string(run.size + added) + " (max: " + std::to_string(spec.autoscaling->max) +
         ")}";
}

// One new node of a scale-up: its instance is created (a spot pool's may find no inventory:
// then a pay-as-you-go one with compensate_with_on_demand, or none, and the node never
// registers) and it is Ready after the pool's provisioning delay.
void StartProvisioning(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  const NodePool& spec = s.scenario.node_pools[node.pool];
  PoolRun& run = s.pools[node.pool];
  node.provisioning = true;
  const PoolAutoscaling& a = *spec.autoscaling;
  const SimTime spread = a.provisioning_max - a.provisioning_min;
  const SimTime delay =
      a.provisioning_min +
      (spread > 0 ? static_cast<SimTime>(run.provisioning.Uniform01() * static_cast<double>(spread))
                  : 0);
  // Drawn only for pools that can stock out, so that other pools' streams stay as they were.
  const bool stocked_out = spec.spot.per_node_hour > 0 && spec.spot.stockout > 0 &&
                           run.stock.Uniform01() < spec.spot.stockout;
  if (stocked_out && spec.spot.compensate_with_on_demand) {
    node.on_demand = true;
    ++run.on_demand;
    sim.recorder.NodeEvent("SpotStockout", n,
                           "no spot inventory at the bid: a pay-as-you-go instance is created "
                           "instead (compensate_with_on_demand)");
  } else if (stocked_out) {
    node.stocked_out = true;
    ++run.phantom;
    sim.recorder.NodeEvent("SpotStockout", n,
                           "no spot inventory at the bid: no instance was created, the node will "
                           "not register");
    s.queue.Push(s.now + Settings(s).max_node_provision_time, kProvisionTimeout,
                 static_cast<uint32_t>(n));
    return;
  }
  s.queue.Push(s.now + delay, kNodeProvisioned, static_cast<uint32_t>(n));
}

// Step 1. Returns whether the loop scaled up.
bool ScaleUp(Simulator& sim) {
  EngineState& s = sim.state;
  const ClusterAutoscalerSettings& settings = Settings(s);
  std::vector<PendingPod> pending;
  for (int32_t p : s.pending) {
    const PodRun& pod = s.pods[p];
    if (pod.gone || pod.terminating) continue;
    const Workload& w = *s.workloads[pod.workload].spec;
    if (w.priority < settings.expendable_pods_priority_cutoff) continue;
    if (!pod.daemon_node.empty()) continue;  // pinned to its node: a new node cannot help it
    pending.push_back({p, RunPodSpec(s, p)});
  }
  if (pending.empty()) return false;

  // The upcoming nodes take what fits on them (filterOutSchedulableByPacking).
  Trial upcoming(s.cluster_state, s.config);
  for (size_t n = 0; n < s.nodes.size(); ++n)
    if (s.nodes[n].provisioning) upcoming.cluster.SetAbsent(static_cast<int>(n), false);
  std::vector<PendingPod> left;
  for (PendingPod& p : pending) {
    if (upcoming.scheduler.ScheduleAndBind(p.spec).placement.node < 0) left.push_back(std::move(p));
  }
  if (left.empty()) return false;

  std::vector<PoolOption> options;
  std::vector<autoscaling::ExpansionOption> plain;
  for (int pool = 0; pool < static_cast<int>(s.pools.size()); ++pool) {
    if (!Autoscaled(s, pool) || s.pools[pool].backoff.Active(s.now)) continue;
    PoolOption o = EstimatePool(s, upcoming.cluster, pool, left);
    if (o.option.node_count == 0 || o.pods.empty()) continue;
    plain.push_back(o.option);
    options.push_back(std::move(o));
  }
  const autoscaling::ExpanderParse chain = autoscaling::ParseExpanderChain(settings.expander);
  const int pick = autoscaling::ChooseExpansion(plain, chain.chain, s.expander_stream);

  std::vector<char> helped(s.pods.size(), 0);
  if (pick >= 0) {
    const PoolOption& chosen = options[pick];
    const int pool = chosen.option.group;
    const std::string info = "[" + ScaleUpInfo(s, pool, chosen.option.node_count) + "]";
    CloseNodeTime(s, pool);
    for (int32_t n : chosen.nodes) StartProvisioning(sim, n);
    ResizePool(s, pool, chosen.option.node_count);
    s.pools[pool].nodes_added += chosen.option.node_count;
    s.last_scale_up = s.now;
    for (int32_t p : chosen.pods) {
      helped[p] = 1;
      s.pods[p].autoscaler_message = "pod triggered scale-up: " + info;
      sim.recorder.PodEvent("TriggeredScaleUp", p, s.pods[p].autoscaler_message);
    }
  }
  // The others: why no pool helps, counted over the pools (ReasonsMessage).
  for (const PendingPod& p : left) {
    if (helped[p.pod]) continue;
    std::map<std::string, int> reasons;
    for (int pool = 0; pool < static_cast<int>(s.pools.size()); ++pool) {
      if (!Autoscaled(s, pool)) continue;
      bool in_option = false;
      for (const PoolOption& o : options)
        if (o.option.group == pool &&
            std::find(o.pods.begin(), o.pods.end(), p.pod) != o.pods.end())
          in_option = true;
      // A pool that could take it but was not chosen gives no reason (upstream: the pod waits
      // for the next loop).
      if (!in_option) ++reasons[TemplateReason(s, pool, p.spec)];
    }
    if (reasons.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& [reason, count] : reasons)
      parts.push_back(std::to_string(count) + " " + reason);
    const std::string message = "pod didn't trigger scale-up: " + Join(parts);
    if (message == s.pods[p.pod].autoscaler_message) continue;
    s.pods[p.pod].autoscaler_message = message;
    sim.recorder.PodEvent("NotTriggerScaleUp", p.pod, message);
  }
  return pick >= 0;
}

// simulator/utilization: max(cpu, memory) over allocatable, or the GPU share on a GPU node.
struct NodeUtilization {
  double value = 0;
  bool gpu = false;
};

NodeUtilization Utilization(const EngineState& s, int32_t n) {
  const NodeState& node = s.cluster_state.node(n);
  NodeUtilization u;
  if (!node.cards.empty()) {
    u.gpu = true;
    double used = 0;
    for (const CardState& c : node.cards) {
      if (c.whole) {
        used += 1;
      } else if (c.replicas > 0) {
        // Replicas of a shared card: the autoscaler counts nvidia.com/gpu requested / allocatable.
        used += static_cast<double>(c.used_replicas) / c.replicas;
      } else if (Settings(s).knows_gpu_share && c.total_mem > 0) {
        used += static_cast<double>(c.used_mem) / c.total_mem;
      }
    }
    u.value = used / static_cast<double>(node.cards.size());
    return u;
  }
  const auto ratio = [&](const char* key) {
    const int64_t alloc = Get(node.spec.allocatable, key);
    return alloc > 0 ? static_cast<double>(Get(node.requested, key)) / alloc : 0.0;
  };
  u.value = std::max(ratio("cpu"), ratio("memory"));
  return u;
}

// The pods a removal must move: every pod on the node but DaemonSet pods and leaving ones.
// Returns false when one of them blocks the removal.
bool PodsToMove(const EngineState& s, int32_t n, std::vector<int32_t>* out) {
  for (int32_t p : s.nodes[n].pods) {
    const PodRun& pod = s.pods[p];
    if (pod.gone || pod.terminating) continue;
    const Workload& w = *s.workloads[pod.workload].spec;
    const auto safe = w.annotations.find(kSafeToEvict);
    if (safe != w.annotations.end() && safe->second == "false") return false;
    if (w.kind == "DaemonSet") continue;
    if (w.kind == "Pod" && (safe == w.annotations.end() || safe->second != "true")) return false;
    out->push_back(p);
  }
  return true;
}

// Whether the Eviction API would let every pod to move go, one after the other (each evicted
// one terminating for the next: upstream's drain simulation keeps the budgets it used up). A
// 429 or a pod under two budgets blocks the node ("not enough pod disruption budget").
bool BudgetsAllow(const Scenario& scenario, std::vector<PodView> pods,
                  const std::vector<int32_t>& to_move) {
  for (int32_t p : to_move) {
    auto it = std::find_if(pods.begin(), pods.end(), [&](const PodView& v) { return v.id == p; });
    if (it == pods.end()) continue;
    const EvictionOutcome outcome = EvaluateEviction(scenario, pods, *it).decision.outcome;
    if (outcome == EvictionOutcome::kTooManyRequests ||
        outcome == EvictionOutcome::kMultipleBudgets)
      return false;
    it->terminating = true;
  }
  return true;
}

// A change counter of the scheduler's cluster: every bind, unbind, cordon and membership change
// moves some node's generation.
uint64_t Revision(const ClusterState& cluster) {
  uint64_t sum = 0;
  for (const NodeState& n : cluster.nodes()) sum += n.generation;
  return sum;
}

// The copy of the cluster the scale-down simulation moves pods on, made once per loop when a
// node needs the check, and put back after each node's check.
class DrainSimulation {
 public:
  explicit DrainSimulation(const EngineState& s) : s_(s) {}

  // Whether every pod to move fits on the other nodes (the node, and `also_gone`, gone).
  bool PodsFitElsewhere(int32_t n, const std::vector<int32_t>& pods,
                        const std::vector<int32_t>& also_gone = {}) {
    if (pods.empty()) return true;
    if (!trial_) trial_ = std::make_unique<Trial>(s_.cluster_state, s_.config);
    ClusterState& cluster = trial_->cluster;
    struct Moved {
      PodSpec spec;
      Placement was;
    };
    std::vector<Moved> moved;
    for (int32_t p : pods) {
      const int index = s_.pods[p].state_pod;
      if (index < 0) continue;
      moved.push_back({cluster.pod(index), cluster.placement(index)});
      cluster.Unbind(index);
    }
    cluster.SetAbsent(n, true);
    for (int32_t g : also_gone) cluster.SetAbsent(g, true);
    std::vector<int> placed;
    bool fits = true;
    for (int32_t p : pods) {
      const PodSpec spec = RunPodSpec(s_, p);
      const int index = static_cast<int>(cluster.pods().size());
      if (trial_->scheduler.ScheduleAndBind(spec).placement.node < 0) {
        fits = false;
        break;
      }
      placed.push_back(index);
    }
    // Put the copy back as it was (the moved pods at their places, new indexes).
    for (int index : placed) cluster.Unbind(index);
    cluster.SetAbsent(n, false);
    for (int32_t g : also_gone) cluster.SetAbsent(g, false);
    for (Moved& m : moved) cluster.Bind(std::move(m.spec), m.was);
    return fits;
  }

 private:
  const EngineState& s_;
  std::unique_ptr<Trial> trial_;
};

void FinishRemoval(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  TakeOutOfPool(s, n);
  ++s.pools[s.nodes[n].pool].nodes_removed;
  sim.recorder.NodeEvent("ScaleDown", n, "nodes removed by cluster autoscaler");
}

void StartRemoval(Simulator& sim, int32_t n, const std::vector<int32_t>& pods) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  node.removing = true;
  s.cluster_state.SetUnschedulable(n, true);
  s.last_scale_down = s.now;
  sim.recorder.NodeEvent("ScaleDown", n, "marked the node as toBeDeleted/unschedulable");
  for (int32_t p : pods) {
    sim.recorder.PodEvent("ScaleDown", p, "deleting pod for node scale down");
    DeletePod(sim, p, "deleting pod for node scale down");
  }
  // DaemonSet pods go with the node, and their DaemonSet wants one pod fewer.
  const std::vector<int32_t> on = s.nodes[n].pods;
  for (int32_t p : on) {
    if (!s.pods[p].daemon_node.empty() && !s.pods[p].terminating)
      --s.workloads[s.pods[p].workload].desired;
    DeletePod(sim, p, "its node is removed by the cluster autoscaler");
  }
}

// Step 2.
void ScaleDown(Simulator& sim) {
  EngineState& s = sim.state;
  const ClusterAutoscalerSettings& settings = Settings(s);
  std::vector<int32_t> removable;  // unneeded for long enough, by index
  std::vector<std::vector<int32_t>> moves(s.nodes.size());
  const uint64_t revision = Revision(s.cluster_state);
  // The run's pods as the API server lists them, for the budgets; only with PDBs.
  std::optional<std::vector<PodView>> listed;
  const auto budgets_allow = [&](int32_t n) {
    if (s.scenario.kube.pdbs.empty() || moves[n].empty()) return true;
    if (!listed) listed = sim.control.Pods();
    return BudgetsAllow(s.scenario, *listed, moves[n]);
  };
  DrainSimulation drain(s);
  const auto fits_elsewhere = [&](int32_t n) {
    NodeRun& node = s.nodes[n];
    if (node.movable_revision != revision) {
      node.movable = drain.PodsFitElsewhere(n, moves[n]);
      node.movable_revision = revision;
    }
    return node.movable;
  };
  for (int32_t n = 0; n < static_cast<int32_t>(s.nodes.size()); ++n) {
    NodeRun& node = s.nodes[n];
    if (!Autoscaled(s, node.pool) || node.absent || node.provisioning || node.removing ||
        node.notified || node.down()) {
      node.unneeded_since = -1;
      continue;
    }
    const NodeUtilization u = Utilization(s, n);
    const double threshold =
        u.gpu ? settings.gpu_utilization_threshold : settings.utilization_threshold;
    const NodeSpec& spec = s.cluster_state.node(n).spec;
    const auto disabled = spec.annotations.find(kScaleDownDisabled);
    bool unneeded = u.value <= threshold &&
                    (disabled == spec.annotations.end() || disabled->second != "true") &&
                    PodsToMove(s, n, &moves[n]) && budgets_allow(n) && fits_elsewhere(n);
    if (!unneeded) {
      node.unneeded_since = -1;
      continue;
    }
    if (node.unneeded_since < 0) node.unneeded_since = s.now;
    if (s.now - node.unneeded_since >= settings.unneeded_time) removable.push_back(n);
  }
  if (s.last_scale_up >= 0 && s.now - s.last_scale_up < settings.delay_after_add) return;
  if (s.last_scale_down >= 0 && s.now - s.last_scale_down < settings.delay_after_delete) return;
  bool draining = false;
  for (const NodeRun& node : s.nodes) draining |= node.removing;
  std::vector<int> size(s.pools.size());
  for (size_t p = 0; p < s.pools.size(); ++p) size[p] = s.pools[p].size;
  // Empty nodes first, in bulk, then at most one node to drain (upstream's actuator deletes the
  // empty ones first). The removals of one loop are simulated together: the node to drain must
  // place its pods without the empty nodes going with it. All are cordoned before any pod moves,
  // so that no replacement lands on a node of the same removal.
  std::stable_partition(removable.begin(), removable.end(),
                        [&](int32_t n) { return moves[n].empty(); });
  std::vector<int32_t> chosen;
  int empty_removed = 0;
  for (int32_t n : removable) {
    const int pool = s.nodes[n].pool;
    if (size[pool] <= s.scenario.node_pools[pool].autoscaling->min) continue;
    if (moves[n].empty()) {
      if (empty_removed >= settings.max_scale_down_parallelism) continue;
      ++empty_removed;
    } else {
      if (draining) continue;
      if (!chosen.empty() && !drain.PodsFitElsewhere(n, moves[n], chosen)) continue;
      draining = true;
    }
    --size[pool];
    chosen.push_back(n);
  }
  for (int32_t n : chosen) s.cluster_state.SetUnschedulable(n, true);
  for (int32_t n : chosen) {
    StartRemoval(sim, n, moves[n]);
    if (s.nodes[n].pods.empty()) FinishRemoval(sim, n);
  }
}

}  // namespace

void CloseNodeTime(EngineState& s, int pool) {
  PoolRun& p = s.pools[pool];
  const double billed = p.size - p.phantom;
  p.node_ns += billed * static_cast<double>(s.now - p.since);
  p.on_demand_node_ns += p.on_demand * static_cast<double>(s.now - p.since);
  if (const SimTime step = s.options.timeline_step; step > 0) {
    for (SimTime from = p.since; from < s.now;) {
      const auto k = static_cast<size_t>(from / step);
      const SimTime to = std::min(s.now, static_cast<SimTime>(k + 1) * step);
      if (p.step_node_ns.size() <= k) p.step_node_ns.resize(k + 1, 0.0);
      p.step_node_ns[k] += billed * static_cast<double>(to - from);
      from = to;
    }
  }
  p.since = s.now;
}

void TakeOutOfPool(EngineState& s, int32_t n) {
  NodeRun& node = s.nodes[n];
  node.removing = false;
  node.absent = true;
  node.unneeded_since = -1;
  node.images.clear();
  s.cluster_state.SetUnschedulable(n, false);
  s.cluster_state.SetAbsent(n, true);
  if (node.on_demand) {
    CloseNodeTime(s, node.pool);
    node.on_demand = false;
    --s.pools[node.pool].on_demand;
  }
  ResizePool(s, node.pool, -1);
}

void ResizePool(EngineState& s, int pool, int delta) {
  CloseNodeTime(s, pool);
  PoolRun& p = s.pools[pool];
  p.size += delta;
  p.size_min = std::min(p.size_min, p.size - p.phantom);
  p.size_max = std::max(p.size_max, p.size - p.phantom);
}

void StartClusterAutoscaler(Simulator& sim) {
  EngineState& s = sim.state;
  bool any = false;
  for (int pool = 0; pool < static_cast<int>(s.pools.size()); ++pool) any |= Autoscaled(s, pool);
  if (any) s.queue.Push(0, kAutoscalerScan, 0);
}

void RunAutoscalerLoop(Simulator& sim) {
  EngineState& s = sim.state;
  const SimTime next = s.now + Settings(s).scan_interval;
  if (next <= s.end) s.queue.Push(next, kAutoscalerScan, 0);
  // Removals whose last pod has left end now.
  for (int32_t n = 0; n < static_cast<int32_t>(s.nodes.size()); ++n) {
    if (!s.nodes[n].removing) continue;
    bool left = true;
    for (int32_t p : s.nodes[n].pods) left &= s.pods[p].gone;
    if (left) FinishRemoval(sim, n);
  }
  if (ScaleUp(sim)) return;
  if (Settings(s).scale_down) ScaleDown(sim);
}

void JoinProvisionedNode(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  if (!node.provisioning) return;
  node.provisioning = false;
  node.absent = false;
  node.joined_at = s.now;
  node.unneeded_since = -1;
  node.pods.clear();
  node.images.clear();
  s.cluster_state.SetUnschedulable(n, false);
  s.cluster_state.SetAbsent(n, false);
  sim.recorder.NodeEvent("NodeReady", n,
                         "joined: a node of pool " + s.scenario.node_pools[node.pool].name +
                             " added by the cluster autoscaler is Ready");
  CreateDaemonPods(sim, n);
  SchedulePending(sim);
}

void GiveUpProvisioning(Simulator& sim, int32_t n) {
  EngineState& s = sim.state;
  NodeRun& node = s.nodes[n];
  if (!node.stocked_out) return;
  PoolRun& run = s.pools[node.pool];
  CloseNodeTime(s, node.pool);
  node.stocked_out = false;
  node.provisioning = false;
  --run.phantom;
  ResizePool(s, node.pool, -1);
  ++run.failed_scale_ups;
  run.backoff.Fail(s.now, Settings(s).backoff);
  const SimTime limit = Settings(s).max_node_provision_time;
  sim.recorder.NodeEvent("ScaleUpTimedOut", n,
                         "did not register within " + std::to_string(limit / kNanosPerSecond) +
                             " s (nodes added to group " + s.scenario.node_pools[node.pool].name +
                             " failed to register); the group is backed off for " +
                             std::to_string(run.backoff.duration() / kNanosPerSecond) + " s");
}

std::vector<PoolTimeline> PoolTimelines(EngineState& s) {
  std::vector<PoolTimeline> out;
  const SimTime step = s.options.timeline_step;
  if (step <= 0) return out;
  const SimTime end = s.now;
  const size_t steps = static_cast<size_t>(std::max<SimTime>(1, (end + step - 1) / step));
  for (int pool = 0; pool < static_cast<int>(s.pools.size()); ++pool) {
    if (!Autoscaled(s, pool)) continue;  // a fixed pool keeps its count: nothing to draw
    ResizePool(s, pool, 0);
    PoolRun& run = s.pools[pool];
    run.step_node_ns.resize(steps, 0.0);
    PoolTimeline t;
    t.name = s.scenario.node_pools[pool].name;
    for (size_t k = 0; k < steps; ++k) {
      const SimTime from = static_cast<SimTime>(k) * step;
      const SimTime to = std::min(end, from + step);
      t.points.push_back({from, to > from ? run.step_node_ns[k] / static_cast<double>(to - from)
                                          : static_cast<double>(run.size - run.phantom)});
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<PoolResult> PoolResults(EngineState& s) {
  std::vector<PoolResult> out;
  const double hours = 3600.0 * 1e9;
  const double run_ns = std::max<double>(1, static_cast<double>(s.now));
  for (int pool = 0; pool < static_cast<int>(s.pools.size()); ++pool) {
    ResizePool(s, pool, 0);
    const PoolRun& run = s.pools[pool];
    PoolResult r;
    r.name = s.scenario.node_pools[pool].name;
    r.autoscaled = Autoscaled(s, pool);
    r.nodes_start = run.size_at_start;
    r.nodes_end = run.size - run.phantom;  // a stocked-out node never existed
    r.nodes_min = run.size_min;
    r.nodes_max = run.size_max;
    r.nodes_mean = run.node_ns / run_ns;
    r.node_hours = run.node_ns / hours;
    r.nodes_added = run.nodes_added;
    r.nodes_removed = run.nodes_removed;
    r.spot = s.scenario.node_pools[pool].spot.per_node_hour > 0;
    r.nodes_reclaimed = run.nodes_reclaimed;
    r.failed_scale_ups = run.failed_scale_ups;
    r.on_demand_node_hours = run.on_demand_node_ns / hours;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace knobsim::engine
