// The CEL parser (cel_parser.h): recursive descent over CEL's grammar, macros expanded as cel-go's
// parser expands them.
#include "sim/scheduler/dra/cel_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_limits.h"

namespace knobsim::dra::cel_internal {
namespace {

std::string_view TokenText(Tok k) {
  switch (k) {
    case Tok::kEnd:
      return "<EOF>";
    case Tok::kLParen:
      return "(";
    case Tok::kRParen:
      return ")";
    case Tok::kLBracket:
      return "[";
    case Tok::kRBracket:
      return "]";
    case Tok::kLBrace:
      return "{";
    case Tok::kRBrace:
      return "}";
    case Tok::kDot:
      return ".";
    case Tok::kComma:
      return ",";
    case Tok::kColon:
      return ":";
    case Tok::kQuestion:
      return "?";
    default:
      return "";
  }
}

// Recursive descent over CEL's grammar (langdef.md "Syntax"), building Program::nodes; macros
// become kComprehension / kBind / kHas nodes as cel-go's parser expands them.
class Parser {
 public:
  explicit Parser(Program* p) : p_(*p), lexer_(p->expression) { Advance(); }

  uint32_t Parse() {
    const uint32_t root = Expr();
    if (tok_.kind != Tok::kEnd) Unexpected();
    return root;
  }

 private:
  void Advance() { tok_ = lexer_.Next(); }

  std::string_view Text(const Token& t) const {
    return std::string_view(p_.expression).substr(t.pos, t.end - t.pos);
  }

  [[noreturn]] void Unexpected() {
    if (tok_.kind == Tok::kEnd) Fail(tok_.pos, "Syntax error: unexpected end of expression");
    Fail(tok_.pos, fmt::format("Syntax error: mismatched input '{}'", Text(tok_)));
  }

  void Expect(Tok k) {
    if (tok_.kind != k) {
      if (tok_.kind == Tok::kEnd) {
        Fail(tok_.pos,
             fmt::format("Syntax error: missing '{}' at end of expression", TokenText(k)));
      }
      Fail(tok_.pos, fmt::format("Syntax error: mismatched input '{}' expecting '{}'", Text(tok_),
                                 TokenText(k)));
    }
    Advance();
  }

  // Appends a node; refuses a tree deeper than kMaxNesting (a long chain of + is as deep as a
  // nest of parentheses for the checker and the evaluator).
  uint32_t Add(Node n) {
    int height = 1;
    for (uint32_t k : n.kids) height = std::max(height, heights_[k] + 1);
    if (height > kMaxNesting) {
      Fail(n.pos, fmt::format("expression nests more than {} levels deep", kMaxNesting));
    }
    p_.nodes.push_back(std::move(n));
    heights_.push_back(height);
    return static_cast<uint32_t>(p_.nodes.size() - 1);
  }

  uint32_t Call(uint32_t pos, std::string_view name, std::vector<uint32_t> kids,
                bool member = false) {
    Node n;
    n.op = Op::kCall;
    n.pos = pos;
    n.name = name;
    n.kids = std::move(kids);
    n.member = member;
    return Add(std::move(n));
  }

  uint32_t Expr() {
    if (++depth_ > kMaxNesting) {
      Fail(tok_.pos, fmt::format("expression nests more than {} levels deep", kMaxNesting));
    }
    const uint32_t cond = Or();
    uint32_t result = cond;
    if (tok_.kind == Tok::kQuestion) {
      const uint32_t pos = tok_.pos;
      Advance();
      const uint32_t then = Or();
      Expect(Tok::kColon);
      const uint32_t otherwise = Expr();
      Node n;
      n.op = Op::kTernary;
      n.pos = pos;
      n.kids = {cond, then, otherwise};
      result = Add(std::move(n));
    }
    --depth_;
    return result;
  }

  uint32_t Logical(Op op, Tok tok, uint32_t (Parser::*operand)()) {
    const uint32_t first = (this->*operand)();
    if (tok_.kind != tok) return first;
    Node n;
    n.op = op;
    n.pos = tok_.pos;
    n.kids = {first};
    while (tok_.kind == tok) {
      Advance();
      n.kids.push_back((this->*operand)());
    }
    return Add(std::move(n));
  }
  uint32_t Or() { return Logical(Op::kOr, Tok::kOr, &Parser::And); }
  uint32_t And() { return Logical(Op::kAnd, Tok::kAnd, &Parser::Relation); }

  uint32_t Relation() {
    uint32_t lhs = Addition();
    while (true) {
      std::string_view fn;
      switch (tok_.kind) {
        case Tok::kLt:
          fn = "_<_";
          break;
        case Tok::kLe:
          fn = "_<=_";
          break;
        case Tok::kGt:
          fn = "_>_";
          break;
        case Tok::kGe:
          fn = "_>=_";
          break;
        case Tok::kEq:
          fn = "_==_";
          break;
        case Tok::kNe:
          fn = "_!=_";
          break;
        case Tok::kIn:
          fn = "@in";
          break;
        default:
          return lhs;
      }
      const uint32_t pos = tok_.pos;
      Advance();
      lhs = Call(pos, fn, {lhs, Addition()});
    }
  }

  uint32_t Addition() {
    uint32_t lhs = Multiplication();
    while (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus) {
      const std::string_view fn = tok_.kind == Tok::kPlus ? "_+_" : "_-_";
      const uint32_t pos = tok_.pos;
      Advance();
      lhs = Call(pos, fn, {lhs, Multiplication()});
    }
    return lhs;
  }

  uint32_t Multiplication() {
    uint32_t lhs = Unary();
    while (tok_.kind == Tok::kStar || tok_.kind == Tok::kSlash || tok_.kind == Tok::kPercent) {
      const std::string_view fn = tok_.kind == Tok::kStar    ? "_*_"
                                  : tok_.kind == Tok::kSlash ? "_/_"
                                                             : "_%_";
      const uint32_t pos = tok_.pos;
      Advance();
      lhs = Call(pos, fn, {lhs, Unary()});
    }
    return lhs;
  }

  // `!` and `-` repeated: an even count cancels (as cel-go's parser does), and a single minus
  // before a number is part of the literal, so -9223372036854775808 is an int.
  uint32_t Unary() {
    if (tok_.kind != Tok::kBang && tok_.kind != Tok::kMinus) return Member();
    const Tok op = tok_.kind;
    const uint32_t pos = tok_.pos;
    int count = 0;
    while (tok_.kind == op) {
      ++count;
      Advance();
    }
    if (op == Tok::kMinus && count == 1 && (tok_.kind == Tok::kInt || tok_.kind == Tok::kDouble)) {
      Node n;
      n.pos = pos;
      if (tok_.kind == Tok::kInt) {
        if (tok_.number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
          Fail(tok_.pos, "Syntax error: invalid int literal");
        }
        n.literal = IntValue(static_cast<int64_t>(0 - tok_.number));
      } else {
        n.literal = DoubleValue(-tok_.real);
      }
      Advance();
      return MemberSuffix(Add(std::move(n)));
    }
    const uint32_t operand = Member();
    if (count % 2 == 0) return operand;
    return Call(pos, op == Tok::kBang ? "!_" : "-_", {operand});
  }

  uint32_t Member() { return MemberSuffix(Primary()); }

  uint32_t MemberSuffix(uint32_t operand) {
    while (true) {
      if (tok_.kind == Tok::kDot) {
        Advance();
        if (tok_.kind != Tok::kIdent) {
          if (tok_.kind == Tok::kEnd) Fail(tok_.pos, "Syntax error: missing IDENTIFIER at '<EOF>'");
          Fail(tok_.pos,
               fmt::format("Syntax error: mismatched input '{}' expecting IDENTIFIER", Text(tok_)));
        }
        const Token name = tok_;
        Advance();
        if (tok_.kind == Tok::kLParen) {
          Advance();
          std::vector<uint32_t> args = Args(Tok::kRParen);
          operand = MemberCall(operand, name, std::move(args));
        } else {
          Node n;
          n.op = Op::kSelect;
          n.pos = name.pos;
          n.name = Text(name);
          n.kids = {operand};
          operand = Add(std::move(n));
        }
      } else if (tok_.kind == Tok::kLBracket) {
        const uint32_t pos = tok_.pos;
        Advance();
        const uint32_t index = Expr();
        Expect(Tok::kRBracket);
        Node n;
        n.op = Op::kIndex;
        n.pos = pos;
        n.kids = {operand, index};
        operand = Add(std::move(n));
      } else if (tok_.kind == Tok::kLBrace) {
        Fail(tok_.pos, "Syntax error: message construction is not supported",
             "selectors have no message types");
      } else {
        return operand;
      }
    }
  }

  // Arguments up to `close` (consumed); lists and maps may end with a comma, calls may not.
  std::vector<uint32_t> Args(Tok close, bool trailing_comma = false) {
    std::vector<uint32_t> args;
    while (tok_.kind != close) {
      args.push_back(Expr());
      if (tok_.kind != Tok::kComma) break;
      Advance();
      if (trailing_comma && tok_.kind == close) break;
      if (!trailing_comma && tok_.kind == close) Unexpected();
    }
    Expect(close);
    return args;
  }

  uint32_t Primary() {
    Node n;
    n.pos = tok_.pos;
    switch (tok_.kind) {
      case Tok::kDot:  // .name: the root namespace; only `device` and functions live there
      case Tok::kIdent: {
        const bool leading_dot = tok_.kind == Tok::kDot;
        if (leading_dot) {
          Advance();
          if (tok_.kind != Tok::kIdent) Unexpected();
        }
        const Token name = tok_;
        Advance();
        if (tok_.kind == Tok::kLParen) {
          Advance();
          std::vector<uint32_t> args = Args(Tok::kRParen);
          return GlobalCall(name, std::move(args));
        }
        n.op = Op::kIdent;
        n.pos = name.pos;
        n.name = Text(name);
        n.leading_dot = leading_dot;
        return Add(std::move(n));
      }
      case Tok::kLParen: {
        Advance();
        const uint32_t inner = Expr();
        Expect(Tok::kRParen);
        return inner;
      }
      case Tok::kLBracket:
        Advance();
        n.op = Op::kList;
        n.kids = Args(Tok::kRBracket, /*trailing_comma=*/true);
        return Add(std::move(n));
      case Tok::kLBrace: {
        Advance();
        n.op = Op::kMap;
        while (tok_.kind != Tok::kRBrace) {
          n.kids.push_back(Expr());
          Expect(Tok::kColon);
          n.kids.push_back(Expr());
          if (tok_.kind != Tok::kComma) break;
          Advance();
        }
        Expect(Tok::kRBrace);
        return Add(std::move(n));
      }
      case Tok::kInt:
        if (tok_.int_overflow) Fail(tok_.pos, "Syntax error: invalid int literal");
        n.literal = IntValue(static_cast<int64_t>(tok_.number));
        break;
      case Tok::kUint:
        n.literal = UintValue(tok_.number);
        break;
      case Tok::kDouble:
        n.literal = DoubleValue(tok_.real);
        break;
      case Tok::kTrue:
        n.literal = BoolValue(true);
        break;
      case Tok::kFalse:
        n.literal = BoolValue(false);
        break;
      case Tok::kNull:
        n.literal = Value();
        break;
      case Tok::kString:
      case Tok::kBytes:
        p_.texts.push_back(std::move(tok_.text));
        n.literal =
            TextView(tok_.kind == Tok::kString ? Kind::kString : Kind::kBytes, p_.texts.back());
        break;
      default:
        Unexpected();
    }
    Advance();
    return Add(std::move(n));
  }

  // has(a.b): the presence test.
  uint32_t GlobalCall(const Token& name, std::vector<uint32_t> args) {
    const std::string_view fn = Text(name);
    if (fn == "has" && args.size() == 1) {
      Node& arg = p_.nodes[args[0]];
      if (arg.op != Op::kSelect) Fail(arg.pos, "invalid argument to has() macro");
      arg.op = Op::kHas;
      return args[0];
    }
    return Call(name.pos, fn, std::move(args));
  }

  std::string_view VariableName(uint32_t arg, std::string_view what) {
    const Node& n = p_.nodes[arg];
    if (n.op != Op::kIdent || n.leading_dot) Fail(n.pos, std::string(what));
    if (n.name == "__result__") {
      Fail(n.pos, "iteration variable overwrites accumulator variable");
    }
    return n.name;
  }

  // target.name(args): the macros, cel.bind, or a member function.
  uint32_t MemberCall(uint32_t target, const Token& name_token, std::vector<uint32_t> args) {
    const std::string_view name = Text(name_token);
    const size_t n = args.size();
    Node c;
    c.op = Op::kComprehension;
    c.pos = name_token.pos;
    const Node& t = p_.nodes[target];
    if (name == "bind" && n == 3 && t.op == Op::kIdent && t.name == "cel" && !t.leading_dot) {
      c.op = Op::kBind;
      c.name = VariableName(args[0], "cel.bind() variable names must be simple identifiers");
      c.kids = {args[1], args[2]};
      return Add(std::move(c));
    }
    const bool quantifier = name == "all" || name == "exists" || name == "exists_one";
    if ((quantifier && n == 2) || (name == "map" && (n == 2 || n == 3)) ||
        (name == "filter" && n == 2)) {
      c.macro = name == "all"          ? Macro::kAll
                : name == "exists"     ? Macro::kExists
                : name == "exists_one" ? Macro::kExistsOne
                : name == "map"        ? Macro::kMap
                                       : Macro::kFilter;
      c.name = VariableName(
          args[0], quantifier ? "argument must be a simple name" : "argument is not an identifier");
      c.filter = n == 3;
      c.kids.assign(args.begin() + 1, args.end());
      c.kids.insert(c.kids.begin(), target);
      return Add(std::move(c));
    }
    // ext.TwoVarComprehensions: all(k, v, p), exists, existsOne / exists_one, transformList and
    // transformMap with an optional filter.
    const bool two_var_quantifier = (quantifier || name == "existsOne") && n == 3;
    const bool transform =
        (name == "transformList" || name == "transformMap") && (n == 3 || n == 4);
    if (two_var_quantifier || transform) {
      c.macro = name == "all"             ? Macro::kAll
                : name == "exists"        ? Macro::kExists
                : name == "transformList" ? Macro::kTransformList
                : name == "transformMap"  ? Macro::kTransformMap
                                          : Macro::kExistsOne;
      c.name = VariableName(args[0], "argument must be a simple name");
      c.name2 = VariableName(args[1], "argument must be a simple name");
      if (c.name == c.name2) {
        Fail(p_.nodes[args[1]].pos, fmt::format("duplicate variable name: {}", c.name));
      }
      c.filter = n == 4;
      c.kids.assign(args.begin() + 2, args.end());
      c.kids.insert(c.kids.begin(), target);
      return Add(std::move(c));
    }
    args.insert(args.begin(), target);
    return Call(name_token.pos, name, std::move(args), /*member=*/true);
  }

  Program& p_;
  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
  std::vector<int> heights_;
};

}  // namespace

uint32_t Parse(Program* program) {
  Parser parser(program);
  return parser.Parse();
}

}  // namespace knobsim::dra::cel_internal
