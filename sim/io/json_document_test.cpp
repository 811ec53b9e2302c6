#include "sim/io/json_document.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

TEST_CASE("a JSON document keeps its key order, and bad JSON names the line it breaks on") {
  auto ok = ParseJsonDocument("{\"b\": 1, \"a\": 2}", "r.json");
  REQUIRE(ok.ok());
  CHECK(ok->root.begin().key() == "b");
  auto bad = ParseJsonDocument("{\n  \"a\": 1,\n  \"b\": oops\n}", "r.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().file == "r.json");
  CHECK(bad.error().line == 3);
  CHECK(bad.error().message.starts_with("invalid JSON at byte "));
  CHECK(bad.error().message.find("json.exception") == std::string::npos);
  auto cut = ParseJsonDocument("{\"a\": [1, 2", "r.json");
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().hint == "the file ends early: is it complete?");
  auto missing = ReadJsonDocument("/nonexistent/r.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.starts_with("cannot read file: "));
}

TEST_CASE("a number no double can hold is refused with its line, not the library's exception") {
  for (const char* number : {"1e400", "-1e400", "1E+999"}) {
    CAPTURE(number);
    auto doc =
        ParseJsonDocument(std::string("{\n \"a\": 1,\n \"p99\": ") + number + "\n}", "r.json");
    REQUIRE_FALSE(doc.ok());
    CHECK(doc.error().line == 3);
    CHECK(doc.error().message == "\"" + std::string(number) + "\" is out of range for a number");
    CHECK(doc.error().ToString().find("json.exception") == std::string::npos);
  }
  // Large but finite numbers, and integers past 64 bits (read as doubles), are numbers.
  CHECK(ParseJsonDocument("[1e308, 123456789012345678901234567890]", "r.json").ok());
}

TEST_CASE("JsonLineOf finds a field path's line: the key of a member, the start of an element") {
  const std::string text =
      "{\n"
      "  \"schema\": \"x\",\n"
      "  \"variants\": [\n"
      "    {\"name\": \"base\",\n"
      "     \"workloads\": [\n"
      "       {\"errors\": {\"oom\": 0,\n"
      "                   \"time\\\"out\": \"5000\"}},\n"
      "       {\"name\": \"b\"}]}]}\n";
  struct Case {
    const char* path;
    int line;
  };
  const Case cases[] = {
      {"", 1},
      {"schema", 2},
      {"variants", 3},
      {"variants[0]", 4},
      {"variants[0].name", 4},
      {"variants[0].workloads[0].errors.oom", 6},
      {"variants[0].workloads[0].errors.time\"out", 7},  // an escaped key, decoded
      {"variants[0].workloads[1]", 8},
      {"variants[0].workloads[1].latency_ms", 8},  // missing: its object's line
      {"variants[3]", 3},                          // no such element: the array's
  };
  for (const Case& c : cases) {
    CAPTURE(c.path);
    CHECK(JsonLineOf(text, c.path) == c.line);
  }
  CHECK(JsonLineOf("42", "a") == 0);
}

TEST_CASE("typed getters accept one JSON type each and name the field and the value found") {
  auto doc = ParseJsonDocument(
      "{\n \"errors\": {\"timeout\": \"5000\"},\n \"n\": 2.5,\n \"big\": 18446744073709551615,\n"
      " \"variants\": {},\n \"neg\": -1,\n \"u\": null\n}",
      "base.json");
  REQUIRE(doc.ok());
  struct Case {
    const char* name;
    void (*read)(const JsonField&);
    const char* expected;
  };
  const Case cases[] = {
      {"a string is not a number",
       [](const JsonField& r) { r.At("errors").At("timeout").Number(); },
       "base.json:2: errors.timeout: \"5000\" is not a number"},
      {"a decimal is not an integer", [](const JsonField& r) { r.At("n").Integer(); },
       "base.json:3: n: 2.5 is not an integer"},
      {"an integer past the range", [](const JsonField& r) { r.At("big").Integer(0, 100); },
       "base.json:4: big: 18446744073709551615 is out of range (0..100)"},
      {"an object is not an array", [](const JsonField& r) { r.At("variants").Items(); },
       "base.json:5: variants: {} is not an array"},
      {"a negative is not unsigned", [](const JsonField& r) { r.At("neg").Unsigned(); },
       "base.json:6: neg: -1 is not a non-negative integer"},
      {"null is not a string", [](const JsonField& r) { r.At("u").String(); },
       "base.json:7: u: null is not a string"},
      {"a missing member", [](const JsonField& r) { r.At("variants").At("base"); },
       "base.json:5: variants.base: is missing"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Status s = CheckJson(*doc, c.read);
    REQUIRE_FALSE(s.ok());
    CHECK(s.ToString() == c.expected);
  }
  CHECK(CheckJson(*doc, [](const JsonField& r) {
          CHECK(r.At("u").NumberOrNull() == std::nullopt);
          CHECK(r.At("big").Unsigned() == 18446744073709551615ULL);
          CHECK_FALSE(r.Find("absent").has_value());
        }).ok());
}

}  // namespace
}  // namespace knobsim
