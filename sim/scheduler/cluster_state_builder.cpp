#include "sim/scheduler/cluster_state_builder.h"

#include <fmt/format.h>

#include <map>
#include <string_view>

namespace knobsim {
namespace {

bool UsesNamespaceSelector(const PodSpec& pod) {
  auto in = [](const PodAffinity& a) {
    auto labelled = [](const PodAffinityTerm& t) {
      return t.namespace_selector &&
             (!t.namespace_selector->match_labels.empty() ||
              !t.namespace_selector->match_expressions.empty());
    };
    for (const PodAffinityTerm& t : a.required) {
      if (labelled(t)) return true;
    }
    for (const WeightedPodAffinityTerm& t : a.preferred) {
      if (labelled(t.term)) return true;
    }
    return false;
  };
  return in(pod.pod_affinity) || in(pod.pod_anti_affinity);
}

}  // namespace

ClusterState BuildClusterState(const KubeObjects& objects, std::vector<std::string>* warnings) {
  ClusterState cluster;
  for (const NodeSpec& node : objects.nodes) cluster.AddNode(node);
  for (const NamespaceSpec& ns : objects.namespaces) cluster.SetNamespaceLabels(ns.name, ns.labels);
  cluster.SetVolumes(VolumeCatalog(objects.pvcs, objects.pvs, objects.storage_classes));
  cluster.SetDra(DraCatalog(objects.resource_slices, objects.device_classes,
                            objects.resource_claims, objects.resource_claim_templates));
  auto warn = [&](size_t i, std::string_view text) {
    if (warnings == nullptr) return;
    const ObjectSource source =
        i < objects.pod_sources.size() ? objects.pod_sources[i] : ObjectSource{};
    warnings->push_back(fmt::format("{}:{}: pod {}/{}: {}", source.file, source.line,
                                    objects.pods[i].namespace_, objects.pods[i].name, text));
  };
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    const PodSpec& pod = objects.pods[i];
    if (pod.node_name.empty() || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    const int n = cluster.FindNode(pod.node_name);
    if (n < 0) {
      warn(i, fmt::format("bound to node \"{}\", which the cluster files do not hold; skipped",
                          pod.node_name));
      continue;
    }
    const int cards = static_cast<int>(cluster.node(n).cards.size());
    for (const std::map<int, int>* allocation : {&pod.allocated_mem, &pod.allocated_core}) {
      for (const auto& [card, units] : *allocation) {
        if (card >= cards) {
          warn(i, fmt::format("allocated on card {} but node \"{}\" has {} card(s); that share is "
                              "skipped",
                              card, pod.node_name, cards));
        }
      }
    }
    if (pod.gpu_mem > 0 && pod.allocated_mem.empty() && cluster.node(n).spec.card_mem_units > 0) {
      warn(i,
           "requests aliyun.com/gpu-mem but carries no ACK allocation annotation; it counts "
           "on the node but on no card");
    }
    cluster.BindExisting(pod);
  }
  if (objects.namespaces.empty()) {
    for (size_t i = 0; i < objects.pods.size(); ++i) {
      if (UsesNamespaceSelector(objects.pods[i])) {
        warn(i,
             "inter-pod affinity with a non-empty namespaceSelector, but the files hold no Namespace "
             "objects: each namespace is taken to carry only kubernetes.io/metadata.name=<name> "
             "(export the namespaces too: kubectl get namespaces -o yaml)");
        break;
      }
    }
  }
  return cluster;
}

}  // namespace knobsim
