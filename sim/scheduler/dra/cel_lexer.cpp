// The CEL lexer (cel_parser.h): tokens with their byte offsets, literals decoded.
#include "sim/scheduler/dra/cel_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {
namespace {

// CEL's reserved words that are not keywords: refused as identifiers (langdef.md "Syntax").
bool IsReserved(std::string_view w) {
  static constexpr std::string_view kReserved[] = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return std::find(std::begin(kReserved), std::end(kReserved), w) != std::end(kReserved);
}

}  // namespace

Token Lexer::Next() {
  SkipSpace();
  Token t;
  t.pos = static_cast<uint32_t>(i_);
  if (i_ >= src_.size()) {
    t.end = t.pos;
    return t;
  }
  const char c = src_[i_];
  if (IsIdentStart(c)) {
    if (StringPrefix()) {
      String(&t);
    } else {
      Word(&t);
    }
  } else if (IsDigit(c) || (c == '.' && i_ + 1 < src_.size() && IsDigit(src_[i_ + 1]))) {
    Number(&t);
  } else if (c == '"' || c == '\'') {
    String(&t);
  } else {
    Symbol(&t);
  }
  t.end = static_cast<uint32_t>(i_);
  return t;
}

// An identifier, or the keywords true, false, null and in; a reserved word is refused.
void Lexer::Word(Token* t) {
  size_t j = i_;
  while (j < src_.size() && IsIdentPart(src_[j])) ++j;
  const std::string_view word = src_.substr(i_, j - i_);
  i_ = j;
  t->kind = word == "true"    ? Tok::kTrue
            : word == "false" ? Tok::kFalse
            : word == "null"  ? Tok::kNull
            : word == "in"    ? Tok::kIn
                              : Tok::kIdent;
  if (t->kind == Tok::kIdent && IsReserved(word)) {
    Fail(t->pos, fmt::format("Syntax error: reserved identifier: {}", word));
  }
}

// An operator or punctuation; any other character is refused.
void Lexer::Symbol(Token* t) {
  const char c = src_[i_];
  const auto one = [&](Tok k, size_t n = 1) {
    t->kind = k;
    i_ += n;
  };
  const char d = i_ + 1 < src_.size() ? src_[i_ + 1] : '\0';
  switch (c) {
    case '!':
      d == '=' ? one(Tok::kNe, 2) : one(Tok::kBang);
      break;
    case '<':
      d == '=' ? one(Tok::kLe, 2) : one(Tok::kLt);
      break;
    case '>':
      d == '=' ? one(Tok::kGe, 2) : one(Tok::kGt);
      break;
    case '=':
      if (d != '=')
        Fail(t->pos, "Syntax error: token recognition error at: '='", "comparison is ==");
      one(Tok::kEq, 2);
      break;
    case '&':
      if (d != '&') Fail(t->pos, "Syntax error: token recognition error at: '&'", "and is &&");
      one(Tok::kAnd, 2);
      break;
    case '|':
      if (d != '|') Fail(t->pos, "Syntax error: token recognition error at: '|'", "or is ||");
      one(Tok::kOr, 2);
      break;
    default: {
      if (const Tok k = Punctuation(c); k != Tok::kEnd) {
        one(k);
        break;
      }
      size_t j = i_;
      DecodeUtf8(src_, &j);
      Fail(t->pos,
           fmt::format("Syntax error: token recognition error at: '{}'", src_.substr(i_, j - i_)));
    }
  }
}

// The token of a one-character symbol that no second character extends; kEnd for none.
Tok Lexer::Punctuation(char c) {
  switch (c) {
    case '(':
      return Tok::kLParen;
    case ')':
      return Tok::kRParen;
    case '[':
      return Tok::kLBracket;
    case ']':
      return Tok::kRBracket;
    case '{':
      return Tok::kLBrace;
    case '}':
      return Tok::kRBrace;
    case '.':
      return Tok::kDot;
    case ',':
      return Tok::kComma;
    case ':':
      return Tok::kColon;
    case '?':
      return Tok::kQuestion;
    case '+':
      return Tok::kPlus;
    case '-':
      return Tok::kMinus;
    case '*':
      return Tok::kStar;
    case '/':
      return Tok::kSlash;
    case '%':
      return Tok::kPercent;
    default:
      return Tok::kEnd;
  }
}

void Lexer::SkipSpace() {
  while (i_ < src_.size()) {
    const char c = src_[i_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i_;
    } else if (c == '/' && i_ + 1 < src_.size() && src_[i_ + 1] == '/') {
      while (i_ < src_.size() && src_[i_] != '\n') ++i_;
    } else {
      break;
    }
  }
}

bool Lexer::StringPrefix() const {
  size_t j = i_;
  bool raw = false, bytes = false;
  while (j < src_.size() && j - i_ < 2) {
    const char c = src_[j];
    if ((c == 'r' || c == 'R') && !raw) {
      raw = true;
    } else if ((c == 'b' || c == 'B') && !bytes) {
      bytes = true;
    } else {
      break;
    }
    ++j;
  }
  return j > i_ && j < src_.size() && (src_[j] == '"' || src_[j] == '\'');
}

void Lexer::Number(Token* t) {
  const size_t start = i_;
  if (src_[i_] == '0' && i_ + 1 < src_.size() && (src_[i_ + 1] == 'x' || src_[i_ + 1] == 'X')) {
    i_ += 2;
    const size_t digits = i_;
    while (i_ < src_.size() && IsHex(src_[i_])) ++i_;
    if (i_ == digits) Fail(t->pos, "Syntax error: invalid hex literal");
    Integer(t, src_.substr(digits, i_ - digits), 16);
    return;
  }
  while (i_ < src_.size() && IsDigit(src_[i_])) ++i_;
  bool real = false;
  if (i_ + 1 < src_.size() && src_[i_] == '.' && IsDigit(src_[i_ + 1])) {
    real = true;
    ++i_;
    while (i_ < src_.size() && IsDigit(src_[i_])) ++i_;
  }
  if (i_ < src_.size() && (src_[i_] == 'e' || src_[i_] == 'E')) {
    size_t j = i_ + 1;
    if (j < src_.size() && (src_[j] == '+' || src_[j] == '-')) ++j;
    if (j < src_.size() && IsDigit(src_[j])) {
      real = true;
      i_ = j;
      while (i_ < src_.size() && IsDigit(src_[i_])) ++i_;
    }
  }
  if (!real) {
    Integer(t, src_.substr(start, i_ - start), 10);
    return;
  }
  std::string text(src_.substr(start, i_ - start));
  if (text[0] == '.') text.insert(text.begin(), '0');
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    v = std::strtod(text.c_str(), nullptr);  // +-Inf or 0, as Go's ParseFloat reports
  } else if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
    Fail(t->pos, "Syntax error: invalid double literal");
  }
  t->kind = Tok::kDouble;
  t->real = v;
}

void Lexer::Integer(Token* t, std::string_view digits, int base) {
  uint64_t v = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  const bool fits = r.ec == std::errc() && r.ptr == digits.data() + digits.size();
  if (i_ < src_.size() && (src_[i_] == 'u' || src_[i_] == 'U')) {
    ++i_;
    if (!fits) Fail(t->pos, "Syntax error: invalid uint literal");
    t->kind = Tok::kUint;
    t->number = v;
    return;
  }
  if (!fits) Fail(t->pos, "Syntax error: invalid int literal");
  t->kind = Tok::kInt;
  t->number = v;
  t->int_overflow = v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

void Lexer::String(Token* t) {
  bool raw = false, bytes = false;
  while (src_[i_] != '"' && src_[i_] != '\'') {
    if (src_[i_] == 'r' || src_[i_] == 'R') raw = true;
    if (src_[i_] == 'b' || src_[i_] == 'B') bytes = true;
    ++i_;
  }
  const char quote = src_[i_];
  const bool triple = src_.substr(i_, 3) == std::string(3, quote);
  i_ += triple ? 3 : 1;
  std::string out;
  while (true) {
    if (i_ >= src_.size()) Fail(t->pos, "Syntax error: unterminated string literal");
    const char c = src_[i_];
    if (triple ? src_.substr(i_, 3) == std::string(3, quote) : c == quote) {
      i_ += triple ? 3 : 1;
      break;
    }
    if (!triple && (c == '\n' || c == '\r')) {
      Fail(t->pos, "Syntax error: unterminated string literal",
           "a string across lines needs triple quotes");
    }
    if (c != '\\' || raw) {
      out += c;
      ++i_;
      continue;
    }
    Escape(t->pos, bytes, &out);
  }
  t->kind = bytes ? Tok::kBytes : Tok::kString;
  t->text = std::move(out);
}

void Lexer::Escape(uint32_t pos, bool bytes, std::string* out) {
  const size_t at = i_;
  ++i_;
  if (i_ >= src_.size()) Fail(pos, "Syntax error: unterminated string literal");
  const char c = src_[i_++];
  const auto hex = [&](int n) -> uint32_t {
    uint32_t v = 0;
    for (int k = 0; k < n; ++k, ++i_) {
      if (i_ >= src_.size() || !IsHex(src_[i_])) {
        Fail(static_cast<uint32_t>(at), "Syntax error: invalid escape sequence");
      }
      const char h = src_[i_];
      v = v * 16 + static_cast<uint32_t>(IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
  };
  const auto code = [&](uint32_t v, bool byte) {
    if (byte && bytes) {
      *out += static_cast<char>(v);
      return;
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
      Fail(static_cast<uint32_t>(at), "Syntax error: invalid unicode code point in escape");
    }
    AppendUtf8(*out, v);
  };
  switch (c) {
    case 'a':
      *out += '\a';
      break;
    case 'b':
      *out += '\b';
      break;
    case 'f':
      *out += '\f';
      break;
    case 'n':
      *out += '\n';
      break;
    case 'r':
      *out += '\r';
      break;
    case 't':
      *out += '\t';
      break;
    case 'v':
      *out += '\v';
      break;
    case '\\':
    case '\'':
    case '"':
    case '`':
    case '?':
      *out += c;
      break;
    case 'x':
    case 'X':
      code(hex(2), true);
      break;
    case 'u':
      if (bytes) Fail(static_cast<uint32_t>(at), "Syntax error: \\u is not allowed in bytes");
      code(hex(4), false);
      break;
    case 'U':
      if (bytes) Fail(static_cast<uint32_t>(at), "Syntax error: \\U is not allowed in bytes");
      code(hex(8), false);
      break;
    default:
      if (c >= '0' && c <= '3' && i_ + 1 < src_.size() && src_[i_] >= '0' && src_[i_] <= '7' &&
          src_[i_ + 1] >= '0' && src_[i_ + 1] <= '7') {
        const uint32_t v =
            static_cast<uint32_t>((c - '0') * 64 + (src_[i_] - '0') * 8 + (src_[i_ + 1] - '0'));
        i_ += 2;
        code(v, true);
        break;
      }
      Fail(static_cast<uint32_t>(at), "Syntax error: invalid escape sequence");
  }
}

}  // namespace knobsim::dra::cel_internal
