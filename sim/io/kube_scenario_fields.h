// The objects of a scenario's `kube:` section (docs/scenario.md "kube"), each kind's fields
// listed once. Three walkers read these lists: the scenario reader (scenario_kube.cpp), the
// import's writer (sim/import/scenario_writer_kube.cpp) and the import's direct conversion
// (sim/import/imported_scenario.cpp, which keeps these fields and drops the rest, so that a
// scenario built from an import equals the one read back from its text). Adding a field to a
// kind is one line here, and the three follow.
//
// A key is the scenario's snake_case; the comment beside it names the field of the Kubernetes
// object it carries, the camelCase the export reader (sim/io/kube/) reads with the API's own
// defaulting and validation.
//
// Each line calls a visitor method named after the value's form; the method decides how it is
// read and written, and when the writer leaves it out (the reader then gives the kind's
// default, so leaving it out changes nothing):
//   Namespace, Name                  always written; name required, namespace "default"
//   Count, Bool, Enum, Bytes         always written (a storage quantity for Bytes)
//   Flag                             written when true
//   String, Labels, Strings,         written when not empty
//   EnumList, Terms, Resources
//   OptionalString, IntOrPercent,    written when set; OptionalString reads null as ""
//   Selector (optional), Object
//   Selector (plain), Group          always written
//   Claim                            `namespace/name` of two members, written when the name is set
// Members are given as member pointers, so a walker can read, write or copy any object of the
// kind; Object and Group walk their own list one level down.
#pragma once

#include <array>
#include <string_view>
#include <type_traits>

#include "sim/kube_types.h"
#include "sim/scenario.h"

namespace knobsim {

template <class T>
using KubeKind = std::type_identity<T>;

inline constexpr std::array<std::string_view, 2> kUnhealthyPodEvictionPolicies = {"IfHealthyBudget",
                                                                                  "AlwaysAllow"};
inline constexpr std::array<std::string_view, 4> kAccessModes = {
    "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"};
inline constexpr std::array<std::string_view, 3> kClaimPhases = {"Pending", "Bound", "Lost"};
inline constexpr std::array<std::string_view, 5> kVolumePhases = {"Pending", "Available", "Bound",
                                                                  "Released", "Failed"};
inline constexpr std::array<std::string_view, 3> kVolumeReclaimPolicies = {"Retain", "Delete",
                                                                           "Recycle"};
inline constexpr std::array<std::string_view, 2> kClassReclaimPolicies = {"Delete", "Retain"};
inline constexpr std::array<std::string_view, 2> kVolumeBindingModes = {"Immediate",
                                                                        "WaitForFirstConsumer"};

// policy/v1 PodDisruptionBudget.
template <class V>
void KubeFields(V& v, KubeKind<PodDisruptionBudgetSpec>) {
  using P = PodDisruptionBudgetSpec;
  v.Namespace(&P::namespace_);
  v.Name(&P::name);
  v.IntOrPercent("min_available", &P::min_available);      // spec.minAvailable
  v.IntOrPercent("max_unavailable", &P::max_unavailable);  // spec.maxUnavailable
  v.Selector("selector", &P::selector);                    // spec.selector
  v.Enum("unhealthy_pod_eviction_policy", &P::unhealthy_pod_eviction_policy,
         kUnhealthyPodEvictionPolicies, "eviction policy");  // spec.unhealthyPodEvictionPolicy
  v.Object("status", &P::status, [](auto& s) {
    using S = P::Status;
    s.Count("current_healthy", &S::current_healthy);          // status.currentHealthy
    s.Count("desired_healthy", &S::desired_healthy);          // status.desiredHealthy
    s.Count("disruptions_allowed", &S::disruptions_allowed);  // status.disruptionsAllowed
    s.Count("expected_pods", &S::expected_pods);              // status.expectedPods
    s.Strings("disrupted_pods", &S::disrupted_pods);          // status.disruptedPods' names
  });
}

// apps/v1 StatefulSet.
template <class V>
void KubeFields(V& v, KubeKind<StatefulSetSpec>) {
  using S = StatefulSetSpec;
  v.Namespace(&S::namespace_);
  v.Name(&S::name);
  v.Count("replicas", &S::replicas);                                // spec.replicas
  v.Selector("selector", &S::selector);                             // spec.selector
  v.Labels("labels", &S::template_labels);                          // spec.template.metadata.labels
  v.Strings("volume_claim_templates", &S::volume_claim_templates);  // their metadata.name
  v.Group("status", [](auto& s) {
    s.Count("replicas", &S::status_replicas);       // status.replicas
    s.Count("ready_replicas", &S::ready_replicas);  // status.readyReplicas
  });
}

// v1 PersistentVolumeClaim.
template <class V>
void KubeFields(V& v, KubeKind<PersistentVolumeClaimSpec>) {
  using C = PersistentVolumeClaimSpec;
  v.Namespace(&C::namespace_);
  v.Name(&C::name);
  v.OptionalString("storage_class", &C::storage_class_name);  // spec.storageClassName
  v.Bytes("request", &C::requested_bytes);                    // spec.resources.requests.storage
  v.String("volume", &C::volume_name);                        // spec.volumeName
  v.EnumList("access_modes", &C::access_modes, kAccessModes, "access mode");  // spec.accessModes
  v.Enum("phase", &C::phase, kClaimPhases, "claim phase");                    // status.phase
  v.Flag("terminating", &C::terminating);  // metadata.deletionTimestamp set
}

// v1 PersistentVolume (cluster-scoped).
template <class V>
void KubeFields(V& v, KubeKind<PersistentVolumeSpec>) {
  using P = PersistentVolumeSpec;
  v.Name(&P::name);
  v.String("storage_class", &P::storage_class_name);  // spec.storageClassName
  v.Enum("reclaim_policy", &P::reclaim_policy, kVolumeReclaimPolicies,
         "reclaim policy");                               // spec.persistentVolumeReclaimPolicy
  v.Bytes("capacity", &P::capacity_bytes);                // spec.capacity.storage
  v.Claim("claim", &P::claim_namespace, &P::claim_name);  // spec.claimRef
  v.Labels("labels", &P::labels);                         // metadata.labels
  v.Terms("node_affinity", &P::node_affinity, /*in_only=*/false);  // spec.nodeAffinity.required
  v.EnumList("access_modes", &P::access_modes, kAccessModes, "access mode");  // spec.accessModes
  v.Enum("phase", &P::phase, kVolumePhases, "volume phase");                  // status.phase
  v.Flag("terminating", &P::terminating);  // metadata.deletionTimestamp set
}

// storage.k8s.io/v1 StorageClass (cluster-scoped).
template <class V>
void KubeFields(V& v, KubeKind<StorageClassSpec>) {
  using C = StorageClassSpec;
  v.Name(&C::name);
  v.String("provisioner", &C::provisioner);  // provisioner
  v.Enum("reclaim_policy", &C::reclaim_policy, kClassReclaimPolicies,
         "reclaim policy");  // reclaimPolicy
  v.Enum("volume_binding_mode", &C::volume_binding_mode, kVolumeBindingModes,
         "binding mode");             // volumeBindingMode
  v.Bool("default", &C::is_default);  // the is-default-class annotation
  v.Terms("allowed_topologies", &C::allowed_topologies, /*in_only=*/true);  // allowedTopologies
}

// v1 ResourceQuota.
template <class V>
void KubeFields(V& v, KubeKind<ResourceQuotaSpec>) {
  using Q = ResourceQuotaSpec;
  v.Namespace(&Q::namespace_);
  v.Name(&Q::name);
  v.Resources("hard", &Q::hard);  // spec.hard
  v.Resources("used", &Q::used);  // status.used
}

// The section's lists, by key, in the order they are read and written.
template <class F>
void ForEachKubeList(F&& f) {
  f("pdbs", &ScenarioKube::pdbs);
  f("stateful_sets", &ScenarioKube::stateful_sets);
  f("pvcs", &ScenarioKube::pvcs);
  f("pvs", &ScenarioKube::pvs);
  f("storage_classes", &ScenarioKube::storage_classes);
  f("resource_quotas", &ScenarioKube::resource_quotas);
}

// Copies the listed fields of `from` into `to` (a kind's default object): what survives a
// write and a read of the scenario text.
template <class T>
class KubeFieldCopier {
 public:
  KubeFieldCopier(const T& from, T& to) : from_(from), to_(to) {}

  template <class M>
  void Namespace(M T::*m) {
    Copy(m);
  }
  template <class M>
  void Name(M T::*m) {
    Copy(m);
  }
  template <class M>
  void Count(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Bool(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Flag(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M, class E>
  void Enum(std::string_view, M T::*m, const E&, std::string_view) {
    Copy(m);
  }
  template <class M, class E>
  void EnumList(std::string_view, M T::*m, const E&, std::string_view) {
    Copy(m);
  }
  template <class M>
  void Bytes(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void String(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void OptionalString(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void IntOrPercent(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Selector(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Labels(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Strings(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Terms(std::string_view, M T::*m, bool) {
    Copy(m);
  }
  template <class M>
  void Resources(std::string_view, M T::*m) {
    Copy(m);
  }
  template <class M>
  void Claim(std::string_view, M T::*ns, M T::*name) {
    if ((from_.*name).empty()) return;
    Copy(ns);
    Copy(name);
  }
  template <class S, class Fields>
  void Object(std::string_view, std::optional<S> T::*m, Fields fields) {
    if (!(from_.*m)) return;
    S object;  // not optional::emplace: see KubeFieldReader::Object (clang)
    KubeFieldCopier<S> sub(*(from_.*m), object);
    fields(sub);
    to_.*m = std::move(object);
  }
  template <class Fields>
  void Group(std::string_view, Fields fields) {
    fields(*this);
  }

 private:
  template <class M>
  void Copy(M T::*m) {
    to_.*m = from_.*m;
  }

  const T& from_;
  T& to_;
};

// `from` as the scenario text keeps it: its listed fields on a default object.
template <class T>
T KubeScenarioFields(const T& from) {
  T to;
  KubeFieldCopier<T> copier(from, to);
  KubeFields(copier, KubeKind<T>{});
  return to;
}

}  // namespace knobsim
