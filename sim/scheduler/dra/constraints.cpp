#include "sim/scheduler/dra/constraints.h"

#include <algorithm>

namespace knobsim::dra {
namespace {

// Whether the attribute holds one value of a kind the incubating allocator compares.
bool IsScalar(const DraAttribute& a) {
  if (a.list) return false;
  switch (a.kind) {
    case DraAttribute::Kind::kInt:
    case DraAttribute::Kind::kBool:
      return a.ints.size() == 1;
    case DraAttribute::Kind::kString:
    case DraAttribute::Kind::kVersion:
      return a.strings.size() == 1;
  }
  return false;
}

// Same kind and same value; both scalar.
bool SameValue(const DraAttribute& a, const DraAttribute& b) {
  if (a.kind != b.kind || !IsScalar(a) || !IsScalar(b)) return false;
  if (a.kind == DraAttribute::Kind::kInt || a.kind == DraAttribute::Kind::kBool) {
    return a.ints.front() == b.ints.front();
  }
  return a.strings.front() == b.strings.front();
}

// "<request>/<subrequest>" == name, without building the string.
bool IsQualifiedName(std::string_view name, std::string_view request, std::string_view sub) {
  return name.size() == request.size() + 1 + sub.size() && name.starts_with(request) &&
         name[request.size()] == '/' && name.ends_with(sub);
}

}  // namespace

const DraAttribute* LookupAttribute(const DraDevice& device, std::string_view driver,
                                    const std::string& name) {
  if (const auto it = device.attributes.find(name); it != device.attributes.end()) {
    return &it->second;
  }
  const size_t slash = name.find('/');
  if (slash == std::string::npos || std::string_view(name).substr(0, slash) != driver) {
    return nullptr;
  }
  const auto it = device.attributes.find(name.substr(slash + 1));
  return it == device.attributes.end() ? nullptr : &it->second;
}

DeviceConstraint::DeviceConstraint(const DraConstraint& spec)
    : spec_(&spec), distinct_(spec.match_attribute.empty()) {}

bool DeviceConstraint::Applies(std::string_view request, std::string_view subrequest) const {
  const std::vector<std::string>& names = spec_->requests;
  if (names.empty()) return true;
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return name == request || (!subrequest.empty() && IsQualifiedName(name, request, subrequest));
  });
}

bool DeviceConstraint::MatchesFirst(const DraAttribute& value) const {
  // Upstream switches on the new value's kind; an unknown kind never matches.
  return IsScalar(value) && SameValue(value, *first_);
}

bool DeviceConstraint::DistinctFromKept(const DraAttribute& value) const {
  for (const auto& [request, kept] : kept_) {
    if (!IsScalar(value)) return false;  // unknown kind: upstream refuses it
    if (SameValue(value, *kept)) return false;
  }
  return true;
}

bool DeviceConstraint::Add(std::string_view request, std::string_view subrequest,
                           const DraDevice& device, std::string_view driver) {
  if (!Applies(request, subrequest)) return true;
  const std::string& name = distinct_ ? spec_->distinct_attribute : spec_->match_attribute;
  const DraAttribute* value = LookupAttribute(device, driver, name);
  if (value == nullptr) return false;
  if (num_devices_ > 0 && !(distinct_ ? DistinctFromKept(*value) : MatchesFirst(*value))) {
    return false;
  }
  if (distinct_) {
    const auto it = std::find_if(kept_.begin(), kept_.end(),
                                 [&](const auto& entry) { return entry.first == request; });
    if (it == kept_.end()) {
      kept_.emplace_back(request, value);
    } else {
      it->second = value;
    }
  } else if (num_devices_ == 0) {
    first_ = value;
  }
  ++num_devices_;
  return true;
}

void DeviceConstraint::Remove(std::string_view request, std::string_view subrequest) {
  if (!Applies(request, subrequest)) return;
  if (distinct_) {
    // Upstream deletes the request's entry even when another device of it is still in.
    std::erase_if(kept_, [&](const auto& entry) { return entry.first == request; });
  }
  --num_devices_;
}

}  // namespace knobsim::dra
