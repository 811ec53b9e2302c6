// DynamicResources: the pod's DRA claims resolved in PreFilter and allocated per node in Filter,
// with upstream's texts (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go:
// statusUnschedulable everywhere, "cannot allocate all claims", "resourceclaim not available on
// the node", "request %s: device class %s does not exist"); the bind records the devices, and a
// pod's unbind gives them back (docs/semantics.md §6.3).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/scheduler/dra/held_devices.h"
#include "sim/scheduler/filters/filter_testing.h"
#include "sim/scheduler/scheduler.h"

namespace knobsim {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace)

constexpr const char* kDriver = "gpu.example.com";

// One slice per node, `gpus` devices gpu-0.. on it, each with model `model`.
ResourceSliceSpec NodeSlice(const std::string& node, int gpus, const std::string& model = "A") {
  ResourceSliceSpec s;
  s.name = node + "-slice";
  s.driver = kDriver;
  s.pool = node;
  s.node_name = node;
  for (int i = 0; i < gpus; ++i) {
    DraDevice d;
    d.name = "gpu-" + std::to_string(i);
    DraAttribute a;
    a.strings = {model};
    d.attributes[std::string(kDriver) + "/model"] = a;
    s.devices.push_back(std::move(d));
  }
  return s;
}

DeviceClassSpec GpuClass() {
  DeviceClassSpec c;
  c.name = "gpu";
  c.selectors = {"device.driver == 'gpu.example.com'"};
  return c;
}

ResourceClaimTemplateSpec OneGpuTemplate(const std::string& selector = "") {
  ResourceClaimTemplateSpec t;
  t.name = "one-gpu";
  DraRequest r;
  r.name = "gpu";
  r.exactly = DraExactRequest{};
  r.exactly->name = "gpu";
  r.exactly->device_class_name = "gpu";
  if (!selector.empty()) r.exactly->selectors = {selector};
  t.spec.requests.push_back(std::move(r));
  return t;
}

PodSpec PodWithTemplate(const std::string& name) {
  PodSpec pod = MakePod(name);
  pod.uid = "uid-" + name;
  PodResourceClaim c;
  c.name = "gpu";
  c.resource_claim_template_name = "one-gpu";
  pod.resource_claims.push_back(c);
  return pod;
}

// The pod's entry "gpu" naming an existing claim.
PodResourceClaim NamedClaim(const std::string& claim) {
  PodResourceClaim c;
  c.name = "gpu";
  c.resource_claim_name = claim;
  return c;
}

// A claim allocated gpu-0 of `node`, pinned there by its node selector.
ResourceClaimSpec AllocatedOn(const std::string& name, const std::string& node) {
  ResourceClaimSpec claim;
  claim.name = name;
  claim.spec = OneGpuTemplate().spec;
  claim.allocation = DraAllocation{};
  DraDeviceResult gpu0;
  gpu0.request = "gpu";
  gpu0.driver = kDriver;
  gpu0.pool = node;
  gpu0.device = "gpu-0";
  claim.allocation->results.push_back(gpu0);
  claim.allocation->node_selector =
      DraNodeSelector{{NodeSelectorRequirement{"metadata.name", "In", {node}}}};
  return claim;
}

ClusterState TwoNodes(std::vector<ResourceSliceSpec> slices,
                      std::vector<ResourceClaimSpec> claims = {},
                      ResourceClaimTemplateSpec tmpl = OneGpuTemplate()) {
  ClusterState cluster;
  cluster.AddNode(MakeNode("n0"));
  cluster.AddNode(MakeNode("n1"));
  cluster.SetDra(DraCatalog(std::move(slices), {GpuClass()}, std::move(claims), {tmpl}));
  return cluster;
}

TEST_CASE(
    "DynamicResources: a pod's claims are allocated on the node the scheduler picks, and "
    "the next pod gets what is left") {
  ClusterState cluster = TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)});
  Scheduler scheduler(cluster, SchedulerConfig{});
  const ScheduleResult a = scheduler.ScheduleAndBind(PodWithTemplate("a"));
  REQUIRE(a.placement.node >= 0);
  REQUIRE(a.placement.dra_allocations.size() == 1);
  CHECK(a.placement.dra_allocations[0].results.at(0).device == "gpu-0");
  // The claim made from the template is the pod's, allocated and reserved.
  const ResourceClaimSpec& made = cluster.dra().claims().at("default/a-gpu");
  CHECK(made.allocation.has_value());
  CHECK(made.reserved_for.at(0).name == "a");
  const ScheduleResult b = scheduler.ScheduleAndBind(PodWithTemplate("b"));
  REQUIRE(b.placement.node >= 0);
  CHECK(b.placement.node != a.placement.node);
  const ScheduleResult c = scheduler.ScheduleAndBind(PodWithTemplate("c"));
  CHECK(c.placement.node < 0);
  CHECK(c.message ==
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

TEST_CASE(
    "DynamicResources: an unbound pod's claim made from a template goes, and its device "
    "is free again") {
  ClusterState cluster = TwoNodes({NodeSlice("n0", 1)});
  Scheduler scheduler(cluster, SchedulerConfig{});
  REQUIRE(scheduler.ScheduleAndBind(PodWithTemplate("a")).placement.node == 0);
  CHECK(scheduler.Schedule(PodWithTemplate("b")).placement.node < 0);
  cluster.Unbind(0);
  CHECK(cluster.dra().claims().count("default/a-gpu") == 0);
  CHECK(scheduler.Schedule(PodWithTemplate("b")).placement.node == 0);
}

TEST_CASE(
    "DraCatalog keeps its per-device table in step with what claims hold: binds, unbinds, "
    "rebinds, and a claim allocated in the export") {
  ResourceClaimSpec exported;
  exported.name = "exported";
  exported.spec = OneGpuTemplate().spec;
  exported.allocation = DraAllocation{};
  DraDeviceResult r;
  r.request = "gpu";
  r.driver = kDriver;
  r.pool = "n1";
  r.device = "gpu-1";
  exported.allocation->results = {r};
  ClusterState cluster = TwoNodes({NodeSlice("n0", 2), NodeSlice("n1", 2)}, {exported});
  const auto in_step = [&] {
    const DraCatalog& dra = cluster.dra();
    const std::vector<uint8_t> want = dra::HeldByDevice(dra.slice_index(), dra.allocated());
    return std::vector<uint8_t>(dra.held_by_device().begin(), dra.held_by_device().end()) == want;
  };
  CHECK(in_step());
  Scheduler scheduler(cluster, SchedulerConfig{});
  for (const char* name : {"a", "b", "c"}) {
    REQUIRE(scheduler.ScheduleAndBind(PodWithTemplate(name)).placement.node >= 0);
    CHECK(in_step());
  }
  CHECK(scheduler.Schedule(PodWithTemplate("d")).placement.node < 0);  // 3 free of 4, then 0
  const Placement where = cluster.placement(1);
  cluster.Unbind(1);
  CHECK(in_step());
  cluster.Rebind(1, where);
  CHECK(in_step());
  CHECK(scheduler.Schedule(PodWithTemplate("d")).placement.node < 0);
  cluster.Unbind(0);
  CHECK(in_step());
  CHECK(scheduler.Schedule(PodWithTemplate("d")).placement.node >= 0);
}

TEST_CASE("DynamicResources PreFilter and Filter statuses, as upstream words them") {
  ResourceClaimSpec on_n1;
  on_n1.name = "shared";
  on_n1.spec = OneGpuTemplate().spec;
  on_n1.allocation = DraAllocation{};
  DraDeviceResult gpu0;
  gpu0.request = "gpu";
  gpu0.driver = kDriver;
  gpu0.pool = "n1";
  gpu0.device = "gpu-0";
  on_n1.allocation->results.push_back(gpu0);
  on_n1.allocation->node_selector =
      DraNodeSelector{{NodeSelectorRequirement{"metadata.name", "In", {"n1"}}}};
  struct Case {
    const char* name;
    PodSpec pod;
    ResourceClaimTemplateSpec tmpl;
    const char* message;
  };
  PodSpec missing = MakePod("p");
  missing.resource_claims.push_back(NamedClaim("nope"));
  PodSpec shared = MakePod("p");
  shared.resource_claims.push_back(NamedClaim("shared"));
  ResourceClaimTemplateSpec no_class = OneGpuTemplate();
  no_class.spec.requests[0].exactly->device_class_name = "tpu";
  const Case cases[] = {
      {"a claim that does not exist", missing, OneGpuTemplate(),
       "0/2 nodes are available: resourceclaim.resource.k8s.io \"nope\" not found. no new claims "
       "to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
       "scheduling."},
      {"a class that does not exist", PodWithTemplate("p"), no_class,
       "0/2 nodes are available: request gpu: device class tpu does not exist. no new claims to "
       "deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
       "scheduling."},
      {"no device matches the request's selector", PodWithTemplate("p"),
       OneGpuTemplate("device.attributes['gpu.example.com'].model == 'B'"),
       "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
       "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster = TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)}, {on_n1}, c.tmpl);
    Scheduler scheduler(cluster, SchedulerConfig{});
    const ScheduleResult r = scheduler.Schedule(c.pod);
    CHECK(r.placement.node < 0);
    CHECK(r.message == c.message);
  }
  // A claim allocated on n1 (shared by pods): only n1 may take the pod.
  ClusterState cluster = TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)}, {on_n1});
  Scheduler scheduler(cluster, SchedulerConfig{});
  const ScheduleResult r = scheduler.Schedule(shared, /*explain=*/true);
  CHECK(r.placement.node == 1);
  CHECK(r.placement.dra_allocations.empty());  // nothing new to allocate
  REQUIRE(r.explain.size() == 2);
  CHECK(r.explain[0].failed_plugin == "DynamicResources");
  CHECK(r.explain[0].status.reasons.at(0) == "resourceclaim not available on the node");
}

// upstream dynamicresources_test.go TestPlugin "deleted-claim", "wrong-claim", and a status
// entry without a claim (resourceclaim.Name: the control plane made none on purpose).
TEST_CASE("DynamicResources PreFilter: claims being deleted, not the pod's, or not made") {
  struct Case {
    const char* name;
    int minor;
    bool deleting;
    const char* owner;      // the template claim's controller (pod name)
    const char* owner_uid;  // and uid
    bool no_claim_made;
    const char* message;  // "" = the pod is placed
  };
  const Case cases[] = {
      {"deleted-claim", 35, true, "p", "uid-p", false,
       "0/2 nodes are available: resourceclaim \"p-gpu-x7k2p\" is being deleted. no new claims "
       "to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
       "scheduling."},
      {"wrong-claim (1.35 wording)", 35, false, "other", "uid-other", false,
       "0/2 nodes are available: ResourceClaim default/p-gpu-x7k2p was not created for pod "
       "default/p (pod is not owner). no new claims to deallocate, preemption: 0/2 nodes are "
       "available: 2 Preemption is not helpful for scheduling."},
      {"wrong-claim (1.36 wording)", 36, false, "p", "uid-other", false,
       "0/2 nodes are available: ResourceClaim default/p-gpu-x7k2p was not created for Pod "
       "default/p (Pod is not owner). no new claims to deallocate, preemption: 0/2 nodes are "
       "available: 2 Preemption is not helpful for scheduling."},
      {"the pod's own claim", 35, false, "p", "uid-p", false, ""},
      {"owned by name where the claim has no uid", 35, false, "p", "", false, ""},
      {"no claim made: the entry is skipped", 35, true, "other", "", true, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ResourceClaimSpec made;
    made.name = "p-gpu-x7k2p";
    made.spec = OneGpuTemplate().spec;
    made.owner_pod = c.owner;
    made.owner_pod_uid = c.owner_uid;
    made.deleting = c.deleting;
    ClusterState cluster = TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)}, {made});
    PodSpec pod = PodWithTemplate("p");
    if (c.no_claim_made) {
      pod.resource_claims[0].no_claim_made = true;
    } else {
      pod.resource_claims[0].generated_claim_name = made.name;
    }
    SchedulerConfig config;
    config.kube_version.minor = c.minor;
    Scheduler scheduler(cluster, config);
    const ScheduleResult r = scheduler.Schedule(pod);
    CHECK(r.message == c.message);
    CHECK((r.placement.node >= 0) == (std::string(c.message).empty()));
  }
}

// upstream's Filter allocates first and checks allocated claims' node selectors after, so an
// allocation that fails on the node is what the node reports.
TEST_CASE("DynamicResources Filter: the allocation's verdict comes before an allocated claim's") {
  ClusterState cluster =
      TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)}, {AllocatedOn("pinned", "n1")},
               OneGpuTemplate("device.attributes['gpu.example.com'].model == 'B'"));
  PodSpec pod = PodWithTemplate("p");
  pod.resource_claims.push_back(NamedClaim("pinned"));
  pod.resource_claims.back().name = "pinned";
  Scheduler scheduler(cluster, SchedulerConfig{});
  const ScheduleResult r = scheduler.Schedule(pod);
  CHECK(r.message ==
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
}

// upstream TestPlugin "CEL-runtime-error-for-one-of-two-nodes": an allocator error is an error
// status, which aborts the cycle although the other node would fit; "invalid pools": the
// allocator's message where a pool the node sees is broken; an empty class aborts in PreFilter.
TEST_CASE("DynamicResources: errors abort the cycle, with the framework's wrapping") {
  ResourceSliceSpec broken = NodeSlice("n1", 2);
  broken.devices[1].name = broken.devices[0].name;  // a duplicate device name: an invalid pool
  ResourceSliceSpec healthy = NodeSlice("n1", 1);
  healthy.devices[0].attributes[std::string(kDriver) + "/healthy"].kind = DraAttribute::Kind::kBool;
  healthy.devices[0].attributes[std::string(kDriver) + "/healthy"].ints = {1};
  ResourceClaimTemplateSpec no_class = OneGpuTemplate();
  no_class.spec.requests[0].exactly->device_class_name = "";
  struct Case {
    const char* name;
    std::vector<ResourceSliceSpec> slices;
    ResourceClaimTemplateSpec tmpl;
    const char* message;
  };
  const Case cases[] = {
      {"CEL runtime error on the first node tried",
       {NodeSlice("n0", 1), healthy},
       OneGpuTemplate("device.attributes['gpu.example.com'].healthy"),
       "running \"DynamicResources\" filter plugin: claim default/p-gpu: selector #0 on device "
       "gpu.example.com/n0/gpu-0: CEL runtime error: no such key: healthy"},
      {"an invalid pool",
       {broken},
       OneGpuTemplate(),
       "0/2 nodes are available: 1 cannot allocate all claims, 1 invalid resource pools were "
       "encountered. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is "
       "not helpful for scheduling."},
      {"a request without a class",
       {NodeSlice("n0", 1)},
       no_class,
       "running PreFilter plugin \"DynamicResources\": request gpu: unsupported request type"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    ClusterState cluster = TwoNodes(c.slices, {}, c.tmpl);
    Scheduler scheduler(cluster, SchedulerConfig{});
    const ScheduleResult r = scheduler.Schedule(PodWithTemplate("p"));
    CHECK(r.placement.node < 0);
    CHECK(r.message == c.message);
  }
}

// upstream TestPlugin "wrong-topology": no node takes the pod because its allocated claim is
// pinned to a node that is not there; PostFilter deallocates the claim (reserved for no pod),
// and the next attempt allocates it afresh.
TEST_CASE("DynamicResources PostFilter deallocates an allocated claim no node would take") {
  ClusterState cluster =
      TwoNodes({NodeSlice("n0", 1), NodeSlice("n1", 1)}, {AllocatedOn("pinned", "gone")});
  PodSpec pod = MakePod("p");
  pod.uid = "uid-p";
  pod.resource_claims.push_back(NamedClaim("pinned"));
  Scheduler scheduler(cluster, SchedulerConfig{});
  const ScheduleResult first = scheduler.Schedule(pod);
  CHECK(first.placement.node < 0);
  CHECK(first.message ==
        "0/2 nodes are available: 2 resourceclaim not available on the node. deallocation of "
        "ResourceClaim completed, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling.");
  CHECK_FALSE(cluster.dra().claims().at("default/pinned").allocation.has_value());
  const ScheduleResult second = scheduler.ScheduleAndBind(pod);
  CHECK(second.placement.node == 0);
  CHECK(cluster.dra().claims().at("default/pinned").allocation.has_value());

  // Reserved for another pod: it stays, and the answer is upstream's fallback.
  ResourceClaimSpec held = AllocatedOn("pinned", "gone");
  held.reserved_for.push_back({"pods", "other", "uid-other"});
  ClusterState busy = TwoNodes({NodeSlice("n0", 1)}, {held});
  Scheduler busy_scheduler(busy, SchedulerConfig{});
  CHECK(busy_scheduler.Schedule(pod).message.find("still not schedulable") != std::string::npos);
  CHECK(busy.dra().claims().at("default/pinned").allocation.has_value());
}

// upstream TestPlugin "single-claim-prioritized-list-scoring": the node whose allocation uses
// an earlier firstAvailable entry scores higher (8 - index; normalised 100 and 87), from 1.35.
TEST_CASE("DynamicResources score: the node that can give a request's first choice wins") {
  ResourceClaimTemplateSpec prioritized;
  prioritized.name = "one-gpu";
  DraRequest& r = prioritized.spec.requests.emplace_back();
  r.name = "gpu";
  for (const char* model : {"B", "A"}) {
    DraExactRequest& sub = r.first_available.emplace_back();
    sub.name = std::string("model-") + model;
    sub.device_class_name = "gpu";
    sub.selectors = {std::string("device.attributes['gpu.example.com'].model == '") + model + "'"};
  }
  struct Case {
    int minor;
    int want_node;
  };
  // n0 has an A (the second choice), n1 a B (the first); before 1.35 no score tells them apart
  // and the lower index wins the tie (seedless tie-break of the test config).
  for (const Case& c : {Case{35, 1}, Case{34, 0}}) {
    CAPTURE(c.minor);
    ClusterState cluster =
        TwoNodes({NodeSlice("n0", 1, "A"), NodeSlice("n1", 1, "B")}, {}, prioritized);
    SchedulerConfig config;
    config.kube_version.minor = c.minor;
    Scheduler scheduler(cluster, config);
    const ScheduleResult got = scheduler.Schedule(PodWithTemplate("p"), /*explain=*/true);
    CHECK(got.placement.node == c.want_node);
    if (c.minor < 35) continue;
    REQUIRE(got.explain.size() == 2);
    for (const NodeVerdict& v : got.explain) {
      const auto dra = std::find_if(v.scores.begin(), v.scores.end(),
                                    [](const auto& s) { return s.plugin == "DynamicResources"; });
      REQUIRE(dra != v.scores.end());
      CHECK(dra->raw == (v.node == 0 ? 7 : 8));
      CHECK(dra->normalized == (v.node == 0 ? 87 : 100));
      CHECK(dra->weight == 1);
    }
  }
}

// DRAExtendedResource (1.36+, upstream extendedresources.go): a pod asking example.com/gpu,
// which the class names, gets it from a claim the scheduler makes where no device plugin offers
// it; a node offering it through a device plugin serves it as before; before 1.36 the request is
// a plain extended resource.
TEST_CASE("DynamicResources: extended resources a DeviceClass backs, where nodes offer none") {
  auto cluster_of = [](bool plugin_on_n1) {
    ClusterState cluster;
    cluster.AddNode(MakeNode("n0"));
    NodeSpec n1 = MakeNode("n1");
    if (plugin_on_n1) n1.allocatable["example.com/gpu"] = 1;
    cluster.AddNode(n1);
    DeviceClassSpec cls = GpuClass();
    cls.extended_resource_name = "example.com/gpu";
    cluster.SetDra(DraCatalog({NodeSlice("n0", 2)}, {cls}, {}, {}));
    return cluster;
  };
  auto asking = [](const std::string& name, int64_t gpus) {
    PodSpec pod = MakePod(name);
    pod.uid = "uid-" + name;
    pod.requests["example.com/gpu"] = gpus;
    return pod;
  };
  SchedulerConfig at136;
  at136.kube_version.minor = 36;
  {
    ClusterState cluster = cluster_of(false);
    Scheduler scheduler(cluster, at136);
    const ScheduleResult a = scheduler.ScheduleAndBind(asking("a", 2));
    REQUIRE(a.placement.node == 0);  // n1 has no devices
    REQUIRE(a.placement.extended_resource_claim.has_value());
    const ResourceClaimSpec& made = cluster.dra().claims().at("default/a-extended-resources");
    REQUIRE(made.allocation.has_value());
    CHECK(made.allocation->results.size() == 2);
    CHECK(made.spec.requests.at(0).name == "container-0-request-0");  // its only request
    CHECK(made.reserved_for.at(0).name == "a");
    const ScheduleResult b = scheduler.ScheduleAndBind(asking("b", 1));
    CHECK(b.placement.node < 0);
    CHECK(b.message ==
          "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
          "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    // The pod goes: its claim's devices are free again.
    cluster.Unbind(0);
    CHECK(scheduler.Schedule(asking("b", 1)).placement.node == 0);
  }
  {
    // A device plugin offers it on n1: n1 serves it as an extended resource, n0 through DRA.
    ClusterState cluster = cluster_of(true);
    Scheduler scheduler(cluster, at136);
    const ScheduleResult a = scheduler.ScheduleAndBind(asking("a", 1));
    REQUIRE(a.placement.node >= 0);
    CHECK(a.placement.extended_resource_claim.has_value() == (a.placement.node == 0));
  }
  {
    // 1.35: the gate is off, the request is a plain extended resource no node has enough of.
    ClusterState cluster = cluster_of(false);
    Scheduler scheduler(cluster, SchedulerConfig{});
    const ScheduleResult a = scheduler.ScheduleAndBind(asking("a", 1));
    CHECK(a.placement.node < 0);
    CHECK(a.message.find("2 Insufficient example.com/gpu") != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim
