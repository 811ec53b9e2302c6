#include "sim/whatif/knobs.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/scenario_reader.h"
#include "sim/variant.h"

namespace knobsim {
namespace {

// Two A10 pools (23028 MiB = 22 units, 1046-1047 MiB per unit, CUDA context 400 MiB), one
// share pool without a cGPU module and one CPU pool; workloads in two namespaces.
constexpr const char* kScenario = R"(
name: knobs-test
node_pools:
  - {name: gpu-a10, count: 2, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi,
     labels: {ack.node.gpu.schedule: cgpu}}
  - {name: gpu-share, count: 1, gpu: A10, gpus_per_node: 1, cpu: 16, memory: 64Gi,
     labels: {ack.node.gpu.schedule: share, tier: spare}}
  - {name: cpu, count: 1, cpu: 16, memory: 64Gi}
workloads:
  - name: asr
    namespace: prod
    gpu_mem: 5
    gpu_memory: {weights: 8Gi, activation: 256Mi}
    concurrency: 2
    batching: {max_batch: 2, max_wait: 5ms}
    traffic: {rate: 1/s}
  - name: llm
    namespace: prod
    gpu_mem: 4
    gpu_count: 2
    gpu_memory: {weights: 20Gi, activation: 512Mi}
    node_selector: {ack.node.gpu.schedule: cgpu}
    traffic: {rate: 1/s}
  - name: huge
    namespace: batch
    gpu_mem: 2
    gpu_memory: {weights: 40Gi}
    traffic: {rate: 1/s}
  - name: web
    namespace: batch
    cpu: 1
  - name: open
    namespace: batch
    gpu_mem: 1
    concurrency: unlimited
    traffic: {rate: 1/s}
)";

Scenario TestScenario() {
  Expected<Scenario> s = ReadScenarioString(kScenario, "knobs-test.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  return *s;
}

Variant Knobs(std::vector<std::string> texts) {
  std::vector<KnobText> knobs;
  for (auto& t : texts) knobs.push_back({t, "--knob", 0, ""});
  Expected<Variant> v = VariantFromKnobs(TestScenario(), knobs, "v");
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().ToString()));
  return *v;
}

std::string KnobError(std::vector<std::string> texts) {
  std::vector<KnobText> knobs;
  for (auto& t : texts) knobs.push_back({t, "--knob", 0, ""});
  Expected<Variant> v = VariantFromKnobs(TestScenario(), knobs, "v");
  REQUIRE_FALSE(v.ok());
  return v.error().ToString();
}

TEST_CASE("cluster knobs set policy, max_inst and switch_overhead") {
  const Variant v = Knobs({"policy=3", "max_inst=4", "switch_overhead=0.1"});
  CHECK(v.policy == SharingPolicy::kFixedPercent);
  CHECK(v.max_inst == 4);
  CHECK(v.switch_overhead == doctest::Approx(0.1));
  CHECK(v.name == "v");
  CHECK(v.description == "knobs: policy=3, max_inst=4, switch_overhead=0.1");
}

TEST_CASE("interference=off turns the co-location model off for the variant") {
  const Variant v = Knobs({"interference=off"});
  REQUIRE(v.interference.has_value());
  CHECK_FALSE(*v.interference);
}

TEST_CASE("time_slice=QUANTUM[/SWITCH_COST] turns slice mode on, time_slice=off off") {
  CHECK(Knobs({"time_slice=2ms/50us"}).time_slice == TimeSliceKnobs{2'000'000, 50'000});
  CHECK(Knobs({"time_slice=100us"}).time_slice == TimeSliceKnobs{100'000, 0});
  CHECK(Knobs({"time_slice=off"}).time_slice == TimeSliceKnobs{});
}

TEST_CASE("pool knobs key by pool name, with * for every pool") {
  const Variant v = Knobs({"placement:gpu-a10=ack-spread", "placement:*=fgd", "isolation=hard",
                           "isolation:gpu-share=soft", "nodes:cpu=3"});
  CHECK(v.placement.at("gpu-a10") == "spread");
  CHECK(v.placement.at("*") == "fgd");
  CHECK(v.memory_isolation.at("*") == MemoryIsolation::kHard);
  CHECK(v.memory_isolation.at("gpu-share") == MemoryIsolation::kSoft);
  CHECK(v.node_count.at("cpu") == 3);
}

TEST_CASE("every placement the simulator runs is a valid placement value") {
  for (const char* p : {"binpack", "spread", "ack-binpack", "ack-spread", "random", "dotprod",
                        "clustering", "packing", "bestfit", "fgd"}) {
    CAPTURE(p);
    const Variant v = Knobs({std::string("placement:gpu-a10=") + p});
    CHECK_FALSE(v.placement.at("gpu-a10").empty());
  }
}

TEST_CASE("workload knobs accept namespace/name, a bare name and *") {
  const Variant v = Knobs({"replicas:prod/asr=3", "traffic:asr=1.5", "traffic:*=2",
                           "gpu_core:prod/llm=40", "quota:batch/huge=6"});
  CHECK(v.replicas.at("asr") == 3);
  CHECK(v.traffic_scale.at("asr") == doctest::Approx(1.5));
  CHECK(v.traffic_scale.at("*") == doctest::Approx(2));
  CHECK(v.gpu_core.at("llm") == 40);
  CHECK(v.gpu_mem.at("huge") == 6);
  CHECK(Knobs({"traffic=1.5"}).traffic_scale.at("*") == doctest::Approx(1.5));
}

TEST_CASE("priority:WORKLOAD=N sets its pods' priority, negative values included") {
  const Variant v = Knobs({"priority:prod/asr=1000", "priority:batch/huge=-10"});
  CHECK(v.priority.at("asr") == 1000);
  CHECK(v.priority.at("huge") == -10);
  const Scenario s = ApplyVariant(TestScenario(), v);
  for (const Workload& w : s.workloads) {
    if (w.name == "asr") CHECK(w.priority == 1000);
    if (w.name == "huge") CHECK(w.priority == -10);
  }
}

TEST_CASE("spread knobs build topology spread constraints selecting the workload's labels") {
  const Variant v = Knobs({"spread:prod/asr=hostname:1", "spread:asr=zone:2:ScheduleAnyway",
                           "spread:llm=example.com/rack:3:DoNotSchedule"});
  const auto& asr = v.topology_spread.at("asr");
  REQUIRE(asr.size() == 2);
  CHECK(asr[0].topology_key == "kubernetes.io/hostname");
  CHECK(asr[0].max_skew == 1);
  CHECK(asr[0].when_unsatisfiable == "DoNotSchedule");
  CHECK(asr[0].label_selector.match_labels.at("app") == "asr");
  CHECK(asr[1].topology_key == "topology.kubernetes.io/zone");
  CHECK(asr[1].max_skew == 2);
  CHECK(asr[1].when_unsatisfiable == "ScheduleAnyway");
  CHECK(v.topology_spread.at("llm").at(0).topology_key == "example.com/rack");
  CHECK(v.topology_spread.at("llm").at(0).max_skew == 3);

  const Variant star = Knobs({"spread:*=hostname:1"});
  CHECK(star.topology_spread.size() == 5);
  CHECK(star.topology_spread.at("web").at(0).label_selector.match_labels.at("app") == "web");
  CHECK(Knobs({"spread:asr=none"}).topology_spread.at("asr").empty());
}

// asr on an A10: 400 context + 8192 weights + 256 × (2 in flight × batch 2) = 9616 MiB.
// Units: floor(23028 u / 22) MiB: 9 -> 9420, 10 -> 10467, 11 -> 11514.
TEST_CASE("peak memory is context + weights + activation × concurrency × max_batch") {
  const Scenario s = TestScenario();
  const GpuType& a10 = *s.catalog.Find("A10");
  Expected<int64_t> peak = PeakPodMemoryPerCardMib(s.workloads[0], a10);
  REQUIRE(peak.ok());
  CHECK(*peak == 9616);
  // llm on two cards: 400 + 20480/2 + 512/2 × 1.
  CHECK(*PeakPodMemoryPerCardMib(s.workloads[1], a10) == 10896);
  CHECK_FALSE(PeakPodMemoryPerCardMib(s.workloads[4], a10).ok());  // concurrency 0: unbounded
}

TEST_CASE("units to hold a peak are the fewest whose visible quota holds it") {
  struct Case {
    int64_t mib, physical;
    int units;
  };
  const Case cases[] = {
      {9616, 23028, 10}, {10578, 23028, 11}, {10467, 23028, 10}, {10468, 23028, 11},
      {1, 23028, 1},     {99999, 23028, 22}, {23490, 46068, 23}, {4850, 46068, 5},
  };
  for (const Case& c : cases) {
    CAPTURE(c.mib);
    CHECK(UnitsToHoldMib(c.mib, c.physical) == c.units);
  }
}

TEST_CASE("quota peak, peak+10% and peak+2 round the peak up to whole units") {
  CHECK(Knobs({"quota:asr=peak"}).gpu_mem.at("asr") == 10);
  // 9616 × 1.1 = 10577.6 -> 10578 MiB -> 11 units.
  CHECK(Knobs({"quota:prod/asr=peak+10%"}).gpu_mem.at("asr") == 11);
  CHECK(Knobs({"quota:asr=peak+2"}).gpu_mem.at("asr") == 12);
  // A two-card pod asks for its per-card units on each card: 10896 MiB -> 11 per card, 22.
  CHECK(Knobs({"quota:llm=peak"}).gpu_mem.at("llm") == 22);
  // Never above the card: 40 GiB of weights on a 22-unit A10.
  CHECK(Knobs({"quota:huge=peak+10%"}).gpu_mem.at("huge") == 22);
}

TEST_CASE("quota *=peak covers the GPU-sharing workloads and yields to a workload's own quota") {
  Scenario s = TestScenario();
  s.workloads.pop_back();  // `open` (unbounded concurrency) would make "*" fail
  std::vector<KnobText> knobs = {{"quota:huge=7", "--knob", 0, ""},
                                 {"quota:*=peak", "--knob", 0, ""}};
  Expected<Variant> v = VariantFromKnobs(s, knobs, "v");
  REQUIRE(v.ok());
  CHECK(v->gpu_mem.at("asr") == 10);
  CHECK(v->gpu_mem.at("llm") == 22);
  CHECK(v->gpu_mem.at("huge") == 7);
  CHECK(v->gpu_mem.count("web") == 0);  // CPU-only: a "*" gives it no GPU memory
  CHECK(ApplyVariant(s, *v).workloads[0].gpu_mem == 10);
}

TEST_CASE("bad knobs fail with the knob and a hint") {
  struct Case {
    std::vector<std::string> knobs;
    const char* message;
  };
  const Case cases[] = {
      {{"polcy=3"}, "--knob: polcy=3: unknown knob \"polcy\"; did you mean `policy`?"},
      {{"policy=7"},
       "--knob: policy=7: \"7\" is out of range 0..5; cGPU POLICY is 0 (fixed equal "
       "slices) to 5 (native time-slicing)"},
      {{"policy"}, "--knob: policy: expected KNOB=VALUE; e.g. policy=3 or isolation:POOL=hard"},
      {{"time_slice=500ns"},
       "--knob: time_slice=500ns: a time slice of 500ns is too short; slices are at least 1us; "
       "leave time_slice out for the fluid model, their limit"},
      {{"time_slice=2ms/x"},
       "--knob: time_slice=2ms/x: \"x\" is not a duration; write durations like 30s, 5m, "
       "1h30m or 7d"},
      // Slice mode beside a POLICY that is not slices: blamed on the time_slice knob.
      {{"time_slice=2ms", "policy=1"},
       "--knob: time_slice=2ms: slice mode shares only cards of native time-slicing and cGPU "
       "POLICY 0, but node pool \"gpu-a10\" runs cGPU with POLICY 1, whose shares are not equal "
       "slices; leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5"},
      {{"time_slice=2ms", "sharing:gpu-share=mps:2"},
       "--knob: time_slice=2ms: slice mode shares only cards of native time-slicing and cGPU "
       "POLICY 0, but node pool \"gpu-share\" shares its cards by MPS (clients side by side, not "
       "in turns); leave time_slice out (the fluid model) or share these cards by POLICY 0 or 5"},
      {{"placement:gpu-a1=spread"},
       "--knob: placement:gpu-a1=spread: unknown node pool \"gpu-a1\"; did you mean `gpu-a10`?"},
      {{"placement:gpu-a10=sprad"},
       "--knob: placement:gpu-a10=sprad: \"sprad\" is not a placement; did you mean `spread`?"},
      {{"placement:cpu=spread"},
       "--knob: placement:cpu=spread: node pool \"cpu\" has no GPUs to place on"},
      {{"isolation=hardd"},
       "--knob: isolation=hardd: \"hardd\" is not an isolation; did you mean `hard`?"},
      {{"isolation:gpu-share=hard"},
       "--knob: isolation:gpu-share=hard: node pool \"gpu-share\" has no cGPU module to enforce "
       "hard "
       "isolation; hard isolation needs ack.node.gpu.schedule cgpu or core_mem"},
      {{"quota:prod/asrr=4"},
       "--knob: quota:prod/asrr=4: unknown workload \"prod/asrr\"; did you mean `prod/asr`?"},
      {{"quota:dev/asr=4"},
       "--knob: quota:dev/asr=4: unknown workload \"dev/asr\"; did you mean `prod/asr`?"},
      {{"quota=4"},
       "--knob: quota=4: quota needs a target; write quota:WORKLOAD=N|peak|peak+10%|peak+2"},
      {{"policy:x=1"},
       "--knob: policy:x=1: policy applies to the whole cluster and takes no target; policy=0..5"},
      {{"quota:asr=peek"}, "--knob: quota:asr=peek: \"peek\" is not a quota; did you mean `peak`?"},
      {{"quota:asr=peak-1"},
       "--knob: quota:asr=peak-1: \"peak-1\" is not a quota; write peak, peak+10% or peak+2"},
      {{"quota:llm=5"},
       "--knob: quota:llm=5: invalid replica for resource aliyun.com/gpu-mem, because 5 / 2 is not "
       "a "
       "whole number; workload \"llm\" spreads its quota over 2 cards"},
      {{"quota:open=peak"},
       "--knob: quota:open=peak: workload \"open\" has unlimited concurrency, so its peak GPU "
       "memory has "
       "no bound; give the quota in units (quota:open=N) or set its concurrency"},
      {{"spread:asr=hostname"},
       "--knob: spread:asr=hostname: \"hostname\" is not a spread; write hostname:1, zone:1 or "
       "KEY:MAXSKEW[:DoNotSchedule|ScheduleAnyway]"},
      {{"spread:asr=zone:1:DoNotSchedul"},
       "--knob: spread:asr=zone:1:DoNotSchedul: \"DoNotSchedul\" is not a whenUnsatisfiable; did "
       "you "
       "mean `DoNotSchedule`?"},
      {{"traffic=-1"}, "--knob: traffic=-1: \"-1\" is not a positive factor; e.g. traffic=1.5"},
      {{"replicas:asr=two"}, "--knob: replicas:asr=two: \"two\" is not a whole number"},
      {{"policy=1", "policy=3"},
       "--knob: policy=3: the knob \"policy\" is given twice; keep one value per knob and target"},
      {{"interference=no"},
       "--knob: interference=no: \"no\" is not on or off; write interference=off"},
      {{"interference=on"},
       "--knob: interference=on: the scenario names no interference model to turn on; name one "
       "under cluster.interference"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.knobs[0]);
    CHECK(KnobError(c.knobs) == c.message);
  }
}

// A workload with an HPA (chat, 1..8 on GPU utilization at 60 %) and one without (batch).
constexpr const char* kHpaScenario = R"(
name: hpa-knobs
node_pools:
  - {name: gpu, count: 2, gpu: A10, gpus_per_node: 1, labels: {ack.node.gpu.schedule: cgpu}}
workloads:
  - name: chat
    gpu_mem: 5
    traffic: {rate: 1/s}
    hpa: {min_replicas: 1, max_replicas: 8, metrics: [{metric: gpu_utilization, average: 60}]}
  - name: batch
    gpu_mem: 2
)";

Expected<Variant> HpaKnobs(std::vector<std::string> texts) {
  Expected<Scenario> s = ReadScenarioString(kHpaScenario, "hpa.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  std::vector<KnobText> knobs;
  for (auto& t : texts) knobs.push_back({t, "--knob", 0, ""});
  return VariantFromKnobs(*s, knobs, "v");
}

TEST_CASE("hpa knobs set a workload's HPA bounds, target and stabilization windows") {
  const Expected<Variant> v =
      HpaKnobs({"hpa_min:chat=3", "hpa_max:chat=6", "hpa_target:chat=70",
                "hpa_scale_up_window:chat=30s", "hpa_scale_down_window:*=10m"});
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().ToString()));
  CHECK(v->hpa_min_replicas.at("chat") == 3);
  CHECK(v->hpa_max_replicas.at("chat") == 6);
  CHECK(v->hpa_target.at("chat") == 70);
  CHECK(v->hpa_scale_up_window.at("chat") == 30 * kNanosPerSecond);
  CHECK(v->hpa_scale_down_window.at("*") == 600 * kNanosPerSecond);
  struct Case {
    std::vector<std::string> knobs;
    const char* message;
  };
  const Case cases[] = {
      {{"hpa_min:batch=2"}, "workload \"batch\" has no hpa; give it hpa: in the scenario"},
      {{"hpa_min:chat=9"}, "hpa_min 9 is above the HPA's max 8"},
      {{"hpa_max:chat=4", "hpa_min:chat=5"}, "hpa_min 5 is above the HPA's max 4"},
      {{"hpa_max:chat=0"}, "is out of range 1..1000000"},
      {{"hpa_target:chat=0"}, "\"0\" is not a positive target"},
      {{"hpa_scale_down_window:chat=2h"}, "\"2h\" is not a stabilization window"},
      {{"hpa_scale_down_window:chat=1500ms"}, "is not a stabilization window"},
      {{"hpa_scale_up_window:chat=soon"}, "hpa_scale_up_window:chat=soon"},
  };
  for (const Case& c : cases) {
    const Expected<Variant> bad = HpaKnobs(c.knobs);
    REQUIRE_FALSE(bad.ok());
    CHECK_MESSAGE(bad.error().ToString().find(c.message) != std::string::npos,
                  bad.error().ToString());
  }
}

TEST_CASE("the --knob variant is named after its knobs") {
  CHECK(KnobVariantName({"policy=3", "isolation=hard"}) == "policy=3,isolation=hard");
}

TEST_CASE("a knobs file lists named variants, as a list or a map") {
  const Scenario s = TestScenario();
  Expected<std::vector<Variant>> list = ReadKnobsString(R"(
variants:
  - name: upgrade
    description: hard isolation first
    knobs: [isolation=hard]
  - name: fix-then-upgrade
    knobs: ["quota:asr=peak+10%", isolation=hard]
)",
                                                        "k.yaml", s);
  REQUIRE_MESSAGE(list.ok(), (list.ok() ? "" : list.error().ToString()));
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].name == "upgrade");
  CHECK((*list)[0].description == "hard isolation first");
  CHECK((*list)[1].gpu_mem.at("asr") == 11);

  Expected<std::vector<Variant>> map = ReadKnobsString(R"(
variants:
  p3: [policy=3]
  spread-asr: {policy: 1, "spread:asr": hostname:1}
  described:
    description: d
    knobs: {replicas:asr: 4}
)",
                                                       "k.yaml", s);
  REQUIRE_MESSAGE(map.ok(), (map.ok() ? "" : map.error().ToString()));
  REQUIRE(map->size() == 3);
  CHECK((*map)[0].policy == SharingPolicy::kFixedPercent);
  CHECK((*map)[1].policy == SharingPolicy::kPreemptive);
  CHECK((*map)[1].topology_spread.at("asr").size() == 1);
  CHECK((*map)[2].replicas.at("asr") == 4);
  CHECK((*map)[2].description == "d");
}

TEST_CASE("knobs file errors name the file, the line and the field") {
  const Scenario s = TestScenario();
  struct Case {
    const char* yaml;
    const char* message;
  };
  const Case cases[] = {
      {"variants:\n  - name: a\n    knob: [policy=3]\n",
       "k.yaml:3: variants[0].knob: unknown key \"knob\"; did you mean `knobs`?"},
      {"variants:\n  - name: a\n    knobs:\n      - policy=3\n      - polcy=1\n",
       "k.yaml:5: variants[0].knobs[1] \"polcy=1\": unknown knob \"polcy\"; did you mean "
       "`policy`?"},
      {"variants:\n  a: {polcy: 1}\n",
       "k.yaml:2: variants.a.polcy \"polcy=1\": unknown knob \"polcy\"; did you mean `policy`?"},
      {"variants:\n  - name: a\n    knobs: [policy=1]\n  - name: a\n    knobs: [policy=2]\n",
       "k.yaml:5: variants: duplicate variant name \"a\""},
      {"variants:\n  - name: base\n    knobs: [policy=1]\n",
       "k.yaml:3: variants[0]: `base` is reserved for the scenario as written"},
      {"variants:\n  - name: a/b\n    knobs: [policy=1]\n",
       "k.yaml:3: variants[0]: \"a/b\" is not a valid variant name; use letters, digits and - _ . "
       "starting "
       "with a letter or digit"},
      {"variants:\n  - name: a\n    knobs: []\n",
       "k.yaml:3: variants[0].knobs: a variant needs at least one knob"},
      {"variant:\n  - name: a\n",
       "k.yaml:1: variant: unknown key \"variant\"; did you mean `variants`?"},
      {"", "k.yaml:1: the file is empty; write `variants:` with at least one variant"},
      {"variants: [\n", "k.yaml:2: invalid YAML: end of sequence flow not found"},
      // A second document is an error, not dropped, even with a typo in it.
      {"variants:\n  a: [policy=1]\n---\nvariants:\n  b: [polcy=2]\n",
       "k.yaml:3: a second YAML document; a knobs file holds one; put every variant under the "
       "one `variants:`"},
      // A tag that changes what a value means is refused, not ignored.
      {"variants:\n  a: [!foo policy=1]\n",
       "k.yaml:2: the YAML tag `!foo` is not read by knobsim (it would change what the value "
       "means); remove the tag: knobsim reads each value by its field's type"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.yaml);
    Expected<std::vector<Variant>> r = ReadKnobsString(c.yaml, "k.yaml", s);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString() == c.message);
  }
  CHECK(ReadKnobsFile("/nonexistent/knobs.yaml", s).error().ToString() ==
        "/nonexistent/knobs.yaml: cannot read the knobs file: No such file or directory");
}

}  // namespace
}  // namespace knobsim
