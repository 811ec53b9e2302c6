// Workloads (Deployments, ReplicaSets, StatefulSets) from the export and hand-written,
// int-or-percent fields, and the bad-field table of the workload, budget, storage, quota and probe
// readers.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

TEST_CASE("a Deployment keeps replicas, selector, strategy, minReadySeconds and status") {
  const DeploymentSpec& embed = Named(Export().deployments, "embed");
  CHECK(embed.namespace_ == "ai-infer");
  CHECK(embed.uid == "b7ded73a-9943-5a1c-b0b8-c5f1c9828fcc");
  CHECK(embed.replicas == 3);
  CHECK(embed.selector.match_labels == Labels{{"app", "embed"}});
  CHECK(embed.template_labels == Labels{{"app", "embed"}});
  CHECK(embed.strategy == "RollingUpdate");
  CHECK(embed.max_surge == IntOrPercent{1, false});
  CHECK(embed.max_unavailable == IntOrPercent{0, false});
  CHECK(embed.min_ready_seconds == 10);
  CHECK(embed.status_replicas == 3);
  CHECK(embed.ready_replicas == 2);
  CHECK(embed.available_replicas == 2);
  const DeploymentSpec& dns = Named(Export().deployments, "coredns");
  CHECK(dns.max_surge == IntOrPercent{25, true});
  CHECK(dns.max_unavailable == IntOrPercent{1, false});
  CHECK(dns.min_ready_seconds == 0);
}

TEST_CASE("a ReplicaSet keeps its Deployment owner, hash label and replicas") {
  const ReplicaSetSpec& rs = Named(Export().replica_sets, "embed-84c7b5d6f9");
  CHECK(rs.namespace_ == "ai-infer");
  CHECK(rs.labels.at("pod-template-hash") == "84c7b5d6f9");
  CHECK(rs.replicas == 2);
  CHECK(rs.status_replicas == 2);
  CHECK(rs.ready_replicas == 1);
  REQUIRE(rs.owner_references.size() == 1);
  const OwnerReference& owner = rs.owner_references[0];
  CHECK(owner.api_version == "apps/v1");
  CHECK(owner.kind == "Deployment");
  CHECK(owner.name == "embed");
  CHECK(owner.controller);
  CHECK(owner.uid == Named(Export().deployments, "embed").uid);
}

TEST_CASE("a StatefulSet keeps its claim templates; its pods name their claims") {
  const StatefulSetSpec& qwen = Named(Export().stateful_sets, "qwen-chat");
  CHECK(qwen.namespace_ == "llm");
  CHECK(qwen.replicas == 3);
  CHECK(qwen.selector.match_labels == Labels{{"app", "qwen-chat"}});
  CHECK(qwen.volume_claim_templates == std::vector<std::string>{"model-cache"});
  CHECK(qwen.status_replicas == 3);
  CHECK(qwen.ready_replicas == 3);
  CHECK(PodNamed(Export(), "qwen-chat-1").pvc_claims ==
        std::vector<std::string>{"model-cache-qwen-chat-1"});
  CHECK(PodNamed(Export(), "etcd-2").pvc_claims == std::vector<std::string>{"data-etcd-2"});
}

// ---- Workload kinds from hand-written objects ----------------------------------------------

TEST_CASE(
    "defaults: a Deployment of 1 with 25% surge and unavailability, class and volume "
    "policies") {
  const KubeObjects o = MustRead(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  selector:
    matchExpressions: [{key: app, operator: In, values: [db]}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-1}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: plain}
provisioner: example.com/disk
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c2}
spec: {storageClassName: ""}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b}
spec: {selector: {}}
)");
  const DeploymentSpec& d = o.deployments.at(0);
  CHECK(d.namespace_ == "default");
  CHECK(d.replicas == 1);
  CHECK(d.strategy == "RollingUpdate");
  CHECK(d.max_surge == IntOrPercent{25, true});
  CHECK(d.max_unavailable == IntOrPercent{25, true});
  CHECK(d.min_ready_seconds == 0);
  CHECK(d.status_replicas == 0);
  CHECK(o.stateful_sets.at(0).replicas == 1);
  CHECK(o.stateful_sets.at(0).namespace_ == "data");
  CHECK(o.stateful_sets.at(0).selector.match_expressions.at(0).values ==
        std::vector<std::string>{"db"});
  CHECK(o.replica_sets.at(0).replicas == 1);
  CHECK(o.storage_classes.at(0).reclaim_policy == "Delete");
  CHECK(o.storage_classes.at(0).volume_binding_mode == "Immediate");
  CHECK(o.pvs.at(0).reclaim_policy == "Retain");
  CHECK(o.pvs.at(0).phase == "Pending");
  CHECK_FALSE(o.pvcs.at(0).storage_class_name.has_value());  // the default class applies
  CHECK(o.pvcs.at(1).storage_class_name == "");              // no class: static binding only
  CHECK(o.pvcs.at(0).phase == "Pending");
  const PodDisruptionBudgetSpec& b = o.pdbs.at(0);
  CHECK_FALSE(b.min_available.has_value());  // policy/v1 has no default
  CHECK_FALSE(b.max_unavailable.has_value());
  REQUIRE(b.selector.has_value());  // policy/v1: {} matches every pod of the namespace
  CHECK(b.selector->match_labels.empty());
  CHECK(b.unhealthy_pod_eviction_policy == "IfHealthyBudget");
  CHECK_FALSE(b.status.has_value());
}

struct IntOrPercentCase {
  const char* text;
  int value;
  bool percent;
  const char* error;  // nullptr when the text reads
};

const IntOrPercentCase kIntOrPercentCases[] = {
    {"0", 0, false, nullptr},
    {"2", 2, false, nullptr},
    {"\"3\"", 3, false, nullptr},
    {"0%", 0, true, nullptr},
    {"51%", 51, true, nullptr},
    {"100%", 100, true, nullptr},
    {"101%", 0, false, "\"101%\" is more than 100%"},
    {"-1", 0, false, "\"-1\" is negative"},
    {"1.5", 0, false,
     "\"1.5\" is not a whole number or a percentage; write an integer such as 1 or a percentage "
     "such as 25%"},
    {"12.5%", 0, false, "\"12.5%\" is not a whole number or a percentage"},
    {"half", 0, false, "\"half\" is not a whole number or a percentage"},
};

TEST_CASE("int-or-percent fields read integers and NN% as the API server validates them") {
  for (const IntOrPercentCase& c : kIntOrPercentCases) {
    INFO(c.text);
    const std::string text = std::string(
                                 "kind: PodDisruptionBudget\nmetadata: {name: b}\nspec:\n"
                                 "  minAvailable: ") +
                             c.text + "\n";
    if (c.error == nullptr) {
      CHECK(MustRead(text).pdbs.at(0).min_available == IntOrPercent{c.value, c.percent});
    } else {
      const std::string error = ErrorOf(text);
      CHECK(error.starts_with("bad.yaml:4: spec.minAvailable: "));
      CHECK(error.find(c.error) != std::string::npos);
    }
  }
  // maxSurge alone may pass 100%.
  CHECK(MustRead("kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n"
                 "    rollingUpdate: {maxSurge: 150%}\n")
            .deployments[0]
            .max_surge == IntOrPercent{150, true});
}

TEST_CASE("percentages scale as upstream's GetScaledValueFromIntOrPercent") {
  CHECK(IntOrPercent{51, true}.Scaled(3, true) == 2);  // ceil(1.53)
  CHECK(IntOrPercent{51, true}.Scaled(3, false) == 1);
  CHECK(IntOrPercent{50, true}.Scaled(3, true) == 2);
  CHECK(IntOrPercent{25, true}.Scaled(10, true) == 3);
  CHECK(IntOrPercent{25, true}.Scaled(10, false) == 2);
  CHECK(IntOrPercent{100, true}.Scaled(7, true) == 7);
  CHECK(IntOrPercent{0, true}.Scaled(7, true) == 0);
  CHECK(IntOrPercent{2, false}.Scaled(10, true) == 2);
}

const BadInput kBadWorkloads[] = {
    {"kind: Deployment\nmetadata: {name: d}\n", "bad.yaml:1: missing required key `spec`"},
    {"kind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2}\n",
     "bad.yaml:3: spec: missing required key `selector`"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: -1\n  selector: {}\n",
     "bad.yaml:4: spec.replicas: -1 is less than 0"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy: {type: "
     "RolingUpdate}\n",
     "bad.yaml:5: spec.strategy.type: \"RolingUpdate\" is not a deployment strategy; did you mean "
     "`RollingUpdate`?"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n    type: "
     "Recreate\n    rollingUpdate: {maxSurge: 1}\n",
     "bad.yaml:7: spec.strategy.rollingUpdate: rollingUpdate is given with strategy type Recreate; "
     "drop rollingUpdate, or use type RollingUpdate"},
    {"kind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {}\n  strategy:\n    "
     "rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 0%\n",
     "bad.yaml:8: spec.strategy.rollingUpdate.maxUnavailable: maxUnavailable and maxSurge are "
     "both 0; a rollout could neither add nor remove a pod; raise one of them"},
    {"kind: StatefulSet\nmetadata: {name: s}\nspec:\n  selector: {}\n  volumeClaimTemplates:\n  - "
     "spec: {}\n",
     "bad.yaml:6: spec.volumeClaimTemplates[0]: missing required key `metadata`"},
    {"kind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {unhealthyPodEvictionPolicy: "
     "AlwayAllow}\n",
     "bad.yaml:3: spec.unhealthyPodEvictionPolicy: \"AlwayAllow\" is not an unhealthy pod eviction "
     "policy; did you mean `AlwaysAllow`?"},
    {"kind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n  resources:\n    requests: "
     "{storage: 10GB}\n",
     "bad.yaml:5: spec.resources.requests.storage: \"10GB\" is not a quantity; did you mean 10Gi?"},
    {"kind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Bund}\n",
     "bad.yaml:3: status.phase: \"Bund\" is not a claim phase; did you mean `Bound`?"},
    {"kind: PersistentVolume\nmetadata: {name: v}\nspec: {persistentVolumeReclaimPolicy: "
     "Keep}\n",
     "bad.yaml:3: spec.persistentVolumeReclaimPolicy: \"Keep\" is not a reclaim policy; use "
     "Retain, Delete or Recycle"},
    {"kind: StorageClass\nmetadata: {name: s}\n", "bad.yaml:1: missing required key `provisioner`"},
    {"kind: StorageClass\nmetadata: {name: s}\nprovisioner: x\nreclaimPolicy: Recycle\n",
     "bad.yaml:4: reclaimPolicy: \"Recycle\" is not a StorageClass reclaim policy; use Delete or "
     "Retain"},
    {"kind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {requests.cpu: 64 cores}\n",
     "bad.yaml:4: spec.hard.requests.cpu: \"64 cores\" is not a quantity; cpu is in cores, e.g. 2, "
     "1.5 or 500m"},
    {"kind: ResourceQuota\nmetadata: {name: q}\nspec:\n  hard: {requests.aliyun.com/gpu-mem: "
     "1.5}\n",
     "bad.yaml:4: spec.hard.requests.aliyun.com/gpu-mem: \"1.5\" is not a whole number; extended "
     "resources such as aliyun.com/gpu-mem are integers"},
    {"kind: ReplicaSet\nmetadata:\n  name: r\n  ownerReferences:\n  - {kind: Deployment, name: a, "
     "controller: true}\n  - {kind: Deployment, name: b, controller: true}\n",
     "bad.yaml:6: metadata.ownerReferences[1].controller: a second owner reference with "
     "controller: true; an object has at most one managing controller"},
    {"kind: Pod\nmetadata:\n  name: p\n  ownerReferences: [{kind: ReplicaSet}]\nspec:\n  "
     "containers: [{name: c}]\n",
     "bad.yaml:4: metadata.ownerReferences[0]: missing required key `name`"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    readinessProbe: "
     "{periodSeconds: 5}\n",
     "bad.yaml:6: spec.containers[0].readinessProbe: a probe needs a handler; give one of exec, "
     "httpGet, tcpSocket and grpc"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    livenessProbe:\n      "
     "tcpSocket: {port: 99999}\n",
     "bad.yaml:7: spec.containers[0].livenessProbe.tcpSocket.port: 99999 is more than 65535"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    startupProbe:\n      "
     "httpGet: {path: /, port: 8080}\n      periodSeconds: 0\n",
     "bad.yaml:8: spec.containers[0].startupProbe.periodSeconds: 0 is less than 1"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    readinessProbe:\n"
     "      httpGet: {port: a-very-long-port-name}\n",
     "bad.yaml:7: spec.containers[0].readinessProbe.httpGet.port: \"a-very-long-port-name\" is "
     "not a port number or name; a port name has at most 15 characters"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\nstatus:\n  conditions:\n  "
     "- {type: Ready, status: Yes}\n",
     "bad.yaml:7: status.conditions[0].status: \"Yes\" is not a condition status; use True, False "
     "or Unknown"},
    {"kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n  volumes:\n  - name: v\n"
     "    persistentVolumeClaim: {readOnly: true}\n",
     "bad.yaml:7: spec.volumes[0].persistentVolumeClaim: missing required key `claimName`"},
    {"kind: Deployment\nmetadata: {name: a}\nspec: {selector: {}}\n---\nkind: Deployment\n"
     "metadata: {name: a}\nspec: {selector: {}}\n",
     "bad.yaml:6: metadata.name: duplicate Deployment \"default/a\"; it is also at bad.yaml:2; "
     "give "
     "each object once; pass an export only once"},
};

TEST_CASE("bad workload, budget, storage, quota and probe fields give the line and a fix") {
  for (const BadInput& bad : kBadWorkloads) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

}  // namespace
}  // namespace knobsim
