// CEL device selectors, the subset Kubernetes DRA evaluates (k8s.io/dynamic-resource-allocation
// cel/compile.go): an expression over one variable, `device`, with
//   device.driver                       string
//   device.attributes[domain][id]       int, bool, string, semver, or a list of one of them
//   device.capacity[domain][id]         quantity
//   device.allowMultipleAllocations     bool
// that must evaluate to bool. The language is CEL's (literals, lists, maps, field selection and
// indexing, has(), the arithmetic, comparison, logical and conditional operators, `in`, the
// macros all / exists / exists_one / map / filter, cel.bind) with the libraries the Kubernetes
// environment adds that selectors use: strings (CEL's ext.Strings and Kubernetes' string
// library), quantity() and isQuantity() with compareTo / isGreaterThan / isLessThan / add / sub /
// asInteger / asApproximateFloat / isInteger / sign, semver() and isSemver() with major / minor /
// patch / compareTo / isGreaterThan / isLessThan, and the standard conversions.
//
// An expression outside that subset is refused when compiled, with the 1-based column of the
// offending part; so is one longer than CELSelectorExpressionMaxLength or whose estimated cost
// exceeds CELSelectorExpressionMaxCost. Evaluation counts its cost as it goes and stops at the
// same limit. A runtime error (a missing attribute without has(), a type mismatch the checker
// could not see) is an error of the selector, as upstream reports it, never `false`.
//
// No dependency: a small parser and tree-walking evaluator, deterministic and allocation-light,
// tested against upstream's own cases (cel/compile_test.go).
//
// Also in the environment, as in upstream's: the two-variable macros (all(k, v, p), exists,
// existsOne, transformList, transformMap), the regex library's find / findAll, the lists
// library's sum / min / max / isSorted / indexOf / lastIndexOf, and DRA's
// <attribute>.includes(<value>). Outside the subset: timestamps and durations, optional types,
// type(), and Kubernetes' IP, CIDR, URL and format libraries. The cost estimate follows cel-go's
// and Kubernetes' estimators rule for rule (upstream's expected costs reproduce); maps of the
// device iterate in key order. Where evaluation knowingly differs from upstream (regular
// expressions run as std::regex, quantities in milli-units, a bad version attribute failing only
// the selectors that read it), the evaluator's sources say so at the place and cel_test.cpp lists
// it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "sim/kube_dra.h"
#include "sim/quantity.h"

namespace knobsim::dra {

// resource.k8s.io/v1 CELSelectorExpressionMaxCost and CELSelectorExpressionMaxLength.
inline constexpr int64_t kCelMaxCost = 1000000;
inline constexpr size_t kCelMaxLength = 10 * 1024;

// What a selector sees of one device. The maps are keyed by fully qualified name
// (`gpu.nvidia.com/model`, sim/kube_dra.h); `device.attributes["gpu.nvidia.com"].model` looks
// up that key. Pointers so that evaluating many devices copies nothing; all must be non-null.
struct CelDevice {
  const std::string* driver = nullptr;
  const std::map<std::string, DraAttribute>* attributes = nullptr;
  const std::map<std::string, DraCapacity>* capacity = nullptr;
  bool allow_multiple_allocations = false;
};

// A selector's value for one device: `matches`, or `error` (non-empty) when evaluation failed,
// e.g. "no such key: model" or "operation cancelled: actual cost limit exceeded".
struct CelResult {
  bool matches = false;
  std::string error;
};

class CelSelector {
 public:
  // Compiles `expression`. On failure `error` reads as upstream's compile errors do, with the
  // column, e.g. "compilation failed: column 18: undeclared reference to 'devic'"; `hint` may
  // say what was probably meant.
  static Parsed<CelSelector> Compile(std::string_view expression);

  CelResult Evaluate(const CelDevice& device) const;

  const std::string& expression() const { return expression_; }

  // The compiled tree; defined in cel_program.h.
  struct Program;

 private:
  // cel_test.cpp pins the cost model against upstream's numbers through this peer.
  friend struct CelSelectorTestPeer;

  // Compile; `refuse_expensive` false keeps an expression whose estimated cost exceeds
  // kCelMaxCost, so that a test can reach the limit at runtime as upstream's "expensive" case does.
  static Parsed<CelSelector> CompileImpl(std::string_view expression, bool refuse_expensive);
  // The worst-case cost the compiler estimated (cel-go's checker.Cost), saturating at UINT64_MAX.
  uint64_t estimated_cost() const;
  // Evaluate, and say what the evaluation cost (cel-go's ActualCost).
  CelResult EvaluateImpl(const CelDevice& device, uint64_t* actual_cost) const;

  std::string expression_;
  std::shared_ptr<const Program> program_;  // immutable once compiled: copies share it
};

}  // namespace knobsim::dra
