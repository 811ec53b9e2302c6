#include "sim/scheduler/policy_placement.h"

#include <algorithm>

#include "sim/scheduler/fgd/random_policy.h"
#include "sim/scheduler/gpu_share_plugin.h"
#include "sim/scheduler/node_sample.h"

namespace knobsim {
namespace {

bool AsksGpu(const PodSpec& pod) {
  return pod.gpu_mem > 0 || pod.whole_gpus > 0;
}

class PlacementPolicyScore final : public ScorePlugin {
 public:
  PlacementPolicyScore(PolicyPlacement& placement, int weight)
      : placement_(placement), weight_(weight) {}

  std::string_view Name() const override { return "PlacementPolicy"; }
  int Weight() const override { return weight_; }

  void PreScore(const PodSpec& pod, const ClusterState& cluster,
                std::span<const int> feasible) override {
    kinds_.assign(feasible.size(), std::nullopt);
    bool any = false;
    bool all = true;
    for (size_t k = 0; k < feasible.size(); ++k) {
      kinds_[k] = placement_.PolicyOn(cluster, feasible[k]);
      any = any || kinds_[k].has_value();
      all = all && kinds_[k].has_value();
    }
    skipped_ = !any || (!AsksGpu(pod) && !all);
    random_pick_ = -1;
    if (skipped_) return;
    placement_.Prepare(pod, cluster);
    // 01-Random's draw among the feasible Random nodes (docs/fgd-policies.md §4.1).
    std::vector<int>& random = random_positions_;
    random.clear();
    for (size_t k = 0; k < feasible.size(); ++k) {
      if (kinds_[k] == fgd::PolicyKind::kRandom) random.push_back(static_cast<int>(k));
    }
    if (!random.empty()) {
      random_pick_ =
          random[fgd::RandomNodePosition(static_cast<int>(random.size()), placement_.rng())];
    }
  }

  bool Skipped() const override { return skipped_; }

  int64_t Score(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    return placement_.Score(pod, cluster, node);
  }

  void Normalize(std::span<const int>, std::span<int64_t> scores) const override {
    // BestFit's NormalizeScore (plugin_utils.go) over the BestFit nodes: (s − lo)·100 div
    // (hi − lo), all 0 when hi = lo.
    int64_t lo = 0;
    int64_t hi = -1;
    for (size_t k = 0; k < scores.size() && k < kinds_.size(); ++k) {
      if (kinds_[k] != fgd::PolicyKind::kBestFit) continue;
      if (hi < lo) {
        lo = hi = scores[k];
      } else {
        lo = std::min(lo, scores[k]);
        hi = std::max(hi, scores[k]);
      }
    }
    for (size_t k = 0; k < scores.size() && k < kinds_.size(); ++k) {
      if (kinds_[k] == fgd::PolicyKind::kBestFit) {
        scores[k] = hi == lo ? 0 : (scores[k] - lo) * 100 / (hi - lo);
      }
    }
    if (random_pick_ >= 0 && random_pick_ < static_cast<int>(scores.size())) {
      scores[random_pick_] = 100;
    }
  }

 private:
  PolicyPlacement& placement_;
  int weight_;
  std::vector<std::optional<fgd::PolicyKind>> kinds_;  // by feasible position
  std::vector<int> random_positions_;
  int random_pick_ = -1;
  bool skipped_ = false;
};

}  // namespace

int DefaultPercentageOfNodesToScore(const ClusterState& cluster, const SchedulerConfig& config) {
  for (const NodeState& n : cluster.nodes()) {
    if (IsPaperPolicy(NodeCardPolicy(n.spec, config))) return 100;
  }
  return kAdaptivePercentageOfNodesToScore;
}

std::optional<fgd::PolicyKind> PaperPolicyKind(CardPolicy policy) {
  switch (policy) {
    case CardPolicy::kRandom:
      return fgd::PolicyKind::kRandom;
    case CardPolicy::kDotProd:
      return fgd::PolicyKind::kDotProd;
    case CardPolicy::kClustering:
      return fgd::PolicyKind::kClustering;
    case CardPolicy::kPacking:
      return fgd::PolicyKind::kPacking;
    case CardPolicy::kBestFit:
      return fgd::PolicyKind::kBestFit;
    case CardPolicy::kFgd:
      return fgd::PolicyKind::kFgd;
    case CardPolicy::kBinpack:
    case CardPolicy::kSpread:
    case CardPolicy::kExtenderBestFit:
      break;
  }
  return std::nullopt;
}

PolicyPlacement::PolicyPlacement(const SchedulerConfig& config)
    : config_(config), rng_(static_cast<int64_t>(config.seed)) {}

PolicyPlacement::~PolicyPlacement() = default;

std::optional<fgd::PolicyKind> PolicyPlacement::PolicyOn(const ClusterState& cluster,
                                                         int node) const {
  // A node without cards places none: CPU-only pools stay with kube-scheduler's scores.
  const NodeState& n = cluster.node(node);
  if (n.cards.empty()) return std::nullopt;
  return PaperPolicyKind(NodeCardPolicy(n.spec, config_));
}

void PolicyPlacement::Prepare(const PodSpec& pod, const ClusterState& cluster) {
  if (cluster.nodes().size() != models_for_nodes_) {
    models_ = fgd::ModelsOf(cluster);
    models_for_nodes_ = cluster.nodes().size();
  }
  if (types_fixed_) return;
  types_fixed_ = true;
  if (config_.target_workload && !config_.target_workload->empty()) {
    targets_ = *config_.target_workload;
    return;
  }
  for (int p = 0; p < static_cast<int>(cluster.pods().size()); ++p) {
    if (cluster.bound(p)) targets_.push_back(fgd::TargetPodOf(cluster.pod(p)));
  }
  targets_.push_back(fgd::TargetPodOf(pod));
}

fgd::Policy& PolicyPlacement::PolicyFor(fgd::PolicyKind kind, int card_units) {
  // Only FGD's typical pods depend on the card size; the other policies are one object each.
  const int key_units = kind == fgd::PolicyKind::kFgd ? card_units : 0;
  std::unique_ptr<fgd::Policy>& policy = policies_[{kind, key_units}];
  if (!policy) {
    std::span<const fgd::TypicalPod> types;
    if (kind == fgd::PolicyKind::kFgd) {
      auto it = types_.find(card_units);
      if (it == types_.end()) {
        it = types_.emplace(card_units, fgd::TypicalPodsOnCards(targets_, card_units)).first;
      }
      types = it->second;
    }
    policy = fgd::MakePolicy(kind, types);
  }
  return *policy;
}

fgd::PodRequest PolicyPlacement::RequestOn(const PodSpec& pod, int card_units) const {
  return fgd::RequestOnCards(fgd::TargetPodOf(pod), card_units);
}

int PolicyPlacement::Score(const PodSpec& pod, const ClusterState& cluster, int node) {
  const std::optional<fgd::PolicyKind> kind = PolicyOn(cluster, node);
  if (!kind || *kind == fgd::PolicyKind::kRandom) return 0;
  const NodeState& n = cluster.node(node);
  const int units = n.spec.card_mem_units;
  const fgd::NodeState view =
      fgd::MilliViewOf(cluster, node, models_, MaxPodsPerCard(n.spec, config_));
  return PolicyFor(*kind, units).Score(RequestOn(pod, units), view);
}

CardPlacementResult PolicyPlacement::ChooseCards(const PodSpec& pod, const ClusterState& cluster,
                                                 int node) {
  const NodeState& n = cluster.node(node);
  const std::optional<fgd::PolicyKind> kind = PolicyOn(cluster, node);
  if (!kind || !AsksGpu(pod)) return knobsim::ChooseCards(pod, n, config_);
  Prepare(pod, cluster);
  const int units = n.spec.card_mem_units;
  const int limit = MaxPodsPerCard(n.spec, config_);
  const fgd::PodRequest request = RequestOn(pod, units);
  const fgd::NodeState view = fgd::MilliViewOf(cluster, node, models_, limit);
  const fgd::CardTake take = *kind == fgd::PolicyKind::kRandom
                                 ? fgd::RandomCards(request, view, rng_)
                                 : PolicyFor(*kind, units).Cards(request, view);
  std::vector<int> cards;
  for (int g = 0; g < view.cards; ++g) {
    if (take[g] > 0) cards.push_back(g);
  }
  if (std::optional<CardChoice> choice = CheckCardSet(pod, n, cards, limit)) {
    choice->bottleneck_gbps = CardSetBandwidthOf(n, choice->cards);
    CardPlacementResult result;
    result.choice = std::move(choice);
    return result;
  }
  ++fallbacks_;
  return knobsim::ChooseCards(pod, n, config_);
}

std::unique_ptr<ScorePlugin> NewPlacementPolicyScore(PolicyPlacement& placement,
                                                     const SchedulerConfig& config) {
  return std::make_unique<PlacementPolicyScore>(placement, config.placement_policy_weight);
}

}  // namespace knobsim
