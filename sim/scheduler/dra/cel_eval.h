// The CEL evaluator: a tree walk over a checked program for one device, counting the cost
// cel-go's runtime tracker would and stopping at the limit. The nodes are evaluated in
// cel_eval.cpp, the runtime cost in cel_eval_cost.cpp, and the calls go to the libraries, one file
// each:
//   cel_library_standard.cpp     arithmetic, comparison, `in`, size()
//   cel_library_conversions.cpp  int(), uint(), double(), string(), bool(), bytes()
//   cel_library_strings.cpp      ext.Strings, and matches() / find() / findAll() (cel_regex.h)
//   cel_library_lists.cpp        Kubernetes' lists library and DRA's includes()
//   cel_library_quantity.cpp     Kubernetes' quantity library
//   cel_library_semver.cpp       Kubernetes' semver library (cel_semver.h)
// Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <regex>
#include <string_view>
#include <vector>

#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/cel_containers.h"
#include "sim/scheduler/dra/cel_limits.h"
#include "sim/scheduler/dra/cel_program.h"
#include "sim/scheduler/dra/cel_value.h"

namespace knobsim::dra::cel_internal {

// Thrown out of the evaluation (and caught in EvaluateImpl) when a limit is reached: unlike a CEL
// error, neither && nor || may absorb it.
struct CostLimitExceeded {};
struct AllocationLimitExceeded {};

// A selector run over one device. Values view the device and the program; only what an expression
// computes (strings, lists, errors) is allocated.
class Evaluator : private Containers {
 public:
  Evaluator(const Program& p, const CelDevice& device, uint64_t limit)
      : Containers(device),
        p_(p),
        allow_multiple_allocations_(device.allow_multiple_allocations),
        limit_(limit),
        slots_(static_cast<size_t>(p.slots)) {}

  Value Run() { return Eval(p_.root); }
  uint64_t cost() const { return cost_; }

 private:
  // One comprehension's range as it is iterated (cel_eval.cpp).
  struct Loop;

  void Charge(uint64_t n) {
    cost_ = AddCost(cost_, n);
    if (cost_ > limit_) throw CostLimitExceeded{};
  }
  void Allocate(size_t bytes) {
    allocated_ += bytes;
    if (allocated_ > kMaxAllocatedBytes) throw AllocationLimitExceeded{};
  }

  // ---- Nodes (cel_eval.cpp).

  Value Eval(uint32_t id);
  Value Select(const Node& n);
  // A field of `device`; the checker resolved `field` unless it saw only dyn (dyn(device).driver).
  Value DeviceFieldValue(DeviceField field, std::string_view name) const;
  // has(): cel-go charges nothing for the test itself in Kubernetes (PresenceTestHasCost false).
  // has(device.attributes.x) is true for any x: upstream's domain map finds every key.
  Value Has(const Node& n);
  Value Index(const Node& n);
  Value ListLiteral(const Node& n);
  Value MapLiteral(const Node& n);
  // && and || are commutative over errors: false && error is false, true || error is true, in
  // either order; otherwise the first error (or a non-bool operand, "no such overload") wins.
  Value Logical(const Node& n);
  // The macros, evaluated natively but costed as cel-go's expansion is (see
  // Checker::Comprehension). An error in a map or filter step ends the loop with that error, where
  // cel-go runs on with an error accumulator to the same result.
  Value Comprehension(const Node& n);
  void BindElement(const Loop& loop, size_t i);
  Value Quantifier(const Loop& loop);
  Value ExistsOne(const Loop& loop);
  Value ListComprehension(const Loop& loop);
  Value MapComprehension(const Loop& loop);
  Value Call(const Node& n);
  // The library function a call names, given its evaluated arguments.
  Value Apply(const Node& n, const Value* a, size_t count);
  Value ApplyExtension(const Node& n, const Value* a, size_t count);

  // ---- Runtime cost (cel_eval_cost.cpp).

  size_t ActualSize(const Value& v) const;
  // Kubernetes' traversalCost: what the lists library's functions cost at runtime.
  uint64_t TraversalCost(const Value& v) const;
  // What cel-go's runtime tracker charges for a call (interpreter/runtimecost.go costCall, with
  // Kubernetes' library.CostEstimator.CallCost first).
  uint64_t CallCost(const Node& n, const Value* a) const;

  // ---- The libraries (cel_library_*.cpp, listed above). Each takes the evaluated arguments of a
  // call and gives its value, a CEL error, or no such overload.

  // + - * / % of two values of one kind: numbers (overflow is an error), strings, bytes, lists.
  Value Arithmetic(Fn fn, const Value& x, const Value& y);
  // Negation, !, ==, !=, the orderings, `in` and size().
  Value Operator(Fn fn, const Value* a, size_t count) const;
  Value Convert(Fn fn, const Value& x) const;
  // The string functions; the ones below it allocate what they build, so they count it.
  Value Strings(const Node& n, const Value* a, size_t count);
  Value Join(const Value* a, size_t count);
  Value ChangeCase(Fn fn, std::string_view s);
  Value Replace(const Value* a, size_t count);
  Value Split(const Value* a, size_t count);
  // The pattern of a matches / find / findAll call: compiled by the checker when it is a
  // constant, else now (nullptr, with *error, when it is not a regular expression).
  std::shared_ptr<const std::regex> Regex(const Node& n, const Value& pattern, Value* error) const;
  // matches(), find() and findAll().
  Value Regexes(const Node& n, const Value* a, size_t count);
  Value Lists(Fn fn, const Value& list, const Value* item);
  Value Includes(const Value& attribute, const Value& value) const;
  Value Quantities(Fn fn, const Value& x, const Value* y) const;
  Value Semvers(const Node& n, const Value* a, size_t count) const;

  const Program& p_;
  const bool allow_multiple_allocations_;
  uint64_t cost_ = 0;
  const uint64_t limit_;
  size_t allocated_ = 0;
  std::vector<Value> slots_;
};

}  // namespace knobsim::dra::cel_internal
