// Lists and maps, owned or viewing the device, and CEL equality and order (cel_containers.h).
#include "sim/scheduler/dra/cel_containers.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/cel_semver.h"

namespace knobsim::dra::cel_internal {
namespace {

// The key `domain/id` of the device's maps, built without allocating once the buffer has grown.
const std::string& QualifiedKey(std::string_view domain, std::string_view id) {
  thread_local std::string key;
  key.assign(domain);
  key += '/';
  key += id;
  return key;
}

const std::string kNoDriver;
const std::map<std::string, DraAttribute> kNoAttributes;
const std::map<std::string, DraCapacity> kNoCapacity;

}  // namespace

Containers::Containers(const CelDevice& device)
    : driver_(device.driver != nullptr ? *device.driver : kNoDriver),
      attributes_(device.attributes != nullptr ? *device.attributes : kNoAttributes),
      capacity_(device.capacity != nullptr ? *device.capacity : kNoCapacity) {}

std::string_view Containers::DomainOf(std::string_view name) const {
  const size_t slash = name.find('/');
  return slash == std::string_view::npos ? std::string_view(driver_) : name.substr(0, slash);
}

std::string_view Containers::IdOf(std::string_view name) {
  const size_t slash = name.find('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

template <class M>
auto Containers::FindQualified(const M& map, std::string_view domain, std::string_view id) const {
  auto it = map.find(QualifiedKey(domain, id));
  if (it == map.end() && domain == driver_) {
    thread_local std::string bare;
    bare.assign(id);
    it = map.find(bare);
  }
  return it;
}

Value Containers::AttributeValue(const std::string& name, const DraAttribute& a) const {
  if (a.list) {
    Value v;
    v.kind = Kind::kList;
    v.rep = Rep::kAttributeList;
    v.attribute = &a;
    v.text = name;
    return v;
  }
  const bool ints = a.kind == DraAttribute::Kind::kInt || a.kind == DraAttribute::Kind::kBool;
  if (ints ? a.ints.empty() : a.strings.empty()) {
    return ErrorValue(fmt::format("attribute {}: unsupported attribute value", name));
  }
  switch (a.kind) {
    case DraAttribute::Kind::kInt:
      return IntValue(a.ints[0]);
    case DraAttribute::Kind::kBool:
      return BoolValue(a.ints[0] != 0);
    case DraAttribute::Kind::kString:
      return TextView(Kind::kString, a.strings[0]);
    case DraAttribute::Kind::kVersion:
      return VersionValue(name, a.strings[0]);
  }
  return NoSuchOverload();
}

Value Containers::VersionValue(std::string_view name, std::string_view text) {
  Semver ignored;
  std::string error = ParseSemver(text, &ignored);
  if (!error.empty()) {
    return ErrorValue(fmt::format("attribute {}: parse semantic version: {}", name, error));
  }
  return TextView(Kind::kSemver, text);
}

size_t Containers::ListSize(const Value& v) {
  if (v.rep == Rep::kOwned) return ListOf(v).items.size();
  const DraAttribute& a = *v.attribute;
  const bool ints = a.kind == DraAttribute::Kind::kInt || a.kind == DraAttribute::Kind::kBool;
  return ints ? a.ints.size() : a.strings.size();
}

Value Containers::ListAt(const Value& v, size_t i) {
  if (v.rep == Rep::kOwned) return ListOf(v).items[i];
  const DraAttribute& a = *v.attribute;
  switch (a.kind) {
    case DraAttribute::Kind::kInt:
      return IntValue(a.ints[i]);
    case DraAttribute::Kind::kBool:
      return BoolValue(a.ints[i] != 0);
    case DraAttribute::Kind::kString:
      return TextView(Kind::kString, a.strings[i]);
    case DraAttribute::Kind::kVersion:
      return VersionValue(v.text, a.strings[i]);
  }
  return NoSuchOverload();
}

Value Containers::IdsOf(const Value& domains, const Value& domain) const {
  // Upstream's default for a missing domain is an empty map, whatever the key.
  if (domain.kind != Kind::kString) return OwnedMap(std::make_shared<MapHeap>());
  Value v;
  v.kind = Kind::kMap;
  v.rep = Rep::kIds;
  v.capacity = domains.capacity;
  v.text = domain.text;
  v.heap = domain.heap;
  return v;
}

template <class M, class F>
void Containers::ForEachOfDomain(const M& map, std::string_view domain, const F& f) const {
  for (const auto& [name, value] : map) {
    if (DomainOf(name) == domain) f(name, value);
  }
}

size_t Containers::MapSize(const Value& m) const {
  switch (m.rep) {
    case Rep::kOwned:
      return MapOf(m).entries.size();
    case Rep::kDomains:
      return MapKeys(m).size();
    case Rep::kIds: {
      size_t n = 0;
      const auto count = [&](const auto&, const auto&) { ++n; };
      m.capacity ? ForEachOfDomain(capacity_, m.text, count)
                 : ForEachOfDomain(attributes_, m.text, count);
      return n;
    }
    default:
      return 0;
  }
}

std::vector<Value> Containers::MapKeys(const Value& m) const {
  std::vector<Value> keys;
  switch (m.rep) {
    case Rep::kOwned:
      for (const auto& [k, v] : MapOf(m).entries) keys.push_back(k);
      return keys;
    case Rep::kDomains: {
      std::vector<std::string_view> domains;
      const auto add = [&](const std::string& name) { domains.push_back(DomainOf(name)); };
      if (m.capacity) {
        for (const auto& entry : capacity_) add(entry.first);
      } else {
        for (const auto& entry : attributes_) add(entry.first);
      }
      std::sort(domains.begin(), domains.end());
      domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
      for (std::string_view d : domains) keys.push_back(TextView(Kind::kString, d));
      return keys;
    }
    case Rep::kIds: {
      std::vector<std::string_view> ids;
      const auto add = [&](const std::string& name, const auto&) { ids.push_back(IdOf(name)); };
      m.capacity ? ForEachOfDomain(capacity_, m.text, add)
                 : ForEachOfDomain(attributes_, m.text, add);
      std::sort(ids.begin(), ids.end());
      for (std::string_view id : ids) keys.push_back(TextView(Kind::kString, id));
      return keys;
    }
    default:
      return keys;
  }
}

std::optional<Value> Containers::MapFind(const Value& m, const Value& key) const {
  switch (m.rep) {
    case Rep::kOwned: {
      const auto& entries = MapOf(m).entries;
      if (NumberClass(key) == 3) return std::nullopt;
      const auto it = std::lower_bound(
          entries.begin(), entries.end(), key,
          [](const std::pair<Value, Value>& e, const Value& k) { return KeyLess()(e.first, k); });
      if (it == entries.end() || KeyLess()(key, it->first)) return std::nullopt;
      return it->second;
    }
    case Rep::kDomains:
      return IdsOf(m, key);
    case Rep::kIds: {
      if (key.kind != Kind::kString) return std::nullopt;
      if (m.capacity) {
        const auto it = FindQualified(capacity_, m.text, key.text);
        if (it == capacity_.end()) return std::nullopt;
        return QuantityValue(it->second.milli);
      }
      const auto it = FindQualified(attributes_, m.text, key.text);
      if (it == attributes_.end()) return std::nullopt;
      return AttributeValue(it->first, it->second);
    }
    default:
      return std::nullopt;
  }
}

bool Containers::MapContains(const Value& m, const Value& key) const {
  if (m.rep == Rep::kDomains) {
    if (key.kind != Kind::kString) return false;
    bool found = false;
    const auto check = [&](const auto&, const auto&) { found = true; };
    m.capacity ? ForEachOfDomain(capacity_, key.text, check)
               : ForEachOfDomain(attributes_, key.text, check);
    return found;
  }
  return MapFind(m, key).has_value();
}

Value Containers::Equal(const Value& a, const Value& b) const {
  if (a.kind == Kind::kNull || b.kind == Kind::kNull) return BoolValue(a.kind == b.kind);
  switch (a.kind) {
    case Kind::kQuantity:
      if (b.kind != Kind::kQuantity) return NoSuchOverload();
      return BoolValue(a.i == b.i);
    case Kind::kSemver: {
      if (b.kind != Kind::kSemver) return NoSuchOverload();
      Semver x, y;
      ParseSemver(a.text, &x);
      ParseSemver(b.text, &y);
      return BoolValue(CompareSemver(x, y) == 0);
    }
    case Kind::kBool:
      return BoolValue(b.kind == Kind::kBool && a.b == b.b);
    case Kind::kInt:
    case Kind::kUint:
    case Kind::kDouble:
      return BoolValue(NumberClass(b) == 1 && CompareNumbers(a, b) == 0);
    case Kind::kString:
    case Kind::kBytes:
      return BoolValue(a.kind == b.kind && a.text == b.text);
    case Kind::kList: {
      if (b.kind != Kind::kList || ListSize(a) != ListSize(b)) return BoolValue(false);
      for (size_t i = 0, n = ListSize(a); i < n; ++i) {
        const Value e = Equal(ListAt(a, i), ListAt(b, i));
        if (e.kind == Kind::kBool && !e.b) return e;
      }
      return BoolValue(true);
    }
    case Kind::kMap: {
      if (b.kind != Kind::kMap || MapSize(a) != MapSize(b)) return BoolValue(false);
      for (const Value& k : MapKeys(a)) {
        const std::optional<Value> other = MapFind(b, k);
        if (!other) return BoolValue(false);
        const Value e = Equal(*MapFind(a, k), *other);
        if (e.kind == Kind::kBool && !e.b) return e;
      }
      return BoolValue(true);
    }
    case Kind::kDevice:
      return BoolValue(b.kind == Kind::kDevice);
    case Kind::kError:
      return a;
    case Kind::kNull:
      break;
  }
  return BoolValue(false);
}

Value Containers::Compare(const Value& a, const Value& b) {
  const auto sign = [](auto x, auto y) { return IntValue(x < y ? -1 : x > y ? 1 : 0); };
  if (NumberClass(a) == 1 && NumberClass(b) == 1) {
    const int c = CompareNumbers(a, b);
    if (c == 2) return TextView(Kind::kError, "NaN values cannot be ordered");
    return IntValue(c);
  }
  if (a.kind != b.kind) return NoSuchOverload();
  switch (a.kind) {
    case Kind::kBool:
      return sign(a.b, b.b);
    case Kind::kString:
    case Kind::kBytes:
      return sign(a.text.compare(b.text), 0);
    default:
      return NoSuchOverload();
  }
}

bool Containers::Contains(const Value& list, const Value& needle) const {
  for (size_t i = 0, n = ListSize(list); i < n; ++i) {
    const Value e = Equal(needle, ListAt(list, i));
    if (e.kind == Kind::kBool && e.b) return true;
  }
  return false;
}

}  // namespace knobsim::dra::cel_internal
