#include "sim/io/kube/selectors.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/io/kube/kube_text.h"

namespace knobsim::kube {
namespace {

NodeSelectorRequirement ReadNodeSelectorRequirement(FieldReader& r, const Field& f,
                                                    bool match_field) {
  r.ExpectMap(f);
  NodeSelectorRequirement req;
  const Field key = r.Require(f, "key");
  req.key = r.String(key);
  const Field op = r.Require(f, "operator");
  if (match_field) {
    // Only metadata.name is a node field selector (validation.go validateNodeFieldSelector).
    if (req.key != "metadata.name") {
      r.Fail(key, Quote(req.key) + " is not a node field",
             "matchFields supports only metadata.name");
    }
    req.op = r.Enum(op, {"In", "NotIn"}, "a node field selector operator");
  } else {
    if (req.key.empty()) r.Fail(key, "empty label key");
    req.op = r.Enum(op, {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"},
                    "a node selector operator");
  }
  const std::optional<Field> values_field = r.Get(f, "values");
  req.values = r.StringList(values_field);
  const Field& at = values_field ? *values_field : op;
  if (match_field && req.values.size() != 1) {
    r.Fail(at, "matchFields needs exactly one value", "give the node name, e.g. values: [node-1]");
  }
  if ((req.op == "In" || req.op == "NotIn") && req.values.empty()) {
    r.Fail(at, Cat({"operator ", req.op, " needs values"}));
  }
  if ((req.op == "Exists" || req.op == "DoesNotExist") && !req.values.empty()) {
    r.Fail(at, Cat({"operator ", req.op, " takes no values"}));
  }
  if (req.op == "Gt" || req.op == "Lt") {
    if (req.values.size() != 1) r.Fail(at, Cat({"operator ", req.op, " needs exactly one value"}));
    // Go's strconv.ParseInt, as upstream reads it: an optional sign, digits.
    const std::string& v = req.values[0];
    if (!ParseInteger(v.starts_with('+') ? std::string_view(v).substr(1) : std::string_view(v))) {
      r.Fail(at, Cat({Quote(req.values[0]), " is not a whole number"}),
             Cat({req.op, " compares the label as an integer"}));
    }
  }
  return req;
}

}  // namespace

std::vector<NodeSelectorRequirement> ReadNodeSelectorTerm(FieldReader& r, const Field& term) {
  r.ExpectMap(term);
  std::vector<NodeSelectorRequirement> requirements;
  if (auto exprs = r.Get(term, "matchExpressions")) {
    for (const Field& e : r.Items(*exprs)) {
      requirements.push_back(ReadNodeSelectorRequirement(r, e, false));
    }
  }
  // matchFields become requirements on the key "metadata.name", which the NodeAffinity filter
  // matches against the node's name (selectors.h).
  if (auto fields = r.Get(term, "matchFields")) {
    for (const Field& e : r.Items(*fields)) {
      requirements.push_back(ReadNodeSelectorRequirement(r, e, true));
    }
  }
  return requirements;
}

LabelSelector ReadLabelSelector(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  LabelSelector s;
  s.match_labels = r.StringMap(r.Get(f, "matchLabels"));
  if (auto exprs = r.Get(f, "matchExpressions")) {
    for (const Field& e : r.Items(*exprs)) {
      r.ExpectMap(e);
      LabelSelectorRequirement req;
      req.key = r.String(r.Require(e, "key"));
      const Field op = r.Require(e, "operator");
      req.op = r.Enum(op, {"In", "NotIn", "Exists", "DoesNotExist"}, "a label selector operator");
      const std::optional<Field> values = r.Get(e, "values");
      req.values = r.StringList(values);
      const Field& at = values ? *values : op;
      if ((req.op == "In" || req.op == "NotIn") && req.values.empty()) {
        r.Fail(at, Cat({"operator ", req.op, " needs values"}));
      }
      if ((req.op == "Exists" || req.op == "DoesNotExist") && !req.values.empty()) {
        r.Fail(at, Cat({"operator ", req.op, " takes no values"}));
      }
      s.match_expressions.push_back(std::move(req));
    }
  }
  return s;
}

Toleration ReadToleration(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  Toleration t;
  if (auto key = r.Get(f, "key")) t.key = r.String(*key);
  std::optional<Field> op = r.Get(f, "operator");
  if (op) {
    t.op = r.Enum(*op, {"Equal", "Exists", ""}, "a toleration operator");
    if (t.op.empty()) t.op = "Equal";  // upstream: an empty operator means Equal
  }
  std::optional<Field> value = r.Get(f, "value");
  if (value) t.value = r.String(*value);
  if (auto effect = r.Get(f, "effect")) {
    t.effect =
        r.Enum(*effect, {"NoSchedule", "PreferNoSchedule", "NoExecute", ""}, "a taint effect");
  }
  if (auto seconds = r.Get(f, "tolerationSeconds")) {
    t.toleration_seconds =
        r.Int(*seconds, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
  // The API server's rules (validateTolerations).
  if (t.op == "Exists" && !t.value.empty()) {
    r.Fail(*value, "a toleration with operator Exists takes no value");
  }
  if (t.key.empty() && t.op != "Exists") {
    r.Fail(op ? *op : f, "a toleration without key needs operator Exists",
           "operator: Exists with no key tolerates every taint");
  }
  return t;
}

TopologySpreadConstraint ReadSpreadConstraint(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  TopologySpreadConstraint c;
  c.max_skew = static_cast<int>(r.Int(r.Require(f, "maxSkew"), 1, std::numeric_limits<int>::max()));
  const Field key = r.Require(f, "topologyKey");
  c.topology_key = r.String(key);
  if (c.topology_key.empty()) r.Fail(key, "empty topologyKey");
  c.when_unsatisfiable = r.Enum(r.Require(f, "whenUnsatisfiable"),
                                {"DoNotSchedule", "ScheduleAnyway"}, "a whenUnsatisfiable value");
  if (auto selector = r.Get(f, "labelSelector")) {
    c.label_selector = ReadLabelSelector(r, *selector);
  } else {
    // Upstream turns a nil selector into labels.Nothing(): the constraint counts no pod.
    c.label_selector.match_expressions.push_back(LabelSelectorRequirement{"", "In", {}});
  }
  c.match_label_keys = r.StringList(r.Get(f, "matchLabelKeys"));
  if (auto min_domains = r.Get(f, "minDomains")) {
    c.min_domains = static_cast<int>(r.Int(*min_domains, 1, std::numeric_limits<int>::max()));
    if (c.when_unsatisfiable != "DoNotSchedule") {
      r.Fail(*min_domains, "minDomains needs whenUnsatisfiable DoNotSchedule");
    }
  }
  if (auto policy = r.Get(f, "nodeAffinityPolicy")) {
    c.node_affinity_policy = r.Enum(*policy, {"Honor", "Ignore"}, "a node inclusion policy");
  }
  if (auto policy = r.Get(f, "nodeTaintsPolicy")) {
    c.node_taints_policy = r.Enum(*policy, {"Honor", "Ignore"}, "a node inclusion policy");
  }
  return c;
}

PodAffinityTerm ReadPodAffinityTerm(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  PodAffinityTerm t;
  const std::optional<Field> selector = r.Get(f, "labelSelector");
  if (selector) {
    t.label_selector = ReadLabelSelector(r, *selector);
  } else {
    t.label_selector.match_expressions.push_back(LabelSelectorRequirement{"", "In", {}});
  }
  t.namespaces = r.StringList(r.Get(f, "namespaces"));
  if (auto ns = r.Get(f, "namespaceSelector")) t.namespace_selector = ReadLabelSelector(r, *ns);
  const Field key = r.Require(f, "topologyKey");
  t.topology_key = r.String(key);
  if (t.topology_key.empty()) r.Fail(key, "empty topologyKey");
  for (auto [name, out] : {std::pair{"matchLabelKeys", &t.match_label_keys},
                           std::pair{"mismatchLabelKeys", &t.mismatch_label_keys}}) {
    const std::optional<Field> keys = r.Get(f, name);
    *out = r.StringList(keys);
    if (!out->empty() && !selector) {
      r.Fail(*keys, Cat({Backquote(name), " needs a labelSelector"}),
             "the keys are merged into the labelSelector; give one");
    }
  }
  for (const std::string& k : t.match_label_keys) {
    if (std::find(t.mismatch_label_keys.begin(), t.mismatch_label_keys.end(), k) !=
        t.mismatch_label_keys.end()) {
      r.Fail(*r.Get(f, "mismatchLabelKeys"),
             Cat({Quote(k), " is in both matchLabelKeys and mismatchLabelKeys"}));
    }
  }
  return t;
}

PodAffinity ReadPodAffinity(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  PodAffinity a;
  if (auto required = r.Get(f, "requiredDuringSchedulingIgnoredDuringExecution")) {
    for (const Field& term : r.Items(*required)) a.required.push_back(ReadPodAffinityTerm(r, term));
  }
  if (auto preferred = r.Get(f, "preferredDuringSchedulingIgnoredDuringExecution")) {
    for (const Field& p : r.Items(*preferred)) {
      r.ExpectMap(p);
      WeightedPodAffinityTerm w;
      w.weight = static_cast<int>(r.Int(r.Require(p, "weight"), 1, 100));
      w.term = ReadPodAffinityTerm(r, r.Require(p, "podAffinityTerm"));
      a.preferred.push_back(std::move(w));
    }
  }
  return a;
}

}  // namespace knobsim::kube
