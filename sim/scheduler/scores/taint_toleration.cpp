// TaintToleration score (docs/semantics.md §3.4, upstream tainttoleration/taint_toleration.go): a
// node's raw score counts its PreferNoSchedule taints that the pod does not tolerate, looking
// only at tolerations whose effect is empty or PreferNoSchedule; Normalize reverses the count
// (100 − 100×count/max, all 100 when no node has one), so the least-tainted nodes win. Weight 3
// (§3.1).
#include <string_view>
#include <vector>

#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/normalize_score.h"

namespace knobsim {
namespace {

constexpr std::string_view kPreferNoSchedule = "PreferNoSchedule";

bool HasPreferNoScheduleTaint(const NodeSpec& node) {
  for (const Taint& t : node.taints) {
    if (t.effect == kPreferNoSchedule) return true;
  }
  return false;
}

class TaintTolerationScore final : public ScorePlugin {
 public:
  std::string_view Name() const override { return "TaintToleration"; }
  int Weight() const override { return 3; }

  void PreScore(const PodSpec& pod, const ClusterState& cluster, std::span<const int>) override {
    tolerations_.clear();
    for (const Toleration& t : pod.tolerations) {
      // An empty effect covers every effect, PreferNoSchedule included (upstream
      // getAllTolerationPreferNoSchedule).
      if (t.effect.empty() || t.effect == kPreferNoSchedule) tolerations_.push_back(&t);
    }
    // Node specs never change once added, so the count of nodes carrying a PreferNoSchedule
    // taint only needs the nodes added since the last pod. With none, every node counts 0 and
    // normalises to 100: the plugin cannot change the winner.
    if (&cluster != cluster_) {
      cluster_ = &cluster;
      nodes_seen_ = 0;
      tainted_nodes_ = 0;
    }
    for (; nodes_seen_ < cluster.nodes().size(); ++nodes_seen_) {
      if (HasPreferNoScheduleTaint(cluster.nodes()[nodes_seen_].spec)) ++tainted_nodes_;
    }
    skipped_ = tainted_nodes_ == 0;
  }

  int64_t Score(const PodSpec&, const ClusterState& cluster, int node) const override {
    int64_t count = 0;
    for (const Taint& taint : cluster.node(node).spec.taints) {
      if (taint.effect != kPreferNoSchedule) continue;
      bool tolerated = false;
      for (const Toleration* t : tolerations_) {
        if (ToleratesTaint(*t, taint)) {
          tolerated = true;
          break;
        }
      }
      if (!tolerated) ++count;
    }
    return count;
  }

  void Normalize(std::span<const int>, std::span<int64_t> scores) const override {
    DefaultNormalizeScore(100, /*reverse=*/true, scores);
  }

  bool Skipped() const override { return skipped_; }

 private:
  std::vector<const Toleration*> tolerations_;  // into the pod of the last PreScore
  const ClusterState* cluster_ = nullptr;
  size_t nodes_seen_ = 0;
  size_t tainted_nodes_ = 0;
  bool skipped_ = false;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewTaintTolerationScore() {
  return std::make_unique<TaintTolerationScore>();
}

}  // namespace knobsim
