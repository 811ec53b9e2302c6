// What an evaluation costs as it goes (cel_eval.h): cel-go's runtime tracker, with Kubernetes'
// library cost estimator for the library functions.
#include "sim/scheduler/dra/cel_eval.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {

size_t Evaluator::ActualSize(const Value& v) const {
  switch (v.kind) {
    case Kind::kString:
      return RuneCount(v.text);
    case Kind::kBytes:
      return v.text.size();
    case Kind::kList:
      return ListSize(v);
    case Kind::kMap:
      return MapSize(v);
    default:
      return 1;
  }
}

uint64_t Evaluator::TraversalCost(const Value& v) const {
  switch (v.kind) {
    case Kind::kString:
    case Kind::kBytes:
      return static_cast<uint64_t>(static_cast<double>(v.text.size()) * kStringTraversalFactor);
    case Kind::kList: {
      uint64_t cost = 0;
      for (size_t i = 0, n = ListSize(v); i < n; ++i)
        cost = AddCost(cost, TraversalCost(ListAt(v, i)));
      return cost;
    }
    case Kind::kMap: {
      uint64_t cost = 0;
      for (const Value& k : MapKeys(v)) {
        cost = AddCost(cost, TraversalCost(k));
        if (std::optional<Value> value = MapFind(v, k)) cost = AddCost(cost, TraversalCost(*value));
      }
      return cost;
    }
    default:
      return 1;
  }
}

uint64_t Evaluator::CallCost(const Node& n, const Value* a) const {
  const auto size = [&](int k) { return static_cast<uint64_t>(ActualSize(a[k])); };
  const auto text = [&](int k) { return a[k].kind == Kind::kString || a[k].kind == Kind::kBytes; };
  switch (n.fn) {
    case Fn::kEq:
      if (a[0].kind == Kind::kQuantity || a[0].kind == Kind::kSemver) return 1;
      return FactorCost(std::min(size(0), size(1)), kStringTraversalFactor);
    case Fn::kNe:
      return FactorCost(std::min(size(0), size(1)), kStringTraversalFactor);
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe:
      if (text(0) && a[0].kind == a[1].kind) {
        return FactorCost(std::min(size(0), size(1)), kStringTraversalFactor);
      }
      return 1;
    case Fn::kIn:
      return a[1].kind == Kind::kList ? size(1) : 1;
    case Fn::kAdd:
      if (text(0) && a[0].kind == a[1].kind) {
        return FactorCost(AddCost(size(0), size(1)), kStringTraversalFactor);
      }
      return 1;
    case Fn::kMatches:
      if (!n.member) return 1;
      [[fallthrough]];
    case Fn::kFind:
    case Fn::kFindAll:
      return MulCost(FactorCost(AddCost(size(0), 1), kStringTraversalFactor),
                     FactorCost(size(1), kRegexLengthFactor));
    case Fn::kContains:
      return MulCost(FactorCost(size(0), kStringTraversalFactor),
                     FactorCost(size(1), kStringTraversalFactor));
    case Fn::kStartsWith:
    case Fn::kEndsWith:
    case Fn::kLowerAscii:
    case Fn::kUpperAscii:
    case Fn::kSubstring:
    case Fn::kTrim:
    case Fn::kQuantity:
    case Fn::kIsQuantity:
    case Fn::kSemver:
    case Fn::kIsSemver:
      return FactorCost(size(0), kStringTraversalFactor);
    case Fn::kString:
    case Fn::kBytes:
      return text(0) ? FactorCost(size(0), kStringTraversalFactor) : 1;
    case Fn::kReplace:
    case Fn::kSplit:
      return FactorCost(size(0), 2 * kStringTraversalFactor);
    case Fn::kJoin:
      return 0;  // charged on the result, in Call
    case Fn::kIsSorted:
    case Fn::kSum:
    case Fn::kMin:
    case Fn::kMax:
    case Fn::kIndexOf:
    case Fn::kLastIndexOf:
    case Fn::kIncludes:
      return TraversalCost(a[0]);
    default:
      return 1;
  }
}

}  // namespace knobsim::dra::cel_internal
