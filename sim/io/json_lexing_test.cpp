#include "sim/io/json_lexing.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string_view>

namespace knobsim {
namespace {

TEST_CASE("ScanJsonNumber ends each number where RFC 8259 does, or says which digit is missing") {
  struct Case {
    std::string_view text;
    size_t end;
    JsonNumberError error;
  };
  const Case cases[] = {
      {"0", 1, JsonNumberError::kNone},
      {"-12.5e+3,", 8, JsonNumberError::kNone},
      {"01", 1, JsonNumberError::kNone},
      {"1E9]", 3, JsonNumberError::kNone},
      {"-", 1, JsonNumberError::kNoDigit},
      {"-x", 1, JsonNumberError::kNoDigit},
      {"1.", 2, JsonNumberError::kNoFractionDigit},
      {"1.e5", 2, JsonNumberError::kNoFractionDigit},
      {"1e", 2, JsonNumberError::kNoExponentDigit},
      {"1e+", 3, JsonNumberError::kNoExponentDigit},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const JsonNumberScan scan = ScanJsonNumber(c.text, 0);
    CHECK(scan.end == c.end);
    CHECK(scan.error == c.error);
  }
}

TEST_CASE("ReadJsonCodePoint joins surrogate pairs and replaces lone surrogates") {
  auto read = [](std::string_view text, uint32_t& cp) {
    size_t pos = 0;
    const bool ok = ReadJsonCodePoint(text, pos, cp);
    return ok ? static_cast<int64_t>(pos) : -1 - static_cast<int64_t>(pos);
  };
  uint32_t cp = 0;
  CHECK(read("00e9", cp) == 4);
  CHECK(cp == 0xE9);
  CHECK(read("d83d\\ude00", cp) == 10);
  CHECK(cp == 0x1F600);
  CHECK(read("d83d\\u0041", cp) == 4);  // an unpaired high surrogate; the next escape stands alone
  CHECK(cp == 0xFFFD);
  CHECK(read("dc00", cp) == 4);
  CHECK(cp == 0xFFFD);
  CHECK(read("00g0", cp) == -1 - 2);  // on the bad digit
  CHECK(read("00", cp) == -1 - 2);    // too short: at the end
  CHECK(read("d83d\\u12", cp) == -1 - 8);
}

}  // namespace
}  // namespace knobsim
