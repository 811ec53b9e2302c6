// TaintToleration filter: the first NoSchedule / NoExecute taint the pod does not tolerate
// rejects the node (docs/semantics.md §3.4). The reason text changed twice across releases; the
// KubeVersion picks the wording so FailedScheduling reads like the user's own cluster.
#include <string>

#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"

namespace knobsim {
namespace {

// §3.4: <= 1.25 names the taint and says "that the pod didn't tolerate"; 1.26-1.28 name it
// as "untolerated"; >= 1.29 no longer name it (so the histogram groups all taints together).
// The exact boundaries are unconfirmed (Appendix A item 5), hence a setting.
std::string TaintReason(const Taint& taint, int minor) {
  if (minor >= 29) return "node(s) had untolerated taint(s)";
  std::string reason = minor <= 25 ? "node(s) had taint {" : "node(s) had untolerated taint {";
  reason.append(taint.key).append(": ").append(taint.value).append("}");
  if (minor <= 25) reason.append(", that the pod didn't tolerate");
  return reason;
}

class TaintTolerationFilter final : public FilterPlugin {
 public:
  explicit TaintTolerationFilter(const KubeVersion& version) : minor_(version.minor) {}

  std::string_view Name() const override { return "TaintToleration"; }

  PluginStatus Filter(const PodSpec& pod, const ClusterState& cluster, int node) const override {
    const Taint* taint = FindUntoleratedTaint(pod.tolerations, cluster.node(node).spec.taints);
    if (taint == nullptr) return PluginStatus::Success();
    // Unresolvable: evicting pods does not remove a taint.
    return PluginStatus::Unresolvable(TaintReason(*taint, minor_));
  }

 private:
  int minor_;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewTaintTolerationFilter(const KubeVersion& version) {
  return std::make_unique<TaintTolerationFilter>(version);
}

}  // namespace knobsim
