// JSON token rules (RFC 8259) shared by the two JSON readers: the document tree's parser
// (document_tree.cpp) and the Prometheus answer scanner (prom_reader.cpp). Each reader words its
// own errors; these functions only say where a token ends or where it went wrong, so both read
// numbers and \u escapes by the same grammar. Inline: they sit on both readers' hot paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace knobsim {

enum class JsonNumberError : uint8_t {
  kNone,
  kNoDigit,          // no digit where the integer part starts (`-`, `-x`)
  kNoFractionDigit,  // no digit after the decimal point (`1.`)
  kNoExponentDigit,  // no digit in the exponent (`1e`, `1e+`)
};

struct JsonNumberScan {
  size_t end = 0;  // one past the number; with an error, where the digit was expected
  JsonNumberError error = JsonNumberError::kNone;
};

// The number -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? starting at s[pos]. A leading zero
// ends the integer part, so `01` scans as `0` followed by a digit: whether that is an error is
// the caller's to say.
inline JsonNumberScan ScanJsonNumber(std::string_view s, size_t pos) {
  auto digit = [&](size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  if (pos < s.size() && s[pos] == '-') ++pos;
  if (pos < s.size() && s[pos] == '0') {
    ++pos;
  } else if (digit(pos)) {
    while (digit(pos)) ++pos;
  } else {
    return {pos, JsonNumberError::kNoDigit};
  }
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    if (!digit(pos)) return {pos, JsonNumberError::kNoFractionDigit};
    while (digit(pos)) ++pos;
  }
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) ++pos;
    if (!digit(pos)) return {pos, JsonNumberError::kNoExponentDigit};
    while (digit(pos)) ++pos;
  }
  return {pos, JsonNumberError::kNone};
}

// Four hex digits at s[pos], moving `pos` past them. False when fewer than four bytes are left
// (`pos` is then s.size()) or one is not a hex digit (`pos` is on it).
inline bool ReadJsonHex4(std::string_view s, size_t& pos, uint32_t& value) {
  if (s.size() - pos < 4) {
    pos = s.size();
    return false;
  }
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i, ++pos) {
    const char c = s[pos];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
  }
  value = v;
  return true;
}

// The code point of a \u escape whose hex digits start at s[pos] (just past `\u`), joining a
// UTF-16 surrogate pair written as two escapes; a lone surrogate becomes U+FFFD, as Go's
// encoding/json decodes it. False on bad hex digits, with `pos` as ReadJsonHex4 leaves it.
inline bool ReadJsonCodePoint(std::string_view s, size_t& pos, uint32_t& code_point) {
  uint32_t hi = 0;
  if (!ReadJsonHex4(s, pos, hi)) return false;
  if (hi < 0xD800 || hi > 0xDFFF) {
    code_point = hi;
    return true;
  }
  if (hi <= 0xDBFF && s.substr(pos, 2) == "\\u") {
    const size_t back = pos;
    pos += 2;
    uint32_t lo = 0;
    if (!ReadJsonHex4(s, pos, lo)) return false;
    if (lo >= 0xDC00 && lo <= 0xDFFF) {
      code_point = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
      return true;
    }
    pos = back;  // an unpaired high surrogate; the next escape stands alone
  }
  code_point = 0xFFFD;
  return true;
}

}  // namespace knobsim
