// The compiled form of a CEL selector: the tree the parser builds (macros already expanded into
// comprehension nodes), which the checker annotates and the evaluator walks, and the compile error
// each stage throws. Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/cel_value.h"

namespace knobsim::dra {
namespace cel_internal {

// The functions the environment declares (overloads in cel_environment.cpp); the evaluator
// dispatches on these and on the kinds of the values, as cel-go's traits do for `dyn` arguments.
enum class Fn : uint8_t {
  kNone,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kNeg,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kIndex,
  kSize,
  kContains,
  kStartsWith,
  kEndsWith,
  kMatches,
  kInt,
  kUint,
  kDouble,
  kString,
  kBool,
  kBytes,
  kDyn,
  kCharAt,
  kIndexOf,
  kLastIndexOf,
  kLowerAscii,
  kUpperAscii,
  kReplace,
  kSplit,
  kSubstring,
  kTrim,
  kJoin,
  kFind,
  kFindAll,
  kIsSorted,
  kSum,
  kMin,
  kMax,
  kQuantity,
  kIsQuantity,
  kSign,
  kIsGreaterThan,
  kIsLessThan,
  kCompareTo,
  kAsApproximateFloat,
  kAsInteger,
  kIsInteger,
  kQuantityAdd,
  kQuantitySub,
  kSemver,
  kIsSemver,
  kMajor,
  kMinor,
  kPatch,
  kIncludes,
};

// The answer of compareTo / isGreaterThan / isLessThan (quantity and semver alike) to an
// ordering `order` of -1, 0 or 1.
inline Value ComparisonValue(Fn fn, int order) {
  switch (fn) {
    case Fn::kIsGreaterThan:
      return BoolValue(order == 1);
    case Fn::kIsLessThan:
      return BoolValue(order == -1);
    case Fn::kCompareTo:
      return IntValue(order);
    default:
      return NoSuchOverload();
  }
}

enum class Op : uint8_t {
  kLiteral,
  kIdent,
  kSelect,  // kids: operand; name: field
  kHas,     // has(operand.name)
  kIndex,   // kids: operand, index
  kCall,    // kids: [target,] args; name: function
  kList,    // kids: elements
  kMap,     // kids: key, value, key, value, ...
  kAnd,     // kids: two or more terms (a chain of && is one node)
  kOr,
  kTernary,        // kids: condition, then, else
  kComprehension,  // kids: range, [filter,] body; name / name2: the iteration variables
  kBind,           // cel.bind(name, kids[0], kids[1])
};

// The macros, each a comprehension of cel-go's parser (parser/macro.go, ext/comprehensions.go).
enum class Macro : uint8_t {
  kAll,
  kExists,
  kExistsOne,
  kMap,
  kFilter,
  kTransformList,
  kTransformMap
};

enum class DeviceField : uint8_t {
  kNone,
  kDriver,
  kAttributes,
  kCapacity,
  kAllowMultipleAllocations
};

inline DeviceField DeviceFieldNamed(std::string_view name) {
  if (name == "driver") return DeviceField::kDriver;
  if (name == "attributes") return DeviceField::kAttributes;
  if (name == "capacity") return DeviceField::kCapacity;
  if (name == "allowMultipleAllocations") return DeviceField::kAllowMultipleAllocations;
  return DeviceField::kNone;
}

struct Node {
  Op op = Op::kLiteral;
  uint32_t pos = 0;        // byte offset of what names the node, for messages
  std::string_view name;   // ident, field, function, iteration or bind variable
  std::string_view name2;  // second iteration variable of all(k, v, p) and friends
  std::vector<uint32_t> kids;
  bool member = false;  // kCall in receiver style: kids[0] is the target
  bool filter = false;  // kComprehension: map(x, p, t) and the like; kids[1] is p
  Macro macro = Macro::kAll;
  Value literal;             // kLiteral; kList / kMap of constants once the checker built them
  bool constant = false;     // kList / kMap: `literal` is the value
  bool leading_dot = false;  // kIdent written .name (so .cel.bind is no macro)
  // Set by the checker.
  Fn fn = Fn::kNone;
  DeviceField field = DeviceField::kNone;
  int32_t slot = -1, slot2 = -1;  // kIdent: the local variable (-1: device); the variables declared
  std::shared_ptr<const std::regex> regex;  // a constant pattern of matches / find / findAll
};

struct CompileError {
  uint32_t pos = 0;
  std::string message;
  std::string hint;
};

[[noreturn]] inline void Fail(uint32_t pos, std::string message, std::string hint = "") {
  throw CompileError{pos, std::move(message), std::move(hint)};
}

}  // namespace cel_internal

struct CelSelector::Program {
  std::string expression;
  std::vector<cel_internal::Node> nodes;
  std::deque<std::string> texts;  // decoded string and bytes literals; a deque keeps them in place
  uint32_t root = 0;
  int slots = 0;  // local variables: iteration, accumulator-free, bind
  uint64_t estimated_cost = 0;
};

namespace cel_internal {
using Program = CelSelector::Program;
}  // namespace cel_internal

}  // namespace knobsim::dra
