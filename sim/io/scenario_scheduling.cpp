// A pod's scheduling rules as a workload (or a variant, or a kube object) writes them: node
// selector terms, affinities, tolerations, topology spread, host ports
// (scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <charconv>
#include <limits>

namespace knobsim::scenario_internal {

void Reader::CheckValues(const Field& f, std::string_view op,
                         const std::vector<std::string>& values, bool numeric_ops) const {
  if (op == "In" || op == "NotIn") {
    if (values.empty()) Fail(f, "operator " + std::string(op) + " needs `values`");
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) Fail(f, "operator " + std::string(op) + " takes no `values`");
  } else if (numeric_ops && (op == "Gt" || op == "Lt")) {
    int64_t n = 0;
    const std::string& v = values.empty() ? std::string() : values[0];
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (values.size() != 1 || ec != std::errc() || end != v.data() + v.size()) {
      Fail(f, "operator " + std::string(op) + " needs exactly one integer in `values`");
    }
  }
}

std::vector<NodeSelectorRequirement> Reader::ReadNodeSelectorTerm(const Field& f) const {
  std::vector<NodeSelectorRequirement> term;
  for (const Field& item : Items(f)) {
    Section s(*this, item, {"key", "operator", "values"});
    NodeSelectorRequirement r;
    r.key = NonEmptyString(s.Require("key"));
    const Field op = s.Require("operator");
    r.op = std::string(Enum<std::string_view>(op, "operator",
                                              {{"In", "In"},
                                               {"NotIn", "NotIn"},
                                               {"Exists", "Exists"},
                                               {"DoesNotExist", "DoesNotExist"},
                                               {"Gt", "Gt"},
                                               {"Lt", "Lt"}}));
    if (auto v = s.Get("values")) r.values = StringList(*v);
    CheckValues(item, r.op, r.values, true);
    term.push_back(std::move(r));
  }
  if (term.empty()) Fail(f, "a term needs at least one expression");
  return term;
}

NodeAffinity Reader::ReadNodeAffinity(const Field& f) const {
  Section s(*this, f, {"required", "preferred"});
  NodeAffinity a;
  if (auto v = s.Get("required")) {
    for (const Field& term : Items(*v)) a.required_terms.push_back(ReadNodeSelectorTerm(term));
  }
  if (auto v = s.Get("preferred")) {
    for (const Field& item : Items(*v)) {
      Section p(*this, item, {"weight", "match"});
      NodeAffinity::Preferred pref;
      pref.weight = Int(p.Require("weight"), 1, 100);
      pref.expressions = ReadNodeSelectorTerm(p.Require("match"));
      a.preferred.push_back(std::move(pref));
    }
  }
  return a;
}

// A host port as a container port names one: `{port, protocol, host_ip}`, TCP and 0.0.0.0 when
// left out (NodePorts, docs/semantics.md §3.10).
HostPort Reader::ReadHostPort(const Field& f) const {
  Section s(*this, f, {"port", "protocol", "host_ip"});
  HostPort p;
  p.port = Int(s.Require("port"), 1, 65535, "a host port is 1..65535");
  if (auto v = s.Get("protocol")) {
    p.protocol = std::string(
        Enum<std::string_view>(*v, "protocol", {{"TCP", "TCP"}, {"UDP", "UDP"}, {"SCTP", "SCTP"}}));
  }
  if (auto v = s.Get("host_ip")) p.host_ip = NonEmptyString(*v);
  return p;
}

// Kubernetes' own validation rules for tolerations (core/validation ValidateTolerations).
Toleration Reader::ReadToleration(const Field& f) const {
  Section s(*this, f, {"key", "operator", "value", "effect", "toleration_seconds"});
  Toleration t;
  if (auto v = s.Get("key")) t.key = String(*v);
  if (auto v = s.Get("operator")) {
    t.op = std::string(
        Enum<std::string_view>(*v, "operator", {{"Equal", "Equal"}, {"Exists", "Exists"}}));
  }
  if (auto v = s.Get("value")) t.value = String(*v);
  if (auto v = s.Get("effect")) {
    t.effect = std::string(Enum<std::string_view>(*v, "toleration effect",
                                                  {{"NoSchedule", "NoSchedule"},
                                                   {"PreferNoSchedule", "PreferNoSchedule"},
                                                   {"NoExecute", "NoExecute"},
                                                   {"", ""}}));
  }
  if (t.key.empty() && t.op != "Exists") {
    Fail(f, "a toleration without `key` must use operator Exists");
  }
  if (t.op == "Exists" && !t.value.empty()) {
    Fail(*s.Get("value"), "must be empty when the operator is Exists");
  }
  if (auto v = s.Get("toleration_seconds")) {
    if (t.effect != "NoExecute") Fail(*v, "needs effect NoExecute");
    t.toleration_seconds =
        Integer(*v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  }
  return t;
}

LabelSelector Reader::ReadLabelSelector(const Field& f) const {
  Section s(*this, f, {"match_labels", "match_expressions"});
  LabelSelector sel;
  if (auto v = s.Get("match_labels")) sel.match_labels = StringMap(*v);
  if (auto v = s.Get("match_expressions")) {
    for (const Field& item : Items(*v)) {
      Section e(*this, item, {"key", "operator", "values"});
      LabelSelectorRequirement r;
      r.key = NonEmptyString(e.Require("key"));
      r.op = std::string(Enum<std::string_view>(e.Require("operator"), "operator",
                                                {{"In", "In"},
                                                 {"NotIn", "NotIn"},
                                                 {"Exists", "Exists"},
                                                 {"DoesNotExist", "DoesNotExist"}}));
      if (auto values = e.Get("values")) r.values = StringList(*values);
      CheckValues(item, r.op, r.values, false);
      sel.match_expressions.push_back(std::move(r));
    }
  }
  return sel;
}

TopologySpreadConstraint Reader::ReadSpread(const Field& f, const Labels& own_labels) const {
  Section s(*this, f,
            {"max_skew", "topology_key", "when_unsatisfiable", "label_selector", "match_label_keys",
             "min_domains", "node_affinity_policy", "node_taints_policy"});
  TopologySpreadConstraint c;
  if (auto v = s.Get("max_skew")) c.max_skew = Int(*v, 1);
  c.topology_key = NonEmptyString(s.Require("topology_key"));
  if (auto v = s.Get("when_unsatisfiable")) {
    c.when_unsatisfiable = std::string(Enum<std::string_view>(
        *v, "when_unsatisfiable",
        {{"DoNotSchedule", "DoNotSchedule"}, {"ScheduleAnyway", "ScheduleAnyway"}}));
  }
  if (auto v = s.Get("label_selector")) {
    c.label_selector = ReadLabelSelector(*v);
  } else {
    c.label_selector.match_labels = own_labels;
  }
  if (auto v = s.Get("match_label_keys")) c.match_label_keys = StringList(*v);
  if (auto v = s.Get("min_domains")) {
    if (c.when_unsatisfiable != "DoNotSchedule") {
      Fail(*v, "min_domains needs when_unsatisfiable DoNotSchedule");
    }
    c.min_domains = Int(*v, 1);
  }
  EnumTable<std::string_view> policies = {{"Honor", "Honor"}, {"Ignore", "Ignore"}};
  if (auto v = s.Get("node_affinity_policy")) {
    c.node_affinity_policy = std::string(Enum(*v, "node_affinity_policy", policies));
  }
  if (auto v = s.Get("node_taints_policy")) {
    c.node_taints_policy = std::string(Enum(*v, "node_taints_policy", policies));
  }
  return c;
}

// pod_affinity / pod_anti_affinity: {required: [term], preferred: [{weight, ...term}]}; a term
// without label_selector selects the workload's own labels, as topology_spread does.
PodAffinity Reader::ReadPodAffinity(const Field& f, const Labels& own) const {
  Section s(*this, f, {"required", "preferred"});
  auto term = [&](const Section& t) {
    PodAffinityTerm out;
    out.topology_key = NonEmptyString(t.Require("topology_key"));
    if (auto v = t.Get("label_selector")) {
      out.label_selector = ReadLabelSelector(*v);
    } else {
      out.label_selector.match_labels = own;
    }
    if (auto v = t.Get("namespaces")) out.namespaces = StringList(*v);
    if (auto v = t.Get("namespace_selector")) out.namespace_selector = ReadLabelSelector(*v);
    if (auto v = t.Get("match_label_keys")) out.match_label_keys = StringList(*v);
    if (auto v = t.Get("mismatch_label_keys")) out.mismatch_label_keys = StringList(*v);
    return out;
  };
  PodAffinity a;
  if (auto v = s.Get("required")) {
    for (const Field& item : Items(*v)) {
      a.required.push_back(
          term(Section(*this, item,
                       {"topology_key", "label_selector", "namespaces", "namespace_selector",
                        "match_label_keys", "mismatch_label_keys"})));
    }
  }
  if (auto v = s.Get("preferred")) {
    for (const Field& item : Items(*v)) {
      Section t(*this, item,
                {"weight", "topology_key", "label_selector", "namespaces", "namespace_selector",
                 "match_label_keys", "mismatch_label_keys"});
      WeightedPodAffinityTerm w;
      w.weight = Int(t.Require("weight"), 1, 100);
      w.term = term(t);
      a.preferred.push_back(std::move(w));
    }
  }
  return a;
}

std::vector<TopologySpreadConstraint> Reader::ReadSpreadList(const Field& f,
                                                             const Labels& own) const {
  std::vector<TopologySpreadConstraint> out;
  for (const Field& item : Items(f)) out.push_back(ReadSpread(item, own));
  return out;
}

}  // namespace knobsim::scenario_internal
