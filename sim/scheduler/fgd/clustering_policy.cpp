// 03-GpuClustering (docs/fgd-policies.md §4.3): keep pods of one kind together, scored by the tags
// of the GPU pods a node already hosts, plus a little for emptier nodes.
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

class ClusteringPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kClustering; }
  bool reads_tags() const override { return true; }
  int Score(const PodRequest& pod, const NodeState& node) const override {
    const uint64_t tag = pod.tag();
    if (tag == 0) return 0;  // CPU-only: ties everywhere, so the smallest rank takes it
    const int64_t base = 25 * (8000 - node.gpu_free()) / 8000;
    int64_t bonus = 0;
    if (node.tags == tag) {
      bonus = 75;  // only pods of this kind
    } else if ((node.tags & tag) != 0) {
      bonus = 50;  // this kind among others
    } else if (node.tags == 0) {
      bonus = 25;  // no GPU pod yet
    }
    return static_cast<int>(base + bonus);
  }
};

}  // namespace

std::unique_ptr<Policy> NewClusteringPolicy() {
  return std::make_unique<ClusteringPolicy>();
}

}  // namespace knobsim::fgd
