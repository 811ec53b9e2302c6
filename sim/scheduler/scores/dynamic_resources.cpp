// DynamicResources score (upstream dynamicresources.go Score / computeScore, added in 1.35 with
// the prioritized-list scoring of KEP-4816): a node scores, for each firstAvailable request of
// the pod's claims still to allocate, 8 (FirstAvailableDeviceRequestMaxSize) minus the index of
// the entry its allocation there uses, summed; NormalizeScore scales the highest to 100
// (helper.DefaultNormalizeScore). Weight 1: the plugin is in the default MultiPoint set without
// one. Pods without such a request score 0 everywhere, so the plugin is skipped for them.
//
// Upstream indexes the allocations by the position of every claim of the pod, allocated or not,
// and fails the cycle when a pod mixes allocated and unallocated claims; here only the claims
// being allocated count **[deviation from an upstream defect]**.
#include <cstdint>
#include <memory>
#include <span>

#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scores/normalize_score.h"

namespace knobsim {
namespace {

class DynamicResourcesScore final : public ScorePlugin {
 public:
  DynamicResourcesScore(const DynamicResourcesPlugin& filter, bool enabled)
      : filter_(filter), enabled_(enabled) {}

  std::string_view Name() const override { return "DynamicResources"; }
  int Weight() const override { return 1; }

  void PreScore(const PodSpec&, const ClusterState&, std::span<const int>) override {
    skipped_ = !enabled_ || !filter_.HasPrioritizedLists();
  }

  int64_t Score(const PodSpec&, const ClusterState& cluster, int node) const override {
    return skipped_ ? 0 : filter_.PrioritizedListScore(cluster, node);
  }

  void Normalize(std::span<const int>, std::span<int64_t> scores) const override {
    DefaultNormalizeScore(100, false, scores);
  }

  bool Skipped() const override { return skipped_; }

 private:
  const DynamicResourcesPlugin& filter_;
  bool enabled_;
  bool skipped_ = true;
};

}  // namespace

std::unique_ptr<ScorePlugin> NewDynamicResourcesScore(const DynamicResourcesPlugin& filter,
                                                      const KubeVersion& version) {
  return std::make_unique<DynamicResourcesScore>(filter, version.minor >= 35);
}

}  // namespace knobsim
