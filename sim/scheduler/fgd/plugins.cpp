#include "sim/scheduler/fgd/plugins.h"

#include <algorithm>
#include <climits>

#include "sim/scheduler/fgd/milli_view.h"
#include "sim/scheduler/fgd/random_policy.h"

namespace knobsim::fgd {

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

int64_t Get(const knobsim::ResourceList& list, const char* key) {
  const auto it = list.find(key);
  return it == list.end() ? 0 : it->second;
}

}  // namespace

PodRequest RequestOf(const knobsim::PodSpec& pod, const ModelTable& models) {
  PodRequest r;
  r.cpu = Get(pod.requests, "cpu");
  r.mem = (Get(pod.requests, "memory") + kMiB - 1) / kMiB;
  if (pod.gpu_mem > 0 && pod.gpu_count > 0) {
    r.num_gpu = pod.gpu_count;
    r.milli = pod.gpu_mem / pod.gpu_count;
    const auto spec = pod.annotations.find(kGpuSpecAnnotation);
    r.spec = spec == pod.annotations.end() ? std::string() : NormaliseSpec(spec->second);
    r.models = models.Mask(r.spec);
  }
  return r;
}

namespace {

class TraceResourcesFilter final : public knobsim::FilterPlugin {
 public:
  std::string_view Name() const override { return "NodeResourcesFit"; }
  knobsim::PluginStatus Filter(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                               int node) const override {
    const knobsim::NodeState& n = cluster.node(node);
    knobsim::PluginStatus status;
    const auto short_of = [&](const char* resource) {
      return Get(pod.requests, resource) >
             Get(n.spec.allocatable, resource) - Get(n.requested, resource);
    };
    if (static_cast<int64_t>(n.pods.size()) + 1 > Get(n.spec.allocatable, "pods")) {
      status.reasons.push_back("Too many pods");
    }
    if (short_of("cpu")) status.reasons.push_back("Insufficient cpu");
    if (short_of("memory")) status.reasons.push_back("Insufficient memory");
    if (!status.reasons.empty()) status.code = knobsim::StatusCode::kUnschedulable;
    return status;
  }
};

class OpenGpuShareFilter final : public knobsim::FilterPlugin {
 public:
  std::string_view Name() const override { return "Open-Gpu-Share"; }
  knobsim::PluginStatus PreFilter(const knobsim::PodSpec&,
                                  const knobsim::ClusterState& cluster) override {
    if (cluster.nodes().size() != models_for_nodes_) {
      models_ = ModelsOf(cluster);
      models_for_nodes_ = cluster.nodes().size();
    }
    return knobsim::PluginStatus::Success();
  }
  knobsim::PluginStatus Filter(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                               int node) const override {
    const PodRequest r = RequestOf(pod, models_);
    if (!r.wants_gpu()) return knobsim::PluginStatus::Success();
    const NodeState s = MilliViewOf(cluster, node, models_, 0);
    if (s.cards == 0 || s.model < 0) {
      return knobsim::PluginStatus::Unresolvable("node(s) had no GPU");
    }
    if ((r.models >> s.model & 1) == 0) {
      return knobsim::PluginStatus::Unresolvable("node(s) didn't match the pod's GPU model");
    }
    if (!CardsFit(s, r)) return knobsim::PluginStatus::Unschedulable("Insufficient GPU");
    return knobsim::PluginStatus::Success();
  }

 private:
  ModelTable models_;
  size_t models_for_nodes_ = 0;
};

}  // namespace

std::unique_ptr<knobsim::FilterPlugin> NewTraceResourcesFilter() {
  return std::make_unique<TraceResourcesFilter>();
}

std::unique_ptr<knobsim::FilterPlugin> NewOpenGpuShareFilter() {
  return std::make_unique<OpenGpuShareFilter>();
}

PolicyScorePlugin::PolicyScorePlugin(PolicyKind kind, std::span<const TypicalPod> types,
                                     int64_t seed)
    : kind_(kind), policy_(MakePolicy(kind, types)), rng_(seed) {}

std::string_view PolicyScorePlugin::Name() const {
  return ScPolicyLabel(kind_);
}

void PolicyScorePlugin::PreScore(const knobsim::PodSpec&, const knobsim::ClusterState& cluster,
                                 std::span<const int> feasible) {
  if (cluster.nodes().size() != models_for_nodes_) {
    models_ = ModelsOf(cluster);
    models_for_nodes_ = cluster.nodes().size();
  }
  random_pick_ = -1;
  if (kind_ == PolicyKind::kRandom && !feasible.empty()) {
    random_pick_ = feasible[RandomNodePosition(static_cast<int>(feasible.size()), rng_)];
  }
}

int64_t PolicyScorePlugin::Score(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                                 int node) const {
  if (kind_ == PolicyKind::kRandom) return node == random_pick_ ? 100 : 0;
  return policy_->Score(RequestOf(pod, models_), MilliViewOf(cluster, node, models_, 0));
}

void PolicyScorePlugin::Normalize(std::span<const int>, std::span<int64_t> scores) const {
  if (kind_ != PolicyKind::kBestFit || scores.empty()) return;
  // NormalizeScore (plugin_utils.go): (s − lo)·100 div (hi − lo), all 0 when hi = lo.
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const int64_t low = *lo;
  const int64_t range = *hi - *lo;
  for (int64_t& s : scores) s = range == 0 ? 0 : (s - low) * 100 / range;
}

knobsim::Placement PolicyScorePlugin::Cards(const knobsim::PodSpec& pod,
                                            const knobsim::ClusterState& cluster, int node) {
  if (cluster.nodes().size() != models_for_nodes_) {
    models_ = ModelsOf(cluster);
    models_for_nodes_ = cluster.nodes().size();
  }
  const PodRequest r = RequestOf(pod, models_);
  const NodeState s = MilliViewOf(cluster, node, models_, 0);
  const CardTake take =
      kind_ == PolicyKind::kRandom ? RandomCards(r, s, rng_) : policy_->Cards(r, s);
  knobsim::Placement placement;
  placement.node = node;
  for (int g = 0; g < s.cards; ++g) {
    if (take[g] == 0) continue;
    placement.cards.push_back(g);
    placement.mem_units.push_back(take[g]);
    placement.core_units.push_back(0);
  }
  return placement;
}

}  // namespace knobsim::fgd
