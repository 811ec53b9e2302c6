// InterPodAffinity, score (docs/semantics.md §3.8; upstream interpodaffinity/scoring.go).
//
// PreScore sums, per topology domain, weights from every bound pod P on a node with the key:
//  * the incoming pod's preferred affinity terms P matches: + weight; its preferred
//    anti-affinity terms P matches: - weight;
//  * P's required affinity terms the incoming pod matches: + hardPodAffinityWeight (a scheduler
//    setting, default 1; 0 turns it off); P's preferred affinity terms it matches: + weight; P's
//    preferred anti-affinity terms it matches: - weight (the symmetric side).
// A node's raw score is the sum over the keys with sums of its own domain's value; Normalize
// maps [min, max] of the feasible nodes' raw scores onto 0..100 (truncated; all 0 when
// max == min). With no sum at all the plugin is skipped (upstream's PreScore Skip).
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/pod_affinity_index.h"
#include "sim/scheduler/pod_affinity_terms.h"

namespace knobsim {
namespace {

class InterPodAffinityScore final : public ScorePlugin {
 public:
  explicit InterPodAffinityScore(int hard_pod_affinity_weight)
      : hard_weight_(hard_pod_affinity_weight),
        existing_({ExistingPodTerms::kRequiredAffinity, ExistingPodTerms::kPreferredAffinity,
                   ExistingPodTerms::kPreferredAntiAffinity}) {}

  std::string_view Name() const override { return "InterPodAffinity"; }
  int Weight() const override { return 2; }
  bool Skipped() const override { return skip_; }

  void PreScore(const PodSpec& pod, const ClusterState& cluster,
                std::span<const int> feasible) override {
    domains_.clear();
    skip_ = true;
    if (feasible.empty()) return;
    counts_.Sync(cluster);
    existing_.Sync(cluster);

    // The incoming pod's preferred terms against every bound pod.
    for (const auto& [terms, sign] :
         {std::pair{PreferredAffinityTerms(pod, pod.pod_affinity.preferred), 1},
          std::pair{PreferredAffinityTerms(pod, pod.pod_anti_affinity.preferred), -1}}) {
      for (const AffinityTerm& t : terms) {
        DomainCounts& d = domains_[DomainSlot(domains_, t.topology_key, counts_)];
        const TermMatchCounts::Matches& matching = counts_.Counts({t});
        for (int n : matching.nodes) d.Add(n, int64_t{sign} * t.weight * matching.count[n], true);
      }
    }

    // Existing pods' terms against the incoming pod, once per group of equal terms.
    const auto& groups = existing_.groups();
    weight_of_group_.assign(groups.size(), 0);
    slot_of_group_.assign(groups.size(), -1);
    bool any_match = false;
    for (size_t g = 0; g < groups.size(); ++g) {
      const ExistingPodTerms::Group& group = groups[g];
      int weight = group.term.weight;
      if (group.kind == ExistingPodTerms::kRequiredAffinity) weight = hard_weight_;
      if (group.kind == ExistingPodTerms::kPreferredAntiAffinity) weight = -weight;
      if (weight == 0 || !group.term.Matches(pod, cluster)) continue;
      weight_of_group_[g] = weight;
      slot_of_group_[g] = DomainSlot(domains_, group.term.topology_key, counts_);
      any_match = true;
    }
    // The matching groups' nodes only (the sums do not depend on the order).
    for (size_t g = 0; any_match && g < groups.size(); ++g) {
      const int slot = slot_of_group_[g];
      if (slot < 0) continue;
      for (const ExistingPodTerms::Member& m : existing_.members(static_cast<int>(g))) {
        domains_[slot].Add(m.node, int64_t{weight_of_group_[g]} * m.pods, true);
      }
    }
    for (const DomainCounts& d : domains_) skip_ = skip_ && !d.any;
  }

  int64_t Score(const PodSpec&, const ClusterState&, int node) const override {
    int64_t score = 0;
    for (const DomainCounts& d : domains_) {
      if (d.any) score += d.At(node);
    }
    return score;
  }

  void Normalize(std::span<const int>, std::span<int64_t> scores) const override {
    if (skip_) return;
    int64_t min = std::numeric_limits<int64_t>::max();
    int64_t max = std::numeric_limits<int64_t>::min();
    for (int64_t s : scores) {
      min = std::min(min, s);
      max = std::max(max, s);
    }
    const int64_t diff = max - min;
    for (int64_t& s : scores) {
      // Upstream: int64(float64(MaxNodeScore) * (float64(score-min) / float64(max-min))).
      const double f =
          diff > 0 ? 100.0 * (static_cast<double>(s - min) / static_cast<double>(diff)) : 0.0;
      s = static_cast<int64_t>(f);
    }
  }

 private:
  const int hard_weight_;
  TermMatchCounts counts_;
  ExistingPodTerms existing_;
  std::vector<DomainCounts> domains_;
  std::vector<int> weight_of_group_;
  std::vector<int> slot_of_group_;
  bool skip_ = true;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewInterPodAffinityScore(int hard_pod_affinity_weight) {
  return std::make_unique<InterPodAffinityScore>(hard_pod_affinity_weight);
}

}  // namespace knobsim
