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
  missing.resource_claims.push_back({"gpu", "nope", "", ""});
  PodSpec shared = MakePod("p");
  shared.resource_claims.push_back({"gpu", "shared", "", ""});
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

}  // namespace
}  // namespace knobsim
