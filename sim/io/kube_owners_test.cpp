#include "sim/io/kube_owners.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {
namespace {

std::string KubeDataDir() {
#ifdef KNOBSIM_SOURCE_DIR
  return std::string(KNOBSIM_SOURCE_DIR) + "/sim/io/testdata/kube/";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "testdata/kube/";
#endif
}

KubeObjects MustRead(const std::string& text) {
  Expected<KubeObjects> read = ReadKubeString(text, "owners.yaml");
  if (!read.ok()) FAIL(read.error().ToString());
  return std::move(read.value());
}

// "ns/Kind/name: replicas [pod names]" per group, in the order returned.
std::vector<std::string> Groups(const KubeObjects& objects, const std::vector<OwnedPods>& groups) {
  std::vector<std::string> out;
  for (const OwnedPods& g : groups) {
    std::string line = g.workload.ns + "/" + g.workload.kind + "/" + g.workload.name + ": " +
                       std::to_string(g.spec_replicas) + " [";
    for (size_t i = 0; i < g.pods.size(); ++i) {
      line += (i > 0 ? " " : "") + objects.pods[g.pods[i]].name;
    }
    out.push_back(line + "]");
  }
  return out;
}

// A pod owned by `kind`/`owner` (controller: true), with optional labels.
std::string Pod(const std::string& name, const std::string& kind, const std::string& owner,
                const std::string& labels = "{}", const std::string& ns = "web") {
  std::string text = "---\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
                     "\n  labels: " + labels + "\n";
  if (!kind.empty()) {
    text += "  ownerReferences: [{apiVersion: apps/v1, kind: " + kind + ", name: " + owner +
            ", uid: uid-" + owner + ", controller: true}]\n";
  }
  return text + "spec: {containers: [{name: c}]}\n";
}

const std::string kDeployment = R"(---
kind: Deployment
metadata: {name: api, namespace: web, uid: uid-api}
spec: {replicas: 4, selector: {matchLabels: {app: api}}}
---
kind: ReplicaSet
metadata:
  name: api-7d9f8b6c5
  namespace: web
  uid: uid-api-7d9f8b6c5
  ownerReferences: [{kind: Deployment, name: api, uid: uid-api, controller: true}]
spec: {replicas: 1}
---
kind: ReplicaSet
metadata:
  name: api-5c4b3a291
  namespace: web
  uid: uid-api-5c4b3a291
  ownerReferences: [{kind: Deployment, name: api, uid: uid-api, controller: true}]
spec: {replicas: 3}
)";

TEST_CASE("pods of a Deployment's ReplicaSets, old and new, form one Deployment group") {
  const KubeObjects o =
      MustRead(kDeployment + Pod("api-5c4b3a291-aaaaa", "ReplicaSet", "api-5c4b3a291") +
               Pod("api-7d9f8b6c5-bbbbb", "ReplicaSet", "api-7d9f8b6c5") +
               Pod("api-5c4b3a291-ccccc", "ReplicaSet", "api-5c4b3a291"));
  std::vector<std::string> warnings;
  const std::vector<OwnedPods> groups = GroupPodsByWorkload(o, &warnings);
  CHECK(Groups(o, groups) ==
        std::vector<std::string>{"web/Deployment/api: 4 [api-5c4b3a291-aaaaa api-7d9f8b6c5-bbbbb "
                                 "api-5c4b3a291-ccccc]"});
  CHECK(groups[0].pods == std::vector<int>{0, 1, 2});
  CHECK(warnings.empty());
}

TEST_CASE(
    "a ReplicaSet missing from the export: the pod-template-hash label names the "
    "Deployment") {
  const KubeObjects o = MustRead(kDeployment +
                                 Pod("api-9f8e7d6c5-ddddd", "ReplicaSet", "api-9f8e7d6c5",
                                     "{app: api, pod-template-hash: 9f8e7d6c5}") +
                                 Pod("api-9f8e7d6c5-eeeee", "ReplicaSet", "api-9f8e7d6c5",
                                     "{app: api, pod-template-hash: 9f8e7d6c5}") +
                                 Pod("web-1a2b3c4d5-fffff", "ReplicaSet", "web-1a2b3c4d5",
                                     "{app: web, pod-template-hash: 1a2b3c4d5}"));
  std::vector<std::string> warnings;
  const std::vector<OwnedPods> groups = GroupPodsByWorkload(o, &warnings);
  CHECK(Groups(o, groups) ==
        std::vector<std::string>{"web/Deployment/api: 4 [api-9f8e7d6c5-ddddd api-9f8e7d6c5-eeeee]",
                                 "web/Deployment/web: -1 [web-1a2b3c4d5-fffff]"});
  // Once per missing object, at the first pod that needed it.
  CHECK(warnings ==
        std::vector<std::string>{
            "owners.yaml:22: pod web/api-9f8e7d6c5-ddddd: ReplicaSet web/api-9f8e7d6c5 "
            "is not in the export; taking Deployment api from the pod-template-hash label",
            "owners.yaml:38: pod web/web-1a2b3c4d5-fffff: ReplicaSet web/web-1a2b3c4d5 "
            "is not in the export; taking Deployment web from the pod-template-hash label",
            "owners.yaml:38: pod web/web-1a2b3c4d5-fffff: its Deployment web/web is not "
            "in the export; its replica count is unknown"});
}

TEST_CASE("a missing ReplicaSet whose name does not end in the pod's hash stays a ReplicaSet") {
  const KubeObjects o =
      MustRead(Pod("a-1", "ReplicaSet", "legacy-rs", "{pod-template-hash: 7d9f8b6c5}") +
               Pod("b-1", "ReplicaSet", "other-rs"));
  std::vector<std::string> warnings;
  CHECK(Groups(o, GroupPodsByWorkload(o, &warnings)) ==
        std::vector<std::string>{"web/ReplicaSet/legacy-rs: -1 [a-1]",
                                 "web/ReplicaSet/other-rs: -1 [b-1]"});
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] ==
        "owners.yaml:2: pod web/a-1: its ReplicaSet web/legacy-rs is not in the "
        "export; its replica count is unknown");
}

TEST_CASE("a ReplicaSet without a Deployment is its own workload with its replicas") {
  const KubeObjects o = MustRead(std::string(R"(---
kind: ReplicaSet
metadata: {name: solo, namespace: web}
spec: {replicas: 2}
)") + Pod("solo-x", "ReplicaSet", "solo"));
  CHECK(Groups(o, GroupPodsByWorkload(o)) ==
        std::vector<std::string>{"web/ReplicaSet/solo: 2 [solo-x]"});
}

TEST_CASE("StatefulSet, DaemonSet, Job, CronJob, unknown controllers and bare pods") {
  const KubeObjects o = MustRead(std::string(R"(---
kind: StatefulSet
metadata: {name: etcd, namespace: infra}
spec: {replicas: 3, selector: {matchLabels: {app: etcd}}}
---
kind: Job
metadata:
  name: report-28940160
  namespace: web
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: report, controller: true}]
)") + Pod("etcd-1", "StatefulSet", "etcd", "{}", "infra") +
                                 Pod("etcd-0", "StatefulSet", "etcd", "{}", "infra") +
                                 Pod("plugin-abcde", "DaemonSet", "gpushare", "{}", "kube-system") +
                                 Pod("report-28940160-q4w8e", "Job", "report-28940160") +
                                 Pod("backfill-1-zzz", "Job", "backfill-1") +
                                 Pod("train-worker-0", "PyTorchJob", "train") +
                                 Pod("debug", "", "") + Pod("cache-0", "StatefulSet", "cache"));
  std::vector<std::string> warnings;
  CHECK(Groups(o, GroupPodsByWorkload(o, &warnings)) ==
        std::vector<std::string>{
            "infra/StatefulSet/etcd: 3 [etcd-1 etcd-0]",
            "kube-system/DaemonSet/gpushare: -1 [plugin-abcde]",
            "web/CronJob/report: -1 [report-28940160-q4w8e]",
            "web/Job/backfill-1: -1 [backfill-1-zzz]",
            "web/Pod/debug: -1 [debug]",
            "web/PyTorchJob/train: -1 [train-worker-0]",
            "web/StatefulSet/cache: -1 [cache-0]",
        });
  // Only the StatefulSet the export should have held is reported; absent Jobs are normal.
  CHECK(warnings == std::vector<std::string>{"owners.yaml:67: pod web/cache-0: its StatefulSet "
                                             "web/cache is not in the export; its replica count "
                                             "is unknown"});
}

TEST_CASE("an owner reference without controller: true is used when it is the only one") {
  const KubeObjects o = MustRead(R"(kind: Pod
metadata:
  name: trimmed
  ownerReferences: [{kind: DaemonSet, name: agent}]
spec: {containers: [{name: c}]}
---
kind: Pod
metadata:
  name: two-owners
  ownerReferences: [{kind: ConfigMap, name: a}, {kind: Secret, name: b}]
spec: {containers: [{name: c}]}
)");
  std::vector<std::string> warnings;
  CHECK(Groups(o, GroupPodsByWorkload(o, &warnings)) ==
        std::vector<std::string>{"default/DaemonSet/agent: -1 [trimmed]",
                                 "default/Pod/two-owners: -1 [two-owners]"});
  CHECK(warnings == std::vector<std::string>{
                        "owners.yaml:1: pod default/trimmed: its only owner reference (DaemonSet "
                        "agent) has no controller: true; taken as its controller"});
}

TEST_CASE("an owner replaced since the pod was made is still its group, with a warning") {
  const KubeObjects o = MustRead(std::string(R"(---
kind: StatefulSet
metadata: {name: db, namespace: web, uid: new-uid}
spec: {replicas: 2, selector: {}}
)") + Pod("db-0", "StatefulSet", "db"));
  std::vector<std::string> warnings;
  CHECK(Groups(o, GroupPodsByWorkload(o, &warnings)) ==
        std::vector<std::string>{"web/StatefulSet/db: 2 [db-0]"});
  CHECK(warnings == std::vector<std::string>{
                        "owners.yaml:6: pod web/db-0: its owner StatefulSet db has another uid in "
                        "the export (it was replaced); grouped with it by name"});
}

TEST_CASE("the kubectl export groups every pod with its workload, without warnings") {
  Expected<KubeObjects> read = ReadKubeFile(KubeDataDir() + "export.json");
  REQUIRE(read.ok());
  std::vector<std::string> warnings;
  const std::vector<OwnedPods> groups = GroupPodsByWorkload(read.value(), &warnings);
  CHECK(warnings.empty());
  std::vector<std::string> summary;
  size_t pods = 0;
  for (const OwnedPods& g : groups) {
    summary.push_back(g.workload.ns + "/" + g.workload.kind + "/" + g.workload.name + " " +
                      std::to_string(g.spec_replicas) + " " + std::to_string(g.pods.size()));
    pods += g.pods.size();
  }
  CHECK(pods == read->pods.size());
  CHECK(summary == std::vector<std::string>{
                       "ai-infer/Deployment/embed 3 3",
                       "ai-infer/Deployment/ocr 4 4",
                       "ai-infer/Deployment/rerank 3 3",
                       "infra/StatefulSet/etcd 3 3",
                       "kube-system/DaemonSet/gpushare-device-plugin-ds -1 11",
                       "kube-system/Deployment/coredns 2 2",
                       "llm/StatefulSet/qwen-chat 3 3",
                       "ml-train/Job/embed-backfill-28940160 -1 1",
                       "ml-train/PyTorchJob/llama-sft -1 2",
                       "web/Deployment/api-gateway 3 3",
                       "web/Pod/batch-exporter -1 1",
                   });
}

}  // namespace
}  // namespace knobsim
