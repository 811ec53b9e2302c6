// VolumeBinding and VolumeZone, after upstream's
// pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go (TestVolumeBinding) and
// pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go (TestSingleZone,
// TestWithBinding); each case names the upstream case it follows.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/plugins.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using testing::MakeNode;
using testing::MakePod;

constexpr const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr const char* kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kRegion = "topology.kubernetes.io/region";

PersistentVolumeClaimSpec Claim(const std::string& name, const std::string& volume,
                                std::optional<std::string> sc = std::string("standard"),
                                int64_t bytes = 1 << 30) {
  PersistentVolumeClaimSpec c;
  c.name = name;
  c.volume_name = volume;
  c.storage_class_name = std::move(sc);
  c.requested_bytes = bytes;
  c.phase = volume.empty() ? "Pending" : "Bound";
  c.access_modes = {"ReadWriteOnce"};
  return c;
}

PersistentVolumeSpec Volume(const std::string& name, Labels labels = {},
                            std::vector<std::vector<NodeSelectorRequirement>> affinity = {},
                            const std::string& sc = "standard", int64_t bytes = 1 << 30) {
  PersistentVolumeSpec v;
  v.name = name;
  v.labels = std::move(labels);
  v.node_affinity = std::move(affinity);
  v.storage_class_name = sc;
  v.capacity_bytes = bytes;
  v.phase = "Available";
  v.access_modes = {"ReadWriteOnce"};
  return v;
}

StorageClassSpec Class(const std::string& name, const std::string& mode,
                       const std::string& provisioner = "diskplugin.csi.alibabacloud.com") {
  StorageClassSpec c;
  c.name = name;
  c.volume_binding_mode = mode;
  c.provisioner = provisioner;
  return c;
}

PodSpec PodWithClaims(const std::vector<std::string>& claims) {
  PodSpec pod = MakePod("p");
  pod.pvc_claims = claims;
  return pod;
}

struct Verdict {
  PluginStatus pre_filter;
  PluginStatus filter;  // on node 0, when PreFilter passed
  bool skipped = false;
};

Verdict Run(FilterPlugin& plugin, const PodSpec& pod, const ClusterState& cluster) {
  Verdict v;
  v.pre_filter = plugin.PreFilter(pod, cluster);
  if (!v.pre_filter.ok()) return v;
  v.skipped = plugin.Skipped();
  v.filter = plugin.Filter(pod, cluster, 0);
  return v;
}

std::vector<NodeSelectorRequirement> In(const std::string& key, const std::string& value) {
  return {{key, "In", {value}}};
}

const char* const kNodeConflict = "node(s) had volume node affinity conflict";
const char* const kBindConflict = "node(s) didn't find available persistent volumes to bind";
const char* const kPvNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

TEST_CASE("VolumeBinding: claims, their volumes' node affinity and WaitForFirstConsumer binding") {
  struct Case {
    const char* name;  // upstream TestVolumeBinding's, where it has one
    std::vector<std::string> pod_claims;
    std::vector<PersistentVolumeClaimSpec> claims;
    std::vector<PersistentVolumeSpec> volumes;
    std::vector<StorageClassSpec> classes;
    std::string want_pre_filter;            // "" = success
    std::vector<std::string> want_reasons;  // Filter on node {foo: bar}; empty = fits
    bool skipped = false;
  };
  const std::vector<StorageClassSpec> kClasses = {
      Class("standard", "WaitForFirstConsumer"), Class("immediate", "Immediate"),
      Class("static", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")};
  const std::vector<Case> cases = {
      {"pod has not pvcs", {}, {}, {}, kClasses, "", {}, true},
      {"all bound", {"pvc-a"}, {Claim("pvc-a", "pv-a")}, {Volume("pv-a")}, kClasses, "", {}},
      {"all bound with local volumes",
       {"pvc-a"},
       {Claim("pvc-a", "pv-a")},
       {Volume("pv-a", {}, {In("foo", "bar")})},
       kClasses,
       "",
       {}},
      {"PVC does not exist",
       {"pvc-a"},
       {},
       {},
       kClasses,
       "persistentvolumeclaim \"pvc-a\" not found",
       {}},
      {"Part of PVCs do not exist",
       {"pvc-a", "pvc-b"},
       {Claim("pvc-a", "pv-a")},
       {Volume("pv-a")},
       kClasses,
       "persistentvolumeclaim \"pvc-b\" not found",
       {}},
      {"immediate claims not bound",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("immediate"))},
       {},
       kClasses,
       "pod has unbound immediate PersistentVolumeClaims",
       {}},
      {"a claim without a class binds statically: immediate",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string(""))},
       {},
       kClasses,
       "pod has unbound immediate PersistentVolumeClaims",
       {}},
      {"unbound claims no matches",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("static"))},
       {},
       kClasses,
       "",
       {kBindConflict}},
      {"bound and unbound unsatisfied",
       {"pvc-a", "pvc-b"},
       {Claim("pvc-a", "pv-a"), Claim("pvc-b", "", std::string("static"))},
       {Volume("pv-a", {}, {In("foo", "barbar")})},
       kClasses,
       "",
       {kNodeConflict, kBindConflict}},
      {"pv not found", {"pvc-a"}, {Claim("pvc-a", "pv-a")}, {}, kClasses, "", {kPvNotExist}},
      {"an unbound claim takes a matching Available volume",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("static"))},
       {Volume("pv-x", {}, {In("foo", "bar")}, "static")},
       kClasses,
       "",
       {}},
      {"an Available volume for another node does not match",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("static"))},
       {Volume("pv-x", {}, {In("foo", "other")}, "static")},
       kClasses,
       "",
       {kBindConflict}},
      {"a volume too small does not match",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("static"), int64_t{2} << 30)},
       {Volume("pv-x", {}, {}, "static", int64_t{1} << 30)},
       kClasses,
       "",
       {kBindConflict}},
      {"one volume serves one claim",
       {"pvc-a", "pvc-b"},
       {Claim("pvc-a", "", std::string("static")), Claim("pvc-b", "", std::string("static"))},
       {Volume("pv-x", {}, {}, "static")},
       kClasses,
       "",
       {kBindConflict}},
      {"a provisioning class fits any node without allowedTopologies",
       {"pvc-a"},
       {Claim("pvc-a", "")},
       {},
       kClasses,
       "",
       {}},
      {"a missing class",
       {"pvc-a"},
       {Claim("pvc-a", "", std::string("gone"))},
       {},
       kClasses,
       "storageclass.storage.k8s.io \"gone\" not found",
       {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster;
    cluster.AddNode(MakeNode("node-a", {{"foo", "bar"}}));
    cluster.SetVolumes(VolumeCatalog(c.claims, c.volumes, c.classes));
    auto plugin = NewVolumeBindingFilter();
    CHECK(plugin->Name() == "VolumeBinding");
    const Verdict v = Run(*plugin, PodWithClaims(c.pod_claims), cluster);
    if (!c.want_pre_filter.empty()) {
      CHECK(v.pre_filter.code == StatusCode::kUnschedulableAndUnresolvable);
      CHECK(v.pre_filter.reasons == std::vector<std::string>{c.want_pre_filter});
      continue;
    }
    REQUIRE(v.pre_filter.ok());
    CHECK(v.skipped == c.skipped);
    CHECK(v.filter.reasons == c.want_reasons);
    if (!c.want_reasons.empty()) CHECK(v.filter.code == StatusCode::kUnschedulableAndUnresolvable);
  }
}

TEST_CASE("VolumeBinding: a class's allowedTopologies decide where it can provision") {
  StorageClassSpec zonal = Class("zonal", "WaitForFirstConsumer");
  zonal.allowed_topologies = {In(kZone, "cn-hangzhou-h")};
  ClusterState cluster;
  cluster.AddNode(MakeNode("in-h", {{kZone, "cn-hangzhou-h"}}));
  cluster.AddNode(MakeNode("in-i", {{kZone, "cn-hangzhou-i"}}));
  cluster.SetVolumes(VolumeCatalog({Claim("data", "", std::string("zonal"))}, {}, {zonal}));
  auto plugin = NewVolumeBindingFilter();
  const PodSpec pod = PodWithClaims({"data"});
  REQUIRE(plugin->PreFilter(pod, cluster).ok());
  CHECK(plugin->Filter(pod, cluster, 0).ok());
  CHECK(plugin->Filter(pod, cluster, 1).reasons == std::vector<std::string>{kBindConflict});
}

// volume_zone_test.go TestSingleZone's volumes: Vol_1 beta zone us-west1-a, Vol_2 beta region
// us-west1-b, Vol_3 beta region us-west1-c, Vol_Stable_1 zone us-west1-a, Vol_Stable_2 region
// us-west1-b; Vol_Multi beta zone us-west1-a__us-west1-b (TestMultiZone).
TEST_CASE("VolumeZone: bound volumes' zone and region labels must be the node's") {
  const std::vector<PersistentVolumeSpec> volumes = {
      Volume("Vol_1", {{kBetaZone, "us-west1-a"}}),
      Volume("Vol_2", {{kBetaRegion, "us-west1-b"}}),
      Volume("Vol_3", {{kBetaRegion, "us-west1-c"}}),
      Volume("Vol_Stable_1", {{kZone, "us-west1-a"}}),
      Volume("Vol_Stable_2", {{kRegion, "us-west1-b"}}),
      Volume("Vol_Multi", {{kBetaZone, "us-west1-a__us-west1-b"}}),
      Volume("Vol_Plain"),
  };
  std::vector<PersistentVolumeClaimSpec> claims;
  for (const PersistentVolumeSpec& v : volumes) claims.push_back(Claim("PVC_" + v.name, v.name));
  struct Case {
    const char* name;
    std::string claim;
    Labels node;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"pod without volume", "", {{kBetaZone, "us-west1-a"}}, true},
      {"node without labels", "PVC_Vol_1", {}, true},
      {"beta zone label matched", "PVC_Vol_1", {{kBetaZone, "us-west1-a"}}, true},
      {"beta region label matched", "PVC_Vol_2", {{kBetaRegion, "us-west1-b"}}, true},
      {"beta region label doesn't match", "PVC_Vol_3", {{kBetaRegion, "us-west1-b"}}, false},
      {"beta zone label doesn't match", "PVC_Vol_1", {{kBetaZone, "us-west1-b"}}, false},
      {"zone label matched", "PVC_Vol_Stable_1", {{kZone, "us-west1-a"}}, true},
      {"region label matched", "PVC_Vol_Stable_2", {{kRegion, "us-west1-b"}}, true},
      {"region label doesn't match", "PVC_Vol_Stable_2", {{kRegion, "us-west1-c"}}, false},
      {"zone label doesn't match", "PVC_Vol_Stable_1", {{kZone, "us-west1-b"}}, false},
      {"pv with beta label,node with ga label, matched",
       "PVC_Vol_1",
       {{kZone, "us-west1-a"}},
       true},
      {"pv with ga label,node with beta label, don't match",
       "PVC_Vol_Stable_1",
       {{kBetaZone, "us-west1-a"}},
       false},
      {"a node without the volume's label but with another topology label",
       "PVC_Vol_1",
       {{kRegion, "us-west1"}},
       false},
      {"a multi-zone volume matches either zone",
       "PVC_Vol_Multi",
       {{kBetaZone, "us-west1-b"}},
       true},
      {"a multi-zone volume misses a third zone",
       "PVC_Vol_Multi",
       {{kBetaZone, "us-west1-c"}},
       false},
      {"a volume without topology labels skips", "PVC_Vol_Plain", {{kZone, "x"}}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster;
    cluster.AddNode(MakeNode("node", c.node));
    cluster.SetVolumes(VolumeCatalog(claims, volumes, {}));
    auto plugin = NewVolumeZoneFilter();
    const PodSpec pod = c.claim.empty() ? MakePod("p") : PodWithClaims({c.claim});
    const Verdict v = Run(*plugin, pod, cluster);
    REQUIRE(v.pre_filter.ok());
    CHECK(v.filter.ok() == c.fits);
    if (!c.fits) {
      CHECK(v.filter.code == StatusCode::kUnschedulableAndUnresolvable);
      CHECK(v.filter.reasons == std::vector<std::string>{"node(s) had no available volume zone"});
    }
  }
}

// volume_zone_test.go TestWithBinding: unbound claims by their class.
TEST_CASE("VolumeZone: unbound claims are skipped only in a WaitForFirstConsumer class") {
  const std::vector<StorageClassSpec> classes = {Class("Class_Wait", "WaitForFirstConsumer"),
                                                 Class("Class_Immediate", "Immediate")};
  struct Case {
    const char* name;
    PersistentVolumeClaimSpec claim;
    std::string want;  // PreFilter reason; "" = success (skipped)
  };
  const std::vector<Case> cases = {
      {"unbound volume empty storage class", Claim("PVC_EmptySC", "", std::string("")),
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound volume no storage class", Claim("PVC_NoSC", "", std::string("Class_0")),
       "storageclass.storage.k8s.io \"Class_0\" not found"},
      {"unbound volume immediate binding mode",
       Claim("PVC_ImmediateSC", "", std::string("Class_Immediate")),
       "PersistentVolume had no name"},
      {"unbound volume wait binding mode", Claim("PVC_WaitSC", "", std::string("Class_Wait")), ""},
      {"a bound claim whose volume is gone", Claim("PVC_Gone", "Vol_Gone"),
       "persistentvolume \"Vol_Gone\" not found"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster;
    cluster.AddNode(MakeNode("node", {{kZone, "us-west1-a"}}));
    cluster.SetVolumes(VolumeCatalog({c.claim}, {}, classes));
    auto plugin = NewVolumeZoneFilter();
    const PluginStatus s = plugin->PreFilter(PodWithClaims({c.claim.name}), cluster);
    if (c.want.empty()) {
      CHECK(s.ok());
      CHECK(plugin->Skipped());
    } else {
      CHECK(s.code == StatusCode::kUnschedulableAndUnresolvable);
      CHECK(s.reasons == std::vector<std::string>{c.want});
    }
  }
}

// volume_restrictions_test.go TestAccessModeConflicts: a ReadWriteOncePod claim another pod uses.
TEST_CASE("VolumeRestrictions: a ReadWriteOncePod claim in use keeps every other pod off") {
  PersistentVolumeClaimSpec once = Claim("claim-with-rwop", "pv-1");
  once.access_modes = {"ReadWriteOncePod"};
  PersistentVolumeClaimSpec shared = Claim("claim-with-rwo", "pv-2");
  ClusterState cluster;
  cluster.AddNode(MakeNode("node-a"));
  cluster.AddNode(MakeNode("node-b"));
  cluster.SetVolumes(VolumeCatalog({once, shared}, {Volume("pv-1"), Volume("pv-2")}, {}));
  auto plugin = NewVolumeRestrictionsFilter();
  CHECK(plugin->Name() == "VolumeRestrictions");
  struct Case {
    const char* name;
    std::vector<std::string> bound_claims;  // of a pod bound on node-a
    std::vector<std::string> pod_claims;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"nothing", {}, {}, true},
      {"failed rwop conflict", {"claim-with-rwop"}, {"claim-with-rwop"}, false},
      {"no conflict with other claims", {"claim-with-rwo"}, {"claim-with-rwop"}, true},
      {"ReadWriteOnce claims may be shared", {"claim-with-rwo"}, {"claim-with-rwo"}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState state = cluster;
    if (!c.bound_claims.empty()) testing::BindOn(state, "node-a", PodWithClaims(c.bound_claims));
    const Verdict v = Run(*plugin, PodWithClaims(c.pod_claims), state);
    REQUIRE(v.pre_filter.ok());
    CHECK(v.filter.ok() == c.fits);
    CHECK(plugin->Filter(PodWithClaims(c.pod_claims), state, 1).ok() == c.fits);  // any node
    if (!c.fits) CHECK(v.filter.code == StatusCode::kUnschedulable);
  }
  CHECK(plugin->PreFilter(PodWithClaims({"missing"}), cluster).reasons ==
        std::vector<std::string>{"persistentvolumeclaim \"missing\" not found"});
}

TEST_CASE(
    "VolumeRestrictions in the scheduler: the second user of a ReadWriteOncePod claim waits") {
  PersistentVolumeClaimSpec once = Claim("model", "pv-1");
  once.access_modes = {"ReadWriteOncePod"};
  ClusterState cluster;
  cluster.AddNode(MakeNode("node-a"));
  cluster.AddNode(MakeNode("node-b"));
  cluster.SetVolumes(VolumeCatalog({once}, {Volume("pv-1")}, {}));
  Scheduler scheduler(cluster, {});
  const PodSpec pod = PodWithClaims({"model"});
  CHECK(scheduler.ScheduleAndBind(pod).placement.node >= 0);
  // The equivalence cache must not keep the other node's earlier verdict.
  CHECK(scheduler.Schedule(pod).message ==
        "0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name "
        "and ReadWriteOncePod access mode. preemption: 0/2 nodes are available: 2 No preemption "
        "victims found for incoming pod.");
  cluster.Unbind(0);
  CHECK(scheduler.Schedule(pod).placement.node >= 0);
}

TEST_CASE("a StatefulSet replica follows its zonal volume through the whole scheduler") {
  ClusterState cluster;
  cluster.AddNode(MakeNode("h-1", {{kZone, "cn-hangzhou-h"}}));
  cluster.AddNode(MakeNode("i-1", {{kZone, "cn-hangzhou-i"}}));
  cluster.AddNode(MakeNode("i-2", {{kZone, "cn-hangzhou-i"}}));
  cluster.SetVolumes(
      VolumeCatalog({Claim("data-db-0", "d-1")},
                    {Volume("d-1", {{kZone, "cn-hangzhou-i"}}, {In(kZone, "cn-hangzhou-i")})}, {}));
  Scheduler scheduler(cluster, {});
  PodSpec db = PodWithClaims({"data-db-0"});
  CHECK(cluster.node(scheduler.ScheduleAndBind(db).placement.node).spec.name == "i-1");
  // Cordon the zone's nodes: the pod cannot follow its volume elsewhere.
  cluster.SetUnschedulable(1, true);
  cluster.SetUnschedulable(2, true);
  CHECK(scheduler.Schedule(db).message ==
        "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) were "
        "unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for "
        "scheduling.");
}

}  // namespace
}  // namespace knobsim
