// The FGD paper's policies and filters as plugins of knobsim's scheduler framework
// (sim/scheduler/framework.h), working on a ClusterState: the same Policy objects the trace
// replay runs, so `fgd`, `bestfit`, … can place pods in the main scheduler too, and a test checks
// that both paths place every pod of a trace alike (sim/replay/trace_conversion_test.cpp).
//
// Why the replay itself does not run through ClusterState: one run evaluates ~13 million
// (pod, node) pairs, and ClusterState keeps requests in string-keyed maps and whole PodSpecs;
// the replay's NodeState is a fixed-size record and its scores are cached per node. A trace row
// becomes a NodeSpec/PodSpec in sim/replay/trace_conversion.h, losslessly.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/fgd/fragmentation.h"
#include "sim/scheduler/fgd/go_rand.h"
#include "sim/scheduler/fgd/policy.h"
#include "sim/scheduler/fgd/request.h"
#include "sim/scheduler/framework.h"

namespace knobsim::fgd {

// The pod annotation holding a trace pod's model constraint (the reference's label name).
inline constexpr const char* kGpuSpecAnnotation = "alibabacloud.com/gpu-card-model";

// A trace pod as the replay sees it, its gpu_spec annotation included; model ids come from
// `models` (ModelsOf). Nodes are seen through MilliViewOf (sim/scheduler/fgd/milli_view.h), which
// for trace nodes (1000 units per card) is the identity.
PodRequest RequestOf(const knobsim::PodSpec& pod, const ModelTable& models);

// §3 filters 1-3: CPU, memory and the pod count against allocatable.
std::unique_ptr<knobsim::FilterPlugin> NewTraceResourcesFilter();
// §3 filter 4 (Open-Gpu-Share): cards, model constraint and card fit, for pods with a share.
std::unique_ptr<knobsim::FilterPlugin> NewOpenGpuShareFilter();

// One policy as a score plugin, with its card choice for the node the scheduler picks.
class PolicyScorePlugin : public knobsim::ScorePlugin {
 public:
  // `types`: FGD's typical pods (must outlive the plugin). `seed`: 01-Random's generator.
  PolicyScorePlugin(PolicyKind kind, std::span<const TypicalPod> types, int64_t seed = 42);

  std::string_view Name() const override;
  int Weight() const override { return 1000; }  // the reference's weight; irrelevant alone
  void PreScore(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                std::span<const int> feasible) override;
  int64_t Score(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                int node) const override;
  // BestFit's min-max normalisation (§3); the others score 0..100 already.
  void Normalize(std::span<const int> feasible, std::span<int64_t> scores) const override;

  // Reserve: the cards the pod takes on `node` (gpu-mem units per card), as a Placement.
  knobsim::Placement Cards(const knobsim::PodSpec& pod, const knobsim::ClusterState& cluster,
                           int node);

  // The generator 01-Random draws from (the replay seeds and advances it per §2.2).
  GoRand& rng() { return rng_; }

 private:
  PolicyKind kind_;
  std::unique_ptr<Policy> policy_;
  GoRand rng_;
  ModelTable models_;
  size_t models_for_nodes_ = 0;  // node count `models_` was built for
  int random_pick_ = -1;         // 01-Random: the node PreScore drew
};

}  // namespace knobsim::fgd
