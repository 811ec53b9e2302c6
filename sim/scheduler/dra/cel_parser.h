// The CEL evaluator's front end: the lexer (cel_lexer.cpp) and the recursive-descent parser
// (cel_parser.cpp) that turn an expression into CelSelector::Program's nodes. Both throw
// CompileError (cel_program.h) with the byte offset of what they refuse. Internal to the CEL
// evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/scheduler/dra/cel_program.h"

namespace knobsim::dra::cel_internal {

enum class Tok : uint8_t {
  kEnd,
  kIdent,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kBang,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  Tok kind = Tok::kEnd;
  uint32_t pos = 0, end = 0;
  uint64_t number = 0;        // kInt: the magnitude (the parser applies a leading minus); kUint
  bool int_overflow = false;  // kInt above 2^63 - 1: only valid as -9223372036854775808
  double real = 0;            // kDouble
  std::string text;           // kString, kBytes: decoded
};

// CEL's tokens (langdef.md "Syntax"): `//` comments, decimal and hex ints, uints and doubles,
// quoted, raw and bytes literals with their escapes.
class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Token Next();

 private:
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsHex(char c) {
    return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  static bool IsIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
  static bool IsIdentPart(char c) { return IsIdentStart(c) || IsDigit(c); }

  void Word(Token* t);
  void Symbol(Token* t);
  static Tok Punctuation(char c);
  void SkipSpace();
  // r"...", b'...', rb"..." and the like: up to two prefix letters, then a quote.
  bool StringPrefix() const;
  void Number(Token* t);
  void Integer(Token* t, std::string_view digits, int base);
  void String(Token* t);
  // One escape sequence (langdef.md "String and Bytes Literals"): in a string \x, \u and octal
  // name code points, in bytes \x and octal name bytes.
  void Escape(uint32_t pos, bool bytes, std::string* out);

  std::string_view src_;
  size_t i_ = 0;
};

// Parses program->expression into program->nodes and returns the root's index; macros become
// kComprehension / kBind / kHas nodes as cel-go's parser expands them.
uint32_t Parse(Program* program);

}  // namespace knobsim::dra::cel_internal
