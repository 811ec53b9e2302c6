// What import makes of DRA objects (import_dra.h): whole GPUs of the NVIDIA DRA driver become a
// node's cards, a claim a scenario can say becomes a `dra:` ask, and everything else is refused
// with its reason.
#include "sim/import/import_dra.h"

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
  CHECK(why.at("b") == "device gpu-1 is of type mig");
  CHECK(why.at("d") == "ResourceSlice d-slice-1 of driver neuron.amazonaws.com");
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
      {"one GPU per pod", one, false, DraAsk{1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0},
       ""},
      {"two GPUs shared by name", two, true,
       DraAsk{2, true, DeviceSharingStrategy::kTimeSlicing, 0, 0}, ""},
      {"MPS with its limits", shared_mps, true,
       DraAsk{1, true, DeviceSharingStrategy::kMps, 40, 6144}, ""},
      {"time-slicing's interval is not modelled", sliced, true,
       DraAsk{1, true, DeviceSharingStrategy::kTimeSlicing, 0, 0}, ""},
      {"a per-pod claim's sharing means nothing", shared_mps, false,
       DraAsk{1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0}, ""},
      {"a CEL selector", selector, false, std::nullopt, "request gpu has CEL selectors"},
      {"MIG devices", mig, false, std::nullopt, "request gpu asks class mig.nvidia.com"},
      {"consumable capacity", capacity, false, std::nullopt,
       "request gpu asks consumable capacity, not modelled in a run yet"},
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

}  // namespace
}  // namespace knobsim
