// ObjectWriter's controllers and namespace-wide objects (object_writer.h): Deployments and
// their ReplicaSets (the current one and sometimes an older one at 0 replicas), StatefulSets
// with their claims and the disks provisioned for them, PodDisruptionBudgets with the
// disruption controller's status, the two StorageClasses, and a ResourceQuota per namespace.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "tools/gen-export/object_writer.h"
#include "tools/gen-export/text_encoding.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

}  // namespace

json ObjectWriter::DeploymentJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.uid)));
  const int running = Running(w);
  // The Deployment predates its ReplicaSets: one rollout every few days.
  json meta = Meta(w.ns, w.name, w.uid, w.created - w.revision * 5 * kDay, rng);
  meta["labels"] = w.labels;
  meta["generation"] = w.revision;
  json annotations = w.annotations;
  annotations["deployment.kubernetes.io/revision"] = std::to_string(w.revision);
  meta["annotations"] = annotations;
  json status = {{"observedGeneration", w.revision},
                 {"replicas", w.replicas},
                 {"updatedReplicas", w.replicas},
                 {"readyReplicas", running},
                 {"availableReplicas", running}};
  if (running < w.replicas) status["unavailableReplicas"] = w.replicas - running;
  const std::string at = Rfc3339(w.created + 60);
  status["conditions"] = {
      {{"lastTransitionTime", at},
       {"lastUpdateTime", at},
       {"message", running == w.replicas ? "Deployment has minimum availability."
                                         : "Deployment does not have minimum availability."},
       {"reason",
        running == w.replicas ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable"},
       {"status", running == w.replicas ? "True" : "False"},
       {"type", "Available"}},
      {{"lastTransitionTime", at},
       {"lastUpdateTime", at},
       {"message",
        fmt::format("ReplicaSet \"{}-{}\" has successfully progressed.", w.name, w.hash)},
       {"reason", "NewReplicaSetAvailable"},
       {"status", "True"},
       {"type", "Progressing"}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", meta},
          {"spec",
           {{"progressDeadlineSeconds", 600},
            {"replicas", w.replicas},
            {"revisionHistoryLimit", 10},
            {"selector", {{"matchLabels", w.labels}}},
            {"strategy",
             {{"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}},
              {"type", "RollingUpdate"}}},
            {"template", TemplateJson(w, false)}}},
          {"status", status}};
}

std::vector<json> ObjectWriter::ReplicaSetJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.rs_uid)));
  std::vector<json> out;
  const int running = Running(w);
  auto one = [&](const std::string& hash, const std::string& uid, int replicas, int revision,
                 int ready) {
    json labels = w.labels;
    labels["pod-template-hash"] = hash;
    // The current ReplicaSet was made with its pods' rollout; the previous one a rollout before.
    json meta = Meta(w.ns, fmt::format("{}-{}", w.name, hash), uid,
                     w.created - (w.revision - revision) * 5 * kDay, rng);
    meta["labels"] = labels;
    meta["generation"] = 1;
    meta["annotations"] = {
        {"deployment.kubernetes.io/desired-replicas", std::to_string(w.replicas)},
        {"deployment.kubernetes.io/max-replicas",
         std::to_string(w.replicas + (w.replicas + 3) / 4)},
        {"deployment.kubernetes.io/revision", std::to_string(revision)}};
    meta["ownerReferences"] = json::array({{{"apiVersion", "apps/v1"},
                                            {"blockOwnerDeletion", true},
                                            {"controller", true},
                                            {"kind", "Deployment"},
                                            {"name", w.name},
                                            {"uid", w.uid}}});
    json tmpl = TemplateJson(w, true);
    tmpl["metadata"]["labels"]["pod-template-hash"] = hash;
    json status = {{"observedGeneration", 1}, {"replicas", replicas}};
    if (replicas > 0) {
      status["availableReplicas"] = ready;
      status["fullyLabeledReplicas"] = replicas;
      status["readyReplicas"] = ready;
    }
    out.push_back(
        {{"apiVersion", "apps/v1"},
         {"kind", "ReplicaSet"},
         {"metadata", meta},
         {"spec",
          {{"replicas", replicas}, {"selector", {{"matchLabels", labels}}}, {"template", tmpl}}},
         {"status", status}});
  };
  if (!w.old_hash.empty()) one(w.old_hash, w.old_rs_uid, 0, w.revision - 1, 0);
  one(w.hash, w.rs_uid, w.replicas, w.revision, running);
  return out;
}

json ObjectWriter::StatefulSetJson(const Workload& w) {
  Rng rng(Mix64(HashText(w.uid)));
  const int running = Running(w);
  json meta = Meta(w.ns, w.name, w.uid, w.created, rng);
  meta["labels"] = w.labels;
  meta["generation"] = 1;
  json claims = json::array();
  for (const Claim& c : w.claims) {
    claims.push_back({{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", {{"creationTimestamp", nullptr}, {"name", c.name}}},
                      {"spec",
                       {{"accessModes", {"ReadWriteOnce"}},
                        {"resources", {{"requests", {{"storage", c.storage}}}}},
                        {"storageClassName", c.storage_class},
                        {"volumeMode", "Filesystem"}}},
                      {"status", {{"phase", "Pending"}}}});
  }
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", meta},
          {"spec",
           {{"persistentVolumeClaimRetentionPolicy",
             {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
            {"podManagementPolicy", "OrderedReady"},
            {"replicas", w.replicas},
            {"revisionHistoryLimit", 10},
            {"selector", {{"matchLabels", w.labels}}},
            {"serviceName", w.service_name},
            {"template", TemplateJson(w, false)},
            {"updateStrategy", {{"rollingUpdate", {{"partition", 0}}}, {"type", "RollingUpdate"}}},
            {"volumeClaimTemplates", claims}}},
          {"status",
           {{"availableReplicas", running},
            {"collisionCount", 0},
            {"currentReplicas", w.replicas},
            {"currentRevision", w.revision_hash},
            {"observedGeneration", 1},
            {"readyReplicas", running},
            {"replicas", w.replicas},
            {"updateRevision", w.revision_hash},
            {"updatedReplicas", w.replicas}}}};
}

// Claims `<template>-<statefulset>-<ordinal>` and the disks provisioned for them (ACK names a
// dynamically provisioned disk volume after the disk, d-...).
void ObjectWriter::ClaimsJson(const Workload& w, std::vector<json>& pvcs, std::vector<json>& pvs) {
  Rng rng(Mix64(HashText(w.uid) + 7));
  for (const Claim& c : w.claims) {
    for (int p : w.pods) {
      const PodPlan& pod = plan_.pods[p];
      const std::string claim = fmt::format("{}-{}-{}", c.name, w.name, pod.ordinal);
      const std::string claim_uid = rng.Uuid();
      const std::string volume = "d-bp1" + rng.Chars(kLowerAlnum, 15);
      const std::string zone = pod.node >= 0 ? plan_.nodes[pod.node].zone : std::string(kZones[0]);
      const bool bound = pod.node >= 0;
      json meta = Meta(w.ns, claim, claim_uid, pod.created, rng);
      meta["labels"] = w.labels;
      meta["finalizers"] = {"kubernetes.io/pvc-protection"};
      json annotations = {
          {"volume.beta.kubernetes.io/storage-provisioner", "diskplugin.csi.alibabacloud.com"},
          {"volume.kubernetes.io/storage-provisioner", "diskplugin.csi.alibabacloud.com"}};
      if (bound) {
        annotations["pv.kubernetes.io/bind-completed"] = "yes";
        annotations["pv.kubernetes.io/bound-by-controller"] = "yes";
        annotations["volume.kubernetes.io/selected-node"] = plan_.nodes[pod.node].name;
      }
      meta["annotations"] = annotations;
      json spec = {{"accessModes", {"ReadWriteOnce"}},
                   {"resources", {{"requests", {{"storage", c.storage}}}}},
                   {"storageClassName", c.storage_class},
                   {"volumeMode", "Filesystem"}};
      json status = {{"phase", bound ? "Bound" : "Pending"}};
      if (bound) {
        spec["volumeName"] = volume;
        status["accessModes"] = {"ReadWriteOnce"};
        status["capacity"] = {{"storage", c.storage}};
      }
      pvcs.push_back({{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", meta},
                      {"spec", spec},
                      {"status", status}});
      if (!bound) continue;  // WaitForFirstConsumer: no disk until the pod has a node
      const bool retain = c.storage_class.find("retain") != std::string::npos;
      json pv_meta = Meta("", volume, rng.Uuid(), pod.created + 20, rng);
      pv_meta["annotations"] = {
          {"pv.kubernetes.io/provisioned-by", "diskplugin.csi.alibabacloud.com"}};
      pv_meta["finalizers"] = {"kubernetes.io/pv-protection",
                               "external-attacher/diskplugin-csi-alibabacloud-com"};
      pv_meta["labels"] = {{"topology.kubernetes.io/region", kRegion},
                           {"topology.kubernetes.io/zone", zone}};
      json requirement = {{"key", "topology.diskplugin.csi.alibabacloud.com/zone"},
                          {"operator", "In"},
                          {"values", json::array({zone})}};
      json term = {{"matchExpressions", json::array({requirement})}};
      json zone_affinity = {{"required", {{"nodeSelectorTerms", json::array({term})}}}};
      pvs.push_back({{"apiVersion", "v1"},
                     {"kind", "PersistentVolume"},
                     {"metadata", pv_meta},
                     {"spec",
                      {{"accessModes", {"ReadWriteOnce"}},
                       {"capacity", {{"storage", c.storage}}},
                       {"claimRef",
                        {{"apiVersion", "v1"},
                         {"kind", "PersistentVolumeClaim"},
                         {"name", claim},
                         {"namespace", w.ns},
                         {"resourceVersion", std::to_string(rng.Int(100000000, 119999999))},
                         {"uid", claim_uid}}},
                       {"csi",
                        {{"driver", "diskplugin.csi.alibabacloud.com"},
                         {"fsType", "ext4"},
                         {"volumeAttributes",
                          {{"storage.kubernetes.io/csiProvisionerIdentity",
                            "1710123456789-8081-diskplugin.csi.alibabacloud.com"},
                           {"type", "cloud_essd"}}},
                         {"volumeHandle", volume}}},
                       {"nodeAffinity", zone_affinity},
                       {"persistentVolumeReclaimPolicy", retain ? "Retain" : "Delete"},
                       {"storageClassName", c.storage_class},
                       {"volumeMode", "Filesystem"}}},
                     {"status", {{"phase", "Bound"}}}});
    }
  }
}

// status as the disruption controller computes it (docs/semantics.md §4.1).
json ObjectWriter::PdbJson(const Workload& w, const json& budget) {
  Rng rng(Mix64(HashText(w.uid) + 11));
  const int running = Running(w);
  int desired = 0;
  if (budget.contains("minAvailable")) {
    const json& v = budget["minAvailable"];
    if (v.is_string()) {
      const int percent = std::stoi(v.get<std::string>());
      desired = (w.replicas * percent + 99) / 100;  // percentages round up
    } else {
      desired = v.get<int>();
    }
  } else {
    desired = std::max(0, w.replicas - budget["maxUnavailable"].get<int>());
  }
  json meta = Meta(w.ns, w.name + "-pdb", rng.Uuid(), w.created + 5, rng);
  meta["generation"] = 1;
  json spec = budget;
  spec["selector"] = {{"matchLabels", w.labels}};
  const int allowed = std::max(0, running - desired);
  const std::string at = Rfc3339(plan_.now - 3600);
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", meta},
          {"spec", spec},
          {"status",
           {{"conditions",
             {{{"lastTransitionTime", at},
               {"message", ""},
               {"observedGeneration", 1},
               {"reason", allowed > 0 ? "SufficientPods" : "InsufficientPods"},
               {"status", allowed > 0 ? "True" : "False"},
               {"type", "DisruptionAllowed"}}}},
            {"currentHealthy", running},
            {"desiredHealthy", desired},
            {"disruptionsAllowed", allowed},
            {"expectedPods", w.replicas},
            {"observedGeneration", 1}}}};
}

std::vector<json> ObjectWriter::StorageClassJson() const {
  std::vector<json> out;
  for (const auto& [name, policy] :
       {std::pair{"alicloud-disk-essd", "Delete"}, {"alicloud-disk-essd-retain", "Retain"}}) {
    Rng rng(HashText(name) ^ plan_.o.seed);
    out.push_back({{"allowVolumeExpansion", true},
                   {"apiVersion", "storage.k8s.io/v1"},
                   {"kind", "StorageClass"},
                   {"metadata",
                    {{"creationTimestamp", Rfc3339(plan_.o.start_unix - 90 * kDay)},
                     {"name", name},
                     {"resourceVersion", std::to_string(rng.Int(1000, 9999))},
                     {"uid", rng.Uuid()}}},
                   {"parameters", {{"fstype", "ext4"}, {"type", "cloud_essd"}}},
                   {"provisioner", "diskplugin.csi.alibabacloud.com"},
                   {"reclaimPolicy", policy},
                   {"volumeBindingMode", "WaitForFirstConsumer"}});
  }
  return out;
}

// One quota per namespace (kube-system excepted) with headroom over what its pods use.
std::vector<json> ObjectWriter::QuotaJson() {
  struct Used {
    int64_t pods = 0, cpu_m = 0, mem_mib = 0, gpu_mem = 0, gpus = 0;
  };
  std::map<std::string, Used> used;
  for (const PodPlan& pod : plan_.pods) {
    const Workload& w = plan_.workloads[pod.workload];
    if (w.ns == "kube-system") continue;
    Used& u = used[w.ns];
    u.pods += 1;
    for (const Container& c : w.containers) {
      u.cpu_m += c.cpu_m;
      u.mem_mib += c.mem_mib;
      u.gpu_mem += c.gpu_mem;
      u.gpus += c.whole_gpus;
    }
  }
  std::vector<json> out;
  for (const auto& [ns, u] : used) {
    Rng rng(HashText(ns) ^ plan_.o.seed);
    auto headroom = [](int64_t v, int64_t unit) { return (v * 3 / 2 / unit + 1) * unit; };
    json hard = {{"pods", std::to_string(headroom(u.pods, 10))},
                 {"requests.cpu", Cpu(headroom(u.cpu_m, 1000))},
                 {"requests.memory", Mem(headroom(u.mem_mib, 1024))},
                 {"limits.memory", Mem(headroom(u.mem_mib, 1024))}};
    json current = {{"pods", std::to_string(u.pods)},
                    {"requests.cpu", Cpu(u.cpu_m)},
                    {"requests.memory", Mem(u.mem_mib)},
                    {"limits.memory", Mem(u.mem_mib)}};
    if (u.gpu_mem > 0) {
      hard["requests.aliyun.com/gpu-mem"] = std::to_string(headroom(u.gpu_mem, 4));
      current["requests.aliyun.com/gpu-mem"] = std::to_string(u.gpu_mem);
    }
    if (u.gpus > 0) {
      hard["requests.nvidia.com/gpu"] = std::to_string(headroom(u.gpus, 1));
      current["requests.nvidia.com/gpu"] = std::to_string(u.gpus);
    }
    json meta = Meta(ns, ns + "-quota", rng.Uuid(), plan_.o.start_unix - 80 * kDay, rng);
    out.push_back({{"apiVersion", "v1"},
                   {"kind", "ResourceQuota"},
                   {"metadata", meta},
                   {"spec", {{"hard", hard}}},
                   {"status", {{"hard", hard}, {"used", current}}}});
  }
  return out;
}

}  // namespace knobsim::gen_export
