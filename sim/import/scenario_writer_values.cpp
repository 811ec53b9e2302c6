#include "sim/import/scenario_writer_internal.h"

#include "sim/import/scenario_writer.h"

namespace knobsim::writer_internal {

std::string Map(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ", ";
    out += YamlScalar(k);
    out += ": ";
    out += YamlScalar(v);
    first = false;
  }
  return out + "}";
}

std::string List(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    out += YamlScalar(v[i]);
  }
  return out + "]";
}

std::string Requirement(const std::string& key, const std::string& op,
                        const std::vector<std::string>& values) {
  std::string out = "{key: " + YamlScalar(key) + ", operator: " + op;
  if (!values.empty() || op == "In" || op == "NotIn") out += ", values: " + List(values);
  return out + "}";
}

std::string Terms(const std::vector<std::vector<NodeSelectorRequirement>>& terms) {
  std::string out = "[";
  for (size_t t = 0; t < terms.size(); ++t) {
    if (t > 0) out += ", ";
    out += "[";
    for (size_t i = 0; i < terms[t].size(); ++i) {
      if (i > 0) out += ", ";
      out += Requirement(terms[t][i].key, terms[t][i].op, terms[t][i].values);
    }
    out += "]";
  }
  return out + "]";
}

std::string Selector(const LabelSelector& s) {
  std::string out = "{";
  if (!s.match_labels.empty()) out += "match_labels: " + Map(s.match_labels);
  if (!s.match_expressions.empty()) {
    if (!s.match_labels.empty()) out += ", ";
    out += "match_expressions: [";
    for (size_t i = 0; i < s.match_expressions.size(); ++i) {
      const auto& r = s.match_expressions[i];
      if (i > 0) out += ", ";
      out += Requirement(r.key, r.op, r.values);
    }
    out += "]";
  }
  return out + "}";
}

}  // namespace knobsim::writer_internal
