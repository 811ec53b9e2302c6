// VolumeBinding: a pod's PersistentVolumeClaims must be usable from the node (docs/semantics.md
// §3.11; upstream pkg/scheduler/framework/plugins/volumebinding/{volume_binding,binder}.go and
// pkg/volume/util FindMatchingVolume).
//
// PreFilter rejects the pod everywhere when a claim is missing, being deleted or Lost, or is
// unbound in a class that binds Immediately (the PV controller, not the scheduler, binds it).
// Filter, per node: a bound claim's volume must exist and its nodeAffinity match the node's
// labels; an unbound WaitForFirstConsumer claim needs an Available volume of its class that fits
// (pre-bound to it, or unclaimed with the capacity, access modes and node affinity; the smallest
// such, claims taken smallest request first, a volume used once), or else a class that can
// provision there (a provisioner other than kubernetes.io/no-provisioner, allowedTopologies
// matching the node). Every reason is UnschedulableAndUnresolvable.
//
// Not modelled: a claim's label selector and volumeMode, the selected-node annotation of a claim
// being provisioned, CSI storage capacity (always enough), the PreFilterResult for volumes pinned
// by metadata.name, and binding itself (a bind leaves every claim as it was).
#include <algorithm>
#include <string>
#include <vector>

#include "sim/scheduler/node_matching.h"
#include "sim/scheduler/plugins.h"
#include "sim/text.h"

namespace knobsim {
namespace {

constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

bool VolumeFitsNode(const PersistentVolumeSpec& pv, const Labels& labels) {
  return pv.node_affinity.empty() || MatchesNodeSelectorTerms(pv.node_affinity, labels);
}

bool BoundToClaim(const PersistentVolumeSpec& pv, const PersistentVolumeClaimSpec& claim) {
  return pv.claim_name == claim.name && pv.claim_namespace == claim.namespace_;
}

bool HasAccessModes(const PersistentVolumeSpec& pv, const PersistentVolumeClaimSpec& claim) {
  return std::all_of(claim.access_modes.begin(), claim.access_modes.end(),
                     [&](const std::string& m) { return Contains(pv.access_modes, m); });
}

class VolumeBindingFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "VolumeBinding"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    bound_.clear();
    delayed_.clear();
    const VolumeCatalog& catalog = cluster.volumes();
    for (const std::string& name : pod.pvc_claims) {
      const PersistentVolumeClaimSpec* claim = catalog.FindClaim(pod.namespace_, name);
      if (claim == nullptr) {
        return PluginStatus::Unresolvable("persistentvolumeclaim " + Quote(name) + " not found");
      }
      if (claim->terminating) {
        return PluginStatus::Unresolvable("persistentvolumeclaim " + Quote(name) +
                                          " is being deleted");
      }
      if (claim->phase == "Lost") {
        return PluginStatus::Unresolvable("persistentvolumeclaim " + Quote(name) +
                                          " bound to non-existent persistentvolume " +
                                          Quote(claim->volume_name));
      }
      if (!claim->volume_name.empty()) {
        bound_.push_back(claim);
        continue;
      }
      // Unbound: WaitForFirstConsumer leaves the choice to the scheduler; otherwise (Immediate,
      // or no class: static binding) the PV controller must bind it first.
      const std::string class_name = catalog.ClassOf(*claim);
      const StorageClassSpec* sc = class_name.empty() ? nullptr : catalog.FindClass(class_name);
      if (!class_name.empty() && sc == nullptr) {
        return PluginStatus::Unresolvable("storageclass.storage.k8s.io " + Quote(class_name) +
                                          " not found");
      }
      if (sc != nullptr && sc->volume_binding_mode == "WaitForFirstConsumer") {
        delayed_.push_back({claim, sc, catalog.VolumesOfClass(sc->name)});
      } else {
        immediate_unbound_ = true;
      }
    }
    if (immediate_unbound_) {
      immediate_unbound_ = false;
      return PluginStatus::Unresolvable("pod has unbound immediate PersistentVolumeClaims");
    }
    // Smallest request first, as findMatchingVolumes sorts them (stable: equal ones in order).
    std::stable_sort(delayed_.begin(), delayed_.end(), [](const Delayed& a, const Delayed& b) {
      return a.claim->requested_bytes < b.claim->requested_bytes;
    });
    return PluginStatus::Success();
  }

  bool Skipped() const override { return bound_.empty() && delayed_.empty(); }

  PluginStatus Filter(const PodSpec&, const ClusterState& cluster, int node) const override {
    if (Skipped()) return PluginStatus::Success();
    const VolumeCatalog& catalog = cluster.volumes();
    const Labels& labels = cluster.node(node).spec.labels;  // volumes match labels alone
    bool bound_satisfied = true;
    bool bound_found = true;
    for (const PersistentVolumeClaimSpec* claim : bound_) {
      const PersistentVolumeSpec* pv = catalog.FindVolume(claim->volume_name);
      if (pv == nullptr) {
        bound_found = false;
        break;
      }
      if (!VolumeFitsNode(*pv, labels)) {
        bound_satisfied = false;
        break;
      }
    }
    bool unbound_satisfied = true;
    std::vector<const PersistentVolumeSpec*> chosen;
    for (const Delayed& d : delayed_) {
      if (MatchingVolume(*d.claim, d.candidates, labels, chosen)) continue;
      if (d.sc->provisioner.empty() || d.sc->provisioner == kNoProvisioner ||
          !(d.sc->allowed_topologies.empty() ||
            MatchesNodeSelectorTerms(d.sc->allowed_topologies, labels))) {
        unbound_satisfied = false;
        break;
      }
    }
    PluginStatus status;
    status.code = StatusCode::kUnschedulableAndUnresolvable;
    if (!bound_satisfied) status.reasons.push_back("node(s) had volume node affinity conflict");
    if (!unbound_satisfied) {
      status.reasons.push_back("node(s) didn't find available persistent volumes to bind");
    }
    if (!bound_found) {
      status.reasons.push_back(
          "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
    }
    if (status.reasons.empty()) return PluginStatus::Success();
    return status;
  }

 private:
  struct Delayed {
    const PersistentVolumeClaimSpec* claim;
    const StorageClassSpec* sc;
    std::vector<const PersistentVolumeSpec*> candidates;  // the volumes of its class
  };

  // FindMatchingVolume on the scheduler path; the volume found is added to `chosen`.
  static bool MatchingVolume(const PersistentVolumeClaimSpec& claim,
                             const std::vector<const PersistentVolumeSpec*>& candidates,
                             const Labels& labels,
                             std::vector<const PersistentVolumeSpec*>& chosen) {
    const PersistentVolumeSpec* smallest = nullptr;
    for (const PersistentVolumeSpec* pv : candidates) {
      if (std::find(chosen.begin(), chosen.end(), pv) != chosen.end()) continue;
      const bool pre_bound = BoundToClaim(*pv, claim);
      if (!pv->claim_name.empty() && !pre_bound) continue;
      if (pv->capacity_bytes < claim.requested_bytes || pv->terminating) continue;
      const bool fits_node = VolumeFitsNode(*pv, labels);
      if (pre_bound) {
        if (!fits_node) return false;
        chosen.push_back(pv);
        return true;
      }
      if (pv->phase != "Available" || !fits_node || !HasAccessModes(*pv, claim)) continue;
      if (smallest == nullptr || pv->capacity_bytes < smallest->capacity_bytes) smallest = pv;
    }
    if (smallest == nullptr) return false;
    chosen.push_back(smallest);
    return true;
  }

  std::vector<const PersistentVolumeClaimSpec*> bound_;
  std::vector<Delayed> delayed_;
  bool immediate_unbound_ = false;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewVolumeBindingFilter() {
  return std::make_unique<VolumeBindingFilter>();
}

}  // namespace knobsim
