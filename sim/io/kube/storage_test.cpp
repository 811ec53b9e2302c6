// PersistentVolumeClaims, PersistentVolumes and StorageClasses.
#include <doctest/doctest.h>

#include <string>

#include "sim/io/kube/kube_test_support.h"

namespace knobsim {
namespace {

using namespace kube_test_support;  // NOLINT(google-build-using-namespace)

// ---- The full export: workloads, budgets, storage, quotas ----------------------------------

TEST_CASE("claims, volumes and classes keep binding, class, size, phase and reclaim policy") {
  constexpr int64_t kTi = 1024 * kGi;
  const PersistentVolumeClaimSpec& claim = Named(Export().pvcs, "model-cache-qwen-chat-0");
  CHECK(claim.namespace_ == "llm");
  CHECK(claim.storage_class_name == "alicloud-disk-essd");
  CHECK(claim.requested_bytes == 200 * kGi);
  CHECK(claim.phase == "Bound");
  const PersistentVolumeSpec& bound = Named(Export().pvs, claim.volume_name);
  CHECK(bound.claim_namespace == "llm");
  CHECK(bound.claim_name == "model-cache-qwen-chat-0");
  CHECK(bound.reclaim_policy == "Delete");
  CHECK(bound.capacity_bytes == 200 * kGi);
  CHECK(bound.phase == "Bound");
  const PersistentVolumeSpec& left = Named(Export().pvs, "nas-3f6b2c9e-datasets");
  CHECK(left.reclaim_policy == "Retain");
  CHECK(left.phase == "Released");
  CHECK(left.storage_class_name == "alibabacloud-cnfs-nas");
  CHECK(left.capacity_bytes == kTi);
  const StorageClassSpec& essd = Named(Export().storage_classes, "alicloud-disk-essd");
  CHECK(essd.provisioner == "diskplugin.csi.alibabacloud.com");
  CHECK(essd.reclaim_policy == "Delete");
  CHECK(essd.volume_binding_mode == "WaitForFirstConsumer");
  CHECK(essd.is_default);
  const StorageClassSpec& nas = Named(Export().storage_classes, "alibabacloud-cnfs-nas");
  CHECK(nas.reclaim_policy == "Retain");
  CHECK_FALSE(nas.is_default);
}

}  // namespace
}  // namespace knobsim
