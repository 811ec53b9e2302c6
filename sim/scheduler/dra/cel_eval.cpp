// The CEL evaluator's walk over the nodes (cel_eval.h), and which library serves a call.
#include "sim/scheduler/dra/cel_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_text.h"

namespace knobsim::dra::cel_internal {

Value Evaluator::Eval(uint32_t id) {
  const Node& n = p_.nodes[id];
  switch (n.op) {
    case Op::kLiteral:
      return n.literal;
    case Op::kIdent:
      Charge(1);
      if (n.slot >= 0) return slots_[static_cast<size_t>(n.slot)];
      {
        Value device;
        device.kind = Kind::kDevice;
        return device;
      }
    case Op::kSelect:
      return Select(n);
    case Op::kHas:
      return Has(n);
    case Op::kIndex:
      return Index(n);
    case Op::kCall:
      return Call(n);
    case Op::kList:
      return ListLiteral(n);
    case Op::kMap:
      return MapLiteral(n);
    case Op::kAnd:
    case Op::kOr:
      return Logical(n);
    case Op::kTernary: {
      const Value cond = Eval(n.kids[0]);
      if (cond.is_error()) return cond;
      if (cond.kind != Kind::kBool) return NoSuchOverload();
      return Eval(n.kids[cond.b ? 1 : 2]);
    }
    case Op::kComprehension:
      return Comprehension(n);
    case Op::kBind:
      slots_[static_cast<size_t>(n.slot)] = Eval(n.kids[0]);
      return Eval(n.kids[1]);
  }
  return NoSuchOverload();
}

Value Evaluator::Select(const Node& n) {
  const Value operand = Eval(n.kids[0]);
  if (operand.is_error()) return operand;
  Charge(1);
  if (operand.kind == Kind::kDevice) {
    return DeviceFieldValue(n.field != DeviceField::kNone ? n.field : DeviceFieldNamed(n.name),
                            n.name);
  }
  if (operand.kind != Kind::kMap) {
    return ErrorValue(fmt::format("type '{}' does not support field selection", TypeName(operand)));
  }
  std::optional<Value> v = MapFind(operand, TextView(Kind::kString, n.name));
  if (!v) return ErrorValue(fmt::format("no such key: {}", n.name));
  return std::move(*v);
}

Value Evaluator::DeviceFieldValue(DeviceField field, std::string_view name) const {
  Value v;
  switch (field) {
    case DeviceField::kDriver:
      return TextView(Kind::kString, driver_);
    case DeviceField::kAllowMultipleAllocations:
      return BoolValue(allow_multiple_allocations_);
    case DeviceField::kAttributes:
    case DeviceField::kCapacity:
      v.kind = Kind::kMap;
      v.rep = Rep::kDomains;
      v.capacity = field == DeviceField::kCapacity;
      return v;
    case DeviceField::kNone:
      break;
  }
  return ErrorValue(fmt::format("no such key: {}", name));
}

Value Evaluator::Has(const Node& n) {
  const Value operand = Eval(n.kids[0]);
  if (operand.is_error()) return operand;
  if (operand.kind == Kind::kDevice)
    return BoolValue(DeviceFieldNamed(n.name) != DeviceField::kNone);
  if (operand.kind != Kind::kMap) {
    return ErrorValue(fmt::format("type '{}' does not support field selection", TypeName(operand)));
  }
  if (operand.rep == Rep::kDomains) return BoolValue(true);
  return BoolValue(MapContains(operand, TextView(Kind::kString, n.name)));
}

Value Evaluator::Index(const Node& n) {
  const Value operand = Eval(n.kids[0]);
  if (operand.is_error()) return operand;
  const Value index = Eval(n.kids[1]);
  if (index.is_error()) return index;
  Charge(1);
  if (operand.kind == Kind::kList) {
    int64_t i = 0;
    switch (index.kind) {
      case Kind::kInt:
        i = index.i;
        break;
      case Kind::kUint:
        i = index.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                ? -1
                : static_cast<int64_t>(index.u);
        break;
      case Kind::kDouble:
        if (!(index.d >= -9.2e18 && index.d <= 9.2e18) ||
            static_cast<double>(static_cast<int64_t>(index.d)) != index.d) {
          return ErrorValue(fmt::format("unsupported index value {} in list", GoDouble(index.d)));
        }
        i = static_cast<int64_t>(index.d);
        break;
      default:
        return ErrorValue(fmt::format("unsupported index type '{}' in list", TypeName(index)));
    }
    const size_t size = ListSize(operand);
    if (i < 0 || static_cast<uint64_t>(i) >= size) {
      return ErrorValue(fmt::format("index '{}' out of range in list size '{}'", i, size));
    }
    return ListAt(operand, static_cast<size_t>(i));
  }
  if (operand.kind == Kind::kDevice && index.kind == Kind::kString) {
    return DeviceFieldValue(DeviceFieldNamed(index.text), index.text);
  }
  if (operand.kind == Kind::kMap) {
    std::optional<Value> v = MapFind(operand, index);
    if (!v) return ErrorValue("no such key: " + KeyText(index));
    return std::move(*v);
  }
  return NoSuchOverload();
}

Value Evaluator::ListLiteral(const Node& n) {
  if (n.constant) return n.literal;
  std::vector<Value> items;
  items.reserve(n.kids.size());
  for (uint32_t k : n.kids) {
    items.push_back(Eval(k));
    if (items.back().is_error()) return items.back();
  }
  Charge(kListCreateCost);
  Allocate(items.size() * sizeof(Value));
  return OwnedList(std::move(items));
}

Value Evaluator::MapLiteral(const Node& n) {
  if (n.constant) return n.literal;
  auto heap = std::make_shared<MapHeap>();
  for (size_t k = 0; k < n.kids.size(); k += 2) {
    Value key = Eval(n.kids[k]);
    if (key.is_error()) return key;
    Value value = Eval(n.kids[k + 1]);
    if (value.is_error()) return value;
    if (NumberClass(key) == 3 || key.kind == Kind::kDouble) {
      return ErrorValue(fmt::format("unsupported key type: {}", TypeName(key)));
    }
    heap->entries.emplace_back(std::move(key), std::move(value));
  }
  Charge(kMapCreateCost);
  Allocate(heap->entries.size() * 2 * sizeof(Value));
  std::stable_sort(heap->entries.begin(), heap->entries.end(),
                   [](const auto& x, const auto& y) { return KeyLess()(x.first, y.first); });
  for (size_t k = 1; k < heap->entries.size(); ++k) {
    if (!KeyLess()(heap->entries[k - 1].first, heap->entries[k].first)) {
      return ErrorValue(
          fmt::format("repeated key in map literal: {}", KeyText(heap->entries[k].first)));
    }
  }
  return OwnedMap(std::move(heap));
}

Value Evaluator::Logical(const Node& n) {
  const bool absorbing = n.op == Op::kOr;  // the value that decides the whole chain
  Value error;
  for (uint32_t k : n.kids) {
    Value v = Eval(k);
    if (v.kind == Kind::kBool) {
      if (v.b == absorbing) return v;
    } else if (!error.is_error()) {
      error = v.is_error() ? std::move(v) : NoSuchOverload();
    }
  }
  if (error.is_error()) return error;
  return BoolValue(!absorbing);
}

struct Evaluator::Loop {
  const Node& n;
  const Value& range;
  bool is_map;
  std::vector<Value> keys;  // a map's, in key order
  size_t count;             // of elements or keys
};

Value Evaluator::Comprehension(const Node& n) {
  const Value range = Eval(n.kids[0]);
  if (range.is_error()) return range;
  if (range.kind != Kind::kList && range.kind != Kind::kMap) {
    return ErrorValue(fmt::format("got '{}', expected iterable type", GoTypeName(range)));
  }
  const bool is_map = range.kind == Kind::kMap;
  Loop loop{n, range, is_map, is_map ? MapKeys(range) : std::vector<Value>(), 0};
  loop.count = is_map ? loop.keys.size() : ListSize(range);
  switch (n.macro) {
    case Macro::kAll:
    case Macro::kExists:
      return Quantifier(loop);
    case Macro::kExistsOne:
      return ExistsOne(loop);
    case Macro::kMap:
    case Macro::kFilter:
    case Macro::kTransformList:
      return ListComprehension(loop);
    case Macro::kTransformMap:
      return MapComprehension(loop);
  }
  return NoSuchOverload();
}

// Sets the iteration variables to the range's element `i`.
void Evaluator::BindElement(const Loop& loop, size_t i) {
  const Node& n = loop.n;
  const size_t first = static_cast<size_t>(n.slot);
  if (loop.is_map) {
    slots_[first] = loop.keys[i];
    if (n.slot2 >= 0) {
      std::optional<Value> v = MapFind(loop.range, loop.keys[i]);
      slots_[static_cast<size_t>(n.slot2)] = v ? std::move(*v) : Value();
    }
  } else if (n.slot2 >= 0) {
    slots_[first] = IntValue(static_cast<int64_t>(i));
    slots_[static_cast<size_t>(n.slot2)] = ListAt(loop.range, i);
  } else {
    slots_[first] = ListAt(loop.range, i);
  }
}

// all and exists.
Value Evaluator::Quantifier(const Loop& loop) {
  const uint32_t predicate = loop.n.kids[1];
  const bool all = loop.n.macro == Macro::kAll;
  Value accu = BoolValue(all);
  for (size_t i = 0; i < loop.count; ++i) {
    Charge(all ? 2 : 3);  // @not_strictly_false(accu), or of !accu
    if (accu.kind == Kind::kBool && accu.b != all) break;
    BindElement(loop, i);
    Charge(1);  // accu
    Value v = Eval(predicate);
    if (v.kind == Kind::kBool) {
      if (v.b != all) accu = std::move(v);
    } else if (!accu.is_error()) {
      accu = v.is_error() ? std::move(v) : NoSuchOverload();
    }
  }
  Charge(1);
  return accu;
}

Value Evaluator::ExistsOne(const Loop& loop) {
  const uint32_t predicate = loop.n.kids[1];
  int64_t matches = 0;
  for (size_t i = 0; i < loop.count; ++i) {
    BindElement(loop, i);
    const Value v = Eval(predicate);
    if (v.kind != Kind::kBool) return v.is_error() ? v : NoSuchOverload();
    Charge(v.b ? 2 : 1);  // accu + 1, or accu
    matches += v.b ? 1 : 0;
  }
  Charge(2);  // accu == 1
  return BoolValue(matches == 1);
}

// map, filter and transformList.
Value Evaluator::ListComprehension(const Loop& loop) {
  const Node& n = loop.n;
  const uint32_t predicate = n.kids[1];
  const uint32_t body = n.kids[n.filter ? 2 : 1];
  std::vector<Value> out;
  for (size_t i = 0; i < loop.count; ++i) {
    BindElement(loop, i);
    if (n.filter || n.macro == Macro::kFilter) {
      const Value keep = Eval(predicate);
      if (keep.kind != Kind::kBool) return keep.is_error() ? keep : NoSuchOverload();
      if (!keep.b) {
        Charge(1);  // accu
        continue;
      }
    }
    Charge(1);  // accu
    if (n.macro == Macro::kFilter) {
      Charge(1);  // x
      out.push_back(slots_[static_cast<size_t>(n.slot)]);
    } else {
      Value v = Eval(body);
      if (v.is_error()) return v;
      out.push_back(std::move(v));
    }
    Charge(kListCreateCost + 1);  // [t], and accu + [t]
    Allocate(sizeof(Value));
  }
  Charge(1);
  return OwnedList(std::move(out));
}

// transformMap.
Value Evaluator::MapComprehension(const Loop& loop) {
  const Node& n = loop.n;
  const uint32_t predicate = n.kids[1];
  const uint32_t body = n.kids[n.filter ? 2 : 1];
  auto heap = std::make_shared<MapHeap>();
  for (size_t i = 0; i < loop.count; ++i) {
    BindElement(loop, i);
    if (n.filter) {
      const Value keep = Eval(predicate);
      if (keep.kind != Kind::kBool) return keep.is_error() ? keep : NoSuchOverload();
      if (!keep.b) {
        Charge(1);
        continue;
      }
    }
    Charge(2);  // accu, k
    Value v = Eval(body);
    if (v.is_error()) return v;
    Charge(1);  // cel.@mapInsert
    Allocate(2 * sizeof(Value));
    // Keys come in key order and unique, so the entries stay sorted.
    heap->entries.emplace_back(slots_[static_cast<size_t>(n.slot)], std::move(v));
  }
  Charge(1);
  return OwnedMap(std::move(heap));
}

Value Evaluator::Call(const Node& n) {
  std::array<Value, 4> args;
  const size_t count = n.kids.size();
  for (size_t k = 0; k < count; ++k) {
    args[k] = Eval(n.kids[k]);
    if (args[k].is_error()) return args[k];
  }
  Charge(CallCost(n, args.data()));
  Value result = Apply(n, args.data(), count);
  if (n.fn == Fn::kJoin && !result.is_error()) {
    Charge(FactorCost(ActualSize(result), 2 * kStringTraversalFactor));
  }
  return result;
}

Value Evaluator::Apply(const Node& n, const Value* a, size_t count) {
  switch (n.fn) {
    case Fn::kAdd:
    case Fn::kSub:
    case Fn::kMul:
    case Fn::kDiv:
    case Fn::kMod:
      return Arithmetic(n.fn, a[0], a[1]);
    case Fn::kNeg:
    case Fn::kNot:
    case Fn::kEq:
    case Fn::kNe:
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe:
    case Fn::kIn:
    case Fn::kSize:
      return Operator(n.fn, a, count);
    case Fn::kMatches:
    case Fn::kFind:
    case Fn::kFindAll:
      return Regexes(n, a, count);
    case Fn::kInt:
    case Fn::kUint:
    case Fn::kDouble:
    case Fn::kString:
    case Fn::kBool:
    case Fn::kBytes:
      return Convert(n.fn, a[0]);
    case Fn::kDyn:
      return a[0];
    case Fn::kIndex:
    case Fn::kNone:
      break;
    default:
      return ApplyExtension(n, a, count);
  }
  return NoSuchOverload();
}

// The functions of the extension libraries: ext.Strings, Kubernetes' lists, quantity and semver
// libraries, DRA's includes().
Value Evaluator::ApplyExtension(const Node& n, const Value* a, size_t count) {
  const auto is = [&](size_t k, Kind kind) { return k < count && a[k].kind == kind; };
  switch (n.fn) {
    case Fn::kIndexOf:
    case Fn::kLastIndexOf:
      if (is(0, Kind::kList)) return Lists(n.fn, a[0], &a[1]);
      return Strings(n, a, count);
    case Fn::kContains:
    case Fn::kStartsWith:
    case Fn::kEndsWith:
    case Fn::kCharAt:
    case Fn::kLowerAscii:
    case Fn::kUpperAscii:
    case Fn::kReplace:
    case Fn::kSplit:
    case Fn::kSubstring:
    case Fn::kTrim:
    case Fn::kJoin:
      return Strings(n, a, count);
    case Fn::kIsSorted:
    case Fn::kSum:
    case Fn::kMin:
    case Fn::kMax:
      return Lists(n.fn, a[0], nullptr);
    case Fn::kIsGreaterThan:
    case Fn::kIsLessThan:
    case Fn::kCompareTo:
      if (is(0, Kind::kSemver)) return Semvers(n, a, count);
      return Quantities(n.fn, a[0], &a[1]);
    case Fn::kQuantity:
    case Fn::kIsQuantity:
    case Fn::kSign:
    case Fn::kAsApproximateFloat:
    case Fn::kAsInteger:
    case Fn::kIsInteger:
    case Fn::kQuantityAdd:
    case Fn::kQuantitySub:
      return Quantities(n.fn, a[0], count > 1 ? &a[1] : nullptr);
    case Fn::kSemver:
    case Fn::kIsSemver:
    case Fn::kMajor:
    case Fn::kMinor:
    case Fn::kPatch:
      return Semvers(n, a, count);
    case Fn::kIncludes:
      return Includes(a[0], a[1]);
    default:
      break;
  }
  return NoSuchOverload();
}

}  // namespace knobsim::dra::cel_internal
