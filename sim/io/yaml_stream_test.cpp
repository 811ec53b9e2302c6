// The cut of a large YAML export into units (yaml_stream.h): each item with its `-` made a
// space and the line it starts on, the envelope with `items: []` and its items' lines kept
// empty, documents on their own, and the errors the cut itself reports.
#include "sim/io/yaml_stream.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "sim/io/stream_cut_test_support.h"

namespace knobsim {
namespace {

using stream_cut_test_support::Cut;

Cut CutYaml(const std::string& text, size_t max_unit = size_t{1} << 20) {
  return stream_cut_test_support::CutFile<YamlUnit>(text, "yaml_stream_test.yaml", "x.yaml",
                                                    max_unit, StreamYamlUnits);
}

TEST_CASE("a YAML List is cut into its items, then the envelope with its items' lines kept") {
  const Cut c = CutYaml(
      "apiVersion: v1\n"
      "items:\n"
      "- kind: Pod\n"
      "  metadata:\n"
      "\n"
      "    name: a\n"
      "# between\n"
      "- kind: Node\n"
      "  note: |\n"
      "    - not an item\n"
      "kind: List\n"
      "metadata: {}");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 3);
  CHECK(c.texts[0] == "  kind: Pod\n  metadata:\n\n    name: a\n# between\n");
  CHECK(c.lines[0] == 3);
  CHECK(c.items[0] == 0);
  CHECK(c.texts[1] == "  kind: Node\n  note: |\n    - not an item\n");
  CHECK(c.lines[1] == 8);
  CHECK(c.items[1] == 1);
  CHECK(c.texts[2] == "apiVersion: v1\nitems: []\n\n\n\n\n\n\n\n\nkind: List\nmetadata: {}");
  CHECK(c.lines[2] == 1);
  CHECK(c.items[2] == -1);
  CHECK(c.envelopes[2]);
}

TEST_CASE("YAML documents are cut apart; one without items is a unit of its own") {
  const Cut c = CutYaml(
      "kind: Pod\nspec:\n  items:\n  - 1\n"
      "---\nitems:\n- a\r\n-\r\n  b\r\nkind: List\n"
      "--- # three\n# only a comment\n");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 5);
  CHECK(c.texts[0] == "kind: Pod\nspec:\n  items:\n  - 1\n");
  CHECK_FALSE(c.envelopes[0]);
  CHECK(c.items[0] == -1);
  CHECK(c.texts[1] == "  a\r\n");
  CHECK(c.lines[1] == 7);
  CHECK(c.items[1] == 0);  // items count from 0 in each document
  CHECK(c.texts[2] == " \r\n  b\r\n");
  CHECK(c.items[2] == 1);
  CHECK(c.texts[3] == "---\nitems: []\n\n\n\nkind: List\n");
  CHECK(c.lines[3] == 5);
  CHECK(c.envelopes[3]);
  CHECK(c.texts[4] == "--- # three\n# only a comment\n");
  CHECK(c.lines[4] == 11);
}

TEST_CASE("the YAML cut refuses what it cannot cut, with the line, never the text") {
  CHECK(CutYaml("items:\n  - a\n").error ==
        "x.yaml:2: the items of a streamed YAML file must start at column 0, as kubectl writes "
        "them; write them as `- ` under `items:` (kubectl get -o yaml), or split the file");
  CHECK(CutYaml("items:\n- a\nitems:\n- b\n").error ==
        "x.yaml:3: a second top-level `items` in one document of a streamed file; split the "
        "file, or separate the lists with ---");
  CHECK(CutYaml("items:\n- a: 0123456789abcdef\n", 16).error ==
        "x.yaml:2: an object larger than the input limit of 0 MiB; split the export by namespace "
        "or kind");
}

TEST_CASE("a byte order mark stays with the first unit; a missing YAML file is named") {
  const Cut c = CutYaml("\xEF\xBB\xBFitems:\n- a\n");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 2);
  CHECK(c.texts[1] == "\xEF\xBB\xBFitems: []\n\n");
  const Status s = StreamYamlUnits("no-such-file.yaml", "no-such-file.yaml", 1 << 20,
                                   [](const YamlUnit&) { return Status::Ok(); });
  REQUIRE_FALSE(s);
  CHECK(s.error().ToString() ==
        "no-such-file.yaml: cannot read the file: No such file or directory");
}

}  // namespace
}  // namespace knobsim
