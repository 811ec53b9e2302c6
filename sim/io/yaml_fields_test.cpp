#include "sim/io/yaml_fields.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/text.h"

namespace knobsim {
namespace {

constexpr YamlFileKind kThing{"thing", "", false};

// The document's root as a field, as a reader starts.
Field Root(const std::string& yaml) {
  Expected<YAML::Node> root = LoadSingleYamlDocument(yaml, "f.yaml", kThing);
  REQUIRE_MESSAGE(root.ok(), root.error().ToString());
  return Field{*root, "", LineOf(*root, 1)};
}

// The message a read of `yaml` fails with, or "" when it succeeds.
template <class Read>
std::string ErrorOf(const std::string& yaml, Read read) {
  const Field root = Root(yaml);
  const YamlFieldReader r("f.yaml");
  Expected<int> got = r.Catch<int>([&] {
    read(r, root);
    return 0;
  });
  return got.ok() ? "" : got.error().ToString();
}

std::string LoadError(const std::string& yaml, const YamlFileKind& kind = kThing) {
  Expected<YAML::Node> root = LoadSingleYamlDocument(yaml, "f.yaml", kind);
  return root.ok() ? "" : root.error().ToString();
}

TEST_CASE("a section names an unknown key's nearest known key, or lists them") {
  auto read = [](const YamlFieldReader& r, const Field& f) {
    YamlFieldReader::Section s(r, f, {"name", "replicas"});
  };
  CHECK(ErrorOf("name: a\nreplica: 2\n", read) ==
        "f.yaml:2: replica: unknown key; did you mean `replicas`?");
  CHECK(ErrorOf("name: a\nzones: 2\n", read) ==
        "f.yaml:2: zones: unknown key; known keys: name, replicas");
  CHECK(ErrorOf("name: a\n<<: {replicas: 1}\n", read) ==
        "f.yaml:2: <<: unknown key; YAML merge keys (<<) are not supported");
  CHECK(ErrorOf("name: a\nname: b\n", read) ==
        "f.yaml:2: name: duplicate key; each key may appear once in a mapping");
  CHECK(ErrorOf("[1, 2]: a\n", read) == "f.yaml:1: keys must be plain strings, found a list");
  CHECK(ErrorOf("- a\n", read) == "f.yaml:1: expected a mapping, found a list");
  CHECK(ErrorOf("name: a\n", read) == "");
}

TEST_CASE("a section's required key is named at the section's line when absent") {
  auto read = [](const YamlFieldReader& r, const Field& f) {
    YamlFieldReader::Section top(r, f, {"pool"});
    YamlFieldReader::Section pool(r, top.Require("pool"), {"name", "count"});
    CHECK(pool.Has("count"));
    CHECK_FALSE(pool.Get("other").has_value());
    CHECK(r.Int(*pool.Get("count"), 0) == 3);
    pool.Require("name");
  };
  CHECK(ErrorOf("# a comment\npool:\n  count: 3\n", read) ==
        "f.yaml:2: pool: missing required key `name`");
}

TEST_CASE("fields inside lists carry their index in the path and their own line") {
  auto read = [](const YamlFieldReader& r, const Field& f) {
    YamlFieldReader::Section s(r, f, {"pools"});
    const std::vector<Field> items = r.Items(s.Require("pools"));
    REQUIRE(items.size() == 2);
    CHECK(items[1].path == "pools[1]");
    CHECK(items[1].line == 4);
    r.Int(YamlFieldReader::Section(r, items[1], {"count"}).Require("count"), 1);
  };
  CHECK(ErrorOf("pools:\n  - count: 1\n\n  - count: 0\n", read) ==
        "f.yaml:4: pools[1].count: 0 is less than 1");
  CHECK(ErrorOf("pools:\n  a: 1\n", read) ==
        "f.yaml:1: pools: expected a list, found a mapping; start each list item with `- `");
  CHECK(ErrorOf("pools: 3\n", read) == "f.yaml:1: pools: expected a list, found \"3\"");
}

TEST_CASE("whole numbers say which bound they miss") {
  auto at = [](int64_t lo, int64_t hi) {
    return [lo, hi](const YamlFieldReader& r, const Field& f) {
      r.Integer(YamlFieldReader::Section(r, f, {"n"}).Require("n"), lo, hi, "a hint");
    };
  };
  const int64_t big = std::numeric_limits<int>::max();
  CHECK(ErrorOf("n: -1\n", at(0, big)) == "f.yaml:1: n: -1 is negative; a hint");
  CHECK(ErrorOf("n: 0\n", at(1, big)) == "f.yaml:1: n: 0 is less than 1; a hint");
  CHECK(ErrorOf("n: 26\n", at(1, 25)) == "f.yaml:1: n: 26 is not in 1..25; a hint");
  CHECK(ErrorOf("n: 0\n", at(1, 25)) == "f.yaml:1: n: 0 is not in 1..25; a hint");
  CHECK(ErrorOf("n: 3000000000\n", at(0, big)) == "f.yaml:1: n: 3000000000 is too large; a hint");
  CHECK(ErrorOf("n: 1.5\n", at(0, big)) == "f.yaml:1: n: \"1.5\" is not a whole number; a hint");
  CHECK(ErrorOf("n: [1]\n", at(0, big)) == "f.yaml:1: n: expected a whole number, found a list");
  CHECK(ErrorOf("n: 25\n", at(1, 25)) == "");
}

TEST_CASE("numbers are finite and inside bounds that may be open") {
  auto in = [](double lo, double hi, bool lo_open, bool hi_open) {
    return [=](const YamlFieldReader& r, const Field& f) {
      r.Number(YamlFieldReader::Section(r, f, {"x"}).Require("x"), lo, hi, lo_open, hi_open);
    };
  };
  CHECK(ErrorOf("x: 1\n", in(0, 1, false, true)) == "f.yaml:1: x: 1 is not in [0, 1)");
  CHECK(ErrorOf("x: 0\n", in(0, 1, true, false)) == "f.yaml:1: x: 0 is not in (0, 1]");
  CHECK(ErrorOf("x: 0\n", in(0, INFINITY, true, false)) == "f.yaml:1: x: 0 is not positive");
  CHECK(ErrorOf("x: -0.5\n", in(0, INFINITY, false, false)) == "f.yaml:1: x: -0.5 is negative");
  CHECK(ErrorOf("x: 0.25\n", in(0.5, INFINITY, false, false)) ==
        "f.yaml:1: x: 0.25 is less than 0.5");
  CHECK(ErrorOf("x: inf\n", in(0, INFINITY, false, false)) ==
        "f.yaml:1: x: \"inf\" is not a number");
  CHECK(ErrorOf("x: 1,5\n", in(0, INFINITY, false, false)) ==
        "f.yaml:1: x: \"1,5\" is not a number");
  CHECK(ErrorOf("x: 0.999\n", in(0, 1, false, true)) == "");
}

TEST_CASE("enums name the nearest choice, units take the quantity parser's hint") {
  enum class Effect { kNoSchedule, kNoExecute };
  Effect got = Effect::kNoSchedule;
  auto effect = [&](const YamlFieldReader& r, const Field& f) {
    got =
        r.Enum<Effect>(YamlFieldReader::Section(r, f, {"effect"}).Require("effect"), "taint effect",
                       {{"NoSchedule", Effect::kNoSchedule}, {"NoExecute", Effect::kNoExecute}});
  };
  CHECK(ErrorOf("effect: NoExecute\n", effect) == "");
  CHECK(got == Effect::kNoExecute);
  CHECK(ErrorOf("effect: noexecute\n", effect) ==
        "f.yaml:1: effect: \"noexecute\" is not a valid taint effect; did you mean `NoExecute`?");
  CHECK(ErrorOf("effect: Never\n", effect) ==
        "f.yaml:1: effect: \"Never\" is not a valid taint effect; use one of NoSchedule, "
        "NoExecute");

  int64_t ns = 0;
  auto duration = [&](const YamlFieldReader& r, const Field& f) {
    ns = r.Duration(YamlFieldReader::Section(r, f, {"after"}).Require("after"));
  };
  CHECK(ErrorOf("after: 1m30s\n", duration) == "");
  CHECK(ns == 90'000'000'000);
  CHECK(ErrorOf("after: 3\n", duration) ==
        "f.yaml:1: after: \"3\" has no unit; add a unit, e.g. 3s");
  CHECK(ErrorOf("after: {}\n", duration) ==
        "f.yaml:1: after: expected a duration, found a mapping");
}

TEST_CASE("string maps allow empty values, string lists do not") {
  std::map<std::string, std::string> labels;
  auto map = [&](const YamlFieldReader& r, const Field& f) { labels = r.StringMap(f); };
  CHECK(ErrorOf("a: x\nb:\n", map) == "");
  CHECK(labels == std::map<std::string, std::string>{{"a", "x"}, {"b", ""}});
  CHECK(ErrorOf("a: [x]\n", map) == "f.yaml:1: a: expected a string, found a list");

  std::vector<std::string> zones;
  auto list = [&](const YamlFieldReader& r, const Field& f) {
    zones = r.StringList(YamlFieldReader::Section(r, f, {"zones"}).Require("zones"));
  };
  CHECK(ErrorOf("zones: [a, b]\n", list) == "");
  CHECK(zones == std::vector<std::string>{"a", "b"});
  CHECK(ErrorOf("zones: [a, \"\"]\n", list) == "f.yaml:1: zones[1]: must not be empty");
}

TEST_CASE("EntryOf points at a key's line, or at the mapping when the key is absent") {
  auto read = [](const YamlFieldReader& r, const Field& f) {
    const Field name = r.EntryOf(f, "name");
    CHECK(name.path == "name");
    CHECK(name.line == 3);
    const Field none = r.EntryOf(f, "other");
    CHECK(none.path == "");
    r.Fail(name, "bad name", "a hint");
  };
  CHECK(ErrorOf("a: 1\n\nname: x\n", read) == "f.yaml:3: name: bad name; a hint");
}

TEST_CASE("values are described as messages show them") {
  CHECK(Quote("4GB") == "\"4GB\"");
  CHECK(Describe(YAML::Load("x")) == "\"x\"");
  CHECK(Describe(YAML::Load("[1]")) == "a list");
  CHECK(Describe(YAML::Load("{a: 1}")) == "a mapping");
  CHECK(Describe(YAML::Node()) == "nothing");
  CHECK(LineOf(YAML::Load("\n\nx: 1")["x"], 7) == 3);
  CHECK(LineOf(YAML::Node(5), 7) == 7);
  CHECK(MessageNumber(0.5) == "0.5");
  CHECK(MessageNumber(1e12) == "1e+12");
}

TEST_CASE("an empty file is a null document for the reader to word") {
  for (const char* empty : {"", "# only a comment\n", "---\n", "~\n"}) {
    Expected<YAML::Node> root = LoadSingleYamlDocument(empty, "f.yaml", kThing);
    REQUIRE_MESSAGE(root.ok(), empty);
    CHECK_MESSAGE(root->IsNull(), empty);
  }
  // A first document that is empty is an empty file, whatever follows.
  Expected<YAML::Node> root = LoadSingleYamlDocument("---\n---\na: 1\n", "f.yaml", kThing);
  REQUIRE(root.ok());
  CHECK(root->IsNull());
}

TEST_CASE("syntax errors give yaml-cpp's line and a hint for tabs") {
  CHECK(LoadError("a: [1, 2\n") == "f.yaml:2: invalid YAML: end of sequence flow not found");
  CHECK(LoadError("a:\n  b: 1\n\tc: 2\n") ==
        "f.yaml:3: invalid YAML: illegal tab when looking for indentation; indent with spaces; "
        "YAML does not allow tabs");
  // A syntax error anywhere counts, even in a document after the first.
  CHECK(LoadError("a: 1\n---\nb: [\n").rfind("f.yaml:4: invalid YAML: ", 0) == 0);
}

// Found by fuzzing (tools/fuzz/README.md): yaml-cpp 0.7 answers an empty document at a stray
// `,` forever; the load must stop with a message instead.
TEST_CASE("a line starting with a comma is a YAML error, not an endless read") {
  const std::string message =
      "invalid YAML: a document cannot start here; a `,` outside [...] or {...}?";
  CHECK(LoadError(",") == "f.yaml:1: " + message);
  CHECK(LoadError("- a\n,\n") == "f.yaml:2: " + message);
  CHECK(LoadError("a: 1\n---\n- b\n,\n") == "f.yaml:4: " + message);
}

TEST_CASE("a second document with content is an error at its value or at its separator") {
  const std::string two = "a: 1\n\n---\n\nb: 2\n";
  CHECK(LoadError(two, {"scenario", "put it in the first", false}) ==
        "f.yaml:5: a second YAML document; a scenario file holds one; put it in the first");
  CHECK(LoadError(two, {"price", "", true}) ==
        "f.yaml:3: a second YAML document; a price file holds one");
  // Empty documents after the first are harmless.
  Expected<YAML::Node> root = LoadSingleYamlDocument("a: 1\n---\n---\n~\n", "f.yaml", kThing);
  REQUIRE(root.ok());
  CHECK(root->IsMap());
}

TEST_CASE("Catch passes a value through and turns a failure into the error") {
  const YamlFieldReader r("g.yaml");
  Expected<int> ok = r.Catch<int>([] { return 7; });
  REQUIRE(ok.ok());
  CHECK(*ok == 7);
  Expected<int> bad = r.Catch<int>([&]() -> int { r.Fail(Field{YAML::Node(), "x.y", 4}, "no"); });
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().ToString() == "g.yaml:4: x.y: no");
  CHECK(r.file() == "g.yaml");
}

}  // namespace
}  // namespace knobsim
