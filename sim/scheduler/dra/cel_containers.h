// The lists and maps a CEL evaluation reads, owned by the evaluation or viewing the device (so
// that a selector reads device.attributes without copying them), and what must look inside them:
// sizes, keys, lookups, CEL equality and ordering. The evaluator (cel_eval.h) is one of these.
// Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/cel_value.h"

namespace knobsim::dra::cel_internal {

class Containers {
 public:
  // The device's maps and driver; a null pointer reads as empty.
  explicit Containers(const CelDevice& device);

  // ---- The device's maps, viewed.

  // The domain and id of a qualified name; a name without a domain is the driver's (upstream's
  // parseQualifiedName; the reader qualifies every name, this is for hand-built devices).
  std::string_view DomainOf(std::string_view name) const;
  static std::string_view IdOf(std::string_view name);

  // The value of an attribute: a view of a list attribute, a scalar, or an error for an attribute
  // without a value.
  Value AttributeValue(const std::string& name, const DraAttribute& a) const;
  // Upstream parses every version attribute before evaluating and fails the whole selector on a
  // bad one; here the error comes when the attribute is read.
  static Value VersionValue(std::string_view name, std::string_view text);

  // The size and elements of a list, owned or a list attribute.
  static size_t ListSize(const Value& v);
  static Value ListAt(const Value& v, size_t i);

  // device.attributes[domain] or device.capacity[domain], for the map of domains `domains`.
  Value IdsOf(const Value& domains, const Value& domain) const;
  size_t MapSize(const Value& m) const;
  // The keys in key order (CEL leaves map order open; determinism wants one).
  std::vector<Value> MapKeys(const Value& m) const;
  // The value at `key`, or nullopt when there is none (a device's domain map has every key).
  std::optional<Value> MapFind(const Value& m, const Value& key) const;
  // `key in m`: whether the key is there (a missing domain is not in device.attributes, although
  // looking it up gives an empty map).
  bool MapContains(const Value& m, const Value& key) const;

  // ---- Equality, order.

  // CEL equality (cel-go types.Equal): across numeric kinds by value, false across other kinds,
  // except that a quantity or semver compared with another type is an error, as upstream's
  // Equal methods make it.
  Value Equal(const Value& a, const Value& b) const;
  // The order of <, <=, >, >=: -1, 0 or 1 in `i`, or an error.
  static Value Compare(const Value& a, const Value& b);
  // Whether `list` has an element equal to `needle`.
  bool Contains(const Value& list, const Value& needle) const;

 protected:
  const std::string& driver_;
  const std::map<std::string, DraAttribute>& attributes_;
  const std::map<std::string, DraCapacity>& capacity_;

 private:
  // The entry `domain/id` of one of the device's maps, or the bare `id` in the driver's domain.
  template <class M>
  auto FindQualified(const M& map, std::string_view domain, std::string_view id) const;
  // f(name, value) for each entry of one of the device's maps in `domain`.
  template <class M, class F>
  void ForEachOfDomain(const M& map, std::string_view domain, const F& f) const;
};

}  // namespace knobsim::dra::cel_internal
