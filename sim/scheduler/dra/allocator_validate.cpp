// The checks of the claims before the search (upstream: the top of Allocate), part of
// Allocator::Search (allocator_search.h).
#include <fmt/format.h>

#include <climits>
#include <string>

#include "sim/scheduler/dra/allocator_search.h"

namespace knobsim::dra {

using allocator_internal::ClaimRef;
using Verdict = Allocator::Search::Verdict;

bool Allocator::Search::Validate() {
  // Without allocation mode All, nothing checked here depends on the node: the same claims
  // passed on the previous node pass here, and only the search state is reset.
  if (!validated.empty() && validated == *claims) {
    ResetSearchState();
    return true;
  }
  validated.clear();
  asks_all = false;
  const int num_claims = static_cast<int>(claims->size());
  requests.clear();
  slots.clear();
  claim_slots.clear();
  for (const ResourceClaimSpec* claim : *claims) {
    claim_slots.push_back(static_cast<int>(slots.size()));
    for (const DraRequest& request : claim->spec.requests) {
      RequestSlot& slot = slots.emplace_back();
      slot.first = static_cast<int>(requests.size());
      slot.count =
          request.first_available.empty() ? 1 : static_cast<int>(request.first_available.size());
      requests.resize(requests.size() + slot.count);
    }
  }
  matches.assign(requests.size() * candidates.size(), -1);
  constraints.clear();
  constraints.resize(num_claims);
  chosen.resize(num_claims);
  for (int claim = 0; claim < num_claims; ++claim) {
    chosen[claim].clear();
    if (!ValidateClaim(claim)) return false;
  }
  if (!asks_all) validated = *claims;
  return true;
}

void Allocator::Search::ResetSearchState() {
  matches.assign(requests.size() * candidates.size(), -1);
  for (size_t claim = 0; claim < claims->size(); ++claim) {
    chosen[claim].clear();
    constraints[claim].clear();
    for (const DraConstraint& constraint : (*claims)[claim]->spec.constraints)
      constraints[claim].emplace_back(constraint);
  }
}

bool Allocator::Search::ValidateClaim(int claim_index) {
  const ResourceClaimSpec& claim = *(*claims)[claim_index];
  const auto ref = [&] { return ClaimRef(claim); };  // only messages need it
  int64_t min_devices = 0;
  for (int r = 0; r < NumRequests(claim_index); ++r) {
    const DraRequest& request = claim.spec.requests[r];
    const RequestSlot& slot = slots[claim_slots[claim_index] + r];
    const bool has_subrequests = !request.first_available.empty();
    if (!features.prioritized_list && has_subrequests) {
      return Fail(fmt::format(
          "claim {}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
          ref(), request.name));
    }
    if (!features.consumable_capacity) {
      if (request.exactly && !request.exactly->capacity_requests_milli.empty()) {
        return Fail(
            fmt::format("claim {}, request {}: has capacity requests, but the "
                        "DRAConsumableCapacity feature is disabled",
                        ref(), request.name));
      }
      for (const DraExactRequest& sub : request.first_available) {
        if (!sub.capacity_requests_milli.empty()) {
          return Fail(
              fmt::format("claim {}, subrequest {}: has capacity requests, but the "
                          "DRAConsumableCapacity feature is disabled",
                          ref(), sub.name));
        }
      }
    }
    for (int i = 0; i < slot.count; ++i) requests[slot.first + i].claim = claim_index;
    if (has_subrequests) {
      int fewest = INT_MAX;
      for (int i = 0; i < slot.count; ++i) {
        if (!ValidateRequest(slot.first + i, request.first_available[i], &request)) return false;
        fewest = std::min(fewest, requests[slot.first + i].num_devices);
      }
      min_devices += fewest;
    } else {
      if (!request.exactly) {
        return Fail(fmt::format(
            "claim {}, request {}: missing device class name (unsupported request type?)", ref(),
            request.name));
      }
      if (!ValidateRequest(slot.first, *request.exactly, nullptr)) return false;
      min_devices += requests[slot.first].num_devices;
    }
  }
  // Only a lower bound with firstAvailable: the search checks the limit again as it goes.
  if (min_devices > kAllocationResultsMaxSize) {
    return Fail(
        fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}", ref(),
                    min_devices, kAllocationResultsMaxSize));
  }
  for (size_t i = 0; i < claim.spec.constraints.size(); ++i) {
    const DraConstraint& constraint = claim.spec.constraints[i];
    if (constraint.match_attribute.empty() && constraint.distinct_attribute.empty()) {
      return Fail(fmt::format(
          "claim {}, constraint #{}: empty constraint (unsupported constraint type?)", ref(), i));
    }
    constraints[claim_index].emplace_back(constraint);
  }
  chosen[claim_index].reserve(static_cast<size_t>(min_devices));
  return true;
}

// Upstream validateDeviceRequest.
bool Allocator::Search::ValidateRequest(int index, const DraExactRequest& request,
                                        const DraRequest* parent) {
  RequestData& data = requests[index];
  data.request = &request;
  data.parent = parent;
  data.device_class = nullptr;
  data.all_devices.clear();
  const auto ref = [&] { return ClaimRef(*(*claims)[data.claim]); };
  for (size_t i = 0; i < request.selectors.size(); ++i) {
    if (request.selectors[i].empty()) {
      return Fail(fmt::format(
          "claim {}, request {}, selector #{}: CEL expression empty (unsupported selector type?)",
          ref(), request.name, i));
    }
  }
  if (!features.admin_access && request.admin_access) {
    return Fail(
        fmt::format("claim {}, request {}: admin access is requested, but the feature is disabled",
                    ref(), request.name));
  }
  if (request.device_class_name.empty()) {
    return Fail(
        fmt::format("claim {}, request {}: missing device class name (unsupported request type?)",
                    ref(), request.name));
  }
  for (const DeviceClassSpec& device_class : *classes) {
    if (device_class.name == request.device_class_name) data.device_class = &device_class;
  }
  if (data.device_class == nullptr) {
    // The text of the informer lister's NotFound error, as the scheduler wraps it.
    return Fail(
        fmt::format("claim {}, request {}: could not retrieve device class {}: "
                    "deviceclass.resource.k8s.io \"{}\" not found",
                    ref(), request.name, request.device_class_name, request.device_class_name));
  }
  data.selectors.clear();
  for (const std::string& e : data.device_class->selectors)
    data.selectors.push_back(&cache->Get(e));
  data.class_selectors = data.selectors.size();
  for (const std::string& e : request.selectors) data.selectors.push_back(&cache->Get(e));
  if (!request.all) {
    if (request.count > INT_MAX) {
      return Fail(fmt::format("claim {}, request {}: exact count {} is too large", ref(),
                              request.name, request.count));
    }
    data.num_devices = static_cast<int>(request.count);
    return true;
  }
  asks_all = true;
  return CollectAllDevices(index);
}

// Allocation mode All: every matching device of every pool the node sees, which must all be
// complete and valid (upstream would rather wait than allocate "all" of a partial pool).
bool Allocator::Search::CollectAllDevices(int index) {
  RequestData& data = requests[index];
  const auto ref = [&] { return ClaimRef(*(*claims)[data.claim]); };
  for (size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].incomplete || pools[p].invalid) {
      return Fail(fmt::format(
          "claim {}, request {}: asks for all devices, but resource pool {} is currently {}", ref(),
          data.request->name, pools[p].Id(), pools[p].incomplete ? "being updated" : "invalid"));
    }
    for (int c = pool_range[p].first; c < pool_range[p].second; ++c) {
      const Verdict selectable = IsSelectable(index, c);
      if (selectable == Verdict::kError) return false;
      if (selectable == Verdict::kNo) continue;
      if (features.consumable_capacity && !FitsCapacity(data, candidates[c])) continue;
      data.all_devices.push_back(c);
    }
  }
  data.num_devices = static_cast<int>(data.all_devices.size());
  return true;
}

}  // namespace knobsim::dra
