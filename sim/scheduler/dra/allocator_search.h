// The working state of one Allocator::Allocate call (allocator.h), shared by the files that
// implement it: allocator.cpp (candidates, the search, counters, the answer) and
// allocator_validate.cpp (the checks of the claims before the search). Not part of the API.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler/dra/allocator.h"
#include "sim/scheduler/dra/constraints.h"

namespace knobsim::dra {

namespace allocator_internal {

// klog.KObj: "namespace/name", or the name alone without a namespace.
inline std::string ClaimRef(const ResourceClaimSpec& claim) {
  return claim.namespace_.empty() ? claim.name : claim.namespace_ + "/" + claim.name;
}

enum class Step { kDone, kNotFound, kMaxSizeExceeded, kError };
enum class Verdict { kNo, kYes, kError };

// A device of a complete, valid pool the node reaches: what the search may pick.
struct Candidate {
  const DraDevice* device = nullptr;
  const ResourceSliceSpec* slice = nullptr;
  int pool = 0;
  bool dedicated = false;                     // in AllocatedState::devices
  const CapacityAmounts* consumed = nullptr;  // AllocatedState::consumed_capacity
  std::vector<int> allocating_claims;         // upstream allocatingDevices: a set of claims
  std::optional<CapacityAmounts> allocating;  // upstream allocatingCapacity
  bool counters_resolved = false;
  std::vector<std::pair<int, int64_t>> counter_use;  // (pool counter slot, amount)

  // Back to a fresh candidate, keeping the lists' buffers.
  void Reset() {
    device = nullptr;
    slice = nullptr;
    pool = 0;
    dedicated = false;
    consumed = nullptr;
    allocating_claims.clear();
    allocating.reset();
    counters_resolved = false;
    counter_use.clear();
  }
};

// A pool's counters: what allocated claims left, and what this allocation takes.
struct PoolCounters {
  bool ready = false;
  std::vector<std::pair<std::string_view, std::string_view>> names;  // (set, counter), sorted
  std::vector<int64_t> available, consumed;
};

// One request, or one firstAvailable entry of a request (upstream requestData).
struct RequestData {
  int claim = 0;
  const DraExactRequest* request = nullptr;
  const DraRequest* parent = nullptr;  // set for a firstAvailable entry
  const DeviceClassSpec* device_class = nullptr;
  // The compiled selectors of the class, then the request's (class_selectors of them first).
  std::vector<AllocatorCache::Selector*> selectors;
  size_t class_selectors = 0;
  int num_devices = 0;
  std::vector<int> all_devices;  // allocation mode All: the candidates, fixed up front

  std::string_view base_name() const { return parent ? parent->name : request->name; }
  std::string_view sub_name() const { return parent ? request->name : std::string_view(); }
  std::string full_name() const {
    return parent ? parent->name + "/" + request->name : request->name;
  }
};

// A request of a claim: its RequestData entries (one per firstAvailable entry).
struct RequestSlot {
  int first = 0;
  int count = 1;
  int selected = 0;  // the firstAvailable entry the solution uses
};

// A device given to a claim so far.
struct Chosen {
  int candidate = 0;
  int request = 0;     // RequestData index
  bool multi = false;  // a multiple allocation of a multi-allocatable device
  bool has_consumed = false;
  CapacityAmounts consumed;
};

// Where the search is: a device of a request (or firstAvailable entry) of a claim.
struct Position {
  int claim = 0, request = 0, sub = 0, device = 0;
};

}  // namespace allocator_internal

struct Allocator::Search {
  using Step = allocator_internal::Step;
  using Verdict = allocator_internal::Verdict;
  using Candidate = allocator_internal::Candidate;
  using PoolCounters = allocator_internal::PoolCounters;
  using RequestData = allocator_internal::RequestData;
  using RequestSlot = allocator_internal::RequestSlot;
  using Chosen = allocator_internal::Chosen;
  using Position = allocator_internal::Position;

  // Inputs of the current call.
  AllocatorFeatures features;
  const AllocatedState* allocated = nullptr;
  const std::vector<DeviceClassSpec>* classes = nullptr;
  AllocatorCache* cache = nullptr;
  const SliceIndex* index = nullptr;
  std::span<const uint8_t> held;  // Allocator::UseHeldByDevice, or empty
  DraNodeRef node;
  const std::vector<const ResourceClaimSpec*>* claims = nullptr;
  int64_t* calls = nullptr;
  bool build_allocations = true;

  std::span<const Pool> pools;                  // the node's, from the cache
  std::vector<PoolCounters> counters;           // per pool
  std::vector<std::pair<int, int>> pool_range;  // per pool: its candidates [first, last)
  std::vector<Candidate> candidates;
  std::vector<RequestData> requests;
  std::vector<RequestSlot> slots;                          // per request of every claim
  std::vector<int> claim_slots;                            // per claim: its first slot
  std::vector<int8_t> matches;                             // requests × candidates: -1 unknown
  std::vector<std::vector<DeviceConstraint>> constraints;  // per claim
  std::vector<std::vector<Chosen>> chosen;                 // per claim
  std::string error;
  // The claims the last Validate passed without allocation mode All (then its checks hold on
  // every node), or empty.
  std::vector<const ResourceClaimSpec*> validated;
  bool asks_all = false;  // some request of the claims being validated asks for all devices

  AllocateResult Run(const SliceIndex& slices);

 private:
  void BuildCandidates();
  bool Validate();
  void ResetSearchState();
  bool ValidateClaim(int claim);
  bool ValidateRequest(int index, const DraExactRequest& request, const DraRequest* parent);
  bool CollectAllDevices(int index);
  bool Fail(std::string message) {
    error = std::move(message);
    return false;
  }

  Step AllocateOne(Position at, bool in_subrequest, int start);
  Step TrySubrequests(Position at);
  Step AllocateAll(Position at, const RequestData& data, bool in_subrequest);
  Step AllocateNext(Position at, int request_index, bool in_subrequest, int start);
  Verdict IsSelectable(int request_index, int candidate);
  Verdict SelectorsMatch(const RequestData& data, const Candidate& c);
  bool FitsCapacity(const RequestData& data, const Candidate& c) const;
  Verdict AllocateDevice(Position at, int request_index, int candidate, bool must);
  Verdict JoinConstraints(int claim, const RequestData& data, const Candidate& c, bool must);
  void TakeCapacity(Chosen& chosen, Candidate& c, const RequestData& data);
  void Deallocate(int claim);
  bool TakeCounters(int candidate);
  void ReleaseCounters(const Candidate& c);
  PoolCounters& CountersOf(int pool);

  AllocateResult BuildResults();
  AllocateResult CheckNodeSelectors();
  AllocateResult NodeSelectorError(size_t claim, const AllocationNodeSelector& selector);

  int RequestIndex(const Position& at) const {
    return slots[claim_slots[at.claim] + at.request].first + at.sub;
  }
  int NumRequests(int claim) const {
    return static_cast<int>((*claims)[claim]->spec.requests.size());
  }
  bool InUse(const Candidate& c) const { return c.dedicated || !c.allocating_claims.empty(); }
  bool CapacityInUse(const Candidate& c) const {
    return c.consumed != nullptr || c.allocating.has_value();
  }
  static bool AllocatingFor(const Candidate& c, int claim) {
    return std::find(c.allocating_claims.begin(), c.allocating_claims.end(), claim) !=
           c.allocating_claims.end();
  }
  std::string DeviceName(const Candidate& c) const {
    return c.slice->driver + "/" + c.slice->pool + "/" + c.device->name;
  }
};

}  // namespace knobsim::dra
