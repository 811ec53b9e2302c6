// CEL's standard operators (cel_eval.h): arithmetic with overflow errors, negation, equality,
// the orderings, `in` and size().
#include "sim/scheduler/dra/cel_eval.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {
namespace {

Value IntArithmetic(Fn fn, const Value& x, const Value& y) {
  int64_t r = 0;
  bool overflow = false;
  switch (fn) {
    case Fn::kAdd:
      overflow = __builtin_add_overflow(x.i, y.i, &r);
      break;
    case Fn::kSub:
      overflow = __builtin_sub_overflow(x.i, y.i, &r);
      break;
    case Fn::kMul:
      overflow = __builtin_mul_overflow(x.i, y.i, &r);
      break;
    case Fn::kDiv:
    case Fn::kMod:
      if (y.i == 0) {
        return TextView(Kind::kError, fn == Fn::kDiv ? "division by zero" : "modulus by zero");
      }
      overflow = x.i == std::numeric_limits<int64_t>::min() && y.i == -1;
      if (!overflow) r = fn == Fn::kDiv ? x.i / y.i : x.i % y.i;
      break;
    default:
      return NoSuchOverload();
  }
  if (overflow) return TextView(Kind::kError, "integer overflow");
  return IntValue(r);
}

Value UintArithmetic(Fn fn, const Value& x, const Value& y) {
  uint64_t r = 0;
  bool overflow = false;
  switch (fn) {
    case Fn::kAdd:
      overflow = __builtin_add_overflow(x.u, y.u, &r);
      break;
    case Fn::kSub:
      overflow = __builtin_sub_overflow(x.u, y.u, &r);
      break;
    case Fn::kMul:
      overflow = __builtin_mul_overflow(x.u, y.u, &r);
      break;
    case Fn::kDiv:
    case Fn::kMod:
      if (y.u == 0) {
        return TextView(Kind::kError, fn == Fn::kDiv ? "division by zero" : "modulus by zero");
      }
      r = fn == Fn::kDiv ? x.u / y.u : x.u % y.u;
      break;
    default:
      return NoSuchOverload();
  }
  if (overflow) return TextView(Kind::kError, "unsigned integer overflow");
  return UintValue(r);
}

Value DoubleArithmetic(Fn fn, const Value& x, const Value& y) {
  switch (fn) {
    case Fn::kAdd:
      return DoubleValue(x.d + y.d);
    case Fn::kSub:
      return DoubleValue(x.d - y.d);
    case Fn::kMul:
      return DoubleValue(x.d * y.d);
    case Fn::kDiv:
      return DoubleValue(x.d / y.d);
    default:
      return NoSuchOverload();
  }
}

}  // namespace

Value Evaluator::Arithmetic(Fn fn, const Value& x, const Value& y) {
  if (x.kind != y.kind) return NoSuchOverload();
  switch (x.kind) {
    case Kind::kInt:
      return IntArithmetic(fn, x, y);
    case Kind::kUint:
      return UintArithmetic(fn, x, y);
    case Kind::kDouble:
      return DoubleArithmetic(fn, x, y);
    case Kind::kString:
    case Kind::kBytes: {
      if (fn != Fn::kAdd) return NoSuchOverload();
      Allocate(x.text.size() + y.text.size());
      std::string joined;
      joined.reserve(x.text.size() + y.text.size());
      joined.append(x.text).append(y.text);
      return OwnedText(x.kind, std::move(joined));
    }
    case Kind::kList: {
      if (fn != Fn::kAdd) return NoSuchOverload();
      const size_t nx = ListSize(x), ny = ListSize(y);
      Allocate((nx + ny) * sizeof(Value));
      std::vector<Value> items;
      items.reserve(nx + ny);
      for (size_t i = 0; i < nx; ++i) items.push_back(ListAt(x, i));
      for (size_t i = 0; i < ny; ++i) items.push_back(ListAt(y, i));
      return OwnedList(std::move(items));
    }
    default:
      return NoSuchOverload();
  }
}

Value Evaluator::Operator(Fn fn, const Value* a, size_t count) const {
  const auto is = [&](size_t k, Kind kind) { return k < count && a[k].kind == kind; };
  switch (fn) {
    case Fn::kNeg:
      if (is(0, Kind::kInt)) {
        if (a[0].i == std::numeric_limits<int64_t>::min())
          return TextView(Kind::kError, "integer overflow");
        return IntValue(-a[0].i);
      }
      if (is(0, Kind::kDouble)) return DoubleValue(-a[0].d);
      return NoSuchOverload();
    case Fn::kNot:
      if (is(0, Kind::kBool)) return BoolValue(!a[0].b);
      return NoSuchOverload();
    case Fn::kEq:
      return Equal(a[0], a[1]);
    case Fn::kNe: {
      Value e = Equal(a[0], a[1]);
      if (e.kind == Kind::kBool) e.b = !e.b;
      return e;
    }
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe: {
      const Value c = Compare(a[0], a[1]);
      if (c.is_error()) return c;
      switch (fn) {
        case Fn::kLt:
          return BoolValue(c.i < 0);
        case Fn::kLe:
          return BoolValue(c.i <= 0);
        case Fn::kGt:
          return BoolValue(c.i > 0);
        default:
          return BoolValue(c.i >= 0);
      }
    }
    case Fn::kIn:
      if (is(1, Kind::kList)) return BoolValue(Contains(a[1], a[0]));
      if (is(1, Kind::kMap)) return BoolValue(MapContains(a[1], a[0]));
      return NoSuchOverload();
    case Fn::kSize:
      switch (a[0].kind) {
        case Kind::kString:
          return IntValue(static_cast<int64_t>(RuneCount(a[0].text)));
        case Kind::kBytes:
          return IntValue(static_cast<int64_t>(a[0].text.size()));
        case Kind::kList:
          return IntValue(static_cast<int64_t>(ListSize(a[0])));
        case Kind::kMap:
          return IntValue(static_cast<int64_t>(MapSize(a[0])));
        default:
          return NoSuchOverload();
      }
    default:
      break;
  }
  return NoSuchOverload();
}

}  // namespace knobsim::dra::cel_internal
