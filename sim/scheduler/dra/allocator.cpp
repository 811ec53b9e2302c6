#include "sim/scheduler/dra/allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <span>
#include <utility>

#include "sim/scheduler/dra/allocator_search.h"
#include "sim/scheduler/dra/device_taints.h"
#include "sim/scheduler/dra/held_devices.h"

namespace knobsim::dra {

using allocator_internal::ClaimRef;
using Step = Allocator::Search::Step;
using Verdict = Allocator::Search::Verdict;
using Position = Allocator::Search::Position;
using RequestData = Allocator::Search::RequestData;
using Candidate = Allocator::Search::Candidate;
using PoolCounters = Allocator::Search::PoolCounters;

Allocator::Allocator(AllocatorFeatures features, const AllocatedState& allocated,
                     const std::vector<DeviceClassSpec>& classes, const SliceIndex& slices,
                     AllocatorCache& cache)
    : features_(features),
      allocated_(&allocated),
      classes_(&classes),
      slices_(&slices),
      cache_(&cache),
      search_(std::make_unique<Search>()) {}

Allocator::~Allocator() = default;

AllocateResult Allocator::Allocate(const DraNodeRef& node,
                                   const std::vector<const ResourceClaimSpec*>& claims,
                                   bool build_allocations) {
  Search& s = *search_;
  s.features = features_;
  s.allocated = allocated_;
  s.classes = classes_;
  s.cache = cache_;
  s.node = node;
  s.claims = &claims;
  s.calls = &allocate_one_calls_;
  s.build_allocations = build_allocations;
  s.held = held_.size() == static_cast<size_t>(slices_->device_count())
               ? held_
               : std::span<const uint8_t>();
  return s.Run(*slices_);
}

AllocateResult Allocator::Search::Run(const SliceIndex& slices) {
  index = &slices;
  pools = cache->PoolsOf(slices, node, features.partitionable_devices);
  BuildCandidates();
  AllocateResult result;
  if (!Validate()) {
    result.outcome = AllocateResult::Outcome::kError;
    result.message = std::move(error);
    return result;
  }
  switch (AllocateOne(Position{}, false, 0)) {
    case Step::kDone:
      return BuildResults();
    case Step::kError:
      result.outcome = AllocateResult::Outcome::kError;
      result.message = std::move(error);
      return result;
    case Step::kMaxSizeExceeded:  // upstream lets this sentinel escape as the error
      result.outcome = AllocateResult::Outcome::kError;
      result.message = "allocation max size exceeded";
      return result;
    case Step::kNotFound:
      break;
  }
  // Not a fatal error: the pool may be fine on another node, and maybe nothing would fit anyway.
  const bool invalid_pool =
      std::any_of(pools.begin(), pools.end(), [](const Pool& p) { return p.invalid; });
  if (invalid_pool) result.message = std::string(kReasonInvalidPools);
  return result;
}

void Allocator::Search::BuildCandidates() {
  // Candidates are reused rather than cleared, so their lists keep their buffers from node to
  // node; the first `used` are this node's.
  size_t used = 0;
  pool_range.clear();
  counters.assign(pools.size(), PoolCounters{});
  for (size_t p = 0; p < pools.size(); ++p) {
    const Pool& pool = pools[p];
    const int first = static_cast<int>(used);
    if (!pool.incomplete && !pool.invalid) {
      // What allocated claims hold in this pool: usually nothing, else a few devices. Read from
      // the table where there is one, else searched once per pool.
      using Devices = decltype(allocated->devices);
      using Consumed = decltype(allocated->consumed_capacity);
      std::pair<Devices::const_iterator, Devices::const_iterator> dedicated;
      std::pair<Consumed::const_iterator, Consumed::const_iterator> taken;
      if (held.empty()) {
        dedicated = PoolEntries(allocated->devices, pool.driver, pool.name);
        taken = PoolEntries(allocated->consumed_capacity, pool.driver, pool.name);
      }
      for (const ResourceSliceSpec* slice : pool.slices) {
        for (const DraDevice& device : slice->devices) {
          if (used == candidates.size()) candidates.emplace_back();
          Candidate& c = candidates[used++];
          c.Reset();
          c.device = &device;
          c.slice = slice;
          c.pool = static_cast<int>(p);
          if (!held.empty()) {
            const uint8_t flags = held[index->DeviceOrdinal(*slice, device)];
            c.dedicated = (flags & kHeldDedicated) != 0;
            if ((flags & kHeldConsumed) != 0) {
              c.consumed = &allocated->consumed_capacity
                                .find(DeviceIdLess::View{pool.driver, pool.name, device.name})
                                ->second;
            }
            continue;
          }
          c.dedicated = std::any_of(dedicated.first, dedicated.second,
                                    [&](const DeviceId& id) { return id.device == device.name; });
          const auto consumed = std::find_if(taken.first, taken.second, [&](const auto& entry) {
            return entry.first.device == device.name;
          });
          if (consumed != taken.second) c.consumed = &consumed->second;
        }
      }
    }
    pool_range.emplace_back(first, static_cast<int>(used));
  }
  candidates.resize(used);
}

// ---- The search (upstream allocateOne) --------------------------------------------------------

// One step: the next device of the request at `at`, or the next request, or the next claim.
// `start`: the first candidate to try for this device; later devices of the same request start
// after the previous one, so that a request tries combinations, not permutations.
Step Allocator::Search::AllocateOne(Position at, bool in_subrequest, int start) {
  ++*calls;
  if (at.claim >= static_cast<int>(claims->size())) return Step::kDone;
  if (at.request >= NumRequests(at.claim)) {
    const Step next = AllocateOne(Position{at.claim + 1, 0, 0, 0}, false, 0);
    // A later claim over the limit is no reason to give up on this one's other choices.
    return next == Step::kMaxSizeExceeded ? Step::kNotFound : next;
  }
  const int index = RequestIndex(at);
  const RequestData& data = requests[index];
  if (!in_subrequest && data.parent != nullptr) return TrySubrequests(at);

  if (data.request->all && data.all_devices.empty()) return Step::kNotFound;
  if (at.device >= data.num_devices) {
    return AllocateOne(Position{at.claim, at.request + 1, 0, 0}, false, 0);
  }
  // Would this request's remaining devices take the claim over the limit?
  const size_t after = chosen[at.claim].size() + data.num_devices - at.device;
  if (after > static_cast<size_t>(kAllocationResultsMaxSize)) return Step::kMaxSizeExceeded;
  if (data.request->all) return AllocateAll(at, data, in_subrequest);
  return AllocateNext(at, index, in_subrequest, start);
}

// firstAvailable: the first entry that leads to a solution.
Step Allocator::Search::TrySubrequests(Position at) {
  RequestSlot& slot = slots[claim_slots[at.claim] + at.request];
  bool all_exceeded = true;
  for (int sub = 0; sub < slot.count; ++sub) {
    at.sub = sub;
    const Step step = AllocateOne(at, true, 0);
    // Over the limit: a later entry may ask for fewer devices.
    if (step == Step::kMaxSizeExceeded) continue;
    all_exceeded = false;
    if (step == Step::kError) return step;
    if (step == Step::kDone) {
      slot.selected = sub;
      return step;
    }
  }
  // Every entry over the limit: no choice for the requests before this one helps either.
  return all_exceeded ? Step::kMaxSizeExceeded : Step::kNotFound;
}

// Allocation mode All: the devices are known; each must be allocatable, in any order.
Step Allocator::Search::AllocateAll(Position at, const RequestData& data, bool in_subrequest) {
  const int index = RequestIndex(at);
  const Verdict verdict = AllocateDevice(at, index, data.all_devices[at.device], true);
  if (verdict == Verdict::kError) return Step::kError;
  if (verdict == Verdict::kNo) return Step::kNotFound;
  const Step step =
      AllocateOne(Position{at.claim, at.request, at.sub, at.device + 1}, in_subrequest, 0);
  if (step != Step::kDone) Deallocate(at.claim);
  return step;
}

// ExactCount: try each remaining candidate in order.
Step Allocator::Search::AllocateNext(Position at, int index, bool in_subrequest, int start) {
  const bool admin = requests[index].request->admin_access;
  for (int c = start; c < static_cast<int>(candidates.size()); ++c) {
    const Candidate& candidate = candidates[c];
    // Checking "in use" is cheap and thus done first.
    if (admin ? AllocatingFor(candidate, at.claim) : InUse(candidate)) continue;
    const Verdict selectable = IsSelectable(index, c);
    if (selectable == Verdict::kError) return Step::kError;
    if (selectable == Verdict::kNo) continue;
    if (features.consumable_capacity && !FitsCapacity(requests[index], candidate)) continue;
    const Verdict allocated = AllocateDevice(at, index, c, false);
    if (allocated == Verdict::kError) return Step::kError;
    if (allocated == Verdict::kNo) continue;
    const Step step =
        AllocateOne(Position{at.claim, at.request, at.sub, at.device + 1}, in_subrequest, c + 1);
    if (step == Step::kDone) return step;
    Deallocate(at.claim);
    if (step != Step::kNotFound) return step;  // an error, or the limit: the caller decides
  }
  return Step::kNotFound;
}

// Upstream isSelectable: class selectors, request selectors, per-device node selection. The
// answer does not depend on what is allocated, so it is remembered per request and device.
Verdict Allocator::Search::IsSelectable(int index, int candidate) {
  const Candidate& c = candidates[candidate];
  if (!features.device_binding_and_status && !c.device->binding_conditions.empty()) {
    return Verdict::kNo;
  }
  int8_t& known = matches[static_cast<size_t>(index) * candidates.size() + candidate];
  if (known >= 0) return known ? Verdict::kYes : Verdict::kNo;
  const RequestData& data = requests[index];
  Verdict verdict = SelectorsMatch(data, c);
  if (verdict == Verdict::kError) return verdict;
  if (verdict == Verdict::kYes && c.slice->per_device_node_selection &&
      !NodeMatches(node, c.device->node_name, c.device->all_nodes, c.device->node_selector)) {
    verdict = Verdict::kNo;
  }
  known = verdict == Verdict::kYes ? 1 : 0;
  return verdict;
}

// All selectors of the class, then of the request, must match; the first error stops.
Verdict Allocator::Search::SelectorsMatch(const RequestData& data, const Candidate& c) {
  for (size_t i = 0; i < data.selectors.size(); ++i) {
    const bool of_class = i < data.class_selectors;
    const size_t number = of_class ? i : i - data.class_selectors;  // "selector #n" of its owner
    const auto owner = [&] {                                        // only messages need it
      return of_class ? "class " + data.device_class->name
                      : "claim " + ClaimRef(*(*claims)[data.claim]);
    };
    AllocatorCache::Selector& selector = *data.selectors[i];
    if (!selector.compiled.ok()) {
      Fail(fmt::format("{}: selector #{}: CEL compile error: {}", owner(), number,
                       selector.compiled.error));
      return Verdict::kError;
    }
    if (selector.serial != index->serial()) {
      selector.serial = index->serial();
      selector.verdicts.assign(static_cast<size_t>(index->device_count()), -1);
    }
    int8_t& verdict = selector.verdicts[index->DeviceOrdinal(*c.slice, *c.device)];
    if (verdict < 0) {
      const CelResult result = selector.compiled.value->Evaluate(
          CelDevice{&c.slice->driver, &c.device->attributes, &c.device->capacity,
                    c.device->allow_multiple_allocations});
      if (!result.error.empty()) {
        Fail(fmt::format("{}: selector #{} on device {}: CEL runtime error: {}", owner(), number,
                         DeviceName(c), result.error));
        return Verdict::kError;
      }
      verdict = result.matches ? 1 : 0;
    }
    if (verdict == 0) return Verdict::kNo;
  }
  return Verdict::kYes;
}

// Upstream CmpRequestOverCapacity for this request on this device, now.
bool Allocator::Search::FitsCapacity(const RequestData& data, const Candidate& c) const {
  return dra::FitsCapacity(c.consumed, data.request->capacity_requests_milli, c.slice->driver,
                           c.device->capacity,
                           c.allocating ? &*c.allocating : nullptr) == CapacityFit::kFits;
}

// Upstream allocateDevice: checks availability, counters, taints and constraints for one
// candidate and, when all pass, records it in `chosen` as allocated. `must`: the caller wants
// exactly this device (allocation mode All), so a constraint refusing it is an error of the
// claim. Deallocate undoes a kYes.
Verdict Allocator::Search::AllocateDevice(Position at, int index, int candidate, bool must) {
  const RequestData& data = requests[index];
  Candidate& c = candidates[candidate];
  const bool multi = features.consumable_capacity && c.device->allow_multiple_allocations;
  const bool admin = data.request->admin_access;
  if (!multi && admin && AllocatingFor(c, at.claim)) return Verdict::kNo;
  if (!admin && InUse(c)) return Verdict::kNo;
  const bool consumes_counters = !c.device->consumes_counters.empty();
  if (!features.partitionable_devices && consumes_counters) return Verdict::kNo;
  // A multi-allocatable device already in use took its counters with its first share.
  const bool skip_counters = multi && CapacityInUse(c);
  // Upstream quirk kept (allocator.h): counters taken here stay taken when a later check fails.
  if (!skip_counters && consumes_counters && !TakeCounters(candidate)) return Verdict::kNo;
  if (features.device_taints && TaintPreventsAllocation(*c.device, data.request->tolerations)) {
    return Verdict::kNo;
  }
  const Verdict joined = JoinConstraints(at.claim, data, c, must);
  if (joined != Verdict::kYes) return joined;
  if (!multi && !AllocatingFor(c, at.claim)) c.allocating_claims.push_back(at.claim);
  Chosen chosen_device;
  chosen_device.candidate = candidate;
  chosen_device.request = index;
  chosen_device.multi = multi;
  if (features.consumable_capacity) {
    // The ExactCount scan checked this just before and nothing since changes capacity, so
    // upstream's second check can only fail in allocation mode All (`must`); it then returns
    // without undoing the steps above, which is kept.
    if (must && !FitsCapacity(data, c)) return Verdict::kNo;
    if (multi) TakeCapacity(chosen_device, c, data);
  }
  chosen[at.claim].push_back(std::move(chosen_device));
  return Verdict::kYes;
}

Verdict Allocator::Search::JoinConstraints(int claim, const RequestData& data, const Candidate& c,
                                           bool must) {
  std::vector<DeviceConstraint>& list = constraints[claim];
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].Add(data.base_name(), data.sub_name(), *c.device, c.slice->driver)) continue;
    if (must) {
      // A claim whose constraint keeps it from getting all devices makes no sense.
      Fail(
          fmt::format("claim {}, request {}: cannot add device {} because a claim constraint "
                      "would not be satisfied",
                      ClaimRef(*(*claims)[claim]), data.request->name, DeviceName(c)));
      return Verdict::kError;
    }
    for (size_t e = 0; e < i; ++e) list[e].Remove(data.base_name(), data.sub_name());
    return Verdict::kNo;
  }
  return Verdict::kYes;
}

void Allocator::Search::TakeCapacity(Chosen& chosen_device, Candidate& c, const RequestData& data) {
  chosen_device.consumed =
      ConsumedCapacity(data.request->capacity_requests_milli, c.slice->driver, c.device->capacity);
  chosen_device.has_consumed = !chosen_device.consumed.empty();
  if (c.allocating) {
    AddAmounts(*c.allocating, chosen_device.consumed);
  } else {
    c.allocating = chosen_device.consumed;
  }
}

// The rollback of the last AllocateDevice of `claim`.
void Allocator::Search::Deallocate(int claim) {
  const Chosen& last = chosen[claim].back();
  Candidate& c = candidates[last.candidate];
  const RequestData& data = requests[last.request];
  for (DeviceConstraint& constraint : constraints[claim]) {
    constraint.Remove(data.base_name(), data.sub_name());
  }
  std::erase(c.allocating_claims, claim);
  if (last.multi) {
    // Upstream quirk kept: neither counters nor an empty consumption are given back.
    if (last.has_consumed && c.allocating && SubtractAmounts(*c.allocating, last.consumed)) {
      c.allocating.reset();
    }
  } else if (features.partitionable_devices && !c.device->consumes_counters.empty()) {
    ReleaseCounters(c);
  }
  chosen[claim].pop_back();
}

// ---- Shared counters (partitionable devices) --------------------------------------------------

// The pool's counters minus what allocated devices (on any node) consume, computed on first
// use. Negative availability is possible (over-allocation) and simply leaves nothing.
PoolCounters& Allocator::Search::CountersOf(int pool_index) {
  PoolCounters& pc = counters[pool_index];
  if (pc.ready) return pc;
  pc.ready = true;
  const Pool& pool = pools[pool_index];
  for (const auto& [set_name, set] : pool.counter_sets) {
    for (const auto& [counter, amount] : set->counters_milli) {
      pc.names.emplace_back(set_name, counter);
      pc.available.push_back(amount);
    }
  }
  pc.consumed.assign(pc.available.size(), 0);
  for (const auto* list : {&pool.slices, &pool.other_slices}) {
    for (const ResourceSliceSpec* slice : *list) {
      for (const DraDevice& device : slice->devices) {
        if (device.consumes_counters.empty()) continue;
        if (!IsDeviceAllocated({slice->driver, slice->pool, device.name}, *allocated)) continue;
        for (const DraCounterConsumption& use : device.consumes_counters) {
          for (const auto& [counter, amount] : use.counters_milli) {
            const auto it = std::lower_bound(
                pc.names.begin(), pc.names.end(),
                std::pair<std::string_view, std::string_view>(use.counter_set, counter));
            if (it != pc.names.end() && it->first == use.counter_set && it->second == counter) {
              pc.available[it - pc.names.begin()] -= amount;
            }
          }
        }
      }
    }
  }
  return pc;
}

// Upstream checkAvailableCounters: takes the device's counters if every counter of its pool
// still covers what is taken.
bool Allocator::Search::TakeCounters(int candidate) {
  Candidate& c = candidates[candidate];
  PoolCounters& pc = CountersOf(c.pool);
  if (!c.counters_resolved) {
    c.counters_resolved = true;
    for (const DraCounterConsumption& use : c.device->consumes_counters) {
      for (const auto& [counter, amount] : use.counters_milli) {
        const auto key = std::pair<std::string_view, std::string_view>(use.counter_set, counter);
        const auto it = std::lower_bound(pc.names.begin(), pc.names.end(), key);
        if (it != pc.names.end() && *it == key) {
          c.counter_use.emplace_back(static_cast<int>(it - pc.names.begin()), amount);
        }
      }
    }
  }
  for (const auto& [slot, amount] : c.counter_use) pc.consumed[slot] += amount;
  for (size_t i = 0; i < pc.available.size(); ++i) {
    if (pc.available[i] < pc.consumed[i]) {
      ReleaseCounters(c);
      return false;
    }
  }
  return true;
}

void Allocator::Search::ReleaseCounters(const Candidate& c) {
  PoolCounters& pc = counters[c.pool];
  for (const auto& [slot, amount] : c.counter_use) pc.consumed[slot] -= amount;
}

// ---- The answer -------------------------------------------------------------------------------

AllocateResult Allocator::Search::BuildResults() {
  AllocateResult result;
  result.outcome = AllocateResult::Outcome::kAllocated;
  if (!build_allocations) return CheckNodeSelectors();
  result.allocations.resize(claims->size());
  for (size_t claim = 0; claim < claims->size(); ++claim) {
    DraAllocation& allocation = result.allocations[claim];
    allocation.results.reserve(chosen[claim].size());
    AllocationNodeSelector selector(node.name);
    for (const Chosen& ch : chosen[claim]) {
      const Candidate& c = candidates[ch.candidate];
      const RequestData& data = requests[ch.request];
      DraDeviceResult& r = allocation.results.emplace_back();
      r.request = data.full_name();
      r.driver = c.slice->driver;
      r.pool = c.slice->pool;
      r.device = c.device->name;
      r.admin_access = data.request->admin_access;
      r.tolerations = data.request->tolerations;
      if (ch.multi) {
        r.share_id = MakeShareId(*(*claims)[claim], allocation.results.size() - 1, r);
        if (ch.has_consumed) r.consumed_capacity_milli = ch.consumed;
      }
      if (!selector.Add(*c.slice, *c.device)) return NodeSelectorError(claim, selector);
    }
    allocation.node_selector = selector.Result();
  }
  return result;
}

// Without allocations to build, only the one error building them can raise.
AllocateResult Allocator::Search::CheckNodeSelectors() {
  for (size_t claim = 0; claim < claims->size(); ++claim) {
    AllocationNodeSelector selector(node.name);
    for (const Chosen& ch : chosen[claim]) {
      const Candidate& c = candidates[ch.candidate];
      if (!selector.Add(*c.slice, *c.device)) return NodeSelectorError(claim, selector);
    }
  }
  AllocateResult result;
  result.outcome = AllocateResult::Outcome::kAllocated;
  return result;
}

AllocateResult Allocator::Search::NodeSelectorError(size_t claim,
                                                    const AllocationNodeSelector& selector) {
  AllocateResult failed;
  failed.outcome = AllocateResult::Outcome::kError;
  failed.message = fmt::format(
      "create NodeSelector for claim {}: unsupported ResourceSlice.NodeSelector with {} terms",
      (*claims)[claim]->name, selector.refused_terms());
  return failed;
}

}  // namespace knobsim::dra
