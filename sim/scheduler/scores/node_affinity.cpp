// NodeAffinity score (docs/semantics.md §3.3, upstream nodeaffinity/node_affinity.go): a node's raw
// score is the sum of the weights of the pod's preferred terms it matches, normalised by
// DefaultNormalizeScore(100, reverse=false): 100×s/max, all 0 when no node matches. Weight 2
// (§3.1). Upstream's PreScore returns Skip for a pod without preferred terms; here Skipped()
// says so and Score gives 0, the same all-zero contribution.
#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/normalize_score.h"

namespace knobsim {
namespace {

class NodeAffinityScore final : public ScorePlugin {
 public:
  std::string_view Name() const override { return "NodeAffinity"; }
  int Weight() const override { return 2; }

  void PreScore(const PodSpec& pod, const ClusterState&, std::span<const int>) override {
    skipped_ = true;
    for (const NodeAffinity::Preferred& p : pod.node_affinity.preferred) {
      if (p.weight != 0 && !p.expressions.empty()) skipped_ = false;
    }
  }

  int64_t Score(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    return PreferredAffinityWeight(pod, cluster.node(node).spec);
  }

  void Normalize(std::span<const int>, std::span<int64_t> scores) const override {
    DefaultNormalizeScore(100, /*reverse=*/false, scores);
  }

  bool Skipped() const override { return skipped_; }

 private:
  bool skipped_ = false;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewNodeAffinityScore() {
  return std::make_unique<NodeAffinityScore>();
}

}  // namespace knobsim
