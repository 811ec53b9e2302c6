// VolumeZone: a pod whose bound PersistentVolumes carry zone or region labels goes only to nodes
// in those zones and regions (docs/semantics.md §3.11; upstream
// pkg/scheduler/framework/plugins/volumezone/volume_zone.go).
//
// PreFilter collects, over the pod's persistentVolumeClaim volumes (not generic ephemeral ones),
// each bound volume's topology labels — failure-domain.beta.kubernetes.io/{zone,region} and
// topology.kubernetes.io/{zone,region} — with their `__`-separated value sets; an unbound claim
// of a WaitForFirstConsumer class is skipped, other unbound ones, missing claims, volumes and
// classes reject the pod. Filter: a node without any of those labels passes (single-zone
// clusters); otherwise each collected label must be on the node (a beta key also read as its GA
// key) with a value in the set, else "node(s) had no available volume zone", unresolvable.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduler/plugins.h"
#include "sim/text.h"

namespace knobsim {
namespace {

constexpr std::string_view kTopologyLabels[] = {kBetaZoneLabel, kBetaRegionLabel, kZoneLabel,
                                                kRegionLabel};

std::string_view GaLabel(std::string_view key) {
  if (key == kBetaZoneLabel) return kZoneLabel;
  if (key == kBetaRegionLabel) return kRegionLabel;
  return key;
}

// volumehelpers.LabelZonesToSet: values split at "__", trimmed; an empty one makes the label
// unreadable (upstream then ignores the label).
bool ZoneSet(std::string_view value, std::set<std::string>& out) {
  size_t start = 0;
  while (true) {
    const size_t end = value.find("__", start);
    std::string_view part =
        value.substr(start, end == std::string_view::npos ? value.npos : end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) return false;
    out.emplace(part);
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

class VolumeZoneFilter final : public FilterPlugin {
 public:
  std::string_view Name() const override { return "VolumeZone"; }

  PluginStatus PreFilter(const PodSpec& pod, const ClusterState& cluster) override {
    topologies_.clear();
    const VolumeCatalog& catalog = cluster.volumes();
    for (const std::string& name : pod.pvc_claims) {
      if (Contains(pod.ephemeral_claims, name)) continue;
      const PersistentVolumeClaimSpec* claim = catalog.FindClaim(pod.namespace_, name);
      if (claim == nullptr) {
        return PluginStatus::Unresolvable("persistentvolumeclaim " + Quote(name) + " not found");
      }
      if (claim->volume_name.empty()) {
        const std::string class_name = catalog.ClassOf(*claim);
        if (class_name.empty()) {
          return PluginStatus::Unresolvable(
              "PersistentVolumeClaim had no pv name and storageClass name");
        }
        const StorageClassSpec* sc = catalog.FindClass(class_name);
        if (sc == nullptr) {
          return PluginStatus::Unresolvable("storageclass.storage.k8s.io " + Quote(class_name) +
                                            " not found");
        }
        if (sc->volume_binding_mode == "WaitForFirstConsumer") continue;
        return PluginStatus::Unresolvable("PersistentVolume had no name");
      }
      const PersistentVolumeSpec* pv = catalog.FindVolume(claim->volume_name);
      if (pv == nullptr) {
        return PluginStatus::Unresolvable("persistentvolume " + Quote(claim->volume_name) +
                                          " not found");
      }
      for (std::string_view key : kTopologyLabels) {
        auto it = pv->labels.find(std::string(key));
        if (it == pv->labels.end()) continue;
        Topology t{std::string(key), {}};
        if (ZoneSet(it->second, t.values)) topologies_.push_back(std::move(t));
      }
    }
    return PluginStatus::Success();
  }

  bool Skipped() const override { return topologies_.empty(); }

  PluginStatus Filter(const PodSpec&, const ClusterState& cluster, int node) const override {
    if (topologies_.empty()) return PluginStatus::Success();
    const Labels& labels = cluster.node(node).spec.labels;
    bool constrained = false;
    for (std::string_view key : kTopologyLabels) constrained |= labels.count(std::string(key)) > 0;
    if (!constrained) return PluginStatus::Success();
    for (const Topology& t : topologies_) {
      auto it = labels.find(t.key);
      if (it == labels.end()) it = labels.find(std::string(GaLabel(t.key)));
      if (it == labels.end() || t.values.count(it->second) == 0) {
        return PluginStatus::Unresolvable("node(s) had no available volume zone");
      }
    }
    return PluginStatus::Success();
  }

 private:
  struct Topology {
    std::string key;
    std::set<std::string> values;
  };
  std::vector<Topology> topologies_;
};

}  // namespace

std::unique_ptr<FilterPlugin> NewVolumeZoneFilter() {
  return std::make_unique<VolumeZoneFilter>();
}

}  // namespace knobsim
