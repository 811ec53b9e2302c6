#include "sim/scheduler/dra/consumable_capacity.h"

#include <algorithm>

namespace knobsim::dra {
namespace {

constexpr int64_t kMilli = 1000;

// resource.Quantity.Value(): whole units, rounded up (amounts here are not negative).
int64_t WholeUnits(int64_t milli) {
  return milli >= 0 ? (milli + kMilli - 1) / kMilli : milli / kMilli;
}

// The amount the request names for the device capacity `name`, or nullptr.
const int64_t* Requested(const CapacityAmounts& requests, std::string_view driver,
                         const std::string& name) {
  if (requests.empty()) return nullptr;
  if (const auto it = requests.find(name); it != requests.end()) return &it->second;
  // A request may leave out the driver's own domain.
  if (name.size() > driver.size() && name.compare(0, driver.size(), driver) == 0 &&
      name[driver.size()] == '/') {
    const auto it = requests.find(name.substr(driver.size() + 1));
    if (it != requests.end()) return &it->second;
  }
  return nullptr;
}

// Upstream requestsContainNonExistCapacity.
bool NamesUnknownCapacity(const CapacityAmounts& requests, std::string_view driver,
                          const std::map<std::string, DraCapacity>& capacity) {
  for (const auto& [name, amount] : requests) {
    if (capacity.contains(name)) continue;
    if (name.find('/') == std::string::npos &&
        capacity.contains(std::string(driver) + "/" + name)) {
      continue;
    }
    return true;
  }
  return false;
}

// Upstream roundUpRange: up to min, then up to min + k·step, in whole units.
int64_t RoundUpRange(int64_t requested, const DraCapacityPolicy& policy) {
  const int64_t min = policy.min_milli.value_or(0);
  if (requested < min) return min;
  if (!policy.step_milli) return requested;
  const int64_t step = WholeUnits(*policy.step_milli);
  if (step <= 0) return requested;
  const int64_t added = WholeUnits(requested) - WholeUnits(min);
  int64_t n = added / step;
  if (added % step != 0) ++n;
  return (WholeUnits(min) + step * n) * kMilli;
}

// Upstream roundUpValidValues: the first valid value at least `requested`, else `requested`.
int64_t RoundUpValidValues(int64_t requested, const std::vector<int64_t>& valid) {
  for (int64_t value : valid) {
    if (requested <= value) return value;
  }
  return requested;
}

bool ViolatesRange(int64_t amount, const DraCapacityPolicy& policy) {
  if (policy.max_milli && amount > *policy.max_milli) return true;
  if (policy.step_milli) {
    const int64_t step = WholeUnits(*policy.step_milli);
    const int64_t added = WholeUnits(amount) - WholeUnits(policy.min_milli.value_or(0));
    if (step != 0 && added % step != 0) return true;  // off the step grid
  }
  return false;
}

}  // namespace

int64_t ConsumedAmount(const int64_t* requested, const DraCapacity& capacity) {
  const std::optional<DraCapacityPolicy>& policy = capacity.request_policy;
  if (requested == nullptr) {
    return policy && policy->default_milli ? *policy->default_milli : capacity.milli;
  }
  if (!policy) return *requested;
  if (policy->has_range && policy->min_milli) return RoundUpRange(*requested, *policy);
  if (!policy->valid_values_milli.empty()) {
    return RoundUpValidValues(*requested, policy->valid_values_milli);
  }
  return *requested;
}

bool ViolatesPolicy(int64_t amount, const std::optional<DraCapacityPolicy>& policy) {
  if (!policy) return false;
  // Upstream compares the Quantity structs; equal values is what that is meant to test.
  if (policy->default_milli && amount == *policy->default_milli) return false;
  if (policy->has_range) return ViolatesRange(amount, *policy);
  if (!policy->valid_values_milli.empty()) {
    const auto& valid = policy->valid_values_milli;
    return std::find(valid.begin(), valid.end(), amount) == valid.end();
  }
  return false;
}

CapacityFit FitsCapacity(const CapacityAmounts* consumed, const CapacityAmounts& requests,
                         std::string_view driver,
                         const std::map<std::string, DraCapacity>& capacity,
                         const CapacityAmounts* allocating) {
  if (NamesUnknownCapacity(requests, driver, capacity)) return CapacityFit::kUnknownCapacity;
  for (const auto& [name, cap] : capacity) {
    const int64_t amount = ConsumedAmount(Requested(requests, driver, name), cap);
    if (ViolatesPolicy(amount, cap.request_policy)) return CapacityFit::kExceeds;
    int64_t total = amount;
    if (consumed != nullptr) {
      if (const auto it = consumed->find(name); it != consumed->end()) total += it->second;
    }
    if (allocating != nullptr) {
      if (const auto it = allocating->find(name); it != allocating->end()) total += it->second;
    }
    if (total > cap.milli) return CapacityFit::kExceeds;
  }
  return CapacityFit::kFits;
}

CapacityAmounts ConsumedCapacity(const CapacityAmounts& requests, std::string_view driver,
                                 const std::map<std::string, DraCapacity>& capacity) {
  CapacityAmounts consumed;
  for (const auto& [name, cap] : capacity) {
    consumed.emplace(name, ConsumedAmount(Requested(requests, driver, name), cap));
  }
  return consumed;
}

void AddAmounts(CapacityAmounts& to, const CapacityAmounts& amounts) {
  for (const auto& [name, amount] : amounts) to[name] += amount;
}

bool SubtractAmounts(CapacityAmounts& from, const CapacityAmounts& amounts) {
  for (const auto& [name, amount] : amounts) {
    if (const auto it = from.find(name); it != from.end()) it->second -= amount;
  }
  return std::all_of(from.begin(), from.end(), [](const auto& entry) { return entry.second == 0; });
}

}  // namespace knobsim::dra
