// 02-DotProd (docs/fgd-policies.md §4.2): Tetris' alignment score with `merge` dimensions and `max`
// normalisation. The expression keeps the reference's floating-point steps (normalise each
// vector by the largest node, dot product, / 2, 1 − ·, × 100, truncate), since a truncated
// score can flip on the last bit.
#include "sim/scheduler/fgd/policy.h"

namespace knobsim::fgd {

namespace {

constexpr double kMaxSpecCpu = 128000;  // MaxSpecCpu (pkg/type/open-gpu-share/utils/const.go)
constexpr double kMaxSpecGpu = 8000;    // MaxSpecGpu

class DotProdPolicy final : public Policy {
 public:
  PolicyKind kind() const override { return PolicyKind::kDotProd; }
  int Score(const PodRequest& pod, const NodeState& node) const override {
    const double node_vec[2] = {static_cast<double>(node.cpu_free) / kMaxSpecCpu,
                                static_cast<double>(node.gpu_free()) / kMaxSpecGpu};
    const double pod_vec[2] = {static_cast<double>(pod.cpu) / kMaxSpecCpu,
                               static_cast<double>(pod.gpu_request()) / kMaxSpecGpu};
    double dot = 0;
    dot += node_vec[0] * pod_vec[0];
    dot += node_vec[1] * pod_vec[1];
    dot /= 2;
    const double s = 1 - dot;
    return static_cast<int>(100.0 * s);
  }
};

}  // namespace

std::unique_ptr<Policy> NewDotProdPolicy() {
  return std::make_unique<DotProdPolicy>();
}

}  // namespace knobsim::fgd
