// Manifests of a config repository (Deployments and StatefulSets without pods) through the
// kube reader and ImportCluster: workloads from the pod templates, placed by nobody yet.
#include <doctest/doctest.h>

#include <string>

#include "sim/import/cluster_import.h"
#include "sim/io/kube_reader.h"

namespace knobsim {
namespace {

const char* kManifests = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: ocr, namespace: vision}
spec:
  replicas: 3
  selector: {matchLabels: {app: ocr}}
  template:
    metadata: {labels: {app: ocr, team: docs}}
    spec:
      nodeSelector: {pool: gpu}
      containers:
        - name: server
          image: registry.example.com/ocr:1.0
          resources:
            requests: {cpu: 500m, memory: 2Gi}
            limits: {aliyun.com/gpu-mem: 6}
          readinessProbe: {httpGet: {path: /v2/health/ready, port: 8000}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: asr, namespace: speech}
spec:
  replicas: 2
  selector: {matchLabels: {app: asr}}
  template:
    metadata: {labels: {app: asr}}
    spec:
      containers:
        - name: server
          image: registry.example.com/asr:2.0
          resources: {limits: {aliyun.com/gpu-mem: 4}}
          readinessProbe: {tcpSocket: {port: 9000}}
)";

const ImportedWorkload& Find(const ImportModel& m, const std::string& name) {
  for (const ImportedWorkload& w : m.workloads)
    if (w.spec.name == name) return w;
  FAIL("no workload " << name);
  return m.workloads.front();
}

TEST_CASE("a Deployment or StatefulSet without pods imports from its template with spec.replicas") {
  Expected<KubeObjects> objects = ReadKubeString(kManifests, "manifests.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  CHECK(objects->pods.empty());
  REQUIRE(objects->template_pods.size() == 2);
  CHECK(objects->template_pod_sources[0].line == 7);  // the line of `template:`

  const ImportModel m = ImportCluster(*objects, nullptr, ImportOptions{});
  REQUIRE(m.workloads.size() == 2);
  const ImportedWorkload& ocr = Find(m, "ocr");
  CHECK(ocr.kind == "Deployment");
  CHECK(ocr.spec.namespace_ == "vision");
  CHECK(ocr.spec.replicas == 3);
  CHECK(ocr.spec.gpu_mem == 6);
  CHECK(ocr.spec.cpu_milli == 500);
  CHECK(ocr.spec.labels.at("team") == "docs");
  CHECK(ocr.spec.node_selector.at("pool") == "gpu");
  CHECK(ocr.spec.probe == ReadinessKind::kModel);
  CHECK(ocr.pods.empty());  // the scheduler places them
  const ImportedWorkload& asr = Find(m, "asr");
  CHECK(asr.kind == "StatefulSet");
  CHECK(asr.spec.replicas == 2);
  CHECK(asr.spec.gpu_mem == 4);
  CHECK(asr.spec.probe == ReadinessKind::kTcp);
}

TEST_CASE("a Deployment with pods in the input is read from its pods, not its template") {
  const std::string live = std::string(kManifests) + R"(---
apiVersion: v1
kind: Pod
metadata:
  name: ocr-7d9f-abcde
  namespace: vision
  labels: {app: ocr, team: live, pod-template-hash: 7d9f}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ocr-7d9f, controller: true}]
spec:
  containers:
    - name: server
      image: registry.example.com/ocr:0.9
      resources: {limits: {aliyun.com/gpu-mem: 8}}
status: {phase: Pending}
)";
  Expected<KubeObjects> objects = ReadKubeString(live, "export.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  const ImportModel m = ImportCluster(*objects, nullptr, ImportOptions{});
  REQUIRE(m.workloads.size() == 2);
  const ImportedWorkload& ocr = Find(m, "ocr");
  CHECK(ocr.spec.gpu_mem == 8);  // the pod's, not the template's 6
  CHECK(ocr.spec.labels.at("team") == "live");
  CHECK(ocr.spec.replicas == 3);  // spec.replicas still
}

// A DaemonSet's template becomes a workload of kind DaemonSet; a run lays its pods out over
// the nodes (sim/controllers/daemon_sets.h), so no `replicas` is read.
TEST_CASE("a DaemonSet without pods imports from its template as kind DaemonSet") {
  const std::string with_ds = std::string(kManifests) + R"(---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dcgm-exporter, namespace: monitoring}
spec:
  selector: {matchLabels: {app: dcgm}}
  template:
    metadata: {labels: {app: dcgm}}
    spec:
      nodeSelector: {pool: gpu}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
        - name: exporter
          image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5
          resources: {requests: {cpu: 100m, memory: 128Mi}}
)";
  Expected<KubeObjects> objects = ReadKubeString(with_ds, "manifests.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  CHECK(objects->skipped_kinds.count("DaemonSet") == 0);
  const ImportModel m = ImportCluster(*objects, nullptr, ImportOptions{});
  const ImportedWorkload& dcgm = Find(m, "dcgm-exporter");
  CHECK(dcgm.kind == "DaemonSet");
  CHECK(dcgm.spec.cpu_milli == 100);
  CHECK(dcgm.spec.node_selector.at("pool") == "gpu");
  REQUIRE(dcgm.spec.tolerations.size() == 1);
  CHECK(dcgm.pods.empty());
}

}  // namespace
}  // namespace knobsim
