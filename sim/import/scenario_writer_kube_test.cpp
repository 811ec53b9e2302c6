// The `kube:` lists of sim/io/kube_scenario_fields.h, walked by the writer, the reader and the
// import's direct conversion: what one writes the other reads, a default is left out, and an
// object read from an export in camelCase survives the scenario's snake_case.
#include <doctest/doctest.h>

#include "sim/import/imported_scenario.h"
#include "sim/import/scenario_writer.h"
#include "sim/io/kube_reader.h"
#include "sim/io/kube_scenario_fields.h"
#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

ImportModel WithKube(const ScenarioKube& kube) {
  ImportModel m;
  m.name = "kube-fields";
  m.duration_s = 60;
  m.kube = kube;
  return m;
}

// The scenario text's `kube:` section read back.
ScenarioKube ReadBack(const ScenarioKube& kube) {
  const std::string text = WriteScenarioYaml(WithKube(kube));
  Expected<Scenario> s = ReadScenarioString(text, "kube.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString() + "\n" + text));
  return s->kube;
}

// `kube` with every object reduced to its listed fields: no uids.
ScenarioKube Listed(const ScenarioKube& kube) {
  ScenarioKube out;
  ForEachKubeList([&](std::string_view, auto list) {
    for (const auto& object : kube.*list) (out.*list).push_back(KubeScenarioFields(object));
  });
  return out;
}

// Every listed field away from its default.
ScenarioKube Everything() {
  ScenarioKube k;
  PodDisruptionBudgetSpec pdb;
  pdb.namespace_ = "infra";
  pdb.name = "etcd";
  pdb.uid = "uid-1";
  pdb.min_available = IntOrPercent{51, true};
  pdb.selector = LabelSelector{{{"app", "etcd"}}, {{"tier", "NotIn", {"test", "dev"}}}};
  pdb.unhealthy_pod_eviction_policy = "AlwaysAllow";
  pdb.status = PodDisruptionBudgetSpec::Status{2, 3, 1, 4, {"etcd-0", "etcd-2"}};
  k.pdbs.push_back(pdb);
  StatefulSetSpec sts;
  sts.namespace_ = "infra";
  sts.name = "etcd";
  sts.uid = "uid-2";
  sts.replicas = 3;
  sts.selector.match_labels = {{"app", "etcd"}};
  sts.template_labels = {{"app", "etcd"}, {"tier", "db"}};
  sts.volume_claim_templates = {"data", "wal"};
  sts.status_replicas = 3;
  sts.ready_replicas = 2;
  k.stateful_sets.push_back(sts);
  PersistentVolumeClaimSpec pvc;
  pvc.namespace_ = "infra";
  pvc.name = "data-etcd-0";
  pvc.uid = "uid-3";
  pvc.volume_name = "d-0001";
  pvc.storage_class_name = "";  // explicitly no class
  pvc.requested_bytes = int64_t{20} << 30;
  pvc.phase = "Lost";
  pvc.access_modes = {"ReadWriteOncePod", "ReadOnlyMany"};
  pvc.terminating = true;
  k.pvcs.push_back(pvc);
  PersistentVolumeSpec pv;
  pv.name = "d-0001";
  pv.uid = "uid-4";
  pv.reclaim_policy = "Recycle";
  pv.storage_class_name = "essd";
  pv.claim_namespace = "infra";
  pv.claim_name = "data-etcd-0";
  pv.capacity_bytes = int64_t{21} << 30;
  pv.phase = "Released";
  pv.labels = {{"topology.kubernetes.io/zone", "cn-beijing-h"}};
  pv.node_affinity = {{{"topology.kubernetes.io/zone", "In", {"cn-beijing-h"}}},
                      {{"kubernetes.io/hostname", "Exists", {}}}};
  pv.access_modes = {"ReadWriteOnce"};
  pv.terminating = true;
  k.pvs.push_back(pv);
  StorageClassSpec sc;
  sc.name = "essd";
  sc.provisioner = "diskplugin.csi.alibabacloud.com";
  sc.reclaim_policy = "Retain";
  sc.volume_binding_mode = "WaitForFirstConsumer";
  sc.is_default = true;
  sc.allowed_topologies = {
      {{"topology.kubernetes.io/zone", "In", {"cn-beijing-h", "cn-beijing-i"}}}};
  k.storage_classes.push_back(sc);
  ResourceQuotaSpec quota;
  quota.namespace_ = "ai";
  quota.name = "gpu";
  quota.uid = "uid-5";
  quota.hard = {{"requests.cpu", 64000}, {"limits.memory", int64_t{256} << 30}, {"pods", 50}};
  quota.used = {{"requests.cpu", 12000}};
  k.resource_quotas.push_back(quota);
  return k;
}

TEST_CASE("every field a kind lists reads back from the scenario text as written") {
  const ScenarioKube k = Everything();
  const ScenarioKube back = ReadBack(k);
  CHECK(back == Listed(k));
  // The lists hold every field of these kinds but the uid (and the export-only PDB beta and
  // pod-template details, which live elsewhere): dropping the uids gives the objects back.
  ScenarioKube no_uids = k;
  ForEachKubeList([&](std::string_view, auto list) {
    for (auto& object : no_uids.*list) {
      if constexpr (requires { object.uid; }) object.uid.clear();
    }
  });
  CHECK(back == no_uids);
}

TEST_CASE("ScenarioFromImport keeps the listed fields, as the text does") {
  const ScenarioKube k = Everything();
  Expected<Scenario> direct = ScenarioFromImport(WithKube(k), "kube.yaml");
  REQUIRE_MESSAGE(direct.ok(), (direct.ok() ? "" : direct.error().ToString()));
  CHECK(direct->kube == ReadBack(k));
}

TEST_CASE("a field at the value its absence reads as is left out of the text") {
  struct Case {
    const char* name;
    ScenarioKube kube;
    const char* line;  // the object's line, as written
  };
  ScenarioKube pvc, sts, pv, quota, pdb;
  pvc.pvcs.emplace_back().name = "cache";
  sts.stateful_sets.emplace_back().name = "db";
  pv.pvs.emplace_back().name = "pv-1";
  quota.resource_quotas.emplace_back().name = "q";
  pdb.pdbs.emplace_back().name = "ocr";
  const Case cases[] = {
      {"claim: no class, volume, modes or terminating", pvc,
       "- {namespace: default, name: cache, request: 0, phase: Pending}  # no storage_class: the "
       "default class"},
      {"stateful set: no labels or claim templates; counts always", sts,
       "- {namespace: default, name: db, replicas: 1, selector: {}, status: {replicas: 0, "
       "ready_replicas: 0}}"},
      {"volume: no class, claim, labels, affinity or modes", pv,
       "- {name: pv-1, reclaim_policy: Retain, capacity: 0, phase: Pending}"},
      {"quota: no amounts", quota, "- {namespace: default, name: q}"},
      {"budget: neither bound, no selector, no status", pdb,
       "- {namespace: default, name: ocr, unhealthy_pod_eviction_policy: IfHealthyBudget}  # no "
       "selector: matches no pod"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string text = WriteScenarioYaml(WithKube(c.kube));
    CHECK_MESSAGE(text.find(std::string("\n    ") + c.line + "\n") != std::string::npos, text);
    CHECK(ReadBack(c.kube) == c.kube);
  }
}

TEST_CASE("the export's camelCase and the scenario's snake_case carry the same objects") {
  const std::string exported = R"(apiVersion: v1
kind: List
items:
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: etcd, namespace: infra, uid: u1}
  spec:
    maxUnavailable: 25%
    selector: {matchLabels: {app: etcd}, matchExpressions: [{key: tier, operator: In, values: [db]}]}
    unhealthyPodEvictionPolicy: AlwaysAllow
  status: {currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3,
           disruptedPods: {etcd-1: "2026-12-01T00:00:00Z"}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: data-etcd-0, namespace: infra, uid: u2, deletionTimestamp: "2026-12-01T00:00:00Z"}
  spec:
    accessModes: [ReadWriteOnce]
    storageClassName: essd
    volumeName: d-0001
    resources: {requests: {storage: 20Gi}}
  status: {phase: Bound}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: d-0001, uid: u3, labels: {topology.kubernetes.io/zone: cn-beijing-h}}
  spec:
    accessModes: [ReadWriteOnce, ReadOnlyMany]
    capacity: {storage: 20Gi}
    claimRef: {namespace: infra, name: data-etcd-0}
    persistentVolumeReclaimPolicy: Delete
    storageClassName: essd
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [cn-beijing-h]}]
  status: {phase: Bound}
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: essd
    annotations: {storageclass.kubernetes.io/is-default-class: "true"}
  provisioner: diskplugin.csi.alibabacloud.com
  reclaimPolicy: Retain
  volumeBindingMode: WaitForFirstConsumer
  allowedTopologies:
  - matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [cn-beijing-h]}]
- apiVersion: v1
  kind: ResourceQuota
  metadata: {name: gpu, namespace: ai, uid: u4}
  spec: {hard: {requests.cpu: "64", pods: "50"}}
  status: {used: {requests.cpu: 12500m}}
)";
  Expected<KubeObjects> objects = ReadKubeString(exported, "export.yaml");
  REQUIRE_MESSAGE(objects.ok(), (objects.ok() ? "" : objects.error().ToString()));
  ScenarioKube k;
  k.pdbs = objects->pdbs;
  k.pvcs = objects->pvcs;
  k.pvs = objects->pvs;
  k.storage_classes = objects->storage_classes;
  k.resource_quotas = objects->resource_quotas;
  REQUIRE(k.pdbs.size() == 1);
  REQUIRE(k.pvcs.size() == 1);
  REQUIRE(k.pvs.size() == 1);
  REQUIRE(k.storage_classes.size() == 1);
  REQUIRE(k.resource_quotas.size() == 1);
  // What the export said reached the objects (so the comparison below is not of defaults).
  CHECK(k.pdbs[0].status->disrupted_pods == std::vector<std::string>{"etcd-1"});
  CHECK(k.pvcs[0].terminating);
  CHECK(k.pvs[0].node_affinity.size() == 1);
  CHECK(k.storage_classes[0].is_default);
  CHECK(k.resource_quotas[0].used.at("requests.cpu") == 12500);
  CHECK(ReadBack(k) == Listed(k));
}

TEST_CASE("the reader refuses a key the list does not name, and both PDB bounds") {
  const ScenarioKube k = Everything();
  std::string text = WriteScenarioYaml(WithKube(k));
  SUBCASE("a misspelt key gets the list's nearest") {
    const size_t at = text.find("min_available:");
    REQUIRE(at != std::string::npos);
    text.replace(at, 14, "min_availabel:");
    Expected<Scenario> s = ReadScenarioString(text, "kube.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().ToString().find("unknown key") != std::string::npos);
    CHECK(s.error().ToString().find("min_available") != std::string::npos);
  }
  SUBCASE("min_available beside max_unavailable") {
    const size_t at = text.find("min_available: \"51%\"");
    REQUIRE(at != std::string::npos);
    text.insert(at, "max_unavailable: 1, ");
    Expected<Scenario> s = ReadScenarioString(text, "kube.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().ToString().find("mutually exclusive") != std::string::npos);
  }
  SUBCASE("an access mode the API does not have") {
    const size_t at = text.find("ReadWriteOncePod");
    REQUIRE(at != std::string::npos);
    text.replace(at, 16, "ReadWriteOnePod");
    Expected<Scenario> s = ReadScenarioString(text, "kube.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().ToString().find("is not a valid access mode") != std::string::npos);
    CHECK(s.error().ToString().find("ReadWriteOncePod") != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim
