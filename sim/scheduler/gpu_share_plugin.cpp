#include "sim/scheduler/gpu_share_plugin.h"
#include "sim/scheduler/dra/extended_resources.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "models/gpu_topology.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

// ACK registers its plugin as "gpushare" (ACKP gpushare.go GPUShareName).
constexpr std::string_view kPluginName = "gpushare";

bool AsksGpu(const PodSpec& pod) {
  return pod.gpu_mem > 0 || pod.gpu_core > 0 || pod.whole_gpus > 0;
}

bool ScoresCards(const PodSpec& pod) {
  return pod.gpu_mem > 0 && pod.whole_gpus == 0;
}

// The reason a node without GPU sharing gives a sharing pod. NodeResourcesFit normally rejects
// such a node first (it has no aliyun.com/gpu-mem), so this shows only for odd imports.
std::string NotShareNodeReason(const NodeSpec& node, const SchedulerConfig& config) {
  if (config.extender_best_fit) {
    // EXT predicate.go [CONFIRMED].
    std::string text = "The node ";
    text.append(node.name).append(" is not for GPU share, need skip");
    return text;
  }
  // ACKP device_sharing.go FilterNode (sic), listing the plugin's resource names.
  return "none(s) should have at least one resource in [aliyun.com/gpu-mem "
         "aliyun.com/gpu-core.percentage aliyun.com/gpu-core.tflops]";
}

class GpuShareFilter : public FilterPlugin {
 public:
  explicit GpuShareFilter(const SchedulerConfig& config) : config_(config) {}

  std::string_view Name() const override { return kPluginName; }

  // ACKP PreFilter: a request that does not split over aliyun.com/gpu-count is
  // UnschedulableAndUnresolvable for the whole pod (§1.2).
  PluginStatus PreFilter(const PodSpec& pod, const ClusterState&) override {
    const CardPolicy policy =
        config_.extender_best_fit ? CardPolicy::kExtenderBestFit : config_.default_placement;
    const CardFailure split = CheckCardSplit(pod, policy);
    if (split == CardFailure::kNone) return PluginStatus::Success();
    return PluginStatus::Unresolvable(CardFailureReason(split, pod, policy));
  }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int index) const override {
    if (!AsksGpu(pod)) return PluginStatus::Success();
    const NodeState& node = cluster.node(index);
    // DRAExtendedResource: a node that offers no nvidia.com/gpu leaves the pod's whole GPUs to
    // a claim DynamicResources allocates, not to the device plugin's cards.
    if (pod.whole_gpus > 0 &&
        dra::DelegatedToDra(dra::WholeGpuResource(pod), node.spec, cluster.dra().classes(),
                            config_.kube_version.minor))
      return PluginStatus::Success();
    if (pod.whole_gpus == 0 && !IsGpuShareNode(node.spec)) {
      return PluginStatus::Unschedulable(NotShareNodeReason(node.spec, config_));
    }
    const CardPolicy policy = NodeCardPolicy(node.spec, config_);
    // ACK's plugin keeps gpu-mem-only pods off nodes that also offer gpu-core.percentage (and
    // the reverse, which NodeResourcesFit already rejects) unless enableMemoryCoreMixSchedule
    // is on (§1.5 B). Node resources do not change by preemption: unresolvable.
    if (policy != CardPolicy::kExtenderBestFit && !config_.enable_memory_core_mix &&
        pod.whole_gpus == 0 && (node.spec.card_core_percent > 0) != (pod.gpu_core > 0)) {
      return PluginStatus::Unresolvable(
          "node(s) owns gpu resources are not matched that pod requests");
    }
    const CardFit fit = EvaluateCards(pod, node, policy, MaxPodsPerCard(node.spec, config_));
    if (fit.fits) return PluginStatus::Success();
    // Card occupancy can change (pods finish or are preempted): Unschedulable, as ACK returns.
    return PluginStatus::Unschedulable(CardFailureReason(fit.failure, pod, policy));
  }

 private:
  SchedulerConfig config_;
};

// ACKP Score returns int(best candidate score), 0..100, so the card-level binpack / spread also
// ranks nodes (§1.5 B). The extender has no score (it only filters and binds), so best-fit
// scores 0 everywhere; so do pods that share no card.
class GpuShareScore : public ScorePlugin {
 public:
  explicit GpuShareScore(const SchedulerConfig& config) : config_(config) {}

  std::string_view Name() const override { return kPluginName; }
  int Weight() const override { return config_.gpu_share_weight; }

  void PreScore(const PodSpec& pod, const ClusterState&, std::span<const int>) override {
    skipped_ = !ScoresCards(pod) || config_.extender_best_fit;
  }
  bool Skipped() const override { return skipped_; }

  int64_t Score(const PodSpec& pod, const ClusterState& cluster, int index) const override {
    if (!ScoresCards(pod)) return 0;
    const NodeState& node = cluster.node(index);
    const CardPolicy policy = NodeCardPolicy(node.spec, config_);
    // The extender does not score; a paper policy's node is scored by PlacementPolicy instead.
    if (policy == CardPolicy::kExtenderBestFit || IsPaperPolicy(policy)) return 0;
    const CardFit fit = EvaluateCards(pod, node, policy, MaxPodsPerCard(node.spec, config_));
    return fit.fits ? static_cast<int64_t>(fit.score) : 0;
  }

 private:
  SchedulerConfig config_;
  bool skipped_ = false;
};

}  // namespace

bool IsGpuShareNode(const NodeSpec& node) {
  const std::string& s = node.gpu_schedule;
  return s == "share" || s == "cgpu" || s == "core_mem" || node.card_mem_units > 0;
}

CardPolicy NodeCardPolicy(const NodeSpec& node, const SchedulerConfig& config) {
  // The device plugin hands out replicas its own way (card_placement.h): no ACK or paper policy.
  if (node.device_sharing.shared()) return CardPolicy::kBinpack;
  if (config.extender_best_fit) return CardPolicy::kExtenderBestFit;
  if (node.placement.empty()) return config.default_placement;
  return ParseCardPolicy(node.placement).value_or(config.default_placement);
}

int MaxPodsPerCard(const NodeSpec& node, const SchedulerConfig& config) {
  int limit = std::max(0, node.max_pods_per_card);
  // Without POLICY 0's limit the labels do not matter (and the filter asks on every node).
  if (config.policy0_max_inst <= 0) return limit;
  auto disabled = node.labels.find(kCgpuDisableIsolationLabel);
  const bool cgpu_runs = (node.gpu_schedule == "cgpu" || node.gpu_schedule == "core_mem") &&
                         (disabled == node.labels.end() || disabled->second != "true");
  // POLICY 0 gives each pod 1/max_inst of the card, so a card never holds more than max_inst
  // pods; without cGPU the driver time-slices and POLICY does not apply (docs/design.md §3.2).
  if (cgpu_runs && config.policy0_max_inst > 0) {
    limit = limit > 0 ? std::min(limit, config.policy0_max_inst) : config.policy0_max_inst;
  }
  return limit;
}

CardPlacementResult ChooseCards(const PodSpec& pod, const NodeState& node,
                                const SchedulerConfig& config) {
  const CardPolicy policy = NodeCardPolicy(node.spec, config);
  const int limit = MaxPodsPerCard(node.spec, config);
  // Only pods on two or more cards ask for bandwidths, and only where the node's interconnect
  // is known (otherwise ties keep the lowest indexes without being enumerated). The topology is
  // built on the first ask (microseconds) and lives for this call only: concurrent runs share
  // nothing.
  std::optional<GpuTopology> topology;
  CardSetBandwidth bandwidth;
  const bool multi_card = pod.whole_gpus > 1 || (pod.whole_gpus == 0 && pod.gpu_count > 1);
  if (multi_card && GpuTopology::IsKnownKind(node.spec.interconnect)) {
    bandwidth = [&](std::span<const int> cards) {
      if (!topology) {
        topology =
            GpuTopology::ForKind(node.spec.interconnect, static_cast<int>(node.cards.size()));
      }
      return topology->BottleneckBandwidth(cards);
    };
  }
  return PlaceOnCards(pod, node, policy, limit, bandwidth);
}

double CardSetBandwidthOf(const NodeState& node, std::span<const int> cards) {
  if (cards.size() < 2 || !GpuTopology::IsKnownKind(node.spec.interconnect)) return 0;
  const std::optional<GpuTopology> topology =
      GpuTopology::ForKind(node.spec.interconnect, static_cast<int>(node.cards.size()));
  return topology ? topology->BottleneckBandwidth(cards) : 0;
}

std::unique_ptr<FilterPlugin> NewGpuShareFilter(const SchedulerConfig& config) {
  return std::make_unique<GpuShareFilter>(config);
}

std::unique_ptr<ScorePlugin> NewGpuShareScore(const SchedulerConfig& config) {
  return std::make_unique<GpuShareScore>(config);
}

}  // namespace knobsim
