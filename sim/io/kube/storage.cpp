#include "sim/io/kube/kinds.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/io/kube/resources.h"
#include "sim/io/kube/selectors.h"

namespace knobsim::kube {
namespace {

// The bytes of `storage` in a resource map (a claim's requests, a volume's capacity).
int64_t Storage(FieldReader& r, const std::optional<Field>& resources) {
  for (const ResourceEntry& e : Resources(r, resources)) {
    if (e.name == "storage") return e.value;
  }
  return 0;
}

std::vector<std::string> AccessModes(FieldReader& r, const Field& spec) {
  std::vector<std::string> modes;
  if (auto f = r.Get(spec, "accessModes")) {
    for (const Field& m : r.Items(*f))
      modes.push_back(r.Enum(m,
                             {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"},
                             "an access mode"));
  }
  return modes;
}

}  // namespace

PersistentVolumeClaimSpec ReadPvc(ObjectReader& r, const Field& object) {
  PersistentVolumeClaimSpec pvc;
  const ObjectMeta meta = ReadObjectMeta(r, object, "PersistentVolumeClaim", pvc);
  pvc.terminating = r.Get(meta.field, "deletionTimestamp").has_value();
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    pvc.access_modes = AccessModes(r, *spec);
    if (auto volume = r.Get(*spec, "volumeName")) pvc.volume_name = r.String(*volume);
    if (auto sc = r.Get(*spec, "storageClassName")) pvc.storage_class_name = r.String(*sc);
    if (auto resources = r.Get(*spec, "resources")) {
      r.ExpectMap(*resources);
      pvc.requested_bytes = Storage(r, r.Get(*resources, "requests"));
    }
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    if (auto phase = r.Get(*status, "phase")) {
      pvc.phase = r.Enum(*phase, {"Pending", "Bound", "Lost"}, "a claim phase");
    }
  }
  return pvc;
}

PersistentVolumeSpec ReadPv(ObjectReader& r, const Field& object) {
  PersistentVolumeSpec pv;
  const ObjectMeta meta = ReadObjectMeta(r, object, "PersistentVolume", pv);
  pv.terminating = r.Get(meta.field, "deletionTimestamp").has_value();
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    pv.access_modes = AccessModes(r, *spec);
    if (auto affinity = r.Get(*spec, "nodeAffinity")) {
      r.ExpectMap(*affinity);
      if (auto required = r.Get(*affinity, "required")) {
        r.ExpectMap(*required);
        const Field terms = r.Require(*required, "nodeSelectorTerms");
        for (const Field& term : r.Items(terms)) {
          pv.node_affinity.push_back(ReadNodeSelectorTerm(r, term));
        }
        if (pv.node_affinity.empty()) r.Fail(terms, "no nodeSelectorTerms");
      }
    }
    if (auto policy = r.Get(*spec, "persistentVolumeReclaimPolicy")) {
      pv.reclaim_policy = r.Enum(*policy, {"Retain", "Delete", "Recycle"}, "a reclaim policy");
    }
    if (auto sc = r.Get(*spec, "storageClassName")) pv.storage_class_name = r.String(*sc);
    if (auto claim = r.Get(*spec, "claimRef")) {
      r.ExpectMap(*claim);
      if (auto ns = r.Get(*claim, "namespace")) pv.claim_namespace = r.String(*ns);
      if (auto name = r.Get(*claim, "name")) pv.claim_name = r.String(*name);
    }
    pv.capacity_bytes = Storage(r, r.Get(*spec, "capacity"));
  }
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    if (auto phase = r.Get(*status, "phase")) {
      pv.phase =
          r.Enum(*phase, {"Pending", "Available", "Bound", "Released", "Failed"}, "a volume phase");
    }
  }
  return pv;
}

StorageClassSpec ReadStorageClass(ObjectReader& r, const Field& object) {
  StorageClassSpec sc;
  const ObjectMeta meta = ReadObjectMeta(r, object, "StorageClass", sc);
  // A StorageClass has no spec: its fields sit beside metadata.
  sc.provisioner = r.String(r.Require(object, "provisioner"));
  if (auto policy = r.Get(object, "reclaimPolicy")) {
    sc.reclaim_policy = r.Enum(*policy, {"Delete", "Retain"}, "a StorageClass reclaim policy");
  }
  if (auto mode = r.Get(object, "volumeBindingMode")) {
    sc.volume_binding_mode =
        r.Enum(*mode, {"Immediate", "WaitForFirstConsumer"}, "a volume binding mode");
  }
  // allowedTopologies: each term's matchLabelExpressions are `key In values`, ANDed.
  if (auto topologies = r.Get(object, "allowedTopologies")) {
    for (const Field& term : r.Items(*topologies)) {
      r.ExpectMap(term);
      std::vector<NodeSelectorRequirement> requirements;
      if (auto exprs = r.Get(term, "matchLabelExpressions")) {
        for (const Field& e : r.Items(*exprs)) {
          r.ExpectMap(e);
          NodeSelectorRequirement req;
          req.key = r.String(r.Require(e, "key"));
          req.op = "In";
          const Field values = r.Require(e, "values");
          req.values = r.StringList(values);
          if (req.values.empty()) r.Fail(values, "no values");
          requirements.push_back(std::move(req));
        }
      }
      sc.allowed_topologies.push_back(std::move(requirements));
    }
  }
  if (meta.annotations) {
    r.ExpectMap(*meta.annotations, /*reveal=*/false);
    for (std::string_view key : {"storageclass.kubernetes.io/is-default-class",
                                 "storageclass.beta.kubernetes.io/is-default-class"}) {
      if (auto is_default = r.Get(*meta.annotations, key)) {
        sc.is_default = sc.is_default || r.String(*is_default, /*reveal=*/false) == "true";
      }
    }
  }
  return sc;
}

}  // namespace knobsim::kube
