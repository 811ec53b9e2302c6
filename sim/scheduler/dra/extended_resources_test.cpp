// The claim DRAExtendedResource makes for a pod's extended resources: its requests as upstream's
// createRequestsAndMappings names and counts them (pkg/scheduler/framework/plugins/
// dynamicresources/extendedresources.go), and the class that backs a resource.
#include "sim/scheduler/dra/extended_resources.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim::dra {
namespace {

DeviceClassSpec Class(const std::string& name, const std::string& extended = "") {
  DeviceClassSpec c;
  c.name = name;
  c.extended_resource_name = extended;
  return c;
}

std::vector<std::string> Describe(const std::vector<DraRequest>& requests) {
  std::vector<std::string> out;
  for (const DraRequest& r : requests)
    out.push_back(r.name + " " + r.exactly->device_class_name + " x" +
                  std::to_string(r.exactly->count));
  return out;
}

}  // namespace

TEST_CASE("ExtendedResourceClass: explicit names, the implicit name, the lower name on a clash") {
  const std::vector<DeviceClassSpec> classes = {Class("gpu-b", "example.com/gpu"),
                                                Class("gpu-a", "example.com/gpu"), Class("fpga")};
  CHECK(ExtendedResourceClass(classes, "example.com/gpu")->name == "gpu-a");
  CHECK(ExtendedResourceClass(classes, "deviceclass.resource.kubernetes.io/fpga")->name == "fpga");
  CHECK(ExtendedResourceClass(classes, "deviceclass.resource.kubernetes.io/none") == nullptr);
  CHECK(ExtendedResourceClass(classes, "example.com/fpga") == nullptr);
}

TEST_CASE("ExtendedResourceRequests: one request per container, init containers reuse later ones") {
  const DeviceClassSpec gpu = Class("gpu", "example.com/gpu");
  const DeviceClassSpec nic = Class("nic", "example.com/nic");
  using C = PodSpec::ContainerRequests;
  struct Case {
    const char* name;
    std::vector<C> containers;
    std::map<std::string, const DeviceClassSpec*> delegated;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"two regular containers",
       {C{false, false, {{"cpu", 1000}, {"example.com/gpu", 1}}},
        C{false, false, {{"example.com/gpu", 2}}}},
       {{"example.com/gpu", &gpu}},
       {"container-0-request-1 gpu x1", "container-1-request-0 gpu x2"}},
      {"an init container reuses what a later container asks",
       {C{true, false, {{"example.com/gpu", 1}}}, C{false, false, {{"example.com/gpu", 2}}}},
       {{"example.com/gpu", &gpu}},
       {"container-1-request-0 gpu x2"}},
      {"an init container asking more gets the difference",
       {C{true, false, {{"example.com/gpu", 3}}}, C{false, false, {{"example.com/gpu", 1}}}},
       {{"example.com/gpu", &gpu}},
       {"container-0-request-0 gpu x2", "container-1-request-0 gpu x1"}},
      {"short-lived init containers: only the largest",
       {C{true, false, {{"example.com/gpu", 1}}}, C{true, false, {{"example.com/gpu", 4}}},
        C{false, false, {{"cpu", 500}}}},
       {{"example.com/gpu", &gpu}},
       {"container-1-request-0 gpu x4"}},
      {"a sidecar is long-lived",
       {C{true, true, {{"example.com/gpu", 1}}}, C{false, false, {{"example.com/gpu", 1}}}},
       {{"example.com/gpu", &gpu}},
       {"container-0-request-0 gpu x1", "container-1-request-0 gpu x1"}},
      {"two resources, requests by name",
       {C{false, false, {{"example.com/gpu", 1}, {"example.com/nic", 2}}}},
       {{"example.com/gpu", &gpu}, {"example.com/nic", &nic}},
       {"container-0-request-0 gpu x1", "container-0-request-1 nic x2"}},
      {"only the resources the node leaves to DRA",
       {C{false, false, {{"example.com/gpu", 1}, {"example.com/nic", 2}}}},
       {{"example.com/nic", &nic}},
       {"container-0-request-1 nic x2"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    PodSpec pod;
    pod.container_requests = c.containers;
    CHECK(Describe(ExtendedResourceRequests(pod, c.delegated)) == c.want);
  }
  // A pod built from a scenario: its requests are one container's.
  PodSpec scenario_pod;
  scenario_pod.requests = {{"cpu", 1000}, {"example.com/gpu", 2}};
  CHECK(Describe(ExtendedResourceRequests(scenario_pod, {{"example.com/gpu", &gpu}})) ==
        std::vector<std::string>{"container-0-request-1 gpu x2"});
}

}  // namespace knobsim::dra
