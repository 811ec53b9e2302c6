// Kubernetes' lists library (k8s.io/apiserver pkg/cel/library/lists.go) and DRA's includes()
// (cel_eval.h).
#include "sim/scheduler/dra/cel_eval.h"

#include <fmt/format.h>

#include <cstdint>

namespace knobsim::dra::cel_internal {

Value Evaluator::Lists(Fn fn, const Value& list, const Value* item) {
  if (list.kind != Kind::kList) return NoSuchOverload();
  const size_t size = ListSize(list);
  switch (fn) {
    case Fn::kIndexOf:
      for (size_t i = 0; i < size; ++i) {
        const Value e = Equal(ListAt(list, i), *item);
        if (e.kind == Kind::kBool && e.b) return IntValue(static_cast<int64_t>(i));
      }
      return IntValue(-1);
    case Fn::kLastIndexOf:
      for (size_t i = size; i-- > 0;) {
        const Value e = Equal(ListAt(list, i), *item);
        if (e.kind == Kind::kBool && e.b) return IntValue(static_cast<int64_t>(i));
      }
      return IntValue(-1);
    case Fn::kSum: {
      Value sum = IntValue(0);
      for (size_t i = 0; i < size; ++i) {
        const Value e = ListAt(list, i);
        if (e.is_error()) return e;
        sum = i == 0 ? e : Arithmetic(Fn::kAdd, sum, e);
        if (NumberClass(sum) != 1) return sum.is_error() ? sum : NoSuchOverload();
      }
      return sum;
    }
    case Fn::kIsSorted:
    case Fn::kMin:
    case Fn::kMax: {
      Value best;
      for (size_t i = 0; i < size; ++i) {
        const Value e = ListAt(list, i);
        if (e.is_error()) return e;
        if (i == 0) {
          if (NumberClass(e) == 3 && e.kind != Kind::kBytes) return NoSuchOverload();
          best = e;
          continue;
        }
        const Value c = Compare(best, e);
        if (c.is_error()) return c;
        if (fn == Fn::kIsSorted) {
          if (c.i > 0) return BoolValue(false);
          best = e;
        } else if ((fn == Fn::kMin && c.i > 0) || (fn == Fn::kMax && c.i < 0)) {
          best = e;
        }
      }
      if (fn == Fn::kIsSorted) return BoolValue(true);
      if (size == 0) {
        return ErrorValue(fmt::format("{} called on empty list", fn == Fn::kMin ? "min" : "max"));
      }
      return best;
    }
    default:
      return NoSuchOverload();
  }
}

Value Evaluator::Includes(const Value& attribute, const Value& value) const {
  // DRA's includesFunc: a list attribute includes an equal element (looking at no more than
  // ResourceSliceMaxAttributeValuesPerDevice of them), a scalar one is equal.
  if (attribute.kind != Kind::kList) {
    const Value e = Equal(attribute, value);
    return BoolValue(e.kind == Kind::kBool && e.b);
  }
  for (size_t i = 0, size = ListSize(attribute); i < size; ++i) {
    if (i >= kMaxAttributeValues) {
      return ErrorValue(
          fmt::format("'includes' function cannot be applied to lists longer than {} values",
                      kMaxAttributeValues));
    }
    const Value e = Equal(ListAt(attribute, i), value);
    if (e.kind == Kind::kBool && e.b) return e;
  }
  return BoolValue(false);
}

}  // namespace knobsim::dra::cel_internal
