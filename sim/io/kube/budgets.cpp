#include "sim/io/kube/kinds.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/resources.h"
#include "sim/io/kube/selectors.h"
#include "sim/quantity.h"

namespace knobsim::kube {
namespace {

// A quota's amounts, each in the units of the resource its key counts (QuotaResourceName):
// `requests.cpu` and `limits.cpu` count cpu, `gold.storageclass.storage.k8s.io/requests.storage`
// counts storage; other keys (`pods`, `count/deployments.apps`) count objects.
ResourceList QuotaList(FieldReader& r, const std::optional<Field>& f) {
  ResourceList list;
  if (!f) return list;
  for (const auto& [key, value] : r.Entries(*f)) {
    if (key.empty()) r.Fail(value, "empty resource name");
    if (value.node->kind != NodeKind::kScalar) {
      r.Fail(value, Cat({"expected a quantity, found ", r.Describe(*value.node)}),
             "write quota amounts as name: quantity, e.g. requests.cpu: \"64\"");
    }
    list[key] = ResourceValue(r, value, std::string(QuotaResourceName(key)),
                              std::string(r.tree().Scalar(*value.node)));
  }
  return list;
}

}  // namespace

PodDisruptionBudgetSpec ReadPdb(ObjectReader& r, const Field& object) {
  PodDisruptionBudgetSpec pdb;
  ReadObjectMeta(r, object, "PodDisruptionBudget", pdb);
  const std::optional<Field> api_version = r.Get(object, "apiVersion");
  const bool beta = api_version && r.String(*api_version) == "policy/v1beta1";
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    const std::optional<Field> min = r.Get(*spec, "minAvailable");
    const std::optional<Field> max = r.Get(*spec, "maxUnavailable");
    if (min) pdb.min_available = r.ReadIntOrPercent(*min, /*up_to_100=*/true);
    if (max) pdb.max_unavailable = r.ReadIntOrPercent(*max, /*up_to_100=*/true);
    // ValidatePodDisruptionBudgetSpec: "minAvailable and maxUnavailable cannot be both set".
    if (min && max) {
      r.Fail(max->line >= min->line ? *max : *min, "minAvailable and maxUnavailable are both set",
             "a PodDisruptionBudget takes one of them");
    }
    if (auto selector = r.Get(*spec, "selector")) {
      pdb.selector = ReadLabelSelector(r, *selector);
      // policy/v1beta1 read an empty selector as matching no pod (policy/v1 changed that).
      if (beta && pdb.selector->match_labels.empty() && pdb.selector->match_expressions.empty()) {
        pdb.selector.reset();
      }
    }
    if (auto policy = r.Get(*spec, "unhealthyPodEvictionPolicy")) {
      pdb.unhealthy_pod_eviction_policy =
          r.Enum(*policy, {"IfHealthyBudget", "AlwaysAllow"}, "an unhealthy pod eviction policy");
    }
  }
  // policy/v1beta1's defaulting (SetDefaults_PodDisruptionBudgetSpec): minAvailable 1 when
  // neither is given. policy/v1 has no default.
  if (beta && !pdb.min_available && !pdb.max_unavailable)
    pdb.min_available = IntOrPercent{1, false};
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    PodDisruptionBudgetSpec::Status s;
    s.current_healthy = r.Count(r.Get(*status, "currentHealthy"), 0);
    s.desired_healthy = r.Count(r.Get(*status, "desiredHealthy"), 0);
    s.disruptions_allowed = r.Count(r.Get(*status, "disruptionsAllowed"), 0);
    s.expected_pods = r.Count(r.Get(*status, "expectedPods"), 0);
    // A map from pod name to when its eviction was processed; preemption reads the names.
    if (auto disrupted = r.Get(*status, "disruptedPods")) {
      for (const auto& [name, when] : r.Entries(*disrupted)) s.disrupted_pods.push_back(name);
    }
    pdb.status = s;
  }
  return pdb;
}

ResourceQuotaSpec ReadResourceQuota(ObjectReader& r, const Field& object) {
  ResourceQuotaSpec quota;
  ReadObjectMeta(r, object, "ResourceQuota", quota);
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    quota.hard = QuotaList(r, r.Get(*spec, "hard"));
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    quota.used = QuotaList(r, r.Get(*status, "used"));
  }
  return quota;
}

PriorityClassSpec ReadPriorityClass(ObjectReader& r, const Field& object) {
  PriorityClassSpec pc;
  ReadObjectMeta(r, object, "PriorityClass", pc);
  // value is required and at most 1e9 for user classes (HighestUserDefinablePriority); the
  // system classes are above it.
  pc.value = static_cast<int>(r.Int(r.Require(object, "value"), std::numeric_limits<int32_t>::min(),
                                    std::numeric_limits<int32_t>::max()));
  if (auto global = r.Get(object, "globalDefault")) pc.global_default = r.Bool(*global);
  if (auto policy = r.Get(object, "preemptionPolicy")) {
    pc.preemption_policy =
        r.Enum(*policy, {"PreemptLowerPriority", "Never"}, "a preemption policy");
  }
  return pc;
}

NamespaceSpec ReadNamespace(ObjectReader& r, const Field& object) {
  NamespaceSpec ns;
  ReadObjectMeta(r, object, "Namespace", ns);
  // The API server sets this label on every namespace (NamespaceDefaultLabelName, 1.22+), over
  // whatever a manifest says.
  ns.labels[kNamespaceNameLabel] = ns.name;
  return ns;
}

}  // namespace knobsim::kube
