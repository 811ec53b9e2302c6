// `gpu_types:` and `cluster:`: the card catalog, the cluster-wide knobs and the interference
// model file (scenario_reader_internal.h).
#include "sim/io/scenario_reader_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "sim/io/interference_files.h"
#include "sim/quantity.h"
#include "sim/text.h"
#include "sim/time_slice_rules.h"

namespace knobsim::scenario_internal {

// gpu_types: add a card or override fields of a catalog entry; an override keeps the fields it
// does not name, so `{name: A10, speed: 1.1}` changes only the speed.
void Reader::ReadGpuTypes(const Field& f, GpuCatalog& catalog) const {
  std::set<std::string> seen;
  for (const Field& item : Items(f)) {
    Section s(*this, item, {"name", "memory", "speed", "context", "interconnect", "source"});
    const Field name_field = s.Require("name");
    GpuType type;
    type.name = NonEmptyString(name_field);
    std::string lower = type.name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!seen.insert(lower).second) Fail(name_field, "duplicate GPU type " + Quote(type.name));
    if (const GpuType* existing = catalog.Find(type.name)) {
      type = *existing;
    } else {
      type.interconnect = "pcie";
      s.Require("memory");
    }
    if (auto v = s.Get("memory")) {
      type.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
      if (type.memory_mib <= 0) Fail(*v, "a card needs memory");
    }
    if (auto v = s.Get("speed")) {
      type.speed = Number(*v, 0, INFINITY, true, false, "speed is relative to the A10 (1.0)");
    }
    if (auto v = s.Get("context")) type.context_mib = Unit(*v, &ParseMemoryMib, "a quantity");
    if (auto v = s.Get("interconnect")) {
      type.interconnect = std::string(
          Enum<std::string_view>(*v, "interconnect", {{"pcie", "pcie"}, {"nvlink", "nvlink"}}));
    }
    if (auto v = s.Get("source")) type.source = String(*v);
    catalog.Put(std::move(type));
  }
}

// cGPU's POLICY and max_inst, under cluster: or as a variant's knobs.
SharingPolicy Reader::ReadPolicy(const Field& f) const {
  return static_cast<SharingPolicy>(
      Int(f, 0, 5, "cGPU POLICY is 0 (fixed equal slices) to 5 (native time-slicing)"));
}

int Reader::ReadMaxInst(const Field& f) const {
  return Int(f, 1, 25, "cGPU runs at most 25 instances per card");
}

ClusterKnobs Reader::ReadCluster(const Field& f) const {
  Section s(*this, f,
            {"policy", "max_inst", "switch_overhead", "default_placement",
             "percentage_of_nodes_to_score", "interference", "time_slice", "hpa_controller",
             "cron_hpa_controller", "cluster_autoscaler"});
  ClusterKnobs c;
  if (auto v = s.Get("policy")) c.policy = ReadPolicy(*v);
  if (auto v = s.Get("max_inst")) c.max_inst = ReadMaxInst(*v);
  if (auto v = s.Get("switch_overhead")) c.switch_overhead = Number(*v, 0, 1, false, true);
  if (auto v = s.Get("default_placement")) c.default_placement = Placement(*v);
  if (auto v = s.Get("percentage_of_nodes_to_score")) {
    c.percentage_of_nodes_to_score =
        Int(*v, 0, 100, "kube-scheduler's percentageOfNodesToScore is 0 (adaptive) to 100");
  }
  if (auto v = s.Get("interference")) c.interference = ReadInterferenceSetup(*v);
  if (auto v = s.Get("time_slice")) c.time_slice = ReadTimeSlice(*v, false);
  if (auto v = s.Get("hpa_controller")) c.hpa_controller = ReadHpaController(*v);
  if (auto v = s.Get("cron_hpa_controller")) c.cron_hpa_controller = ReadCronHpaController(*v);
  if (auto v = s.Get("cluster_autoscaler")) c.cluster_autoscaler = ReadClusterAutoscaler(*v);
  return c;
}

// `interference: MODEL.json` (under cluster:, or at the top level): the model file, read now so
// that workloads can name its jobs and a bad file fails before any run.
std::shared_ptr<const InterferenceSetup> Reader::ReadInterferenceSetup(const Field& f) const {
  const std::string name = NonEmptyString(f);
  Expected<InterferenceModelFile> file = ReadInterferenceModel(Beside(name));
  if (!file) Fail(f, file.error().ToString());
  auto setup = std::make_shared<InterferenceSetup>();
  setup->source = name;
  setup->model = std::move(file->model);
  setup->profiles = std::move(file->profiles);
  return setup;
}

// `time_slice: {quantum: 2ms, switch_cost: 100us}`; a variant's `time_slice: off` goes back to
// the fluid model. The quantum is at least kMinTimeSliceQuantum.
TimeSliceKnobs Reader::ReadTimeSlice(const Field& f, bool allow_off) const {
  if (allow_off && f.node.IsScalar() && f.node.Scalar() == "off") return TimeSliceKnobs{};
  Section s(*this, f, {"quantum", "switch_cost"});
  TimeSliceKnobs t;
  const Field quantum = s.Require("quantum");
  t.quantum = Duration(quantum);
  if (t.quantum < kMinTimeSliceQuantum)
    Fail(quantum, "a time slice of " + FormatDuration(t.quantum) + " is too short",
         kTimeSliceTooShortHint);
  if (auto v = s.Get("switch_cost")) t.switch_cost = Duration(*v);
  return t;
}

void Reader::CheckTimeSlice(const Scenario& sc, const Field& f) const {
  const std::string why = TimeSliceRefusal(sc);
  if (!why.empty()) Fail(f, TimeSliceRefusalMessage(why), kTimeSliceRefusalHint);
}

}  // namespace knobsim::scenario_internal
