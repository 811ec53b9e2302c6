// The CEL evaluator's values: one small Value for every kind, which views text and lists that
// outlive the evaluation (the program, the device) and owns, through `heap`, only what an
// expression computes; their names in messages and the order of map keys. Internal to the CEL
// evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"

namespace knobsim::dra::cel_internal {

enum class Kind : uint8_t {
  kError,
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
};

// How a list or map is held: by the evaluation (kOwned), or as a view of the device, so that a
// selector reads device.attributes without copying them.
enum class Rep : uint8_t {
  kPlain,          // scalars, strings
  kOwned,          // ListHeap / MapHeap
  kAttributeList,  // a list-valued DraAttribute
  kDomains,        // device.attributes or device.capacity: domain -> ids
  kIds,            // device.attributes[domain] or device.capacity[domain]: id -> value
};

struct Heap {
  virtual ~Heap() = default;
};

struct Value {
  Kind kind = Kind::kNull;
  Rep rep = Rep::kPlain;
  bool capacity = false;  // kDomains / kIds: of device.capacity, not device.attributes
  union {
    bool b;
    int64_t i = 0;  // kInt; kQuantity in milli-units
    uint64_t u;
    double d;
    const DraAttribute* attribute;  // kAttributeList
  };
  // kString / kBytes / kSemver / kError: the text; kIds: the domain; kAttributeList: the
  // attribute's qualified name. It views `heap`, the program, or the device.
  std::string_view text;
  std::shared_ptr<const Heap> heap;

  bool is_error() const { return kind == Kind::kError; }
};

struct TextHeap final : Heap {
  std::string text;
};
struct ListHeap final : Heap {
  std::vector<Value> items;
};
struct MapHeap final : Heap {
  std::vector<std::pair<Value, Value>> entries;  // sorted by KeyLess, keys unique
};

inline Value BoolValue(bool b) {
  Value v;
  v.kind = Kind::kBool;
  v.b = b;
  return v;
}
inline Value IntValue(int64_t i) {
  Value v;
  v.kind = Kind::kInt;
  v.i = i;
  return v;
}
inline Value UintValue(uint64_t u) {
  Value v;
  v.kind = Kind::kUint;
  v.u = u;
  return v;
}
inline Value DoubleValue(double d) {
  Value v;
  v.kind = Kind::kDouble;
  v.d = d;
  return v;
}
inline Value QuantityValue(int64_t milli) {
  Value v;
  v.kind = Kind::kQuantity;
  v.i = milli;
  return v;
}
// A string, bytes or semver viewing text that outlives the evaluation (program, device).
inline Value TextView(Kind kind, std::string_view text) {
  Value v;
  v.kind = kind;
  v.text = text;
  return v;
}
// A string, bytes, semver or error that owns its text.
Value OwnedText(Kind kind, std::string text);
Value ErrorValue(std::string message);
inline Value NoSuchOverload() {
  return TextView(Kind::kError, "no such overload");
}
Value OwnedList(std::vector<Value> items);
// A map value owning `heap`, whose entries are sorted by KeyLess with unique keys.
Value OwnedMap(std::shared_ptr<const MapHeap> heap);

inline const ListHeap& ListOf(const Value& v) {
  return static_cast<const ListHeap&>(*v.heap);
}
inline const MapHeap& MapOf(const Value& v) {
  return static_cast<const MapHeap&>(*v.heap);
}

// The Go type name cel-go's errors show for a value that cannot be iterated
// ("got 'types.Int', expected iterable type").
std::string_view GoTypeName(const Value& v);

// The CEL type name of a value, as a runtime message names it ("CEL result of type list ...").
std::string_view TypeName(const Value& v);

// A map key or index as Go's %v writes it in "no such key: <key>".
std::string KeyText(const Value& v);

// The order of map keys (bool, then numbers, then strings), in which maps iterate. Numbers compare
// by value across int, uint and double, so {1: x}[1u] finds x, as CEL's heterogeneous equality
// asks.
inline int NumberClass(const Value& v) {
  switch (v.kind) {
    case Kind::kBool:
      return 0;
    case Kind::kInt:
    case Kind::kUint:
    case Kind::kDouble:
      return 1;
    case Kind::kString:
      return 2;
    default:
      return 3;
  }
}
// -1, 0, 1 for numbers of any of the three kinds; NaN compares as 2 (unordered).
int CompareNumbers(const Value& a, const Value& b);
struct KeyLess {
  bool operator()(const Value& a, const Value& b) const {
    const int ca = NumberClass(a), cb = NumberClass(b);
    if (ca != cb) return ca < cb;
    switch (ca) {
      case 0:
        return a.b < b.b;
      case 1:
        return CompareNumbers(a, b) == -1;
      default:
        return a.text < b.text;
    }
  }
};

}  // namespace knobsim::dra::cel_internal
