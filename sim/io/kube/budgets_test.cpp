// PodDisruptionBudgets and ResourceQuotas.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

TEST_CASE("PodDisruptionBudgets keep min or max, selector, eviction policy and status") {
  const PodDisruptionBudgetSpec& etcd = Named(Export().pdbs, "etcd");
  CHECK(etcd.namespace_ == "infra");
  CHECK(etcd.min_available == IntOrPercent{51, true});
  CHECK_FALSE(etcd.max_unavailable.has_value());
  CHECK(etcd.min_available->Scaled(3, /*round_up=*/true) == 2);  // docs/semantics.md §4.1
  REQUIRE(etcd.selector.has_value());
  CHECK(etcd.selector->match_labels == Labels{{"app", "etcd"}});
  CHECK(etcd.unhealthy_pod_eviction_policy == "IfHealthyBudget");
  REQUIRE(etcd.status.has_value());
  CHECK(etcd.status->current_healthy == 3);
  CHECK(etcd.status->desired_healthy == 2);
  CHECK(etcd.status->disruptions_allowed == 1);
  CHECK(etcd.status->expected_pods == 3);
  const PodDisruptionBudgetSpec& rerank = Named(Export().pdbs, "rerank");
  CHECK(rerank.max_unavailable == IntOrPercent{1, false});
  CHECK_FALSE(rerank.min_available.has_value());
  CHECK(rerank.unhealthy_pod_eviction_policy == "AlwaysAllow");
  CHECK(Named(Export().pdbs, "embed").min_available == IntOrPercent{50, true});
}

TEST_CASE("ResourceQuota amounts use the units of the resource each key names") {
  const ResourceQuotaSpec& gpu = Named(Export().resource_quotas, "gpu-quota");
  CHECK(gpu.namespace_ == "ai-infer");
  CHECK(gpu.hard == ResourceList{{"limits.memory", 512 * kGi},
                                 {"pods", 60},
                                 {"requests.aliyun.com/gpu-mem", 160},
                                 {"requests.cpu", 64000},
                                 {"requests.memory", 256 * kGi}});
  // ocr 4 × (2 cpu, 8Gi, 8 units), rerank 3 × (2, 8Gi, 6), embed 3 × (2, 6Gi, 4).
  CHECK(gpu.used.at("requests.cpu") == 20000);
  CHECK(gpu.used.at("requests.memory") == 74 * kGi);
  CHECK(gpu.used.at("requests.aliyun.com/gpu-mem") == 62);
  CHECK(gpu.used.at("pods") == 10);
  const ResourceQuotaSpec& llm = Named(Export().resource_quotas, "llm-quota");
  CHECK(llm.hard.at("requests.storage") == 2 * 1024 * kGi);
  CHECK(llm.hard.at("alicloud-disk-essd.storageclass.storage.k8s.io/requests.storage") ==
        1024 * kGi);
  CHECK(llm.hard.at("persistentvolumeclaims") == 10);
  CHECK(llm.hard.at("count/statefulsets.apps") == 4);
  CHECK(llm.used.at("requests.storage") == 600 * kGi);
  CHECK(Named(Export().resource_quotas, "whole-gpus").used.at("requests.nvidia.com/gpu") == 16);
}

TEST_CASE("policy/v1beta1 PDBs: minAvailable defaults to 1 and an empty selector matches none") {
  const KubeObjects o = MustRead(R"(apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
spec: {selector: {}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: older}
spec:
  maxUnavailable: 30%
  selector: {matchLabels: {app: x}}
)");
  CHECK(o.pdbs[0].min_available == IntOrPercent{1, false});
  CHECK_FALSE(o.pdbs[0].selector.has_value());
  CHECK_FALSE(o.pdbs[1].min_available.has_value());
  CHECK(o.pdbs[1].max_unavailable == IntOrPercent{30, true});
  CHECK(o.pdbs[1].selector->match_labels == Labels{{"app", "x"}});
}

TEST_CASE("a PDB with both minAvailable and maxUnavailable is an error at the second") {
  CHECK(ErrorOf(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: etcd, namespace: infra}
spec:
  minAvailable: 51%
  maxUnavailable: 1
  selector: {matchLabels: {app: etcd}}
)") == "bad.yaml:6: spec.maxUnavailable: minAvailable and maxUnavailable are both set; a "
       "PodDisruptionBudget takes one of them");
  // JSON, items of a List: the line of the later key.
  CHECK(ErrorOf(R"({"kind": "List", "items": [
  {"kind": "PodDisruptionBudget", "metadata": {"name": "b"},
   "spec": {"maxUnavailable": "10%",
            "minAvailable": 2}}]})",
                "pdb.json") ==
        "pdb.json:4: items[0].spec.minAvailable: minAvailable and maxUnavailable are both set; a "
        "PodDisruptionBudget takes one of them");
}

}  // namespace
}  // namespace knobsim
