// InterPodAffinity, filter (docs/semantics.md §3.8; upstream interpodaffinity/filtering.go).
//
// PreFilter counts, per topology domain (a topologyKey and one of its values):
//  * existing pods' required anti-affinity terms that the incoming pod matches, at the domain of
//    the node each such pod runs on (the symmetric rule: a pod may not join the domain of a pod
//    that repels it);
//  * bound pods matching all of the incoming pod's required affinity terms at once, added at the
//    pod's node's domain of each term's key;
//  * bound pods matching each of its required anti-affinity terms.
// Filter then reads a few cells per node, in upstream's order and with its statuses:
//  1. affinity: the node must carry every term's key, and each term's domain must hold a
//     matching pod — unless no pod anywhere matches (no domain counted at all) and the incoming
//     pod matches its own terms: the first pod of a group that wants to be together goes
//     anywhere with the keys. Unschedulable and unresolvable.
//  2. anti-affinity: no term's domain on the node may hold a matching pod (a node without a
//     term's key passes that term). Unschedulable (evicting the pods would help).
//  3. existing pods' anti-affinity: no counted domain may be one of the node's. Unschedulable.
// Terminating pods count (upstream's NodeInfo keeps them until they are gone). Without required
// terms and with no existing pod repelling the incoming one, the plugin skips (upstream's
// PreFilter Skip) and passes every node.
#include <string>
#include <vector>

#include "sim/scheduler/filters/node_cache.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/pod_affinity_index.h"
#include "sim/scheduler/pod_affinity_terms.h"

namespace knobsim {
namespace {

constexpr const char* kAffinityReason = "node(s) didn't match pod affinity rules";
constexpr const char* kAntiAffinityReason = "node(s) didn't match pod anti-affinity rules";
constexpr const char* kExistingReason = "node(s) didn't satisfy existing pods anti-affinity rules";

class InterPodAffinityFilter final : public FilterPlugin {
 public:
  InterPodAffinityFilter() : existing_({ExistingPodTerms::kRequiredAntiAffinity}) {}

  std::string_view Name() const override { return "InterPodAffinity"; }
  bool Skipped() const override { return skip_; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    counts_.Sync(cluster);
    existing_.Sync(cluster);
    affinity_ = RequiredAffinityTerms(pod, pod.pod_affinity.required);
    anti_ = RequiredAffinityTerms(pod, pod.pod_anti_affinity.required);

    CountExistingAntiAffinity(pod, cluster);
    affinity_domains_.clear();
    affinity_slot_.clear();
    for (const AffinityTerm& t : affinity_) {
      affinity_slot_.push_back(DomainSlot(affinity_domains_, t.topology_key, counts_));
    }
    // Only the nodes with matching pods add to a domain (the sums do not depend on the order).
    if (!affinity_.empty()) {
      const TermMatchCounts::Matches& matching = counts_.Counts(affinity_);
      for (int n : matching.nodes) {
        for (int slot : affinity_slot_) affinity_domains_[slot].Add(n, matching.count[n]);
      }
    }
    no_affinity_match_ = true;
    for (const DomainCounts& d : affinity_domains_) no_affinity_match_ = no_affinity_match_ && !d.any;
    self_match_ = MatchesAllTerms(affinity_, pod, cluster);

    anti_domains_.clear();
    anti_slot_.clear();
    for (const AffinityTerm& t : anti_) {
      const int slot = DomainSlot(anti_domains_, t.topology_key, counts_);
      anti_slot_.push_back(slot);
      const TermMatchCounts::Matches& matching = counts_.Counts({t});
      for (int n : matching.nodes) anti_domains_[slot].Add(n, matching.count[n]);
    }
    skip_ = !any_existing_ && affinity_.empty() && anti_.empty();
    return PluginStatus::Success();
  }

  PluginStatus Filter(const PodSpec&, const ClusterState&, int node) const override {
    if (skip_) return PluginStatus::Success();
    if (!SatisfiesAffinity(node)) return PluginStatus::Unresolvable(kAffinityReason);
    for (int slot : anti_slot_) {
      if (anti_domains_[slot].At(node) > 0) return PluginStatus::Unschedulable(kAntiAffinityReason);
    }
    for (const DomainCounts& d : existing_domains_) {
      if (d.At(node) > 0) return PluginStatus::Unschedulable(kExistingReason);
    }
    return PluginStatus::Success();
  }

 private:
  void CountExistingAntiAffinity(const PodSpec& pod, const ClusterState& cluster) {
    existing_domains_.clear();
    any_existing_ = false;
    const auto& groups = existing_.groups();
    slot_of_group_.assign(groups.size(), -1);
    bool any_match = false;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].term.Matches(pod, cluster)) continue;
      slot_of_group_[g] = DomainSlot(existing_domains_, groups[g].term.topology_key, counts_);
      any_match = true;
    }
    if (!any_match) return;
    // The matching groups' nodes only (the sums do not depend on the order).
    for (size_t g = 0; g < groups.size(); ++g) {
      const int slot = slot_of_group_[g];
      if (slot < 0) continue;
      for (const ExistingPodTerms::Member& m : existing_.members(static_cast<int>(g))) {
        existing_domains_[slot].Add(m.node, m.pods);
      }
    }
    for (const DomainCounts& d : existing_domains_) any_existing_ = any_existing_ || d.any;
  }

  bool SatisfiesAffinity(int node) const {
    bool pods_exist = true;
    for (size_t i = 0; i < affinity_.size(); ++i) {
      const DomainCounts& d = affinity_domains_[affinity_slot_[i]];
      if (d.index->value_of_node[node] < 0) return false;  // every key must be on the node
      if (d.At(node) <= 0) pods_exist = false;
    }
    return pods_exist || (no_affinity_match_ && self_match_);
  }

  TermMatchCounts counts_;
  ExistingPodTerms existing_;
  std::vector<AffinityTerm> affinity_;
  std::vector<AffinityTerm> anti_;
  std::vector<DomainCounts> affinity_domains_;
  std::vector<int> affinity_slot_;  // per affinity term
  std::vector<DomainCounts> anti_domains_;
  std::vector<int> anti_slot_;  // per anti-affinity term
  std::vector<DomainCounts> existing_domains_;
  std::vector<int> slot_of_group_;
  bool no_affinity_match_ = true;
  bool self_match_ = false;
  bool any_existing_ = false;
  bool skip_ = true;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewInterPodAffinityFilter() {
  return std::make_unique<InterPodAffinityFilter>();
}

}  // namespace knobsim
