// The replay's policies and filters as plugins of knobsim's scheduler framework
// (sim/scheduler/framework.h), working on a ClusterState: the same Policy objects the replay
// runs, so `fgd`, `bestfit`, … can place pods in the main scheduler too, and a test checks that
// both paths place every pod of a trace alike (plugins_test.cpp).
//
// Why the replay itself does not run through ClusterState: one run evaluates ~13 million
// (pod, node) pairs, and ClusterState keeps requests in string-keyed maps and whole PodSpecs;
// the replay's NodeState is a fixed-size record and its scores are cached per node. The mapping
// between the two is below; it is lossless for trace pods and nodes.
//
// Mapping (fgd-policies.md §1): a trace node has allocatable `cpu` (millicores), `memory`
// (bytes), `pods` 1001, gpu_cards = `gpu`, card_mem_units = 1000 (one unit per milli-GPU),
// gpu_model = `model`; a trace pod requests `cpu`, `memory`, and aliyun.com/gpu-mem =
// num_gpu × gpu_milli with gpu_count = num_gpu (ACK's split: gpu_milli per card), and carries
// its normalised gpu_spec in the annotation kGpuSpecAnnotation.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "sim/replay/fragmentation.h"
#include "sim/replay/go_rand.h"
#include "sim/replay/policy.h"
#include "sim/replay/request.h"
#include "sim/replay/trace_reader.h"
#include "sim/scheduler/cluster_state.h"
#include "sim/scheduler/framework.h"

namespace knobsim::replay {

// The pod annotation holding a trace pod's model constraint (the reference's label name).
inline constexpr const char* kGpuSpecAnnotation = "alibabacloud.com/gpu-card-model";

knobsim::NodeSpec ToNodeSpec(const TraceNode& node);
knobsim::PodSpec ToPodSpec(const TracePod& pod);

// A trace pod as the replay sees it, its gpu_spec annotation included; model ids come from
// `models` (ModelsOf). Nodes are seen through MilliViewOf (sim/replay/milli_view.h), which for
// trace nodes (1000 units per card) is the identity.
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

}  // namespace knobsim::replay
