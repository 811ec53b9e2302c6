// The DRA structured-parameters allocator: which devices of a node's ResourceSlices the
// ResourceClaims of one pod get, or why they get none. A port of upstream's "incubating"
// allocator (k8s.io/dynamic-resource-allocation structured/internal/incubating, the variant
// upstream runs as soon as any non-stable feature is on), over the plain types of
// sim/kube_dra.h. Collaborators, each a file of this folder: pools.h (which pools a node sees),
// node_selection.h (which nodes reach a device; the result's node selector), allocated_state.h
// (what earlier claims hold; share IDs), device_taints.h, constraints.h and
// consumable_capacity.h (the rules a device must pass).
//
// Contract (upstream Allocator.Allocate): claims are allocated in order, their requests in
// order, each request's devices first fit over the node's devices in pool / slice / device order
// (pools.h), with backtracking: when a later request cannot be met, earlier choices are undone
// and the next device tried, so the first complete solution in that order wins. Within one
// request only combinations are tried, not permutations. The outcome is
//   * kAllocated: one DraAllocation per claim, in claim order;
//   * kUnschedulable: no solution on this node (message "" or, when some pool the node sees is
//     invalid, kReasonInvalidPools: upstream's ErrFailedAllocationOnNode, still "this node
//     only");
//   * kError: the claims or classes themselves are wrong (an unknown device class, a CEL error, a
//     field this allocator does not support, more than 32 devices for one claim); upstream's
//     scheduler aborts the pod's scheduling cycle with it. Texts are upstream's.
//
// Modelled: ExactCount and All allocation modes (All needs every matching device of complete
// pools, at least one); firstAvailable sub-requests tried in order (DRAPrioritizedList);
// matchAttribute and distinctAttribute constraints; class and request CEL selectors (cel.h);
// admin access (the device may be in use; it does not count as allocated after); device taints
// NoSchedule / NoExecute against request tolerations (DRADeviceTaints); partitionable devices
// consuming shared counters (DRAPartitionableDevices); per-device node selection; consumable
// capacity with request policies and multiple allocations of one device (DRAConsumableCapacity);
// binding conditions (pools with them are tried last; without DRADeviceBindingAndStatus their
// devices are not used); the node selector of the result (matchFields metadata.name In [node]
// once any device is node-local, else the union of the slices' selectors).
//
// Not modelled: the allocation result's device configuration (class and claim `config`; the
// caller copies it if it needs it), its bindingConditions copies (DraDeviceResult has no field:
// the device's own lists say the same), list-typed attributes in constraints
// (DRAListTypeAttributes is upstream's experimental allocator only), context cancellation.
//
// Upstream quirks kept on purpose, so results match the real scheduler's: a multi-allocatable
// device's counters are not given back when the search backtracks over it, nor are a device's
// counters when a taint or constraint then refuses it; distinctAttribute compares against one
// value per request name (constraints.h); consumed capacity of zero is forgotten when a share is
// given back. Known differences: counters are tracked per pool (upstream keys them by pool name
// alone, so two drivers' same-named pools would share them); a capacity policy's default is
// compared by value (upstream compares Quantity structs, i.e. also their format).
//
// Share IDs: upstream draws a random UUID per multi-allocation; here they are deterministic
// (allocated_state.h MakeShareId), so a rerun gives the same IDs and two claims never share one.
//
// Performance: build SliceIndex once per change of the slices and keep one AllocatorCache
// (allocator_cache.h: each CEL expression compiled once and evaluated once per device, each
// node's pools gathered once); build one Allocator per pod and call Allocate per node (without
// building allocations where only "does it fit" is asked). An Allocator reuses its
// buffers across calls and is not thread-safe. The search recurses once per device chosen plus
// once per request and claim, so its depth is bounded by the results it builds (at most 32 per
// claim) and the claims' requests.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/quantity.h"
#include "sim/scheduler/dra/allocated_state.h"
#include "sim/scheduler/dra/allocator_cache.h"
#include "sim/scheduler/dra/cel.h"
#include "sim/scheduler/dra/pools.h"

namespace knobsim::dra {

// resource.k8s.io/v1 AllocationResultsMaxSize: devices one claim may get.
inline constexpr int kAllocationResultsMaxSize = 32;

// The DynamicResources plugin's reason when Allocate finds no solution.
inline constexpr std::string_view kReasonCannotAllocate = "cannot allocate all claims";
// Allocate's message when nothing fits and some pool the node sees is invalid.
inline constexpr std::string_view kReasonInvalidPools = "invalid resource pools were encountered";

// Upstream structured.Features: which optional behaviour is on, each the feature gate of the
// same name. All on by default (the simulator allocates what the objects ask for); None() is
// upstream's zero value, which its tests start from.
struct AllocatorFeatures {
  bool admin_access = true;         // DRAAdminAccess
  bool consumable_capacity = true;  // DRAConsumableCapacity
  // DRADeviceBindingConditions and DRAResourceClaimDeviceStatus together.
  bool device_binding_and_status = true;
  bool device_taints = true;          // DRADeviceTaints
  bool partitionable_devices = true;  // DRAPartitionableDevices
  bool prioritized_list = true;       // DRAPrioritizedList

  static constexpr AllocatorFeatures None() { return {false, false, false, false, false, false}; }
};

struct AllocateResult {
  enum class Outcome { kAllocated, kUnschedulable, kError };
  Outcome outcome = Outcome::kUnschedulable;
  std::vector<DraAllocation> allocations;  // kAllocated: one per claim, in claim order
  std::string message;                     // kUnschedulable: "" or kReasonInvalidPools; kError
};

class Allocator {
 public:
  // Everything passed must outlive the Allocator and stay unchanged while it is used; `cache`
  // is filled as selectors are first seen.
  Allocator(AllocatorFeatures features, const AllocatedState& allocated,
            const std::vector<DeviceClassSpec>& classes, const SliceIndex& slices,
            AllocatorCache& cache);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // Allocates `claims` (none of them allocated yet) on `node`; see the contract above. Without
  // `build_allocations` a solution is reported as kAllocated with no allocations (same search,
  // same outcome and errors): for asking many nodes whether they fit, then allocating on one.
  // Called again with the same claims (the same objects, unchanged), it reuses the checks of
  // the claims that do not depend on the node.
  AllocateResult Allocate(const DraNodeRef& node,
                          const std::vector<const ResourceClaimSpec*>& claims,
                          bool build_allocations = true);

  // A table of what `allocated` holds per device of `slices` (held_devices.h), kept in step with
  // it by the caller: the devices' state is then read from it rather than searched for. Must
  // outlive the Allocator's use of it; an empty span (the default) searches.
  void UseHeldByDevice(std::span<const uint8_t> held) { held_ = held; }

  // How often the search stepped (upstream's NumAllocateOneInvocations), summed over calls: a
  // measure of the work backtracking did.
  int64_t allocate_one_calls() const { return allocate_one_calls_; }

  struct Search;  // one Allocate call's working state (allocator_search.h)

 private:
  AllocatorFeatures features_;
  const AllocatedState* allocated_;
  const std::vector<DeviceClassSpec>* classes_;
  const SliceIndex* slices_;
  AllocatorCache* cache_;
  int64_t allocate_one_calls_ = 0;
  std::span<const uint8_t> held_;
  std::unique_ptr<Search> search_;  // reused between calls for its buffers
};

}  // namespace knobsim::dra
