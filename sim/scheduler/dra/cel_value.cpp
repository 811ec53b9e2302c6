// The CEL evaluator's values (cel_value.h): owned ones, their names in messages, the order of
// numbers.
#include "sim/scheduler/dra/cel_value.h"

#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {

Value OwnedText(Kind kind, std::string text) {
  auto heap = std::make_shared<TextHeap>();
  heap->text = std::move(text);
  Value v;
  v.kind = kind;
  v.text = heap->text;
  v.heap = std::move(heap);
  return v;
}
Value ErrorValue(std::string message) {
  return OwnedText(Kind::kError, std::move(message));
}
Value OwnedList(std::vector<Value> items) {
  auto heap = std::make_shared<ListHeap>();
  heap->items = std::move(items);
  Value v;
  v.kind = Kind::kList;
  v.rep = Rep::kOwned;
  v.heap = std::move(heap);
  return v;
}
Value OwnedMap(std::shared_ptr<const MapHeap> heap) {
  Value v;
  v.kind = Kind::kMap;
  v.rep = Rep::kOwned;
  v.heap = std::move(heap);
  return v;
}

std::string_view GoTypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "types.Null";
    case Kind::kBool:
      return "types.Bool";
    case Kind::kInt:
      return "types.Int";
    case Kind::kUint:
      return "types.Uint";
    case Kind::kDouble:
      return "types.Double";
    case Kind::kString:
      return "types.String";
    case Kind::kBytes:
      return "types.Bytes";
    case Kind::kQuantity:
      return "cel.Quantity";
    case Kind::kSemver:
      return "cel.Semver";
    case Kind::kList:
      return "types.baseList";
    case Kind::kMap:
      return "types.baseMap";
    case Kind::kDevice:
      return "types.baseMap";
    case Kind::kError:
      return "types.Err";
  }
  return "?";
}

std::string_view TypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kDevice:
      return "kubernetes.DRADevice";
    case Kind::kError:
      return "error";
  }
  return "?";
}

std::string KeyText(const Value& v) {
  switch (v.kind) {
    case Kind::kString:
      return std::string(v.text);
    case Kind::kInt:
      return std::to_string(v.i);
    case Kind::kUint:
      return std::to_string(v.u);
    case Kind::kDouble:
      return GoDouble(v.d);
    case Kind::kBool:
      return v.b ? "true" : "false";
    default:
      return std::string(TypeName(v));
  }
}

int CompareNumbers(const Value& a, const Value& b) {
  const auto sign = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  if (a.kind == Kind::kDouble || b.kind == Kind::kDouble) {
    if (a.kind == Kind::kDouble && b.kind == Kind::kDouble) {
      if (std::isnan(a.d) || std::isnan(b.d)) return 2;
      return sign(a.d, b.d);
    }
    // cel-go compareDoubleInt / compareDoubleUint: out-of-range doubles compare by sign, the rest
    // as doubles.
    const bool flip = a.kind != Kind::kDouble;
    const double d = flip ? b.d : a.d;
    const Value& n = flip ? a : b;
    int r;
    if (std::isnan(d)) return 2;
    if (n.kind == Kind::kInt) {
      r = d < -9223372036854775808.0  ? -1
          : d > 9223372036854775807.0 ? 1
                                      : sign(d, static_cast<double>(n.i));
    } else {
      r = d < 0 ? -1 : d > 18446744073709551615.0 ? 1 : sign(d, static_cast<double>(n.u));
    }
    return flip ? -r : r;
  }
  if (a.kind == b.kind) return a.kind == Kind::kInt ? sign(a.i, b.i) : sign(a.u, b.u);
  if (a.kind == Kind::kInt) return a.i < 0 ? -1 : sign(static_cast<uint64_t>(a.i), b.u);
  return b.i < 0 ? 1 : sign(a.u, static_cast<uint64_t>(b.i));
}

}  // namespace knobsim::dra::cel_internal
