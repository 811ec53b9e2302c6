// The dispatcher: document forms, kinds kept and skipped, duplicates across files, file errors, and
// the error contract on realistic mistakes.
#include "sim/io/kube_reader.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The 20-node ACK export ----------------------------------------------------------------

TEST_CASE("the ACK export reads as 20 nodes and 28 pods with nothing skipped") {
  const KubeObjects& c = Cluster();
  CHECK(c.nodes.size() == 20);
  CHECK(c.pods.size() == 28);
  CHECK(c.skipped_kinds.empty());
  CHECK(c.warnings.empty());
  REQUIRE(c.node_sources.size() == 20);
  CHECK(c.node_sources[0].file == KubeDataDir() + "ack-cluster.json");
  CHECK(c.node_sources[0].line == 4);  // the `{` of items[0]
  CHECK(c.pod_sources.size() == 28);
}

// ---- Document forms ------------------------------------------------------------------------

TEST_CASE("one object, multi-document YAML, a List and a typed PodList all read") {
  CHECK(MustRead("kind: Node\nmetadata: {name: a}\n").nodes.size() == 1);
  const KubeObjects multi = MustRead(
      "---\nkind: Node\nmetadata: {name: a}\n---\n---\nkind: Node\nmetadata: {name: b}\n...\n");
  REQUIRE(multi.nodes.size() == 2);
  CHECK(multi.nodes[1].name == "b");
  CHECK(multi.node_sources[1].line == 6);
  const KubeObjects list = MustRead(R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: web}
- apiVersion: v1
  kind: Service
  metadata: {name: web-1}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: api}
metadata:
  resourceVersion: ""
)");
  CHECK(list.nodes.size() == 1);
  // DaemonSets are read for their pod template; these have none.
  CHECK(list.skipped_kinds == std::map<std::string, int>{{"Service", 1}});
  CHECK(list.template_pods.empty());
  const KubeObjects typed =
      MustRead(R"({"kind": "PodList", "items": [{"kind": "Pod", "metadata": {"name": "p"},
                  "spec": {"containers": [{"name": "c"}]}}]})");
  CHECK(typed.pods.size() == 1);
  CHECK(MustRead(R"({"apiVersion": "v1", "kind": "List", "items": []})").pods.empty());
}

TEST_CASE("null fields read as absent, as in Kubernetes JSON") {
  const PodSpec p = OnePod(R"(kind: Pod
metadata: {name: p, namespace: null, labels: null}
spec:
  tolerations: null
  nodeSelector: ~
  containers: [{name: c, resources: {requests: null}}]
status: null
)");
  CHECK(p.namespace_ == "default");
  CHECK(p.tolerations.empty());
}

TEST_CASE("a Node or Pod given twice is an error naming both places") {
  const std::string dir = KubeDataDir();
  Expected<KubeObjects> twice =
      ReadKubeFiles({dir + "pending-pods.yaml", dir + "pending-pods.yaml"});
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().ToString() ==
        dir +
            "pending-pods.yaml:9: metadata.name: duplicate Pod \"ai-infer/ocr-7d9f8b6c5-n4b6v\"; "
            "it is also at " +
            dir +
            "pending-pods.yaml:9; give each object once; pass an "
            "export only once");
  CHECK(ErrorOf("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: a}\n") ==
        "bad.yaml:5: metadata.name: duplicate Node \"a\"; it is also at bad.yaml:2; give each "
        "object once; pass an export only once");
  // Same name, other namespace: two pods.
  CHECK(MustRead("kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n---\n"
                 "kind: Pod\nmetadata: {name: a, namespace: x}\nspec: {containers: [{name: c}]}\n")
            .pods.size() == 2);
}

TEST_CASE("files that cannot be read or hold nothing are errors") {
  Expected<KubeObjects> missing = ReadKubeFiles({"/nonexistent/cluster.json"});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString() ==
        "/nonexistent/cluster.json: cannot read the file: No such file or directory");
  CHECK(ErrorOf("", "empty.yaml") ==
        "empty.yaml: the file holds no Kubernetes objects; expected "
        "the output of kubectl get -o yaml or -o json");
  CHECK(ErrorOf("---\n---\n", "empty.yaml").find("holds no Kubernetes objects") !=
        std::string::npos);
}

// ---- Bad input -----------------------------------------------------------------------------

const BadInput kBadInputs[] = {
    {"kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - "
     "name: c\n      resources:\n        limits:\n          cpu: 2 cores\n",
     "bad.yaml:10: items[0].spec.containers[0].resources.limits.cpu: \"2 cores\" is not a "
     "quantity; cpu is in cores, e.g. 2, 1.5 or 500m"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {memory: 4GB}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.memory: \"4GB\" is not a quantity; did "
     "you mean 4Gi?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 5.5}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"5.5\" is not a whole "
     "number; extended resources such as aliyun.com/gpu-mem are integers"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 4Gi}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"4Gi\" is 4294967296 "
     "units, too many for aliyun.com/gpu-mem; ACK counts aliyun.com/gpu-mem in GiB: did you mean "
     "4?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {aliyun.com/gpu-mem: 8GB}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.aliyun.com/gpu-mem: \"8GB\" is not a "
     "quantity; ACK counts aliyun.com/gpu-mem in GiB: did you mean 8?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "limits: {nvidia.com/gpu: 2e9}\n",
     "bad.yaml:7: spec.containers[0].resources.limits.nvidia.com/gpu: \"2e9\" is 2000000000 "
     "units, too many for nvidia.com/gpu; no GPU has that many; nvidia.com/gpu counts whole "
     "units"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {aliyun.com/gpu-mem: 4}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.aliyun.com/gpu-mem: aliyun.com/gpu-mem is "
     "requested without a limit; extended resources need resources.limits, equal to the "
     "request"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {cpu: \"2\"}\n      limits: {cpu: \"1\"}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.cpu: \"2\" is more than the limit \"1\"; "
     "a request must not exceed its limit"},
    {"kind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - key: gpu\n    effect: NoScheduel\n",
     "bad.yaml:6: spec.taints[0].effect: \"NoScheduel\" is not a taint effect; did you mean "
     "`NoSchedule`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: gpu\n    operator: "
     "Equals\n  containers: [{name: c}]\n",
     "bad.yaml:6: spec.tolerations[0].operator: \"Equals\" is not a toleration operator; did you "
     "mean `Equal`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchExpressions:\n          - {key: zone, operator: in, values: [a]}\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:9: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].operator: \"in\" is not a node selector operator; "
     "did you mean `In`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchExpressions:\n          - key: gpu-mem\n            operator: Gt\n            values: "
     "[lots]\n  containers: [{name: c}]\n",
     "bad.yaml:11: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[0].values: \"lots\" is not a whole number; Gt "
     "compares the label as an integer"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  priority: high\n  containers: [{name: c}]\n",
     "bad.yaml:4: spec.priority: \"high\" is not a whole number"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    name: c\n",
     "bad.yaml:4: spec.containers: expected a list, found a mapping"},
    {"kind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers: [{name: c}]\n",
     "bad.yaml:2: metadata: missing required key `name`"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n",
     "bad.yaml:4: spec.containers: a pod needs at least one container"},
    {"kind: Pod\nmetadata:\n  name: p\n  labels:\n\tapp: web\n",
     "bad.yaml:5: invalid YAML: end of map not found; indent with spaces; YAML does not allow "
     "tabs"},
    {"- kind: Pod\n",
     "bad.yaml:1: expected a Kubernetes object, found a list; each document is "
     "one object with `apiVersion` and `kind`, or a `kind: List`"},
    {"apiVersion: v1\nmetadata: {name: p}\n",
     "bad.yaml:1: missing required key `kind`; each object says what it is, e.g. `kind: Pod`; "
     "export with kubectl get -o yaml"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations:\n    "
     "scheduler.framework.gpushare.allocation: '{\"0\":{\"1\":4}'\nspec:\n  containers: [{name: "
     "c}]\n",
     "bad.yaml:5: metadata.annotations.scheduler.framework.gpushare.allocation: is not valid "
     "JSON; expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations:\n    "
     "scheduler.framework.gpushare.allocation: '{\"0\":{\"gpu1\":4}}'\nspec:\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:5: metadata.annotations.scheduler.framework.gpushare.allocation: card \"gpu1\" is "
     "not a card index; expected JSON such as {\"0\":{\"1\":4}}: container -> card -> units"},
    {"kind: Pod\nmetadata:\n  name: p\n  annotations: {ALIYUN_COM_GPU_MEM_IDX: \"0,1\"}\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.annotations.ALIYUN_COM_GPU_MEM_IDX: \"0,1\" is not a card index; the "
     "extender writes one card index"},
    {"kind: Pod\nmetadata:\n  name: p\n  labels: {aliyun.com/gpu-count: \"0\"}\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.labels.aliyun.com/gpu-count: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 0\n    "
     "topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n  containers: [{name: c}]\n",
     "bad.yaml:5: spec.topologySpreadConstraints[0].maxSkew: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    "
     "topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    minDomains: 2\n  containers: "
     "[{name: c}]\n",
     "bad.yaml:8: spec.topologySpreadConstraints[0].minDomains: minDomains needs "
     "whenUnsatisfiable DoNotSchedule"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    "
     "topologyKey: zone\n    whenUnsatisfiable: DoNotScheduled\n  containers: [{name: c}]\n",
     "bad.yaml:7: spec.topologySpreadConstraints[0].whenUnsatisfiable: \"DoNotScheduled\" is not "
     "a whenUnsatisfiable value; did you mean `DoNotSchedule`?"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\nstatus: {phase: "
     "Runing}\n",
     "bad.yaml:5: status.phase: \"Runing\" is not a pod phase; did you mean `Running`?"},
    {"kind: Node\nmetadata:\n  name: n\n  labels: {ack.node.gpu.max-pod: four}\n",
     "bad.yaml:4: metadata.labels.ack.node.gpu.max-pod: \"four\" is not a whole number"},
    {"kind: Node\nmetadata: {name: n}\nstatus:\n  capacity:\n    nvidia.com/gpu: \"4096\"\n",
     "bad.yaml:5: status.capacity.nvidia.com/gpu: 4096 GPUs on one node is more than knobsim "
     "models (1024)"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - operator: Equal\n    value: x\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:5: spec.tolerations[0].operator: a toleration without key needs operator Exists; "
     "operator: Exists with no key tolerates every taint"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      "
     "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
     "matchFields:\n          - {key: metadata.labels, operator: In, values: [a]}\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:9: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchFields[0].key: \"metadata.labels\" is not a node field; "
     "matchFields supports only metadata.name"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      "
     "requests: {cpu: -1}\n",
     "bad.yaml:7: spec.containers[0].resources.requests.cpu: \"-1\" is negative"},
};

TEST_CASE("bad input gives the file, the line, the field path and a fix") {
  for (const BadInput& bad : kBadInputs) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

TEST_CASE("the kubectl export reads every kind it lists, and skips nothing") {
  const KubeObjects& e = Export();
  CHECK(e.nodes.size() == 20);
  CHECK(e.pods.size() == 36);
  CHECK(e.deployments.size() == 5);
  CHECK(e.replica_sets.size() == 6);
  CHECK(e.stateful_sets.size() == 2);
  CHECK(e.pdbs.size() == 5);
  CHECK(e.pvcs.size() == 6);
  CHECK(e.pvs.size() == 7);
  CHECK(e.storage_classes.size() == 2);
  CHECK(e.resource_quotas.size() == 3);
  CHECK(e.jobs.empty());
  CHECK(e.skipped_kinds.empty());
  CHECK(e.deployment_sources.size() == 5);
  CHECK(e.pdb_sources.size() == 5);
  CHECK(e.resource_quota_sources.size() == 3);
  REQUIRE(e.pvc_sources.size() == 6);
  CHECK(e.pvc_sources[0].file == KubeDataDir() + "export.json");
  // The one warning: two token-looking annotations, named by key, never by value.
  REQUIRE(e.warnings.size() == 1);
  CHECK(e.warnings[0] == KubeDataDir() +
                             "export.json:725: "
                             "items[6].metadata.annotations.ops.example.com/bootstrap-token: 2 "
                             "annotation(s) that look like secrets were dropped, never stored or "
                             "shown (the first here): example.com/registry, "
                             "ops.example.com/bootstrap-token");
}

TEST_CASE("the JSON and the two-document YAML export read to the same objects") {
  Expected<KubeObjects> yaml = ReadKubeFile(KubeDataDir() + "export.yaml");
  REQUIRE(yaml.ok());
  CHECK(Dump(yaml.value()) == Dump(Export()));
  CHECK(WarningTexts(yaml.value()) == WarningTexts(Export()));
  // Each form points at its own lines.
  CHECK(yaml->warnings[0].starts_with(KubeDataDir() + "export.yaml:543: "));
  CHECK(yaml->pod_sources[0].line != Export().pod_sources[0].line);
  CHECK(Dump(Export()).size() > 50'000);  // the dump really holds the export
}

// The export file `name` streamed (as if over the input limit) reads to what the whole file does:
// the same objects, sources and warnings.
void CheckStreamedReadsAsWhole(const std::string& name) {
  CAPTURE(name);
  const std::string path = KubeDataDir() + name;
  const Expected<KubeObjects> whole = ReadKubeFiles({path});
  const Expected<KubeObjects> streamed = ReadKubeFiles({path}, {}, /*stream_above=*/0);
  REQUIRE(whole.ok());
  REQUIRE_MESSAGE(streamed.ok(), streamed.error().ToString());
  CHECK(Dump(*streamed) == Dump(*whole));
  CHECK(streamed->warnings == whole->warnings);
  REQUIRE(streamed->pods.size() == whole->pods.size());
  for (size_t i = 0; i < whole->pods.size(); ++i) {
    CHECK(streamed->pod_sources[i].line == whole->pod_sources[i].line);
  }
}

// The export file `name` with `inserted` put after the first `value_at` past `after`, streamed
// and whole: the same error. Returns it.
std::string StreamedErrorAsWhole(const std::string& name, std::string_view after,
                                 std::string_view value_at, std::string_view inserted) {
  const std::string bad = "kube_reader_test_streamed_bad_" + name;
  std::string text = ReadText(KubeDataDir() + name);
  const size_t at = text.find(value_at, text.find(after));
  REQUIRE(at != std::string::npos);
  text.insert(at + value_at.size(), inserted);
  std::ofstream(bad, std::ios::binary) << text;
  const Expected<KubeObjects> whole = ReadKubeFiles({bad});
  const Expected<KubeObjects> streamed = ReadKubeFiles({bad}, {}, 0);
  std::remove(bad.c_str());
  REQUIRE_FALSE(whole.ok());
  REQUIRE_FALSE(streamed.ok());
  CHECK(streamed.error().ToString() == whole.error().ToString());
  return whole.error().ToString();
}

// A JSON file over the input limit is streamed a List item at a time (json_stream.h): the same
// objects, sources and warnings as the whole read, and errors at the same line and field.
TEST_CASE("a streamed JSON export reads to exactly what the whole file reads to") {
  for (const char* name : {"export.json", "ack-cluster.json"}) CheckStreamedReadsAsWhole(name);
  // A bad value deep in an item: the same message, line and field path.
  StreamedErrorAsWhole("export.json", "\"kind\": \"Pod\"", "\"cpu\": \"", "2 cores");
}

// A YAML file over the input limit is streamed a List item at a time too (yaml_stream.h), with
// the same result as the whole read: kubectl's two-document shape, and documents without items.
TEST_CASE("a streamed YAML export reads to exactly what the whole file reads to") {
  for (const char* name : {"export-kubectl.yaml", "pending-pods.yaml"}) {
    CheckStreamedReadsAsWhole(name);
  }
  // A bad value deep in an item of the second document: the same message, line and field path.
  CHECK(StreamedErrorAsWhole("export-kubectl.yaml", "kind: Pod\n", "cpu: ", "2 cores ") ==
        "kube_reader_test_streamed_bad_export-kubectl.yaml:242: "
        "items[0].spec.containers[0].resources.requests.cpu: \"2 cores 100m\" is not a quantity; "
        "cpu is in cores, e.g. 2, 1.5 or 500m");
}

TEST_CASE("a streamed file's items must belong to a List") {
  const std::string path = "kube_reader_test_not_a_list.json";
  std::ofstream(path)
      << "{\"items\": [{\"kind\": \"Namespace\", \"metadata\": {\"name\": \"a\"}}],\n"
         " \"kind\": \"Pod\"}\n";
  const Expected<KubeObjects> r = ReadKubeFiles({path}, {}, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().ToString() ==
        path +
            ":2: kind: this file is over the input limit of 256 MiB, so its top-level `items` "
            "were read one by one as a List's, but the object holding them is a Pod; export "
            "with kubectl get -o json (a kind: List), or split the file");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace knobsim
