// Kubernetes' quantity library (cel_eval.h) over knobsim's milli-unit quantities
// (sim/quantity.h).
#include "sim/scheduler/dra/cel_eval.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim::dra::cel_internal {

// Kubernetes' quantity library, over milli-units: exact within ±9.2e15 base units, finer
// amounts rounded up to a milli-unit (ParseQuantityMilli), where upstream is arbitrary-precision.
Value Evaluator::Quantities(Fn fn, const Value& x, const Value* y) const {
  if (fn == Fn::kQuantity || fn == Fn::kIsQuantity) {
    if (x.kind != Kind::kString) return NoSuchOverload();
    if (fn == Fn::kIsQuantity) return BoolValue(ParseQuantity(x.text).has_value());
    if (const std::optional<int64_t> milli = ParseQuantityMilli(x.text))
      return QuantityValue(*milli);
    if (ParseQuantity(x.text)) {
      return ErrorValue(
          fmt::format("quantity {} is beyond the ±9.2e15 that knobsim represents", Quote(x.text)));
    }
    return TextView(Kind::kError,
                    "quantities must match the regular expression "
                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  if (x.kind != Kind::kQuantity) return NoSuchOverload();
  const int64_t q = x.i;
  switch (fn) {
    case Fn::kSign:
      return IntValue(q > 0 ? 1 : q < 0 ? -1 : 0);
    case Fn::kAsApproximateFloat:
      return DoubleValue(static_cast<double>(q) / 1000);
    case Fn::kIsInteger:
      return BoolValue(q % 1000 == 0);
    case Fn::kAsInteger:
      if (q % 1000 != 0) return TextView(Kind::kError, "cannot convert value to integer");
      return IntValue(q / 1000);
    default:
      break;
  }
  if (y == nullptr) return NoSuchOverload();
  if (fn == Fn::kQuantityAdd || fn == Fn::kQuantitySub) {
    int64_t other = 0;
    if (y->kind == Kind::kQuantity) {
      other = y->i;
    } else if (y->kind != Kind::kInt || __builtin_mul_overflow(y->i, int64_t{1000}, &other)) {
      return y->kind == Kind::kInt ? TextView(Kind::kError, "quantity overflow") : NoSuchOverload();
    }
    int64_t r = 0;
    if (fn == Fn::kQuantityAdd ? __builtin_add_overflow(q, other, &r)
                               : __builtin_sub_overflow(q, other, &r)) {
      return TextView(Kind::kError, "quantity overflow");
    }
    return QuantityValue(r);
  }
  if (y->kind != Kind::kQuantity) return NoSuchOverload();
  const int c = q < y->i ? -1 : q > y->i ? 1 : 0;
  return ComparisonValue(fn, c);
}

}  // namespace knobsim::dra::cel_internal
