// What import makes of DRA objects (import_dra.h): whole GPUs of the NVIDIA DRA driver become a
// node's cards, a claim a scenario can say becomes a `dra:` ask, and everything else is refused
// with its reason.
#include "sim/import/import_dra.h"
#include "sim/dra_ask_test_support.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {
namespace {

DraAttribute Text(const std::string& s) {
  DraAttribute a;
  a.strings = {s};
  return a;
}

ResourceSliceSpec Slice(const std::string& node, std::vector<std::string> types,
                        const std::string& product = "NVIDIA L4", int64_t generation = 1) {
  ResourceSliceSpec s;
  s.name = node + "-slice-" + std::to_string(generation);
  s.driver = "gpu.nvidia.com";
  s.pool = node;
  s.pool_generation = generation;
  s.node_name = node;
  for (size_t i = 0; i < types.size(); ++i) {
    DraDevice& d = s.devices.emplace_back();
    d.name = "gpu-" + std::to_string(i);
    d.attributes["gpu.nvidia.com/type"] = Text(types[i]);
    d.attributes["gpu.nvidia.com/productName"] = Text(product);
  }
  return s;
}

TEST_CASE("DraGpuNodes: only the newest slices of whole GPUs of one product") {
  KubeObjects o;
  o.resource_slices = {Slice("a", {"gpu", "gpu"}), Slice("b", {"gpu", "mig"}),
                       Slice("c", {"gpu"}, "NVIDIA L4", 1),
                       Slice("c", {"gpu", "gpu", "gpu"}, "NVIDIA L4", 2)};
  ResourceSliceSpec other = Slice("d", {"gpu"});
  other.driver = "neuron.amazonaws.com";
  o.resource_slices.push_back(other);
  std::map<std::string, std::string> why;
  const std::map<std::string, DraNodeGpus> nodes = DraGpuNodes(o, &why);
  REQUIRE(nodes.size() == 2);
  CHECK(nodes.at("a").count == 2);
  CHECK(nodes.at("a").product == "NVIDIA-L4");
  CHECK(nodes.at("c").count == 3);  // generation 2 replaces 1
  CHECK(why.at("b") == "MIG device gpu-1 names no profile or parentUUID");
  CHECK(why.at("d") == "ResourceSlice d-slice-1 of driver neuron.amazonaws.com");
}

DraAsk NvidiaShare(int64_t memory_mib) {
  DraAsk ask = WholeGpuAsk(1, false);
  ask.memory_mib = memory_mib;
  return ask;
}

TEST_CASE("ScenarioDraAsk: what a scenario claim can say, and why the rest is refused") {
  auto request = [](int64_t count) {
    DraRequest r;
    r.name = "gpu";
    r.exactly.emplace();
    r.exactly->name = "gpu";
    r.exactly->device_class_name = "gpu.nvidia.com";
    r.exactly->count = count;
    return r;
  };
  auto mps = [](const std::string& json) { return DraOpaqueConfig{{}, "gpu.nvidia.com", json}; };
  struct Case {
    const char* name;
    DraClaimSpec spec;
    bool by_name;  // the pod names the claim (shared), else a template's
    std::optional<DraAsk> want;
    const char* why;
  };
  DraClaimSpec one{{request(1)}, {}, {}};
  DraClaimSpec two = one;
  two.requests[0].exactly->count = 2;
  DraClaimSpec shared_mps = one;
  shared_mps.config = {mps(
      R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig","sharing":{"strategy":"MPS",)"
      R"("mpsConfig":{"defaultActiveThreadPercentage":40,"defaultPinnedDeviceMemoryLimit":"6Gi"}}})")};
  DraClaimSpec sliced = one;
  sliced.config = {mps(R"({"kind":"GpuConfig","sharing":{"strategy":"TimeSlicing",)"
                       R"("timeSlicingConfig":{"interval":"Long"}}})")};
  DraClaimSpec selector = one;
  selector.requests[0].exactly->selectors = {"device.attributes['gpu.nvidia.com'].index == 0"};
  DraClaimSpec mig = one;
  mig.requests[0].exactly->device_class_name = "mig.nvidia.com";
  DraClaimSpec capacity = one;
  capacity.requests[0].exactly->capacity_requests_milli["gpu.nvidia.com/memory"] = 1;
  DraClaimSpec constrained = two;
  constrained.constraints.emplace_back().match_attribute = "resource.kubernetes.io/pcieRoot";
  DraClaimSpec per_device = one;
  per_device.config = {mps(R"({"kind":"GpuConfig","sharing":{"strategy":"MPS","mpsConfig":)"
                           R"({"defaultPerDevicePinnedMemoryLimit":{"0":"1Gi"}}}})")};
  const Case cases[] = {
      {"one GPU per pod", one, false,
       WholeGpuAsk(1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0), ""},
      {"two GPUs shared by name", two, true,
       WholeGpuAsk(2, true, DeviceSharingStrategy::kTimeSlicing, 0, 0), ""},
      {"MPS with its limits", shared_mps, true,
       WholeGpuAsk(1, true, DeviceSharingStrategy::kMps, 40, 6144), ""},
      {"time-slicing's interval is not modelled", sliced, true,
       WholeGpuAsk(1, true, DeviceSharingStrategy::kTimeSlicing, 0, 0), ""},
      {"a per-pod claim's sharing means nothing", shared_mps, false,
       WholeGpuAsk(1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0), ""},
      {"a CEL selector on whole GPUs", selector, false, std::nullopt,
       "request gpu has CEL selectors"},
      {"MIG devices, none in the export", mig, false, std::nullopt,
       "request gpu: its selectors match no MIG instance in the export"},
      {"a share of an NVIDIA GPU's consumable memory", capacity, false, NvidiaShare(1), ""},
      {"a constraint", constrained, false, std::nullopt,
       "its constraints (matchAttribute, distinctAttribute)"},
      {"an MPS limit per device", per_device, true, std::nullopt,
       "mpsConfig.defaultPerDevicePinnedMemoryLimit, which is not modelled"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    KubeObjects o;
    PodSpec pod;
    pod.name = "p";
    PodResourceClaim& entry = pod.resource_claims.emplace_back();
    entry.name = "gpu";
    if (c.by_name) {
      entry.resource_claim_name = "c";
      ResourceClaimSpec& claim = o.resource_claims.emplace_back();
      claim.name = "c";
      claim.spec = c.spec;
    } else {
      entry.resource_claim_template_name = "t";
      ResourceClaimTemplateSpec& t = o.resource_claim_templates.emplace_back();
      t.name = "t";
      t.spec = c.spec;
    }
    std::string why;
    const std::optional<DraAsk> got = ScenarioDraAsk(pod, o, &why);
    CHECK(got == c.want);
    CHECK(why == c.why);
  }
}

// A device of the NVIDIA driver's static MIG (type "mig") or of HAMi's DRA driver.
DraDevice Device(const std::string& driver, const std::string& name, const std::string& type,
                 const std::string& profile = "", const std::string& parent = "") {
  DraDevice d;
  d.name = name;
  d.attributes[driver + "/type"] = Text(type);
  d.attributes[driver + "/productName"] = Text("NVIDIA H100 80GB HBM3");
  if (!profile.empty()) d.attributes[driver + "/profile"] = Text(profile);
  if (!parent.empty()) d.attributes[driver + "/parentUUID"] = Text(parent);
  d.allow_multiple_allocations = driver != "gpu.nvidia.com";
  return d;
}

ResourceSliceSpec SliceOf(const std::string& node, const std::string& driver,
                          std::vector<DraDevice> devices) {
  ResourceSliceSpec s;
  s.name = node + "-" + driver;
  s.driver = driver;
  s.pool = node;
  s.pool_generation = 1;
  s.node_name = node;
  s.devices = std::move(devices);
  return s;
}

TEST_CASE(
    "DraGpuNodes: MIG instances created ahead, one layout a card; DynamicMIG cards by their "
    "counter sets; HAMi's shared GPUs") {
  const std::string nv = "gpu.nvidia.com", hami = "hami-core-gpu.project-hami.io";
  KubeObjects o;
  o.resource_slices = {
      // Two cards, each 3g + 1g + 1g: the layout, sorted.
      SliceOf("m", nv,
              {Device(nv, "a", "mig", "3g.40gb", "U0"), Device(nv, "b", "mig", "1g.10gb", "U0"),
               Device(nv, "c", "mig", "1g.10gb", "U0"), Device(nv, "d", "mig", "1g.10gb", "U1"),
               Device(nv, "e", "mig", "3g.40gb", "U1"), Device(nv, "f", "mig", "1g.10gb", "U1")}),
      SliceOf("uneven", nv,
              {Device(nv, "a", "mig", "3g.40gb", "U0"), Device(nv, "b", "mig", "7g.80gb", "U1")}),
      SliceOf("mixed", nv, {Device(nv, "a", "mig", "3g.40gb", "U0"), Device(nv, "b", "gpu")}),
      SliceOf("h", hami,
              {Device(hami, "hami-gpu-0", "hami-gpu"), Device(hami, "hami-gpu-1", "hami-gpu")}),
      SliceOf("both", nv, {Device(nv, "gpu-0", "gpu")}),
      SliceOf("both", hami, {Device(hami, "hami-gpu-0", "hami-gpu")}),
  };
  ResourceSliceSpec dynamic =
      SliceOf("dyn", nv, {Device(nv, "gpu-0-mig-1g", "mig", "1g.10gb", "U")});
  dynamic.devices[0].consumes_counters.emplace_back().counter_set = "gpu-0-counter-set";
  o.resource_slices.push_back(dynamic);
  ResourceSliceSpec half =
      SliceOf("half", nv, {Device(nv, "gpu-0", "gpu"), Device(nv, "gpu-1", "gpu")});
  half.devices[0].consumes_counters.emplace_back().counter_set = "gpu-0-counter-set";
  o.resource_slices.push_back(half);
  ResourceSliceSpec odd = SliceOf("odd", hami, {Device(hami, "hami-gpu-0", "hami-gpu")});
  odd.devices[0].capacity["hami-core-gpu.project-hami.io/encoders"] = DraCapacity{1000, {}};
  o.resource_slices.push_back(odd);
  std::map<std::string, std::string> why;
  const std::map<std::string, DraNodeGpus> nodes = DraGpuNodes(o, &why);
  REQUIRE(nodes.size() == 3);
  CHECK(nodes.at("dyn").count == 1);  // one counter set: one card
  CHECK(nodes.at("dyn").dynamic_mig);
  CHECK(!nodes.at("m").dynamic_mig);
  CHECK(nodes.at("m").count == 2);
  CHECK(nodes.at("m").driver == DraDriver::kNvidia);
  CHECK(nodes.at("m").mig == std::vector<std::string>{"1g.10gb", "1g.10gb", "3g.40gb"});
  CHECK(nodes.at("h").count == 2);
  CHECK(nodes.at("h").driver == DraDriver::kHamiCore);
  CHECK(nodes.at("h").mig.empty());
  CHECK(why.at("uneven") == "cards cut into different MIG instances (3g.40gb, 7g.80gb)");
  CHECK(why.at("mixed") == "GPUs with and without MIG instances");
  CHECK(why.at("both") == "devices of two drivers");
  CHECK(!why.count("dyn"));
  CHECK(why.at("half") == "GPUs with and without DynamicMIG partitions");
  CHECK(why.at("odd") == "device hami-gpu-0 has capacity encoders, which is not modelled");
}

TEST_CASE("ScenarioDraAsk: a MIG profile the selectors match, and HAMi shares") {
  const std::string nv = "gpu.nvidia.com";
  KubeObjects o;
  o.resource_slices = {
      SliceOf("m", nv,
              {Device(nv, "a", "mig", "3g.40gb", "U0"), Device(nv, "b", "mig", "1g.10gb", "U0"),
               Device(nv, "c", "mig", "1g.20gb", "U0")})};
  auto claim_of = [](const std::string& cls, std::vector<std::string> selectors,
                     std::map<std::string, int64_t> capacity) {
    DraClaimSpec spec;
    DraRequest& r = spec.requests.emplace_back();
    r.name = "gpu";
    r.exactly.emplace();
    r.exactly->name = "gpu";
    r.exactly->device_class_name = cls;
    r.exactly->selectors = std::move(selectors);
    r.exactly->capacity_requests_milli = std::move(capacity);
    return spec;
  };
  auto ask = [&](const DraClaimSpec& spec, bool by_name, std::string& why) {
    KubeObjects objects = o;
    PodSpec pod;
    pod.name = "p";
    PodResourceClaim& entry = pod.resource_claims.emplace_back();
    entry.name = "gpu";
    if (by_name) {
      entry.resource_claim_name = "c";
      objects.resource_claims.emplace_back().name = "c";
      objects.resource_claims.back().spec = spec;
    } else {
      entry.resource_claim_template_name = "t";
      objects.resource_claim_templates.emplace_back().name = "t";
      objects.resource_claim_templates.back().spec = spec;
    }
    return ScenarioDraAsk(pod, objects, &why);
  };
  std::string why;
  const std::string profile = "device.attributes['gpu.nvidia.com'].profile";
  std::optional<DraAsk> got =
      ask(claim_of("mig.nvidia.com", {profile + ".startsWith('3g')"}, {}), false, why);
  REQUIRE_MESSAGE(got, why);
  CHECK(got->mig_profile == "3g.40gb");
  CHECK(got->driver == DraDriver::kNvidia);
  got = ask(claim_of("mig.nvidia.com", {profile + ".startsWith('1g')"}, {}), false, why);
  CHECK(!got);
  CHECK(why ==
        "request gpu: its selectors match MIG instances of 2 profiles (1g.10gb, 1g.20gb); "
        "a scenario claim asks one");
  got = ask(claim_of("mig.nvidia.com", {"device.attributes['gpu.nvidia.com'].nope == 1"}, {}),
            false, why);
  CHECK(!got);
  CHECK(why == "request gpu: its selectors match no MIG instance in the export");
  constexpr int64_t kGiMilli = (int64_t{1} << 30) * 1000;
  got = ask(claim_of("hami-core-gpu.project-hami.io", {},
                     {{"memory", 6 * kGiMilli}, {"hami-core-gpu.project-hami.io/cores", 30000}}),
            false, why);
  REQUIRE_MESSAGE(got, why);
  CHECK(got->driver == DraDriver::kHamiCore);
  CHECK(got->memory_mib == 6144);
  CHECK(got->cores == 30);
  got = ask(claim_of("hami-core-gpu.project-hami.io", {}, {{"memory", 6 * kGiMilli}}), true, why);
  CHECK(!got);
  CHECK(why == "a claim of HAMi's DRA driver shared by several pods (one HAMi-core limit for all)");
  got = ask(claim_of("hami-core-gpu.project-hami.io", {}, {{"cores", 2500}}), false, why);
  CHECK(!got);
  CHECK(why == "request gpu asks capacity cores a scenario cannot say");
}

TEST_CASE(
    "ExtendedResourceDraAsk: a DeviceClass backs the resource, no device plugin offers it, "
    "kubelets at 1.36") {
  auto objects = [](const std::string& version, const std::string& extended) {
    KubeObjects o;
    NodeSpec& n = o.nodes.emplace_back();
    n.name = "a";
    n.kubelet_version = version;
    DeviceClassSpec& c = o.device_classes.emplace_back();
    c.name = "gpu.nvidia.com";
    c.extended_resource_name = extended;
    return o;
  };
  auto Ask = [](const PodSpec& p, const KubeObjects& o, std::string* why,
                std::string* resource = nullptr) {
    return ExtendedResourceDraAsk(p, o, ExtendedResourceNodesOf(o), why, resource);
  };
  PodSpec pod;
  pod.name = "p";
  pod.requests = {{"cpu", 1000}, {"nvidia.com/gpu", 2}};
  std::string why, resource;
  std::optional<DraAsk> ask = Ask(pod, objects("v1.36.0", "nvidia.com/gpu"), &why, &resource);
  REQUIRE(ask);
  CHECK(ask->gpus == 2);
  CHECK(resource == "nvidia.com/gpu");
  // Before 1.36 the gate is off: the pod stays a device-plugin request.
  CHECK(!Ask(pod, objects("v1.35.2", "nvidia.com/gpu"), &why));
  CHECK(why.empty());
  // A device plugin offers it somewhere: the scheduler uses that.
  KubeObjects offered = objects("v1.36.0", "nvidia.com/gpu");
  offered.nodes[0].allocatable["nvidia.com/gpu"] = 8;
  CHECK(!Ask(pod, offered, &why));
  // The implicit name of a class.
  PodSpec implicit = pod;
  implicit.requests = {{"deviceclass.resource.kubernetes.io/gpu.nvidia.com", 1}};
  ask = Ask(implicit, objects("v1.36.0", ""), &why);
  REQUIRE(ask);
  CHECK(ask->gpus == 1);
  // Another class than a scenario says.
  KubeObjects other = objects("v1.36.0", "example.com/fpga");
  PodSpec fpga = pod;
  fpga.requests = {{"example.com/fpga", 1}};
  other.device_classes[0].name = "fpga.example.com";
  CHECK(!Ask(fpga, other, &why));
  CHECK(why ==
        "it asks example.com/fpga, which DeviceClass fpga.example.com backs, not a class a "
        "scenario says");
}

}  // namespace
}  // namespace knobsim
