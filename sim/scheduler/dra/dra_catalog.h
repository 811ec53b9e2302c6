// The DRA objects of a cluster as its scheduler sees them (sim/kube_dra.h): the devices drivers
// publish and the classes that name them (fixed once set, shared between copies of a
// ClusterState), and the ResourceClaims with what each holds, which binding and unbinding change.
//
// A pod names its claims (PodSpec::resource_claims) directly or through a template. A template's
// claim is the one the pod's status names; where there is none yet (a pending pod of a manifest),
// it is the claim the control plane's resourceclaim controller would make for the pod, named
// `<pod>-<entry>` **[assumption: upstream appends 5 random characters]** and owned by the pod.
// When a pod goes (ClusterState::Unbind), its reservations go with it, and a claim no pod holds
// any more is deallocated, as the resourceclaim controller does (a claim made for the pod alone
// is deleted); Rebind puts back what Unbind took (preemption's dry run).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/kube_dra.h"
#include "sim/scheduler/dra/allocated_state.h"

namespace knobsim {

namespace dra {
class SliceIndex;  // pools.h: only its users need the allocator's pool machinery
}

// Why a pod's claims cannot be had (upstream foreachPodResourceClaim, which the scheduler runs
// before it looks at any node).
struct ClaimLookupError {
  enum class Kind {
    kNone,
    kClaimNotFound,     // a claim the pod or its status names does not exist
    kTemplateNotFound,  // the template of a claim still to be made does not exist
    kBeingDeleted,      // metadata.deletionTimestamp is set
    kNotOwner,          // a template's claim whose controller is not the pod
  };
  Kind kind = Kind::kNone;
  std::string name;  // the claim's; kTemplateNotFound: the template's
  explicit operator bool() const { return kind != Kind::kNone; }
};

// One of a pod's claims, resolved.
struct PodClaimRef {
  std::string entry;                // the pod's spec.resourceClaims[].name
  ResourceClaimSpec claim;          // a copy: the claim's state when resolved
  bool made_from_template = false;  // not in the catalog yet: made for the pod
};

class DraCatalog {
 public:
  DraCatalog() = default;
  DraCatalog(std::vector<ResourceSliceSpec> slices, std::vector<DeviceClassSpec> classes,
             std::vector<ResourceClaimSpec> claims,
             std::vector<ResourceClaimTemplateSpec> templates);

  // No slices, classes or claims: a cluster without DRA.
  bool empty() const { return devices_ == nullptr && claims_.empty() && templates_.empty(); }

  const std::vector<ResourceSliceSpec>& slices() const;
  const std::vector<DeviceClassSpec>& classes() const;
  const dra::SliceIndex& slice_index() const;
  const DeviceClassSpec* FindClass(const std::string& name) const;
  // The devices claims hold now (dra::AddAllocation of every allocated claim).
  const dra::AllocatedState& allocated() const { return allocated_; }
  // The same per device of slice_index() (dra/held_devices.h), for the allocator.
  std::span<const uint8_t> held_by_device() const { return held_; }
  const std::map<std::string, ResourceClaimSpec>& claims() const { return claims_; }

  // The pod's claims in spec order, without the entries its status lists with no claim made
  // (upstream skips them); or, in `error`, why the first that cannot be had cannot. The claim
  // of a template must be controlled by the pod (by uid where both have one, else by name).
  std::vector<PodClaimRef> ClaimsOf(const PodSpec& pod, ClaimLookupError* error) const;

  // Adds a claim made for a pod by the scheduler (DRAExtendedResource), unallocated.
  void AddClaim(ResourceClaimSpec claim);
  // Records what scheduling decided for `pod`: each claim not allocated before gets
  // `allocations[i]` (in the order of ClaimsOf's unallocated claims), and every claim is
  // reserved for the pod.
  void Bind(const PodSpec& pod, const std::vector<PodClaimRef>& claims,
            const std::vector<DraAllocation>& allocations);
  // The pod's reservations removed and claims no pod holds deallocated; what changed is kept
  // for Restore.
  void Release(const PodSpec& pod);
  // Puts back what the last Release of `pod` changed.
  void Restore(const PodSpec& pod);
  // The claim's allocation and reservations cleared (nothing when there is no such claim).
  void Deallocate(const std::string& ns, const std::string& name);

 private:
  struct Devices;
  static std::string Key(const std::string& ns, const std::string& name) { return ns + "/" + name; }
  void Allocate(ResourceClaimSpec& claim, DraAllocation allocation);
  // allocated_ gained or lost `changed`: held_ follows.
  void Held(const DraAllocation& changed);

  std::shared_ptr<const Devices> devices_;
  std::map<std::string, ResourceClaimSpec> claims_;  // "namespace/name"
  std::map<std::string, ResourceClaimTemplateSpec> templates_;
  dra::AllocatedState allocated_;
  std::vector<uint8_t> held_;  // allocated_ by device ordinal; empty without slices
  // Release's record: pod "namespace/name" -> the claims as they were before it.
  std::map<std::string, std::vector<ResourceClaimSpec>> released_;
};

}  // namespace knobsim
