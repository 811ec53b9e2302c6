#include "sim/scheduler/dra/dra_catalog.h"

#include <algorithm>
#include <utility>

#include "sim/scheduler/dra/allocator.h"
#include "sim/scheduler/dra/held_devices.h"

namespace knobsim {

// The fixed part: the slices with their index (which points into them) and the classes.
struct DraCatalog::Devices {
  Devices(std::vector<ResourceSliceSpec> s, std::vector<DeviceClassSpec> c)
      : slices(std::move(s)), classes(std::move(c)), index(slices) {}
  std::vector<ResourceSliceSpec> slices;
  std::vector<DeviceClassSpec> classes;
  dra::SliceIndex index;
};

namespace {

const std::vector<ResourceSliceSpec> kNoSlices;
const std::vector<DeviceClassSpec> kNoClasses;

// The allocator's features: everything on (the simulator allocates what the objects ask for).
constexpr bool kConsumableCapacity = dra::AllocatorFeatures{}.consumable_capacity;

bool ReservedFor(const ResourceClaimSpec& claim, const PodSpec& pod) {
  return std::any_of(claim.reserved_for.begin(), claim.reserved_for.end(),
                     [&](const DraConsumer& c) {
                       return c.resource == "pods" && c.name == pod.name &&
                              (c.uid.empty() || pod.uid.empty() || c.uid == pod.uid);
                     });
}

// The claim a pod's entry names: the claim itself, else the one made from the template as the
// pod's status names it, else as this catalog names the one it makes (see the header).
std::string ClaimName(const PodSpec& pod, const PodResourceClaim& entry) {
  if (!entry.resource_claim_name.empty()) return entry.resource_claim_name;
  if (!entry.generated_claim_name.empty()) return entry.generated_claim_name;
  return pod.name + "-" + entry.name;
}

}  // namespace

DraCatalog::DraCatalog(std::vector<ResourceSliceSpec> slices, std::vector<DeviceClassSpec> classes,
                       std::vector<ResourceClaimSpec> claims,
                       std::vector<ResourceClaimTemplateSpec> templates) {
  if (!slices.empty() || !classes.empty())
    devices_ = std::make_shared<const Devices>(std::move(slices), std::move(classes));
  for (ResourceClaimSpec& c : claims) {
    if (c.allocation) dra::AddAllocation(*c.allocation, kConsumableCapacity, allocated_);
    claims_.emplace(Key(c.namespace_, c.name), std::move(c));
  }
  for (ResourceClaimTemplateSpec& t : templates)
    templates_.emplace(Key(t.namespace_, t.name), std::move(t));
  if (devices_) held_ = dra::HeldByDevice(devices_->index, allocated_);
}

void DraCatalog::Held(const DraAllocation& changed) {
  if (devices_) dra::RefreshHeld(devices_->index, allocated_, changed, held_);
}

const std::vector<ResourceSliceSpec>& DraCatalog::slices() const {
  return devices_ ? devices_->slices : kNoSlices;
}

const std::vector<DeviceClassSpec>& DraCatalog::classes() const {
  return devices_ ? devices_->classes : kNoClasses;
}

const dra::SliceIndex& DraCatalog::slice_index() const {
  static const dra::SliceIndex kEmpty(kNoSlices);
  return devices_ ? devices_->index : kEmpty;
}

const DeviceClassSpec* DraCatalog::FindClass(const std::string& name) const {
  for (const DeviceClassSpec& c : classes()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<PodClaimRef> DraCatalog::ClaimsOf(const PodSpec& pod, ClaimLookupError* error) const {
  using Kind = ClaimLookupError::Kind;
  const auto fail = [&](Kind kind, std::string name) {
    *error = {kind, std::move(name)};
    return std::vector<PodClaimRef>{};
  };
  std::vector<PodClaimRef> out;
  for (const PodResourceClaim& entry : pod.resource_claims) {
    if (entry.no_claim_made) continue;
    PodClaimRef ref;
    ref.entry = entry.name;
    std::string name = ClaimName(pod, entry);
    if (const auto it = claims_.find(Key(pod.namespace_, name)); it != claims_.end()) {
      const ResourceClaimSpec& claim = it->second;
      if (claim.deleting) return fail(Kind::kBeingDeleted, name);
      // upstream IsForPod (metav1.IsControlledBy compares uids)
      const bool owned = claim.owner_pod_uid.empty() || pod.uid.empty()
                             ? !claim.owner_pod.empty() && claim.owner_pod == pod.name
                             : claim.owner_pod_uid == pod.uid;
      if (!entry.resource_claim_template_name.empty() && !owned) return fail(Kind::kNotOwner, name);
      ref.claim = claim;
      out.push_back(std::move(ref));
      continue;
    }
    if (!entry.resource_claim_name.empty() || !entry.generated_claim_name.empty())
      return fail(Kind::kClaimNotFound, name);
    // A template whose claim the pod's status does not name, and which no earlier bind of this
    // pod made: the one the controller makes.
    const auto t = templates_.find(Key(pod.namespace_, entry.resource_claim_template_name));
    if (t == templates_.end())
      return fail(Kind::kTemplateNotFound, entry.resource_claim_template_name);
    ref.claim.name = std::move(name);
    ref.claim.namespace_ = pod.namespace_;
    ref.claim.spec = t->second.spec;
    ref.claim.owner_pod = pod.name;
    ref.claim.owner_pod_uid = pod.uid;
    ref.made_from_template = true;
    out.push_back(std::move(ref));
  }
  return out;
}

void DraCatalog::Allocate(ResourceClaimSpec& claim, DraAllocation allocation) {
  dra::AddAllocation(allocation, kConsumableCapacity, allocated_);
  Held(allocation);
  claim.allocation = std::move(allocation);
}

void DraCatalog::Bind(const PodSpec& pod, const std::vector<PodClaimRef>& claims,
                      const std::vector<DraAllocation>& allocations) {
  size_t next = 0;
  for (const PodClaimRef& ref : claims) {
    ResourceClaimSpec& claim =
        claims_.try_emplace(Key(ref.claim.namespace_, ref.claim.name), ref.claim).first->second;
    if (!claim.allocation && next < allocations.size()) Allocate(claim, allocations[next++]);
    if (!ReservedFor(claim, pod)) claim.reserved_for.push_back({"pods", pod.name, pod.uid});
  }
}

void DraCatalog::Release(const PodSpec& pod) {
  std::vector<ResourceClaimSpec>& before = released_[Key(pod.namespace_, pod.name)];
  before.clear();
  // Only the pod's own claims can be reserved for it: a bind reserves what ClaimsOf resolves.
  for (const PodResourceClaim& entry : pod.resource_claims) {
    const auto it = claims_.find(Key(pod.namespace_, ClaimName(pod, entry)));
    if (it == claims_.end() || !ReservedFor(it->second, pod)) continue;
    ResourceClaimSpec& claim = it->second;
    before.push_back(claim);
    std::erase_if(claim.reserved_for,
                  [&](const DraConsumer& c) { return c.resource == "pods" && c.name == pod.name; });
    if (claim.reserved_for.empty() && claim.allocation) {
      dra::RemoveAllocation(*claim.allocation, kConsumableCapacity, allocated_);
      Held(*claim.allocation);
      claim.allocation.reset();
    }
    // A claim made for this pod alone goes with it.
    if (claim.owner_pod == pod.name && claim.reserved_for.empty()) claims_.erase(it);
  }
}

void DraCatalog::Restore(const PodSpec& pod) {
  const auto it = released_.find(Key(pod.namespace_, pod.name));
  if (it == released_.end()) return;
  for (ResourceClaimSpec& claim : it->second) {
    const std::string key = Key(claim.namespace_, claim.name);
    if (const auto now = claims_.find(key); now != claims_.end() && now->second.allocation) {
      dra::RemoveAllocation(*now->second.allocation, kConsumableCapacity, allocated_);
      Held(*now->second.allocation);
    }
    if (claim.allocation) {
      dra::AddAllocation(*claim.allocation, kConsumableCapacity, allocated_);
      Held(*claim.allocation);
    }
    claims_[key] = std::move(claim);
  }
  released_.erase(it);
}

void DraCatalog::Deallocate(const std::string& ns, const std::string& name) {
  const auto it = claims_.find(Key(ns, name));
  if (it == claims_.end()) return;
  ResourceClaimSpec& claim = it->second;
  if (claim.allocation) {
    dra::RemoveAllocation(*claim.allocation, kConsumableCapacity, allocated_);
    Held(*claim.allocation);
    claim.allocation.reset();
  }
  claim.reserved_for.clear();
}

void DraCatalog::AddClaim(ResourceClaimSpec claim) {
  const std::string key = Key(claim.namespace_, claim.name);
  claims_[key] = std::move(claim);
}

}  // namespace knobsim
