// The CEL checker: types every node of a parsed program against the environment
// (cel_environment.h), resolves identifiers, fields and overloads for the evaluator, and estimates
// the worst-case cost as cel-go's checker/cost.go does with Kubernetes' cost estimator (the
// estimate's rules are in cel_checker_cost.cpp). A refusal throws CompileError. Internal to the
// CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "sim/scheduler/dra/cel_environment.h"
#include "sim/scheduler/dra/cel_limits.h"
#include "sim/scheduler/dra/cel_program.h"

namespace knobsim::dra::cel_internal {

// What the checker knows of a node: its type and, for cel-go's cost estimate, its worst-case cost
// and the most characters or elements its value can have (and those of its entries, for a list or
// map literal or a comprehension's result).
struct Info {
  const Type* type = nullptr;
  uint64_t cost = 0;
  uint64_t size = kUnknownSize;
  bool exact = false;  // `size` is exact (a literal): the minimum is known too
  bool has_entry = false;
  uint64_t entry_key = kUnknownSize, entry_value = kUnknownSize;
};

using Bindings = std::array<const Type*, 4>;  // A, B, K, V

class Checker {
 public:
  explicit Checker(Program* p) : p_(*p), b_(Builtins::Get()) {}

  // Checks the subtree at `id`, recording in its nodes what the evaluator needs.
  Info Check(uint32_t id);

 private:
  struct Local {
    std::string_view name;
    int slot;
    Info info;
  };

  const Type* Make(Type t) {
    arena_.push_back(t);
    return &arena_.back();
  }
  const Type* ListOfType(const Type* elem) { return Make({TK::kList, elem}); }
  const Type* MapOfType(const Type* key, const Type* value) { return Make({TK::kMap, value, key}); }
  const Type* Substitute(const Type* t, const Bindings& b);

  Info Literal(const Value& v);
  Info Ident(Node& n);
  Info Select(Node& n);
  [[noreturn]] void NoOverload(uint32_t pos, std::string_view fn, const std::vector<Info>& args,
                               bool member);
  Info Index(Node& n);
  Info Call(Node& n);
  // cel-go ValidateRegexLiterals: a constant pattern is compiled once, here, and a bad one is a
  // compile error.
  void ConstantRegex(Node& n);
  Info List(Node& n);
  bool IsConstant(uint32_t k) const;
  // HomogeneousAggregateLiterals: the elements of a literal share a type (dyn mixes with any).
  const Type* Join(const Type* previous, const Type* next, uint32_t pos);
  Info MapLiteral(Node& n);
  void RequireBool(const Info& operand, uint32_t kid, std::string_view fn, std::string_view rest);
  Info Logical(Node& n);
  Info Ternary(Node& n);
  int Declare(std::string_view name, Info info);
  // A macro, costed as cel-go costs the comprehension it expands to (parser/macro.go): the range,
  // the accumulator's initial value and result, and per element the loop condition and step.
  Info Comprehension(Node& n);
  void RangeVariables(const Node& n, const Info& range, Info* first, Info* second) const;
  // cel.bind(v, init, body): an empty-range comprehension to cel-go; its empty list costs 10.
  Info Bind(Node& n);

  // The cost estimate (cel_checker_cost.cpp): an overload's own cost, and the size of its result.
  uint64_t OwnCost(const Overload& o, const std::vector<Info>& a) const;
  static uint64_t JoinSize(const std::vector<Info>& a);
  // The result sizes cel-go and Kubernetes' estimator compute; otherwise the type's.
  uint64_t ResultSize(const Node& n, const std::vector<Info>& a, const Type* result, Info* info);

  Program& p_;
  const Builtins& b_;
  std::vector<Local> locals_;
  std::deque<Type> arena_;
};

}  // namespace knobsim::dra::cel_internal
