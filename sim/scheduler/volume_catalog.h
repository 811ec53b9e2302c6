// VolumeCatalog: the storage objects the volume plugins read (VolumeBinding, VolumeZone) —
// PersistentVolumeClaims by namespace and name, PersistentVolumes and StorageClasses by name —
// as the scheduler's informers hold them. Empty for a cluster without storage objects.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "sim/kube_types.h"

namespace knobsim {

class VolumeCatalog {
 public:
  VolumeCatalog() = default;
  VolumeCatalog(std::vector<PersistentVolumeClaimSpec> claims,
                std::vector<PersistentVolumeSpec> volumes, std::vector<StorageClassSpec> classes);

  const PersistentVolumeClaimSpec* FindClaim(const std::string& ns, const std::string& name) const;
  const PersistentVolumeSpec* FindVolume(const std::string& name) const;
  const StorageClassSpec* FindClass(const std::string& name) const;
  // storagehelpers.GetPersistentVolumeClaimClass: spec.storageClassName. A claim that names
  // none (knobsim's nullopt) takes the default class, as the DefaultStorageClass admission
  // plugin sets it at creation and, since 1.28, retroactively; "" when there is no default.
  std::string ClassOf(const PersistentVolumeClaimSpec& claim) const;
  // The volumes of class `name`, in file order (the candidates of WaitForFirstConsumer binding).
  std::vector<const PersistentVolumeSpec*> VolumesOfClass(const std::string& name) const;

  bool empty() const { return claims_.empty() && volumes_.empty() && classes_.empty(); }

 private:
  std::vector<PersistentVolumeClaimSpec> claims_;
  std::vector<PersistentVolumeSpec> volumes_;
  std::vector<StorageClassSpec> classes_;
  std::unordered_map<std::string, size_t> claim_index_;  // "namespace/name"
  std::unordered_map<std::string, size_t> volume_index_;
  std::unordered_map<std::string, size_t> class_index_;
};

}  // namespace knobsim
