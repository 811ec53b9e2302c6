#include "sim/scheduler/volume_catalog.h"

#include <utility>

namespace knobsim {

VolumeCatalog::VolumeCatalog(std::vector<PersistentVolumeClaimSpec> claims,
                             std::vector<PersistentVolumeSpec> volumes,
                             std::vector<StorageClassSpec> classes)
    : claims_(std::move(claims)), volumes_(std::move(volumes)), classes_(std::move(classes)) {
  // The first object of a name wins, as the export reader refuses duplicates anyway.
  for (size_t i = 0; i < claims_.size(); ++i)
    claim_index_.try_emplace(claims_[i].namespace_ + "/" + claims_[i].name, i);
  for (size_t i = 0; i < volumes_.size(); ++i) volume_index_.try_emplace(volumes_[i].name, i);
  for (size_t i = 0; i < classes_.size(); ++i) class_index_.try_emplace(classes_[i].name, i);
}

const PersistentVolumeClaimSpec* VolumeCatalog::FindClaim(const std::string& ns,
                                                          const std::string& name) const {
  auto it = claim_index_.find(ns + "/" + name);
  return it == claim_index_.end() ? nullptr : &claims_[it->second];
}

const PersistentVolumeSpec* VolumeCatalog::FindVolume(const std::string& name) const {
  auto it = volume_index_.find(name);
  return it == volume_index_.end() ? nullptr : &volumes_[it->second];
}

const StorageClassSpec* VolumeCatalog::FindClass(const std::string& name) const {
  auto it = class_index_.find(name);
  return it == class_index_.end() ? nullptr : &classes_[it->second];
}

std::string VolumeCatalog::ClassOf(const PersistentVolumeClaimSpec& claim) const {
  if (claim.storage_class_name) return *claim.storage_class_name;
  for (const StorageClassSpec& c : classes_) {
    if (c.is_default) return c.name;
  }
  return {};
}

std::vector<const PersistentVolumeSpec*> VolumeCatalog::VolumesOfClass(
    const std::string& name) const {
  std::vector<const PersistentVolumeSpec*> out;
  for (const PersistentVolumeSpec& v : volumes_) {
    if (v.storage_class_name == name) out.push_back(&v);
  }
  return out;
}

}  // namespace knobsim
