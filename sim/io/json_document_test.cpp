#include "sim/io/json_document.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

TEST_CASE("a JSON document keeps its key order, and bad JSON names the line it breaks on") {
  auto ok = ParseJsonDocument("{\"b\": 1, \"a\": 2}", "r.json");
  REQUIRE(ok.ok());
  CHECK(ok->begin().key() == "b");
  auto bad = ParseJsonDocument("{\n  \"a\": 1,\n  \"b\": oops\n}", "r.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().file == "r.json");
  CHECK(bad.error().line == 3);
  CHECK(bad.error().message.starts_with("invalid JSON at byte "));
  auto cut = ParseJsonDocument("{\"a\": [1, 2", "r.json");
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().hint == "the file ends early: is it complete?");
  auto missing = ReadJsonDocument("/nonexistent/r.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.starts_with("cannot read file: "));
}

}  // namespace
}  // namespace knobsim
