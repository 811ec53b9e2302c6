// 05-BestFit (docs/fgd-policies.md §4.5): the node left with the least CPU and GPU, half weight
// each, in the reference's floating-point steps. Its min-max normalisation (§3) keeps the argmax,
// so the replay skips it; the scheduler plugin applies it (sim/scheduler/fgd/plugins.cpp).
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

constexpr double kMaxSpecCpu = 128000;
constexpr double kMaxSpecGpu = 8000;

class BestFitPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kBestFit; }
  int Score(const PodRequest& pod, const NodeState& node) const override {
    double r = 0;
    r += static_cast<double>(node.cpu_free - pod.cpu) / kMaxSpecCpu * 0.5;
    r += static_cast<double>(node.gpu_free() - pod.gpu_request()) / kMaxSpecGpu * 0.5;
    return static_cast<int>((1.0 - r) * 100);
  }
};

}  // namespace

std::unique_ptr<Policy> NewBestFitPolicy() {
  return std::make_unique<BestFitPolicy>();
}

}  // namespace knobsim::fgd
