// PodTopologySpread, filter and score (docs/semantics.md §3.5; upstream podtopologyspread/
// {common,filtering,scoring}.go). The filter enforces the pod's `DoNotSchedule` constraints, the
// score prefers nodes in the emptiest domains of its `ScheduleAnyway` constraints.
//
// A constraint's domains are the values of its topologyKey on the *eligible* nodes: nodes that
// carry every topologyKey of the pod's constraints (of the same kind) and pass the constraint's
// inclusion policies (nodeAffinityPolicy Honor: the pod's nodeSelector and required affinity;
// nodeTaintsPolicy Honor: its tolerations of NoSchedule / NoExecute taints). Every eligible node
// makes its domain exist, even with no matching pod, which is what lets an empty zone pull the
// global minimum to 0. Pods are counted when they are in the incoming pod's namespace, not
// terminating, and match the constraint's selector with matchLabelKeys merged in.
//
// Not applied: the cluster's default constraints for pods without their own (§3.5 "System"
// defaults). They take their selector from the Services / ReplicaSets / StatefulSets selecting
// the pod, which knobsim does not model, and a pod no such object selects gets none upstream
// either.
//
// Speed (issue 3: >= 10 000 pods/s on 1 213 nodes with one constraint; issue 23: >= 5 000 pods/s
// on 5 000 nodes, and no cost per pod that grows with the node count): nothing is summed over
// every node per pod. Upstream's PreFilter counts the matching pods of every domain over all
// nodes in each cycle; here the counts live across pods, kept up to date node by node:
//  * node topology values are numbered once per key (node labels never change after AddNode);
//  * per (namespace, selector), each node's matching pods, recounted only on the nodes
//    ClusterState's change record names since the entry was last used (every node when the
//    record no longer reaches back, or the entry is new);
//  * per (namespace, selector) and the constraint's eligible nodes (DomainSignature: the keys
//    and the inclusion policies' inputs), each domain's sum and its number of eligible present
//    nodes, moved by the same node changes (DomainCounts);
//  * a pod that its node affinity pins to named nodes (a DaemonSet's pod) sums those alone.
// PreFilter and PreScore then cost O(domains + nodes changed), Filter and Score a few array
// reads per node. On the 5 000-node export of bench/schedule_bench.cpp with a zone constraint
// on every pod, its PreFilter went from 61 % of the scheduling time to 9 % (perf). A plugin
// instance serves one ClusterState, the Scheduler's (node_cache.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/scheduler/filters/node_cache.h"
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

bool SelectorIsEmpty(const LabelSelector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

// One constraint's domains over the nodes it counts (its eligible nodes: the static part, every
// topologyKey and the inclusion policies, fixed when the table is made since node labels and
// taints never change; and presence, which does): per topology value the matching pods on those
// nodes and how many such nodes there are, kept up to date node by node as nodes change.
struct DomainCounts {
  const KeyIndex* index = nullptr;
  const std::vector<char>* eligible = nullptr;  // [node], shared by the tables of a signature
  std::vector<char> included;  // [node] eligible and present: counted in its domain now
  std::vector<int> counted;    // [node] what the node adds to match[its value] now
  std::vector<int64_t> match;  // [value]
  std::vector<int> nodes;      // [value] included nodes with the value (> 0: a domain)
  int64_t domains = 0;         // values with an included node

  // Node `n` now holds `count` matching pods and is present or not.
  void Update(int n, int count, bool present) {
    const int v = index->value_of_node[n];
    if (v < 0 || !(*eligible)[n]) return;
    if (static_cast<bool>(included[n]) != present) {
      included[n] = present;
      nodes[v] += present ? 1 : -1;
      if (present && nodes[v] == 1) ++domains;
      if (!present && nodes[v] == 0) --domains;
    }
    const int now = present ? count : 0;
    match[v] += now - counted[n];
    counted[n] = now;
  }
};

// What the plugin may keep between pods of one cluster.
class TopologyCache {
 public:
  // Per node: bound pods in the entry's namespace, not terminating, whose labels match its
  // selector; and the domain tables built on those counts.
  struct CountEntry {
    std::string ns;
    LabelSelector selector;
    uint64_t synced = 0;  // ClusterState::change_count() the counts are current at
    std::vector<int> count;
    std::unordered_map<std::string, DomainCounts> domains;  // by DomainSignature
  };

  // Called once per pod: forgets everything when the cluster or its node list changed, and
  // the tables when there are too many (between pods only: the references handed out during
  // one pod must stay put).
  void Sync(const ClusterState& cluster) {
    if (nodes_.Changed(cluster)) {
      cluster_ = &cluster;
      num_nodes_ = cluster.nodes().size();
      keys_.clear();
      counts_.clear();
      eligible_.clear();
      tables_ = 0;
    }
    if (tables_ > kMaxTables) {
      counts_.clear();
      eligible_.clear();
      tables_ = 0;
    }
  }

  const KeyIndex& Key(const std::string& key) {
    auto [it, inserted] = keys_.try_emplace(key);
    KeyIndex& index = it->second;
    if (inserted) index = KeyIndex::Of(*cluster_, key);
    return index;
  }

  // The entry of (namespace, selector), its counts brought up to date with the nodes changed
  // since it was last used (ClusterState::NodesChangedSince; every node when the record does
  // not reach back that far). An empty selector counts nothing (upstream countPodsMatchSelector
  // returns 0 for selector.Empty()), though it does match the incoming pod itself.
  CountEntry& Counts(const std::string& ns, const LabelSelector& selector) {
    auto [it, added] = counts_.try_emplace(Signature(ns, selector));
    CountEntry& entry = it->second;
    if (added) {
      ++tables_;
      entry.ns = ns;
      entry.selector = selector;
    }
    const uint64_t now = cluster_->change_count();
    if (entry.count.size() == num_nodes_ && entry.synced == now) return entry;
    std::optional<std::span<const int>> changed;
    if (entry.count.size() == num_nodes_) changed = cluster_->NodesChangedSince(entry.synced);
    if (changed) {
      for (int n : *changed) Recount(entry, n);
    } else {
      entry.count.assign(num_nodes_, 0);
      for (auto& [signature, domains] : entry.domains) Reset(domains);
      for (size_t n = 0; n < num_nodes_; ++n) Recount(entry, static_cast<int>(n));
    }
    entry.synced = now;
    return entry;
  }

  // The entry's domain table for `signature`, made on first use with `eligible(node)` as the
  // static part of which nodes count (asked once per signature: pods of many selectors share
  // a node pool's nodeSelector).
  template <typename Eligible>
  const DomainCounts& Domains(CountEntry& entry, const KeyIndex& index,
                              const std::string& signature, Eligible eligible) {
    auto [it, added] = entry.domains.try_emplace(signature);
    DomainCounts& d = it->second;
    if (!added) return d;
    ++tables_;
    d.index = &index;
    auto [known, first] = eligible_.try_emplace(signature);
    if (first) {
      ++tables_;
      known->second.resize(num_nodes_);
      for (size_t n = 0; n < num_nodes_; ++n) known->second[n] = eligible(static_cast<int>(n));
    }
    d.eligible = &known->second;
    Reset(d);
    for (size_t n = 0; n < num_nodes_; ++n) {
      d.Update(static_cast<int>(n), entry.count[n], !cluster_->node(static_cast<int>(n)).absent);
    }
    return d;
  }

 private:
  // Count tables and domain tables kept at most (each a few bytes per node): beyond, all are
  // dropped before the next pod and remade as pods need them.
  static constexpr size_t kMaxTables = 512;

  void Reset(DomainCounts& d) const {
    d.included.assign(num_nodes_, 0);
    d.counted.assign(num_nodes_, 0);
    d.match.assign(static_cast<size_t>(d.index->num_values), 0);
    d.nodes.assign(static_cast<size_t>(d.index->num_values), 0);
    d.domains = 0;
  }

  void Recount(CountEntry& entry, int node) const {
    const int count = CountOnNode(node, entry.ns, entry.selector);
    entry.count[static_cast<size_t>(node)] = count;
    const bool present = !cluster_->node(node).absent;
    for (auto& [signature, domains] : entry.domains) domains.Update(node, count, present);
  }

  int CountOnNode(int node, const std::string& ns, const LabelSelector& selector) const {
    if (SelectorIsEmpty(selector)) return 0;
    int count = 0;
    for (int p : cluster_->node(node).pods) {
      if (!cluster_->bound(p)) continue;
      const PodSpec& pod = cluster_->pod(p);
      // Terminating pods are on their way out (upstream #87621); other namespaces never count.
      if (pod.terminating || pod.namespace_ != ns) continue;
      if (MatchesLabelSelector(selector, pod.labels)) ++count;
    }
    return count;
  }

  static std::string Signature(const std::string& ns, const LabelSelector& selector) {
    std::string sig = ns;
    for (const auto& [key, value] : selector.match_labels) {
      sig.append("\x1f").append(key).append("=").append(value);
    }
    for (const LabelSelectorRequirement& r : selector.match_expressions) {
      sig.append("\x1e").append(r.key).append(" ").append(r.op);
      for (const std::string& v : r.values) sig.append("\x1d").append(v);
    }
    return sig;
  }

  NodeListIdentity nodes_;
  const ClusterState* cluster_ = nullptr;
  size_t num_nodes_ = 0;
  std::unordered_map<std::string, KeyIndex> keys_;
  std::unordered_map<std::string, CountEntry> counts_;
  std::unordered_map<std::string, std::vector<char>> eligible_;  // by DomainSignature
  size_t tables_ = 0;  // count, domain and eligibility tables
};

// One constraint as both phases evaluate it.
struct Constraint {
  std::string key;
  bool hostname = false;
  int64_t max_skew = 1;
  int64_t min_domains = 1;  // unset = 1 (only DoNotSchedule may set it)
  bool honor_affinity = true;
  bool honor_taints = false;
  LabelSelector selector;  // labelSelector AND matchLabelKeys from the incoming pod
  bool self_match = false;
  const KeyIndex* index = nullptr;
  TopologyCache::CountEntry* entry = nullptr;
  const std::vector<int>* counts = nullptr;  // entry->count
};

std::vector<Constraint> BuildConstraints(const PodSpec& pod, std::string_view when,
                                         TopologyCache& cache) {
  std::vector<Constraint> out;
  for (const TopologySpreadConstraint& spec : pod.topology_spread) {
    if (spec.when_unsatisfiable != when) continue;
    Constraint c;
    c.key = spec.topology_key;
    c.hostname = c.key == kHostnameLabel;
    c.max_skew = spec.max_skew;
    c.min_domains = std::max(1, spec.min_domains.value_or(1));
    c.honor_affinity = spec.node_affinity_policy != "Ignore";
    c.honor_taints = spec.node_taints_policy == "Honor";
    c.selector = spec.label_selector;
    // matchLabelKeys: key=value from the incoming pod's labels, ANDed; absent keys are ignored.
    for (const std::string& key : spec.match_label_keys) {
      const auto label = pod.labels.find(key);
      if (label == pod.labels.end()) continue;
      c.selector.match_expressions.push_back({key, "In", {label->second}});
    }
    c.self_match = MatchesLabelSelector(c.selector, pod.labels);
    c.index = &cache.Key(c.key);
    c.entry = &cache.Counts(pod.namespace_, c.selector);
    c.counts = &c.entry->count;
    out.push_back(std::move(c));
  }
  return out;
}

bool HasAllKeys(const std::vector<Constraint>& constraints, int node) {
  return std::all_of(constraints.begin(), constraints.end(),
                     [&](const Constraint& c) { return c.index->value_of_node[node] >= 0; });
}

// The inclusion policies (nodeAffinityPolicy / nodeTaintsPolicy Honor) of one node at a time
// for the incoming pod, each evaluated at most once per node. A policy that cannot exclude any
// node (a pod without nodeSelector or required affinity; no constraint honouring taints) is not
// evaluated at all, which keeps the common case of the per-pod pass over all nodes cheap.
class NodeInclusion {
 public:
  explicit NodeInclusion(const PodSpec& pod) : pod_(pod), affinity_matters_(HasAffinity(pod)) {}

  static bool HasAffinity(const PodSpec& pod) {
    return !pod.node_selector.empty() || !pod.node_affinity.required_terms.empty();
  }

  void Start(const NodeSpec& node) {
    node_ = &node;
    affinity_ = taints_ = -1;
  }

  bool Includes(const Constraint& c) {
    if (c.honor_affinity && affinity_matters_) {
      if (affinity_ < 0) affinity_ = MatchesNodeSelectorAndAffinity(pod_, *node_);
      if (!affinity_) return false;
    }
    if (c.honor_taints) {
      if (taints_ < 0) taints_ = FindUntoleratedTaint(pod_.tolerations, node_->taints) == nullptr;
      if (!taints_) return false;
    }
    return true;
  }

 private:
  const PodSpec& pod_;
  const bool affinity_matters_;
  const NodeSpec* node_ = nullptr;
  int affinity_ = -1;  // -1: not evaluated for this node yet
  int taints_ = -1;
};

// What decides which nodes constraint `i` counts, besides presence: every topologyKey of the
// pod's constraints of its kind, and the inputs of the inclusion policies that can exclude a
// node. Pods that agree on it share a domain table.
std::string DomainSignature(const PodSpec& pod, const std::vector<Constraint>& constraints,
                            size_t i) {
  const Constraint& c = constraints[i];
  std::string sig = c.key;
  for (const Constraint& other : constraints) sig.append("\x1f").append(other.key);
  if (c.honor_affinity && NodeInclusion::HasAffinity(pod)) {
    sig.append("\x1eN").append(NodeAffinityKey(pod));  // N, T: not hex digits
  }
  if (c.honor_taints) sig.append("\x1eT").append(TolerationsKey(pod.tolerations));
  return sig;
}

// Per constraint, over the nodes it counts (present, every key of the pod's constraints of its
// kind, the inclusion policies): the matching pods in each domain (topology value) and the
// nodes that make it a domain. Two ways to the same sums: a pod whose required node affinity
// pins node names (a DaemonSet's pod) has only those nodes to look at, when every constraint
// honours it; any other pod reads the cache's domain table of its (selector, signature), which
// moves with each node change instead of being summed over every node per pod.
class DomainSums {
 public:
  void Compute(const PodSpec& pod, const std::vector<Constraint>& constraints,
               const ClusterState& cluster, TopologyCache& cache) {
    const size_t nc = constraints.size();
    match_.assign(nc, nullptr);
    nodes_.assign(nc, nullptr);
    domains_.assign(nc, 0);
    const bool all_honor_affinity =
        std::all_of(constraints.begin(), constraints.end(),
                    [](const Constraint& c) { return c.honor_affinity; });
    std::optional<std::vector<std::string>> pinned;
    if (all_honor_affinity) pinned = PinnedNodeNames(pod.node_affinity);
    if (pinned) {
      SumOverNodes(pod, constraints, cluster, *pinned);
      return;
    }
    for (size_t i = 0; i < nc; ++i) {
      const Constraint& c = constraints[i];
      const DomainCounts& d =
          cache.Domains(*c.entry, *c.index, DomainSignature(pod, constraints, i), [&](int n) {
            if (!HasAllKeys(constraints, n)) return false;
            NodeInclusion inclusion(pod);
            inclusion.Start(cluster.node(n).spec);
            return inclusion.Includes(c);
          });
      match_[i] = &d.match;
      nodes_[i] = &d.nodes;
      domains_[i] = d.domains;
    }
  }

  const std::vector<int64_t>& match(size_t i) const { return *match_[i]; }
  bool is_domain(size_t i, int value) const { return (*nodes_[i])[value] > 0; }
  int64_t domains(size_t i) const { return domains_[i]; }

 private:
  // The pinned nodes alone: no other node passes the pod's node affinity.
  void SumOverNodes(const PodSpec& pod, const std::vector<Constraint>& constraints,
                    const ClusterState& cluster, const std::vector<std::string>& names) {
    const size_t nc = constraints.size();
    own_match_.resize(nc);
    own_nodes_.resize(nc);
    for (size_t i = 0; i < nc; ++i) {
      own_match_[i].assign(static_cast<size_t>(constraints[i].index->num_values), 0);
      own_nodes_[i].assign(static_cast<size_t>(constraints[i].index->num_values), 0);
      match_[i] = &own_match_[i];
      nodes_[i] = &own_nodes_[i];
    }
    NodeInclusion inclusion(pod);
    for (const std::string& name : names) {  // unique names: each node once
      const int n = cluster.FindNode(name);
      if (n < 0 || cluster.node(n).absent || !HasAllKeys(constraints, n)) continue;
      inclusion.Start(cluster.node(n).spec);
      for (size_t i = 0; i < nc; ++i) {
        const Constraint& c = constraints[i];
        if (!inclusion.Includes(c)) continue;
        const int v = c.index->value_of_node[n];
        if (own_nodes_[i][v]++ == 0) ++domains_[i];
        own_match_[i][v] += (*c.counts)[n];
      }
    }
  }

  std::vector<const std::vector<int64_t>*> match_;  // [constraint] -> [value]
  std::vector<const std::vector<int>*> nodes_;      // [constraint] -> [value]
  std::vector<int64_t> domains_;                    // [constraint]
  std::vector<std::vector<int64_t>> own_match_;     // the pinned nodes' sums
  std::vector<std::vector<int>> own_nodes_;
};

class PodTopologySpreadFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "PodTopologySpread"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    cache_.Sync(cluster);
    constraints_ = BuildConstraints(pod, "DoNotSchedule", cache_);
    if (constraints_.empty()) return PluginStatus::Success();

    const size_t nc = constraints_.size();
    sums_.Compute(pod, constraints_, cluster, cache_);
    min_match_.assign(nc, 0);
    for (size_t i = 0; i < nc; ++i) {
      // Fewer domains than minDomains: the missing domains count as empty ones, so the global
      // minimum is 0. With no domain at all and minDomains >= 1 that is also 0.
      if (sums_.domains(i) < constraints_[i].min_domains) continue;
      const std::vector<int64_t>& match = sums_.match(i);
      int64_t min = std::numeric_limits<int64_t>::max();
      for (size_t v = 0; v < match.size(); ++v) {
        if (sums_.is_domain(i, static_cast<int>(v))) min = std::min(min, match[v]);
      }
      min_match_[i] = min;
    }
    return PluginStatus::Success();
  }

  PluginStatus Filter(const PodSpec&, const ClusterState&, int node) const override {
    for (size_t i = 0; i < constraints_.size(); ++i) {
      const Constraint& c = constraints_[i];
      const int v = c.index->value_of_node[node];
      // Unresolvable: no eviction gives a node a label.
      if (v < 0) {
        return PluginStatus::Unresolvable(
            "node(s) didn't match pod topology spread constraints (missing required label)");
      }
      // A node whose value is no domain (it failed the inclusion policies) has 0 matching pods.
      const int64_t skew = sums_.match(i)[v] + (c.self_match ? 1 : 0) - min_match_[i];
      if (skew > c.max_skew) {
        return PluginStatus::Unschedulable("node(s) didn't match pod topology spread constraints");
      }
    }
    return PluginStatus::Success();
  }

 private:
  TopologyCache cache_;
  std::vector<Constraint> constraints_;
  DomainSums sums_;
  std::vector<int64_t> min_match_;  // global minimum per constraint
};

class PodTopologySpreadScore final : public ScorePlugin {
 public:
  std::string_view Name() const override { return "PodTopologySpread"; }
  int Weight() const override { return 2; }
  bool Skipped() const override { return skip_; }

  void PreScore(const PodSpec& pod, const ClusterState& cluster,
                std::span<const int> feasible) override {
    cache_.Sync(cluster);
    constraints_ = BuildConstraints(pod, "ScheduleAnyway", cache_);
    ignored_.assign(cluster.nodes().size(), 0);
    // Upstream skips the plugin (Status Skip) without soft constraints or feasible nodes.
    skip_ = constraints_.empty() || feasible.empty();
    if (skip_) return;

    const size_t nc = constraints_.size();
    present_.resize(nc);
    pod_counts_.resize(nc);
    weight_.assign(nc, 0.0);
    std::vector<int64_t> size(nc, 0);
    for (size_t i = 0; i < nc; ++i) {
      present_[i].assign(constraints_[i].index->num_values, 0);
      pod_counts_[i].assign(constraints_[i].index->num_values, 0);
    }
    // Feasible nodes without every key are ignored (scored 0); the others' values are the only
    // domains that get counts, and their number sets each constraint's weight.
    int64_t scored_nodes = 0;
    for (int n : feasible) {
      if (!HasAllKeys(constraints_, n)) {
        ignored_[n] = 1;
        continue;
      }
      ++scored_nodes;
      for (size_t i = 0; i < nc; ++i) {
        const int v = constraints_[i].index->value_of_node[n];
        if (!present_[i][v]) {
          present_[i][v] = 1;
          ++size[i];
        }
      }
    }
    for (size_t i = 0; i < nc; ++i) {
      // For hostname every scored node is its own domain.
      const int64_t domains = constraints_[i].hostname ? scored_nodes : size[i];
      weight_[i] = std::log(static_cast<double>(domains + 2));
    }
    // Counts come from every node (not only feasible ones) that has the keys and passes the
    // inclusion policies, for the values feasible nodes have (DomainSums). Hostname counts are
    // per node and read in Score.
    sums_.Compute(pod, constraints_, cluster, cache_);
    for (size_t i = 0; i < nc; ++i) {
      if (constraints_[i].hostname) continue;
      const std::vector<int64_t>& match = sums_.match(i);
      for (size_t v = 0; v < match.size(); ++v) {
        if (present_[i][v]) pod_counts_[i][v] = match[v];
      }
    }
  }

  // round( Σ_c count_c × ln(domains_c + 2) + (maxSkew_c − 1) ): fewer matching pods around the
  // node, lower raw score, better node after Normalize.
  int64_t Score(const PodSpec&, const ClusterState&, int node) const override {
    if (skip_ || ignored_[node]) return 0;
    double score = 0;
    for (size_t i = 0; i < constraints_.size(); ++i) {
      const Constraint& c = constraints_[i];
      const int v = c.index->value_of_node[node];
      if (v < 0) continue;
      const int64_t count = c.hostname ? (*c.counts)[node] : pod_counts_[i][v];
      score += static_cast<double>(count) * weight_[i] + static_cast<double>(c.max_skew - 1);
    }
    return std::llround(score);
  }

  // §3.5: ignored nodes 0; all raw 0 → 100; else 100 × (max + min − raw) / max, integer maths,
  // min and max over the scored nodes (max starting from 0, as upstream).
  void Normalize(std::span<const int> feasible, std::span<int64_t> scores) const override {
    if (skip_) {
      std::fill(scores.begin(), scores.end(), 0);
      return;
    }
    int64_t min = std::numeric_limits<int64_t>::max();
    int64_t max = 0;
    for (size_t k = 0; k < feasible.size(); ++k) {
      if (ignored_[feasible[k]]) continue;
      min = std::min(min, scores[k]);
      max = std::max(max, scores[k]);
    }
    for (size_t k = 0; k < feasible.size(); ++k) {
      if (ignored_[feasible[k]]) {
        scores[k] = 0;
      } else if (max == 0) {
        scores[k] = 100;
      } else {
        scores[k] = 100 * (max + min - scores[k]) / max;
      }
    }
  }

 private:
  TopologyCache cache_;
  std::vector<Constraint> constraints_;
  DomainSums sums_;
  bool skip_ = true;
  std::vector<char> ignored_;                     // [node]
  std::vector<std::vector<char>> present_;        // [constraint][value] among feasible nodes
  std::vector<std::vector<int64_t>> pod_counts_;  // [constraint][value]
  std::vector<double> weight_;                    // [constraint] ln(domains + 2)
};

}  // namespace

std::unique_ptr<FilterPlugin> NewPodTopologySpreadFilter() {
  return std::make_unique<PodTopologySpreadFilter>();
}

std::unique_ptr<ScorePlugin> NewPodTopologySpreadScore() {
  return std::make_unique<PodTopologySpreadScore>();
}

}  // namespace knobsim
