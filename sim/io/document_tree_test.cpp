// JSON and YAML texts into the document tree, read through the export reader: escapes, lines,
// concatenated documents, syntax errors without the text around them, aliases and nesting.
#include "sim/io/document_tree.h"

#include <doctest/doctest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "sim/io/kube/kube_test_support.h"
#include "sim/io/kube_reader.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The tree itself -----------------------------------------------------------------------

// The scalar at `path` (keys and indexes) from the first document, or "?".
std::string At(const DocumentTree& tree, std::initializer_list<std::string_view> path) {
  const TreeNode* node = &tree.node(tree.documents().at(0));
  for (std::string_view step : path) {
    const TreeNode* next = nullptr;
    if (node->kind == NodeKind::kMap) {
      for (size_t i = 0; i < node->size; ++i) {
        if (tree.Scalar(tree.Key(*node, i)) == step) next = &tree.Value(*node, i);
      }
    } else if (node->kind == NodeKind::kSequence) {
      next = &tree.Item(*node, static_cast<size_t>(std::stoi(std::string(step))));
    }
    if (next == nullptr) return "?";
    node = next;
  }
  return std::string(tree.Scalar(*node)) + "@" + std::to_string(node->line);
}

TEST_CASE("JSON and YAML build the same tree, each value with the line of its own text") {
  const std::string json = "{\"a\": {\"b\": [1, \"x\\u00e9\"]},\n \"c\": null}";
  const std::string yaml = "a:\n  b:\n  - 1\n  - xé\nc:\n";
  CHECK(LooksLikeJson(json));
  CHECK_FALSE(LooksLikeJson(yaml));
  CHECK_FALSE(LooksLikeJson("{a: 1}"));  // YAML flow style
  DocumentTree from_json(json), from_yaml(yaml);
  REQUIRE(ParseDocumentTree(json, "t.json", from_json).ok());
  REQUIRE(ParseDocumentTree(yaml, "t.yaml", from_yaml).ok());
  CHECK(At(from_json, {"a", "b", "1"}) == "x\xC3\xA9@1");
  CHECK(At(from_yaml, {"a", "b", "1"}) == "x\xC3\xA9@4");
  CHECK(At(from_json, {"a", "b", "0"}) == "1@1");
  CHECK(At(from_yaml, {"a", "b", "0"}) == "1@3");
  for (const DocumentTree* tree : {&from_json, &from_yaml}) {
    const TreeNode& root = tree->node(tree->documents().at(0));
    REQUIRE(root.kind == NodeKind::kMap);
    CHECK(tree->Value(root, 1).kind == NodeKind::kNull);
  }
}

TEST_CASE("a syntax error names the file and the line, without a field") {
  const std::string text = "{\"a\": 1,\n \"b\": 01}";
  DocumentTree tree(text);
  const Status parsed = ParseDocumentTree(text, "t.json", tree);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().ToString() == "t.json:2: invalid JSON: invalid number");
}

TEST_CASE("JSON errors point at the line of the field") {
  const std::string json = R"({
    "apiVersion": "v1",
    "kind": "List",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": "n1"
            },
            "spec": {
                "unschedulable": "maybe"
            }
        }
    ]
})";
  CHECK(ErrorOf(json, "nodes.json") ==
        "nodes.json:12: items[0].spec.unschedulable: \"maybe\" is not true or false");
  CHECK(
      ErrorOf("\n{\n  \"kind\": \"Node\",\n  \"metadata\": {\"name\": \"a\"}\n  \"spec\": {}\n}\n",
              "node.json") ==
      "node.json:5: invalid JSON: expected `,` or `}`, found a string; a comma is probably "
      "missing before it");
}

// ---- JSON and YAML texts -------------------------------------------------------------------

TEST_CASE("JSON strings decode escapes, surrogate pairs and unicode") {
  const PodSpec p = OnePod(R"({"kind": "Pod", "metadata": {"name": "p", "labels": {
    "a": "tab\there", "b": "caf\u00e9 \ud83d\ude80", "c": "quote \" slash \/ back \\",
    "d": "lone \udc00 surrogate", "e": "já"}},
    "spec": {"containers": [{"name": "c"}]}})");
  CHECK(p.labels.at("a") == "tab\there");
  CHECK(p.labels.at("b") == "caf\xC3\xA9 \xF0\x9F\x9A\x80");
  CHECK(p.labels.at("c") == "quote \" slash / back \\");
  CHECK(p.labels.at("d") == "lone \xEF\xBF\xBD surrogate");
  CHECK(p.labels.at("e") == "já");
}

TEST_CASE("concatenated JSON documents read one after another, each with its lines") {
  const KubeObjects o = MustRead(
      "{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n\n"
      "{\"kind\": \"List\", \"items\": [\n  {\"kind\": \"Node\", \"metadata\": {\"name\": "
      "\"b\"}}]}");
  REQUIRE(o.nodes.size() == 2);
  CHECK(o.node_sources[0].line == 1);
  CHECK(o.node_sources[1].line == 4);
}

const BadInput kBadJson[] = {
    {"{\"kind\": \"Node\",\n \"metadata\": {\"name\": \"a\",}}",
     "bad.yaml:2: invalid JSON: expected a key in double quotes, found `}`; JSON allows no comma "
     "before `}`"},
    {"{\"kind\": \"List\", \"items\": [1,\n 2,]}",
     "bad.yaml:2: invalid JSON: expected a value, found `]`; JSON allows no comma before `]`"},
    {"{\"kind\": \"Node\",\n \"metadata\": {\"name\": \"a\"\n",
     "bad.yaml:3: invalid JSON: the text ends inside an object; the file may have been cut short"},
    {"{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}} x",
     "bad.yaml:1: invalid JSON: expected a value, found `x`; strings are written in double "
     "quotes; true, false and null in lower case"},
    {"{\"kind\": \"Node\", \"spec\": {\"unschedulable\": True}}",
     "bad.yaml:1: invalid JSON: expected a value, found `T`; strings are written in double "
     "quotes; true, false and null in lower case"},
    {"{\"kind\": \"Node\", \"x\": 01}", "bad.yaml:1: invalid JSON: invalid number"},
    {"{\"kind\": \"Node\", \"x\": \"a\\qb\"}",
     "bad.yaml:1: invalid JSON: an unknown escape in a string; escape a backslash as \\\\"},
    {"{\"kind\": \"Node\", \"x\": \"\\u12G4\"}",
     "bad.yaml:1: invalid JSON: a \\u escape needs four hex digits"},
    {"{\"kind\": \"Node\" \"x\": 1}",
     "bad.yaml:1: invalid JSON: expected `,` or `}`, found a string; a comma is probably missing "
     "before it"},
    {"{\"kind\": \"Node\", \"x\" 1}",
     "bad.yaml:1: invalid JSON: expected `:` after the key, found `1`"},
    {"{\"kind\": \"Node\", \"x\": \"a\tb\"}",
     "bad.yaml:1: invalid JSON: a control character inside a string; escape it, e.g. \\t or "
     "\\u0001"},
};

TEST_CASE("bad JSON gives the line and what to fix, never the text around it") {
  for (const BadInput& bad : kBadJson) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
}

TEST_CASE("deep nesting and self-referencing YAML aliases are errors, not crashes") {
  const std::string deep =
      "{\"kind\": \"Node\", \"x\": " + std::string(2000, '[') + std::string(2000, ']') + "}";
  CHECK(ErrorOf(deep) == "bad.yaml:1: invalid JSON: nested more than 512 deep");
  std::string yaml_deep =
      "kind: Node\nx: " + std::string(2000, '[') + std::string(2000, ']') + "\n";
  CHECK(ErrorOf(yaml_deep) ==
        "bad.yaml:2: invalid YAML: nested too deep; no Kubernetes object nests this far");
  CHECK(
      ErrorOf("&a {kind: List, items: [*a]}\n") ==
      "bad.yaml:1: invalid YAML: an alias inside the node it names; a node cannot contain itself");
}

// Found by tools/fuzz/kube_reader_fuzz: yaml-cpp answered an empty document at a stray `,`
// forever, so the reader hung and grew without bound.
TEST_CASE("a stray comma where a YAML document should start is an error, not an endless read") {
  const BadInput cases[] = {
      {",",
       "bad.yaml:1: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
      {"- a\n,\n",
       "bad.yaml:2: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
      {"{\n  2889Ki\",\n      \"pods\": \"64\"\n    },\n",
       "bad.yaml:4: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?"},
  };
  for (const BadInput& bad : cases) {
    CAPTURE(bad.text);
    CHECK(ErrorOf(bad.text) == bad.message);
  }
  // Documents that are empty or only `---` still read: each starts past the one before.
  CHECK(ErrorOf("---\n---\n---\n") ==
        "bad.yaml: the file holds no Kubernetes objects; expected the output of kubectl get -o "
        "yaml or -o json");
}

TEST_CASE("YAML aliases share their anchor's value") {
  const KubeObjects o = MustRead(R"(kind: List
items:
- kind: Pod
  metadata: {name: a, labels: &labels {app: web, tier: front}}
  spec: {containers: [{name: c}]}
- kind: Pod
  metadata: {name: b, labels: *labels}
  spec: {containers: [{name: c}]}
)");
  CHECK(o.pods[1].labels == Labels{{"app", "web"}, {"tier", "front"}});
}

TEST_CASE("YAML flow style that is not JSON still reads as YAML") {
  const KubeObjects o = MustRead("{kind: Node, metadata: {name: flow}}\n");
  REQUIRE(o.nodes.size() == 1);
  CHECK(o.nodes[0].name == "flow");
}

TEST_CASE("a key given twice keeps its last value, whole, as kubectl's decoding does") {
  struct Case {
    const char* name;
    std::string text;
  };
  std::string many = "{";  // more keys than the linear scan covers: the hashed path
  for (int i = 0; i < 20; ++i)
    many += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  many += "\"a\": {\"x\": 0}, \"k3\": 1, \"a\": {\"b\": [1, \"late\"]}}";
  const Case cases[] = {
      {"JSON", "{\"a\": {\"b\": [1, \"early\"], \"x\": 0},\n \"a\": {\"b\": [1, \"late\"]}}"},
      {"YAML", "a:\n  b: [1, early]\n  x: 0\na:\n  b: [1, late]\n"},
      {"JSON with many keys", many},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    DocumentTree tree(c.text);
    REQUIRE(ParseDocumentTree(c.text, "t", tree).ok());
    CHECK(At(tree, {"a", "b", "1"}).rfind("late@", 0) == 0);
    CHECK(At(tree, {"a", "x"}) == "?");  // replaced whole, not merged
    REQUIRE_FALSE(tree.duplicate_keys().empty());
    CHECK(tree.duplicate_keys().back().key == "a");
  }
  DocumentTree yaml(cases[1].text);
  REQUIRE(ParseDocumentTree(cases[1].text, "t", yaml).ok());
  CHECK(yaml.duplicate_keys()[0].line == 4);
  CHECK(yaml.duplicate_keys()[0].first_line == 1);
  const TreeNode& root = yaml.node(yaml.documents().at(0));
  CHECK(root.size == 1);
}

TEST_CASE("the export reader places a pod by the last of duplicate keys and warns about it") {
  const KubeObjects o = MustRead(R"(kind: Pod
metadata: {name: a}
spec:
  nodeName: first
  containers: [{name: c}]
  nodeName: second
)");
  REQUIRE(o.pods.size() == 1);
  CHECK(o.pods[0].node_name == "second");
  REQUIRE(o.warnings.size() == 1);
  CHECK(o.warnings[0].find("test.yaml:6: duplicate key \"nodeName\" (also at line 4)") == 0);
}

}  // namespace
}  // namespace knobsim
