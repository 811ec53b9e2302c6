// `kube:`: the cluster objects the checks read (docs/semantics.md §5.4;
// scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <charconv>

#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::scenario_internal {

// `1` or "25%", as intstr.IntOrString.
IntOrPercent Reader::ReadIntOrPercent(const Field& f) const {
  std::string text = Scalar(f, "an integer or a percentage");
  IntOrPercent v;
  if (!text.empty() && text.back() == '%') {
    v.percent = true;
    text.pop_back();
  }
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n < 0 ||
      (v.percent && n > 100)) {
    Fail(f, Quote(f.node.Scalar()) + " is not a count or a percentage",
         "write a whole number such as 1, or a percentage such as \"51%\"");
  }
  v.value = n;
  return v;
}

// `{requests.cpu: "32", limits.memory: 128Gi, pods: "50"}`: quantities by resource.
ResourceList Reader::ReadResourceAmounts(const Field& f) const {
  ResourceList list;
  for (const auto& [key, value] : Entries(f)) {
    if (key.empty()) Fail(value, "empty resource name");
    const Parsed<int64_t> amount = ParseResourceAmount(key, Scalar(value, "a quantity"));
    if (!amount.ok()) Fail(value, amount.error, amount.hint);
    list[key] = *amount.value;
  }
  return list;
}

PodDisruptionBudgetSpec Reader::ReadPdb(const Field& f) const {
  Section s(*this, f,
            {"namespace", "name", "min_available", "max_unavailable", "selector",
             "unhealthy_pod_eviction_policy", "status"});
  PodDisruptionBudgetSpec p;
  if (auto v = s.Get("namespace")) p.namespace_ = DnsName(*v);
  p.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("min_available")) p.min_available = ReadIntOrPercent(*v);
  if (auto v = s.Get("max_unavailable")) {
    if (p.min_available) {
      Fail(*v, "min_available and max_unavailable are mutually exclusive",
           "a PodDisruptionBudget sets one of the two");
    }
    p.max_unavailable = ReadIntOrPercent(*v);
  }
  // Absent selector: the budget matches no pod (policy/v1); `{}` matches every pod of the
  // namespace.
  if (auto v = s.Get("selector")) p.selector = ReadLabelSelector(*v);
  if (auto v = s.Get("unhealthy_pod_eviction_policy")) {
    p.unhealthy_pod_eviction_policy = std::string(Enum<std::string_view>(
        *v, "an eviction policy",
        {{"IfHealthyBudget", "IfHealthyBudget"}, {"AlwaysAllow", "AlwaysAllow"}}));
  }
  if (auto v = s.Get("status")) {
    Section st(*this, *v,
               {"current_healthy", "desired_healthy", "disruptions_allowed", "expected_pods"});
    PodDisruptionBudgetSpec::Status status;
    if (auto x = st.Get("current_healthy")) status.current_healthy = Int(*x, 0);
    if (auto x = st.Get("desired_healthy")) status.desired_healthy = Int(*x, 0);
    if (auto x = st.Get("disruptions_allowed")) status.disruptions_allowed = Int(*x, 0);
    if (auto x = st.Get("expected_pods")) status.expected_pods = Int(*x, 0);
    p.status = status;
  }
  return p;
}

StatefulSetSpec Reader::ReadStatefulSet(const Field& f) const {
  Section s(
      *this, f,
      {"namespace", "name", "replicas", "selector", "labels", "volume_claim_templates", "status"});
  StatefulSetSpec st;
  if (auto v = s.Get("namespace")) st.namespace_ = DnsName(*v);
  st.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("replicas")) st.replicas = Int(*v, 0);
  if (auto v = s.Get("selector")) st.selector = ReadLabelSelector(*v);
  if (auto v = s.Get("labels")) st.template_labels = StringMap(*v);
  if (auto v = s.Get("volume_claim_templates")) st.volume_claim_templates = StringList(*v);
  if (auto v = s.Get("status")) {
    Section status(*this, *v, {"replicas", "ready_replicas"});
    if (auto x = status.Get("replicas")) st.status_replicas = Int(*x, 0);
    if (auto x = status.Get("ready_replicas")) st.ready_replicas = Int(*x, 0);
  }
  return st;
}

std::vector<std::string> Reader::AccessModes(const Field& f) const {
  std::vector<std::string> modes;
  for (const Field& item : Items(f)) {
    modes.emplace_back(Enum<std::string_view>(item, "an access mode",
                                              {{"ReadWriteOnce", "ReadWriteOnce"},
                                               {"ReadOnlyMany", "ReadOnlyMany"},
                                               {"ReadWriteMany", "ReadWriteMany"},
                                               {"ReadWriteOncePod", "ReadWriteOncePod"}}));
  }
  return modes;
}

PersistentVolumeClaimSpec Reader::ReadPvc(const Field& f) const {
  Section s(*this, f,
            {"namespace", "name", "storage_class", "request", "volume", "phase", "access_modes"});
  PersistentVolumeClaimSpec c;
  if (auto v = s.Get("access_modes")) c.access_modes = AccessModes(*v);
  if (auto v = s.Get("namespace")) c.namespace_ = DnsName(*v);
  c.name = NonEmptyString(s.Require("name"));
  // Absent: the default StorageClass applies; "": no class (static binding only).
  if (auto v = s.Get("storage_class")) c.storage_class_name = v->node.IsNull() ? "" : String(*v);
  if (auto v = s.Get("request")) {
    const std::string text = Scalar(*v, "a quantity");
    const Parsed<int64_t> bytes = ParseResourceAmount("storage", text);
    if (!bytes.ok()) Fail(*v, bytes.error, bytes.hint);
    c.requested_bytes = *bytes.value;
  }
  if (auto v = s.Get("volume")) c.volume_name = String(*v);
  if (auto v = s.Get("phase")) {
    c.phase = std::string(Enum<std::string_view>(
        *v, "a claim phase", {{"Pending", "Pending"}, {"Bound", "Bound"}, {"Lost", "Lost"}}));
  }
  return c;
}

PersistentVolumeSpec Reader::ReadPv(const Field& f) const {
  Section s(*this, f,
            {"name", "storage_class", "reclaim_policy", "capacity", "claim", "phase", "labels",
             "node_affinity", "access_modes"});
  PersistentVolumeSpec pv;
  pv.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("labels")) pv.labels = StringMap(*v);
  // Kubernetes' spec.nodeAffinity.required.nodeSelectorTerms: terms ORed, each a list of
  // requirements ANDed, as a workload's node_affinity.required.
  if (auto v = s.Get("node_affinity")) {
    for (const Field& term : Items(*v)) pv.node_affinity.push_back(ReadNodeSelectorTerm(term));
  }
  if (auto v = s.Get("access_modes")) pv.access_modes = AccessModes(*v);
  if (auto v = s.Get("storage_class")) pv.storage_class_name = String(*v);
  if (auto v = s.Get("reclaim_policy")) {
    pv.reclaim_policy = std::string(Enum<std::string_view>(
        *v, "a reclaim policy",
        {{"Retain", "Retain"}, {"Delete", "Delete"}, {"Recycle", "Recycle"}}));
  }
  if (auto v = s.Get("capacity")) {
    const Parsed<int64_t> bytes = ParseResourceAmount("storage", Scalar(*v, "a quantity"));
    if (!bytes.ok()) Fail(*v, bytes.error, bytes.hint);
    pv.capacity_bytes = *bytes.value;
  }
  if (auto v = s.Get("claim")) {
    const std::string claim = NonEmptyString(*v);
    const size_t slash = claim.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == claim.size()) {
      Fail(*v, Quote(claim) + " does not name a claim", "write namespace/name, e.g. db/data-pg-0");
    }
    pv.claim_namespace = claim.substr(0, slash);
    pv.claim_name = claim.substr(slash + 1);
  }
  if (auto v = s.Get("phase")) {
    pv.phase = std::string(Enum<std::string_view>(*v, "a volume phase",
                                                  {{"Pending", "Pending"},
                                                   {"Available", "Available"},
                                                   {"Bound", "Bound"},
                                                   {"Released", "Released"},
                                                   {"Failed", "Failed"}}));
  }
  return pv;
}

StorageClassSpec Reader::ReadStorageClass(const Field& f) const {
  Section s(*this, f,
            {"name", "provisioner", "reclaim_policy", "volume_binding_mode", "default",
             "allowed_topologies"});
  StorageClassSpec sc;
  sc.name = NonEmptyString(s.Require("name"));
  // allowedTopologies: terms ORed, each a list of `{key, operator: In, values}` ANDed.
  if (auto v = s.Get("allowed_topologies")) {
    for (const Field& term : Items(*v)) {
      sc.allowed_topologies.push_back(ReadNodeSelectorTerm(term));
      for (const NodeSelectorRequirement& r : sc.allowed_topologies.back()) {
        if (r.op != "In") Fail(term, "allowed topologies take only operator In");
      }
    }
  }
  if (auto v = s.Get("provisioner")) sc.provisioner = String(*v);
  if (auto v = s.Get("reclaim_policy")) {
    sc.reclaim_policy = std::string(Enum<std::string_view>(
        *v, "a reclaim policy", {{"Delete", "Delete"}, {"Retain", "Retain"}}));
  }
  if (auto v = s.Get("volume_binding_mode")) {
    sc.volume_binding_mode = std::string(Enum<std::string_view>(
        *v, "a binding mode",
        {{"Immediate", "Immediate"}, {"WaitForFirstConsumer", "WaitForFirstConsumer"}}));
  }
  if (auto v = s.Get("default")) {
    sc.is_default = Bool(*v);
  }
  return sc;
}

ResourceQuotaSpec Reader::ReadResourceQuota(const Field& f) const {
  Section s(*this, f, {"namespace", "name", "hard", "used"});
  ResourceQuotaSpec q;
  if (auto v = s.Get("namespace")) q.namespace_ = DnsName(*v);
  q.name = NonEmptyString(s.Require("name"));
  if (auto v = s.Get("hard")) q.hard = ReadResourceAmounts(*v);
  if (auto v = s.Get("used")) q.used = ReadResourceAmounts(*v);
  return q;
}

ScenarioKube Reader::ReadKube(const Field& f) const {
  Section s(*this, f,
            {"pdbs", "stateful_sets", "pvcs", "pvs", "storage_classes", "resource_quotas"});
  ScenarioKube k;
  // Objects are keyed by namespace/name (or name, cluster-scoped); a repeat is a slip.
  auto read = [&](const char* key, auto& out, auto read_one, auto id) {
    if (auto v = s.Get(key)) {
      for (const Field& item : Items(*v)) {
        auto object = (this->*read_one)(item);
        for (const auto& other : out) {
          if (id(other) == id(object)) Fail(item, "duplicate " + Quote(id(object)));
        }
        out.push_back(std::move(object));
      }
    }
  };
  auto namespaced = [](const auto& o) { return o.namespace_ + "/" + o.name; };
  auto cluster_scoped = [](const auto& o) { return o.name; };
  read("pdbs", k.pdbs, &Reader::ReadPdb, namespaced);
  read("stateful_sets", k.stateful_sets, &Reader::ReadStatefulSet, namespaced);
  read("pvcs", k.pvcs, &Reader::ReadPvc, namespaced);
  read("pvs", k.pvs, &Reader::ReadPv, cluster_scoped);
  read("storage_classes", k.storage_classes, &Reader::ReadStorageClass, cluster_scoped);
  read("resource_quotas", k.resource_quotas, &Reader::ReadResourceQuota, namespaced);
  return k;
}

}  // namespace knobsim::scenario_internal
