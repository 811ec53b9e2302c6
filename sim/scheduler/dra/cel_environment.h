// The environment a selector is checked in: the checker's types (with the sizes upstream declares
// for the fields of `device`) and the functions the environment declares, each overload with the
// rule its cost follows. The overload table in cel_environment.cpp lists every library the
// evaluator implements (cel_library_*.cpp). Internal to the CEL evaluator
// (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduler/dra/cel_limits.h"
#include "sim/scheduler/dra/cel_program.h"

namespace knobsim::dra::cel_internal {

enum class TK : uint8_t {
  kDyn,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kQuantity,
  kSemver,
  kList,
  kMap,
  kDevice,
  kParam,
};

struct Type {
  TK kind = TK::kDyn;
  const Type* elem = nullptr;  // list element, map value
  const Type* key = nullptr;   // map key
  // The most characters or elements a value of a device field can have (upstream's DeclType
  // MaxElements): what the cost estimate multiplies by.
  uint64_t declared = kUnknownSize;
  char param = 0;  // kParam: A, B, K or V
};

std::string TypeText(const Type* t);

// cel-go's size of a value of type `t` when nothing better is known: the declared maximum of a
// device field, 1 for a scalar, else unknown.
uint64_t DeclaredSize(const Type* t);

// How an overload's own cost is estimated (cel-go checker/cost.go functionCost, Kubernetes'
// library.CostEstimator and DRA's draCostEstimator) and counted at runtime.
enum class CostRule : uint8_t {
  kOne,            // O(1)
  kCompareSizes,   // == != and string/bytes ordering: the shorter operand
  kInList,         // @in on a list: its size
  kConcat,         // string / bytes +: both sizes
  kListConcat,     // list +: O(1)
  kMatches,        // (size + 1) * 0.1 times pattern size * 0.25
  kContains,       // size * 0.1 times substring size * 0.1
  kPrefix,         // startsWith / endsWith
  kTraverse,       // size of the first operand * 0.1
  kTraverseTwice,  // replace / split: size * 0.2
  kJoin,           // the joined size * 0.1
  kFind,           // like kMatches
  kListTraversal,  // isSorted / sum / min / max / indexOf / lastIndexOf
  kIncludes,       // DRA's includes: ResourceSliceMaxAttributeValuesPerDevice
  kConvertText,    // bytes(string), string(bytes)
  kDyn,            // dyn(x)
};

struct Overload {
  std::string_view function;
  bool member = false;
  Fn fn = Fn::kNone;
  CostRule cost = CostRule::kOne;
  std::vector<const Type*> params;  // a member overload's target first
  const Type* result = nullptr;
};

// The types and overloads, built once.
class Builtins {
 public:
  static const Builtins& Get();

  const Type* dyn;
  const Type* null;
  const Type* boolean;
  const Type* integer;
  const Type* uinteger;
  const Type* real;
  const Type* string;
  const Type* bytes;
  const Type* quantity;
  const Type* semver;
  const Type* device;
  // The fields of `device`, with the sizes upstream declares.
  const Type* driver;
  const Type* allow_multiple_allocations;
  const Type* attributes;
  const Type* capacity;
  std::vector<Overload> overloads;
  std::vector<std::string_view> function_names;  // for "did you mean"

 private:
  Builtins();
  const Type* Make(Type t);
  const Type* ParseType(std::string_view* s);

  std::deque<Type> arena_;
};

}  // namespace knobsim::dra::cel_internal
