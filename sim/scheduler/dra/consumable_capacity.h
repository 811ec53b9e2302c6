// Consumable capacity (KEP-5075, DRAConsumableCapacity): how much of a device's capacity one
// request takes, and whether it still fits beside what other allocations took. Upstream:
// k8s.io/dynamic-resource-allocation structured/internal/incubating/consumable_capacity.go.
//
// A request names amounts per capacity (`capacity.requests`); a capacity it does not name is
// taken whole, or by its requestPolicy's default. An amount is rounded up to what the policy
// allows (the next validValue; within validRange, to min and then to min + k·step) and must
// then not violate it (above max, off the step grid, not a valid value), unless it equals the
// default. Amounts are milli-units (sim/kube_dra.h); validRange steps are computed in whole
// units as upstream computes them (resource.Quantity.Value(), rounded up).
//
// Capacity names: a device's are fully qualified (`<driver>/<id>`); a request may name one
// without the domain, which then means the device's driver's (the API's QualifiedName rule).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sim/kube_dra.h"

namespace knobsim::dra {

using CapacityAmounts = std::map<std::string, int64_t>;  // capacity name -> milli-units

// The amount a request takes of one capacity: `requested` (nullptr when the request names
// none) rounded up per the policy (upstream calculateConsumedCapacity).
int64_t ConsumedAmount(const int64_t* requested, const DraCapacity& capacity);

// Whether `amount` breaks the capacity's request policy (upstream violatesPolicy).
bool ViolatesPolicy(int64_t amount, const std::optional<DraCapacityPolicy>& policy);

enum class CapacityFit {
  kFits,
  kExceeds,         // over the capacity, or against its policy
  kUnknownCapacity  // the request names a capacity the device lacks (upstream: an error that
                    // callers treat as "device does not fit")
};

// Upstream CmpRequestOverCapacity: whether `requests` fit on a device with `capacity` on top of
// `consumed` (by allocated claims) and `allocating` (by this allocation so far); either may be
// nullptr for none.
CapacityFit FitsCapacity(const CapacityAmounts* consumed, const CapacityAmounts& requests,
                         std::string_view driver,
                         const std::map<std::string, DraCapacity>& capacity,
                         const CapacityAmounts* allocating);

// ConsumedCapacity.Add: `amounts` added to `to`, name by name.
void AddAmounts(CapacityAmounts& to, const CapacityAmounts& amounts);
// ConsumedCapacity.Sub then Empty(): `amounts` subtracted from the names `from` holds; whether
// every amount left is zero.
bool SubtractAmounts(CapacityAmounts& from, const CapacityAmounts& amounts);

// Upstream GetConsumedCapacityFromRequest: what the request takes of every capacity of the
// device, keyed by the device's capacity names (zero amounts included).
CapacityAmounts ConsumedCapacity(const CapacityAmounts& requests, std::string_view driver,
                                 const std::map<std::string, DraCapacity>& capacity);

}  // namespace knobsim::dra
