#include "sim/backtest/independent_parts.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <set>
#include <utility>

#include "sim/cluster.h"
#include "sim/engine/simulation.h"
#include "sim/scenario_objects.h"
#include "sim/traffic.h"

namespace knobsim::backtest {
namespace {

std::string Id(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

// Why the workload's run could reach beyond its nodes; empty when it cannot.
std::string Reaches(const Workload& w) {
  const std::string id = Id(w.namespace_, w.name);
  if (w.hpa) return id + " has an HPA";
  if (w.cron_hpa) return id + " has a CronHPA";
  for (const CurrentPod& p : w.pods)
    if (!p.ready) return id + " has a replica that is not Ready at the start";
  if (static_cast<int>(w.pods.size()) != w.replicas)
    return id + " has replicas the start did not place (not from PlacedAtStart)";
  return "";
}

std::string PoolReaches(const NodePool& pool) {
  if (pool.autoscaling) return "node pool " + pool.name + " autoscales";
  if (pool.spot.per_node_hour > 0) return "node pool " + pool.name + " has spot reclaims";
  return "";
}

int Find(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// The expected requests of a workload over the run, plus one per replica so that idle groups
// still spread.
double Weight(const Workload& w, SimTime duration) {
  return MeanRate(w.traffic, duration) * static_cast<double>(duration) / 1e9 + w.replicas;
}

}  // namespace

Scenario PlacedAtStart(const Scenario& whole, uint64_t seed) {
  // A run that ends as it starts: PlacePods places every replica before the first event.
  RunOptions start;
  start.duration = 1;
  const RunResult placed = Simulate(whole, seed, start);
  std::map<std::string, std::vector<const PodResult*>> pods_of;  // by workload, replica order
  for (const PodResult& p : placed.pods) pods_of[Id(p.namespace_, p.workload)].push_back(&p);
  Scenario out = whole;
  for (Workload& w : out.workloads) {
    const std::vector<const PodResult*>& pods = pods_of[Id(w.namespace_, w.name)];
    std::vector<CurrentPod> current;
    for (size_t i = 0; i < pods.size(); ++i) {
      CurrentPod c = i < w.pods.size() ? w.pods[i] : CurrentPod{};
      c.name = pods[i]->name;
      c.node = pods[i]->node;
      c.cards = pods[i]->cards;
      current.push_back(std::move(c));
    }
    w.pods = std::move(current);
  }
  return out;
}

std::optional<ScenarioParts> SplitIndependent(const Scenario& placed, int max_parts,
                                              std::string* why) {
  auto refuse = [why](std::string reason) -> std::optional<ScenarioParts> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  for (const NodePool& pool : placed.node_pools)
    if (std::string r = PoolReaches(pool); !r.empty()) return refuse(r);
  const int n = static_cast<int>(placed.workloads.size());
  for (const Workload& w : placed.workloads)
    if (std::string r = Reaches(w); !r.empty()) return refuse(r);

  // Workloads with a pod on the same card are one group; a pod on no card (CPU only, or
  // Pending) joins none.
  std::vector<int> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  std::map<std::pair<std::string, int>, int> first_on_card;
  for (int wi = 0; wi < n; ++wi) {
    for (const CurrentPod& p : placed.workloads[wi].pods) {
      for (int card : p.cards) {
        const auto [at, added] = first_on_card.emplace(std::pair(p.node, card), wi);
        if (!added) parent[Find(parent, wi)] = Find(parent, at->second);
      }
    }
  }
  std::map<int, std::vector<int>> groups;  // in order of their first workload
  for (int wi = 0; wi < n; ++wi) groups[Find(parent, wi)].push_back(wi);
  if (groups.size() < 2) return refuse("every workload shares cards with the others");
  struct Group {
    std::vector<int> workloads;
    double weight = 0;
  };
  std::vector<Group> ordered;
  for (auto& [root, members] : groups) {
    Group g{std::move(members), 0};
    for (int wi : g.workloads) g.weight += Weight(placed.workloads[wi], placed.run.duration);
    ordered.push_back(std::move(g));
  }
  // Longest processing time first: the heaviest group to the lightest part (ties: the earlier).
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const Group& a, const Group& b) { return a.weight > b.weight; });
  const size_t parts = std::min(ordered.size(), static_cast<size_t>(std::max(1, max_parts)));
  if (parts < 2) return refuse("one part asked for");
  ScenarioParts out;
  out.workloads.resize(parts);
  std::vector<double> load(parts, 0);
  for (const Group& g : ordered) {
    const size_t k = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[k] += g.weight;
    out.workloads[k].insert(out.workloads[k].end(), g.workloads.begin(), g.workloads.end());
  }
  // Each part's nodes: those its pods run on; the first part's also those no pod runs on.
  const Cluster cluster = BuildCluster(placed);
  for (size_t i = 0; i < cluster.nodes.size(); ++i)
    out.node_order.emplace(cluster.nodes[i].name, static_cast<int>(i));
  std::vector<std::set<std::string>> nodes(parts);
  std::set<std::string> with_pods;
  for (size_t k = 0; k < parts; ++k) {
    std::sort(out.workloads[k].begin(), out.workloads[k].end());
    for (int wi : out.workloads[k]) {
      for (const CurrentPod& p : placed.workloads[wi].pods) {
        if (p.node.empty()) continue;
        nodes[k].insert(p.node);
        with_pods.insert(p.node);
        for (int card : p.cards) out.part_of_card[{p.node, card}] = static_cast<int>(k);
      }
    }
  }
  for (const Node& node : cluster.nodes)
    if (!with_pods.count(node.name)) nodes[0].insert(node.name);
  for (size_t k = 0; k < parts; ++k) {
    std::vector<std::string> ordered_nodes(nodes[k].begin(), nodes[k].end());
    std::sort(ordered_nodes.begin(), ordered_nodes.end(),
              [&out](const std::string& a, const std::string& b) {
                return out.node_order.at(a) < out.node_order.at(b);
              });
    for (const std::string& node : ordered_nodes)
      out.first_part_of_node.emplace(node, static_cast<int>(k));
    out.nodes.push_back(std::move(ordered_nodes));
  }
  return out;
}

Scenario PartScenario(const Scenario& placed, const ScenarioParts& parts, int k) {
  const std::set<std::string> nodes(parts.nodes[k].begin(), parts.nodes[k].end());
  Scenario part = placed;
  part.workloads.clear();
  part.variants.clear();
  for (int wi : parts.workloads[k]) part.workloads.push_back(placed.workloads[wi]);
  // The residents: the other groups' pods on this part's nodes hold their cards and count on
  // their nodes as in the whole, and serve nothing.
  const std::set<int> own(parts.workloads[k].begin(), parts.workloads[k].end());
  for (int wi = 0; wi < static_cast<int>(placed.workloads.size()); ++wi) {
    if (own.count(wi)) continue;
    Workload resident = placed.workloads[wi];
    resident.pods.clear();
    for (const CurrentPod& p : placed.workloads[wi].pods)
      if (!p.node.empty() && nodes.count(p.node)) resident.pods.push_back(p);
    if (resident.pods.empty()) continue;
    resident.replicas = static_cast<int>(resident.pods.size());
    resident.traffic = Traffic{};
    part.workloads.push_back(std::move(resident));
  }
  part.node_pools.clear();
  for (const NodePool& pool : placed.node_pools) {
    NodePool kept = pool;
    kept.nodes.clear();
    for (int ordinal = 0; ordinal < pool.slots(); ++ordinal) {
      const std::string name = PoolNodeName(pool, ordinal);
      if (!nodes.count(name)) continue;
      // Named, and zoned as in the whole: a pool's default names and zones follow the ordinal.
      PoolNode node = ordinal < static_cast<int>(pool.nodes.size()) ? pool.nodes[ordinal]
                                                                    : PoolNode{name, "", {}};
      node.zone = PoolNodeZone(pool, ordinal);
      kept.nodes.push_back(std::move(node));
    }
    kept.count = static_cast<int>(kept.nodes.size());
    if (kept.count > 0) part.node_pools.push_back(std::move(kept));
  }
  return part;
}

bool PodsStayed(const Scenario& part, const RunResult& run) {
  std::map<std::string, const std::string*> started;  // namespace/name -> node ("": Pending)
  for (const Workload& w : part.workloads)
    for (const CurrentPod& p : w.pods) started.emplace(Id(w.namespace_, p.name), &p.node);
  if (run.pods.size() != started.size()) return false;
  for (const PodResult& p : run.pods) {
    const auto at = started.find(Id(p.namespace_, p.name));
    if (at == started.end() || *at->second != p.node) return false;
  }
  return true;
}

void KeepOwnCards(const ScenarioParts& parts, int k, RunTimeline& timeline) {
  std::erase_if(timeline.cards, [&parts, k](const CardTimeline& card) {
    const auto owner = parts.part_of_card.find({card.node, card.index});
    if (owner != parts.part_of_card.end()) return owner->second != k;
    const auto first = parts.first_part_of_node.find(card.node);
    return first == parts.first_part_of_node.end() || first->second != k;
  });
}

RunTimeline MergePartTimelines(const Scenario& whole, const ScenarioParts& parts,
                               std::span<RunResult> runs) {
  RunTimeline out;
  if (runs.empty()) return out;
  out.step = runs.front().timeline.step;
  out.pools = runs.front().timeline.pools;
  out.workloads.resize(whole.workloads.size());
  for (size_t k = 0; k < parts.workloads.size() && k < runs.size(); ++k) {
    RunTimeline& t = runs[k].timeline;
    out.end = std::max(out.end, t.end);
    // The part's own workloads come first, the residents after them.
    for (size_t local = 0; local < parts.workloads[k].size(); ++local)
      out.workloads[parts.workloads[k][local]] = std::move(t.workloads.at(local));
    std::move(t.cards.begin(), t.cards.end(), std::back_inserter(out.cards));
  }
  auto order = [&parts](const CardTimeline& c) {
    const auto at = parts.node_order.find(c.node);
    return std::pair(at != parts.node_order.end() ? at->second : -1, c.index);
  };
  std::stable_sort(
      out.cards.begin(), out.cards.end(),
      [&order](const CardTimeline& a, const CardTimeline& b) { return order(a) < order(b); });
  return out;
}

}  // namespace knobsim::backtest
