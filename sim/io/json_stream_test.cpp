// The cut of a large JSON export into units (json_stream.h): what each unit holds and the line
// it starts on, the envelope with its items left out but its lines kept, and the structural
// errors the cut itself reports.
#include "sim/io/json_stream.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "sim/io/stream_cut_test_support.h"

namespace knobsim {
namespace {

using stream_cut_test_support::Cut;

Cut CutText(const std::string& text, size_t max_unit = size_t{1} << 20) {
  return stream_cut_test_support::CutFile<JsonUnit>(text, "json_stream_test.json", "x.json",
                                                    max_unit, StreamJsonUnits);
}

TEST_CASE("a List is cut into its items, then the envelope with its items' lines kept") {
  const Cut c = CutText(
      "{\n"
      "  \"apiVersion\": \"v1\",\n"
      "  \"items\": [\n"
      "    {\"kind\": \"Pod\",\n"
      "     \"metadata\": {\"name\": \"a\"}},\n"
      "    {\"kind\": \"Node\", \"x\": [1, \"]\", {\"y\": \"}\\\"\"}]}\n"
      "  ],\n"
      "  \"kind\": \"List\"\n"
      "}\n");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 3);
  CHECK(c.texts[0] == "{\"kind\": \"Pod\",\n     \"metadata\": {\"name\": \"a\"}}");
  CHECK(c.lines[0] == 4);
  CHECK(c.items[0] == 0);
  CHECK(c.texts[1] == "{\"kind\": \"Node\", \"x\": [1, \"]\", {\"y\": \"}\\\"\"}]}");
  CHECK(c.lines[1] == 6);
  CHECK(c.items[1] == 1);
  // The envelope: `items` empty, but as many line breaks as it spanned, so `kind` is on line 8.
  CHECK(c.texts[2] ==
        "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n\n\n\n],\n  \"kind\": \"List\"\n}");
  CHECK(c.lines[2] == 1);
  CHECK(c.items[2] == -1);
  CHECK(c.envelopes[2]);
}

TEST_CASE("documents without items are units of their own; nested items are not cut") {
  const Cut c = CutText(
      "{\"kind\": \"Pod\", \"spec\": {\"items\": [1, 2]}}\n[{\"a\": 1}]\n"
      "{\"kind\": \"PodList\", \"items\": [\"s\", 3 ,{}]}");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 6);
  CHECK(c.texts[0] == "{\"kind\": \"Pod\", \"spec\": {\"items\": [1, 2]}}");
  CHECK_FALSE(c.envelopes[0]);
  CHECK(c.texts[1] == "[{\"a\": 1}]");
  CHECK(c.lines[1] == 2);
  CHECK(c.texts[2] == "\"s\"");
  CHECK(c.texts[3] == "3");
  CHECK(c.texts[4] == "{}");
  CHECK(c.items[4] == 2);
  CHECK(c.texts[5] == "{\"kind\": \"PodList\", \"items\": []}");
  CHECK(c.lines[5] == 3);
}

TEST_CASE("the cut reports what is wrong between units, with the line, never the text") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"{\"items\": [{}\n {}]}",
       "x.json:2: invalid JSON: expected `,` or `]` after an item, "
       "found `{`"},
      {"{\"items\": [{},]}", "x.json:1: invalid JSON: expected a value after `,`, found `]`"},
      {"{\"items\": [{\"a\": [}]}",
       "x.json:1: invalid JSON: `}` does not close the bracket "
       "before it"},
      {"{\"items\": [{\"a\": 1}\n",
       "x.json:2: invalid JSON: the text ends inside a value; the file may have been cut short"},
      {"{}\nsecret", "x.json:2: invalid JSON: expected `{` or `[` to start a document, found `s`"},
  };
  for (const Case& k : cases) {
    CAPTURE(k.text);
    CHECK(CutText(k.text).error == k.error);
  }
  CHECK(CutText("{\"items\": [{\"a\": \"0123456789\"}]}", 16).error ==
        "x.json:1: an object larger than the input limit of 0 MiB; split the export by namespace "
        "or kind");
}

TEST_CASE("a byte order mark is skipped; a missing file is named") {
  const Cut c = CutText("\xEF\xBB\xBF{\"items\": []}");
  REQUIRE(c.error.empty());
  REQUIRE(c.texts.size() == 1);
  CHECK(c.texts[0] == "{\"items\": []}");
  const Status s = StreamJsonUnits("no-such-file.json", "no-such-file.json", 1 << 20,
                                   [](const JsonUnit&) { return Status::Ok(); });
  REQUIRE_FALSE(s);
  CHECK(s.error().ToString() ==
        "no-such-file.json: cannot read the file: No such file or directory");
}

}  // namespace
}  // namespace knobsim
