// The scenario writer's insides, shared by its files (scenario_writer*.cpp) and nothing else:
// the line writer every comment goes through, and the flow values of labels, lists, node
// selector terms and label selectors as the scenario reader reads them.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/kube_types.h"
#include "sim/scenario.h"
#include "sim/text.h"

namespace knobsim::writer_internal {

// Every comment goes through here: notes and evidence quote names from the export (a
// namespace, a pod, an owner), and a line break in one would end the comment and start YAML
// (YamlCommentText keeps it one line). Values are YamlScalar's.
class Out {
 public:
  void Line(int indent, const std::string& text, const std::string& note = "") {
    s_ << std::string(indent, ' ') << text;
    if (!note.empty()) s_ << "  # " << YamlCommentText(note);
    s_ << '\n';
  }
  void Comment(int indent, const std::string& text) {
    s_ << std::string(indent, ' ') << "#" << (text.empty() ? "" : " ") << YamlCommentText(text)
       << '\n';
  }
  void Blank() { s_ << '\n'; }
  std::string str() const { return s_.str(); }

 private:
  std::ostringstream s_;
};

// `{a: b, c: d}`, keys in order.
std::string Map(const std::map<std::string, std::string>& m);
// `[a, b]`.
std::string List(const std::vector<std::string>& v);
// `{key: k, operator: In, values: [a]}`; values left out for Exists and DoesNotExist.
std::string Requirement(const std::string& key, const std::string& op,
                        const std::vector<std::string>& values);
// Node selector terms as a flow list of lists: [[{key, operator, values}, ...], ...].
std::string Terms(const std::vector<std::vector<NodeSelectorRequirement>>& terms);
// `{match_labels: {...}, match_expressions: [...]}`, each only when not empty.
std::string Selector(const LabelSelector& s);

// The `kube:` section (scenario_writer_kube.cpp).
void WriteKube(Out& o, const ScenarioKube& k);

}  // namespace knobsim::writer_internal
