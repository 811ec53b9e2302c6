// VolumeRestrictions: a ReadWriteOncePod claim is for one pod. When a pod's claim with that
// access mode is already used by a pod bound anywhere in the cluster, every node reads "node has
// pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
// (Unschedulable: evicting that pod would free the claim). docs/semantics.md §3.11; upstream
// pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go.
//
// Only persistentVolumeClaim volumes count (upstream's readWriteOncePodPVCsForPod); a claim that
// does not exist rejects the pod in PreFilter. The verdict depends on pods on other nodes, so the
// Scheduler runs this filter every cycle (it is skipped for pods without such claims). Not
// modelled: the inline-volume disk conflicts (GCE PD, AWS EBS, iSCSI, RBD) the plugin also checks;
// knobsim does not read inline volumes.
#include <algorithm>
#include <string>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/text.h"

namespace knobsim {
namespace {

class VolumeRestrictionsFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "VolumeRestrictions"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    conflict_ = false;
    skipped_ = true;
    std::vector<std::string> once;
    for (const std::string& name : pod.pvc_claims) {
      if (Contains(pod.ephemeral_claims, name)) continue;
      const PersistentVolumeClaimSpec* claim = cluster.volumes().FindClaim(pod.namespace_, name);
      if (claim == nullptr) {
        return PluginStatus::Unresolvable("persistentvolumeclaim " + Quote(name) + " not found");
      }
      if (Contains(claim->access_modes, "ReadWriteOncePod")) once.push_back(name);
    }
    if (once.empty()) return PluginStatus::Success();
    skipped_ = false;
    for (int p = 0; p < static_cast<int>(cluster.pods().size()) && !conflict_; ++p) {
      const PodSpec& other = cluster.pod(p);
      if (!cluster.bound(p) || other.namespace_ != pod.namespace_) continue;
      for (const std::string& name : once)
        conflict_ = conflict_ || Contains(other.pvc_claims, name);
    }
    return PluginStatus::Success();
  }

  bool Skipped() const override { return skipped_; }

  PluginStatus Filter(const PodSpec&, const ClusterState&, int) const override {
    if (!conflict_) return PluginStatus::Success();
    return PluginStatus::Unschedulable(
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
        "mode");
  }

 private:
  bool skipped_ = true;
  bool conflict_ = false;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewVolumeRestrictionsFilter() {
  return std::make_unique<VolumeRestrictionsFilter>();
}

}  // namespace knobsim
