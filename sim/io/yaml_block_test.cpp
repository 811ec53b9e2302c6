// The block-YAML fast path (yaml_block.h) against yaml-cpp's reader: the same tree, value for
// value and line for line, on every shape it takes; everything else declined, to be read (and
// refused, with yaml-cpp's words) by yaml-cpp; and YAML and JSON of the same content reading
// to the same tree but for the lines.
#include "sim/io/yaml_block.h"

#include <doctest/doctest.h>

#include <string>

#include "sim/io/document_tree.h"
#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

struct Shape {
  const char* name;
  std::string text;
};

// The tree yaml-cpp builds, or its error.
std::string ByYamlCpp(const std::string& text) {
  DocumentTree tree(text);
  const Status read = ParseYamlWithYamlCpp(text, "t.yaml", tree);
  return read ? TreeOutline(tree) : read.error().ToString();
}

// What kubectl writes: a List, indentless sequences, compact maps in sequences, `{}`, `[]`,
// quoted numbers and booleans, a last-applied-configuration block.
const std::string kKubectlPod = R"(apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0"}}
    creationTimestamp: "2024-06-01T00:00:00Z"
    labels:
      app: web
    name: web-0
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: StatefulSet
      name: web
  spec:
    containers:
    - args:
      - --port=8080
      - -v
      env:
      - name: EMPTY
        value: ""
      image: registry.example.com/web:1.2
      resources:
        limits:
          aliyun.com/gpu-mem: "4"
          nvidia.com/gpu: 1
      volumeMounts: []
    nodeSelector: {}
    volumes:
    - emptyDir: {}
      name: cache
  status:
    conditions:
    - lastProbeTime: null
      message: 'the pod''s probe: ok'
      status: "True"
      type: Ready
    phase: Running
kind: List
metadata:
  resourceVersion: ""
)";

const Shape kSameTree[] = {
    {"a kubectl list", kKubectlPod},
    {"literal block scalars keep, clip and strip their last breaks",
     "a: |\n  one\n   two\n\n  # not a comment\n\nb: |-\n  x\n\n\nc: |+\n  y\n\n\nd: |\n"
     "  trailing  \ne: |\n\n  after an empty line\n"},
    {"folded block scalars fold lines, keep more-indented ones",
     "a: >\n  one\n  two\n\n  three\n    more\n  four\nb: >-\n  x\n  y\n\n\nc: >+\n  z\n\n"},
    {"a block scalar in a sequence and at the end of the text", "- |\n  a\n  b\n- >\n  c"},
    {"double-quoted escapes",
     R"(a: "tab\there \"q\" back\\slash \/ \x41 \u00e9 \U0001F680 \N \_ \L \P \0 \e \ ")"},
    {"single-quoted doubling", "a: 'it''s'\nb: ''\nc: '''x'''\n"},
    {"quoted scalars over several lines fold, an escaped break joins",
     "a: \"one\n  two\n\n  three  \n  end\"\nb: \"x\\\n  y\"\nc: 'p\n\n  q'\n"},
    {"plain scalars over several lines fold, blank lines keep breaks",
     "a: one\n  two\n\n  three\nb: -x\n  - y\nc: x # comment\n"},
    {"empty values take the line of the next token",
     "a:\nb:\n  c:\n\n  # comment\nd:\n- \n-\ne:\n  -\nf:"},
    {"empty values at the end of the text, with a final break", "a:\n  b:\n\n"},
    {"null spellings; quoted ones are strings",
     "- ~\n- null\n- Null\n- NULL\n- \"null\"\n- 'NULL'\n- nulls\n- null: 1\n  ~: 2\n"},
    {"comments everywhere",
     "# head\na: 1 # trailing\n# between\nb: # after a key\n  c: 2\n  # indented\n"
     "d: \"x\" #q\ne: '#not'\nf: a#b\n"},
    {"nested, compact and indentless sequences",
     "- - a\n  - b\n- c: 1\n  d:\n  - e\n  - f\n  g: 2\n-\n  h: 3\n- []\n- {}\n"},
    {"keys: spaces before the colon, quoted, colons inside",
     "a b : 1\n\"c: d\": 2\n'e': 3\nhttp://x: y\nf: g:h\ni: :j\n-1: k\n"},
    {"several documents", "---\na: 1\n--- # second\n- b\n---\nc\n"},
    {"a scalar document over several lines", "just text\nover lines\n"},
    {"duplicate keys keep the last value", "a: 1\nb: 2\na:\n  c: 3\n"},
    {"a long line", "a: " + std::string(20000, 'x') + "\nb: \"" + std::string(5000, 'y') + "\"\n"},
    {"CRLF line ends",
     "a: 1\r\nb:\r\n- c\r\n- \"d\r\n  e\"\r\nf: |\r\n  g\r\n  h\r\n\r\ni: j # k\r\n"},
    {"a UTF-8 byte order mark and UTF-8 text",
     "\xEF\xBB\xBF"
     "a: caf\xC3\xA9\nb: \xE2\x82\xAC\n"},
    {"no final line break", "a:\n  b: c"},
    {"indented root", "  a: 1\n  b:\n    c: 2\n"},
    {"comments only", "# nothing\n\n# here\n"},
    {"an empty text", ""},
};

TEST_CASE("the block fast path builds yaml-cpp's tree, value for value and line for line") {
  for (const Shape& shape : kSameTree) {
    INFO(std::string(shape.name));
    DocumentTree fast(shape.text);
    REQUIRE(ReadBlockYaml(shape.text, fast));
    CHECK(TreeOutline(fast) == ByYamlCpp(shape.text));
  }
}

TEST_CASE("a kubectl export file takes the fast path to yaml-cpp's tree") {
  const std::string text =
      kube_test_support::ReadText(kube_test_support::KubeDataDir() + "export-kubectl.yaml");
  DocumentTree fast(text);
  REQUIRE(ReadBlockYaml(text, fast));
  CHECK(TreeOutline(fast) == ByYamlCpp(text));
  CHECK(fast.documents().size() == 2);
}

const Shape kDeclined[] = {
    {"anchors and aliases", "a: &x 1\nb: *x\n"},
    {"tags", "a: !!str 1\n"},
    {"flow collections with content", "a: [1, 2]\nb: {c: d}\n"},
    {"complex keys", "? a\n: b\n"},
    {"directives", "%YAML 1.2\n---\na: 1\n"},
    {"a document end marker", "a: 1\n...\n"},
    {"an empty document", "---\n---\na: 1\n"},
    {"tabs outside scalars", "a:\n\tb: 1\n"},
    {"an indentation indicator", "a: |2\n   x\n"},
    {"a control character", "a: b\x01"},
    {"a lone carriage return", "a: 1\rb: 2\n"},
    {"UTF-16", std::string("\xFF\xFE"
                           "a\0:\0",
                           6)},
    {"wrong indentation", "a:\n    b: 1\n  c: 2\n"},
    {"a key after a sequence at its column", "- a\nb: 1\n"},
    {"a value that is a mapping on one line", "a: b: c\n"},
    {"a quote never closed", "a: \"b"},
    {"an unknown escape", "a: \"\\q\"\n"},
    {"a surrogate escape", "a: \"\\ud800\"\n"},
};

TEST_CASE("what the fast path declines reads through yaml-cpp, errors and all") {
  for (const Shape& shape : kDeclined) {
    INFO(std::string(shape.name));
    DocumentTree fast(shape.text);
    CHECK_FALSE(ReadBlockYaml(shape.text, fast));
    DocumentTree tree(shape.text);
    const Status read = ParseDocumentTree(shape.text, "t.yaml", tree);
    CHECK((read ? TreeOutline(tree) : read.error().ToString()) == ByYamlCpp(shape.text));
  }
}

TEST_CASE("a cut-short or mangled export reads as yaml-cpp reads it, never quoting the text") {
  // Every prefix of a real export, and the export with a byte flipped in each line: the fast
  // path either builds yaml-cpp's tree or leaves the text (and its error) to yaml-cpp.
  std::string text = kKubectlPod;
  for (size_t cut = 0; cut <= text.size(); cut += 7) {
    const std::string part = text.substr(0, cut);
    CAPTURE(part);
    DocumentTree tree(part);
    const Status read = ParseDocumentTree(part, "t.yaml", tree);
    CHECK((read ? TreeOutline(tree) : read.error().ToString()) == ByYamlCpp(part));
  }
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
    for (const char c : {':', '"', '-', ' ', '\'', '|', '#'}) {
      std::string mangled = text;
      if (at + 3 < mangled.size()) mangled[at + 3] = c;
      CAPTURE(mangled);
      DocumentTree tree(mangled);
      const Status read = ParseDocumentTree(mangled, "t.yaml", tree);
      if (!read) CHECK(read.error().ToString().find("registry.example.com") == std::string::npos);
      CHECK((read ? TreeOutline(tree) : read.error().ToString()) == ByYamlCpp(mangled));
    }
  }
}

struct Twin {
  const char* name;
  std::string yaml;
  std::string json;
};

const Twin kTwins[] = {
    {"block scalars", "a: |\n  x\n  y\nb: >-\n  p\n  q\n", R"({"a": "x\ny\n", "b": "p q"})"},
    {"quoted strings with escapes", R"(a: "t\tq\"b\\u\u00e9"
b: 'it''s')",
     R"({"a": "t\tq\"b\\u\u00e9", "b": "it's"})"},
    {"several documents", "a: 1\n---\n- b\n", "{\"a\": 1}\n[\"b\"]"},
    {"aliases", "a: &x {b: 1}\nc: *x\n", R"({"a": {"b": 1}, "c": {"b": 1}})"},
    {"empty values and null spellings", "a:\nb: ~\nc: Null\nd: []\ne: {}\nf: ''\n",
     R"({"a": null, "b": null, "c": null, "d": [], "e": {}, "f": ""})"},
    {"comments", "# c\na: 1 # d\n# e\n", R"({"a": 1})"},
    {"long lines", "a: " + std::string(3000, 'z') + "\n",
     "{\"a\": \"" + std::string(3000, 'z') + "\"}"},
    {"CRLF line ends", "a:\r\n- 1\r\n- x y\r\n", "{\"a\": [1, \"x y\"]}"},
};

TEST_CASE("YAML and JSON of the same content read to the same tree but for the lines") {
  for (const Twin& twin : kTwins) {
    INFO(std::string(twin.name));
    DocumentTree yaml(twin.yaml), json(twin.json);
    REQUIRE(ParseDocumentTree(twin.yaml, "t.yaml", yaml).ok());
    REQUIRE(ParseDocumentTree(twin.json, "t.json", json).ok());
    CHECK(TreeOutline(yaml, OutlineDetail::kContent) == TreeOutline(json, OutlineDetail::kContent));
  }
}

}  // namespace
}  // namespace knobsim
