#include "sim/io/scenario_reader.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "sim/dra_ask_test_support.h"
#include "sim/io/interference_files.h"
#include "sim/scenario_objects.h"
#include "sim/variant.h"

namespace knobsim {
namespace {

// The fixtures sit in testdata/ beside this file. Under CMake __FILE__ is absolute; a direct
// compile from the repository root gives a relative path that works from there.
std::string TestDataDir() {
#ifdef KNOBSIM_SOURCE_DIR
  return std::string(KNOBSIM_SOURCE_DIR) + "/sim/io/testdata/";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "testdata/";
#endif
}

constexpr SimTime kMs = kNanosPerMilli;
constexpr SimTime kS = kNanosPerSecond;

// Each bad fixture is one realistic mistake; the whole message is the contract with the user.
struct BadFile {
  const char* message;  // starts with the fixture's file name
};

const BadFile kBadFiles[] = {
    {"bad_gpu_mem_gb.yaml:14: workloads[2].gpu_mem: \"4GB\" is not a quantity; did you mean 4Gi?"},
    {"bad_gpu_mem_decimal.yaml:5: workloads[0].gpu_mem: \"4G\" is decimal gigabytes, not GiB; "
     "did you mean 4Gi?"},
    {"bad_unknown_key.yaml:5: workloads[0].replica: unknown key; did you mean `replicas`?"},
    {"bad_policy.yaml:4: cluster.policy: 7 is not in 0..5; cGPU POLICY is 0 (fixed equal slices) "
     "to 5 (native time-slicing)"},
    {"bad_duration_unit.yaml:7: workloads[0].timeout: \"30\" has no unit; add a unit, e.g. 30s"},
    {"bad_duration_minutes.yaml:4: run.duration: \"30min\" has an unknown unit \"min\"; did you "
     "mean 30m?"},
    {"bad_rate.yaml:6: workloads[0].traffic.rate: \"20 per s\" is not a rate; write it as 20/s"},
    {"bad_gpu_type.yaml:6: node_pools[0].gpu: unknown GPU type \"L40\"; known types: T4, A10, "
     "V100-16G, V100-32G, A100-40G, A100-80G, L20, L4, H100, H200; add others under gpu_types"},
    {"bad_variant_workload.yaml:7: variants[0].replicas.orc: unknown workload \"orc\"; did you "
     "mean `ocr`?"},
    {"bad_variant_pool.yaml:7: variants[0].placement.gpu-l2: unknown node pool \"gpu-l2\"; did "
     "you mean `gpu-l20`?"},
    {"bad_negative_replicas.yaml:5: workloads[0].replicas: -1 is negative"},
    {"bad_tab.yaml:5: invalid YAML: illegal tab when looking for indentation; indent with spaces; "
     "YAML does not allow tabs"},
    {"bad_max_inst.yaml:5: cluster.max_inst: 30 is not in 1..25; cGPU runs at most 25 instances "
     "per card"},
    {"bad_duplicate_workload.yaml:8: workloads[2].name: duplicate workload name \"ocr\"; variants "
     "refer to workloads by name, so names are unique across namespaces"},
    {"bad_two_traffic_kinds.yaml:7: workloads[0].traffic.diurnal: traffic has both `rate` and "
     "`diurnal`; give exactly one of rate, piecewise, diurnal, replay or counts"},
    {"bad_warmup.yaml:5: run.warmup: warmup (5m) must be shorter than duration (5m); nothing "
     "would be measured"},
    {"bad_gpu_count_split.yaml:5: workloads[0].gpu_mem: invalid replica for resource "
     "aliyun.com/gpu-mem, because 5 / 2 = 2.5; make gpu_mem a multiple of gpu_count (2)"},
    {"bad_gpu_count_zero.yaml:6: workloads[0].gpu_count: 0 is less than 1"},
    {"bad_schedule_label.yaml:7: node_pools[0].labels.ack.node.gpu.schedule: \"cGPU\" is not a "
     "valid ack.node.gpu.schedule value; did you mean `cgpu`?"},
    {"bad_percentage_of_nodes.yaml:5: cluster.percentage_of_nodes_to_score: 150 is not in "
     "0..100; kube-scheduler's percentageOfNodesToScore is 0 (adaptive) to 100"},
    {"bad_placement.yaml:4: cluster.default_placement: \"binpak\" is not a valid placement; did "
     "you mean `binpack`?"},
    {"bad_traffic_without_gpu.yaml:8: workloads[0].traffic: a workload with traffic needs a GPU "
     "(gpu_mem, whole_gpus, hami or dra); GPU work runs on cards; model CPU-only steps with "
     "cpu_time "
     "on a GPU workload"},
    {"bad_variant_base.yaml:4: variants[0].name: `base` is reserved for the scenario as written"},
    {"bad_hard_on_share.yaml:7: node_pools[0].memory_isolation: hard isolation needs cGPU, but "
     "ack.node.gpu.schedule is share; use ack.node.gpu.schedule cgpu or core_mem, or make "
     "memory_isolation soft"},
    {"bad_workloads_map.yaml:3: workloads: expected a list, found a mapping; start each list item "
     "with `- `"},
    {"bad_missing_name.yaml:4: workloads[0]: missing required key `name`"},
    {"bad_switch_overhead.yaml:4: cluster.switch_overhead: 1 is not in [0, 1)"},
    {"bad_memory_gb.yaml:6: node_pools[0].memory: \"32GB\" is not a quantity; did you mean 32Gi?"},
    {"bad_batching.yaml:5: workloads[0].batching.max_batch: 0 is less than 1"},
    {"bad_beta.yaml:5: workloads[0].batching.beta: 1.5 is not in [0, 1]"},
    {"bad_gpu_core.yaml:6: workloads[0].gpu_core: 150 is not in 0..100"},
    {"bad_error_budget.yaml:5: workloads[0].slo.error_budget: \"5\" is more than 1 as a fraction; "
     "did you mean 5%?"},
    {"bad_empty.yaml: the file holds no scenario; a scenario needs at least `name:`"},
};

TEST_CASE("every bad fixture fails with its exact message, line and field path") {
  for (const BadFile& bad : kBadFiles) {
    const std::string message = bad.message;
    const std::string file = message.substr(0, message.find(':'));
    CAPTURE(file);
    Expected<Scenario> r = ReadScenarioFile(TestDataDir() + file);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().ToString() == TestDataDir() + message);
  }
}

TEST_CASE("an InputError carries file, line, path, message and hint apart") {
  Expected<Scenario> r = ReadScenarioFile(TestDataDir() + "bad_gpu_mem_gb.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().file == TestDataDir() + "bad_gpu_mem_gb.yaml");
  CHECK(r.error().line == 14);
  CHECK(r.error().path == "workloads[2].gpu_mem");
  CHECK(r.error().message == "\"4GB\" is not a quantity");
  CHECK(r.error().hint == "did you mean 4Gi?");
}

TEST_CASE("a file that cannot be read is an input error, not a crash") {
  Expected<Scenario> r = ReadScenarioFile(TestDataDir() + "no_such_file.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().ToString() ==
        TestDataDir() + "no_such_file.yaml: cannot read the file: No such file or directory");
}

TEST_CASE("good.yaml reads every key into the scenario") {
  Expected<Scenario> r = ReadScenarioFile(TestDataDir() + "good.yaml");
  if (!r.ok()) FAIL(r.error().ToString());
  const Scenario& s = *r;
  CHECK(s.name == "every-key");
  CHECK(s.description == "Two GPU pools and a CPU pool, three workloads, two variants.\n");
  CHECK(s.file == TestDataDir() + "good.yaml");

  SUBCASE("gpu_types add entries and override only the fields they name") {
    const GpuType* custom = s.catalog.Find("A10-custom");
    REQUIRE(custom != nullptr);
    CHECK(custom->memory_mib == 23028);
    CHECK(custom->speed == 1.1);
    CHECK(custom->context_mib == 400);
    CHECK(custom->interconnect == "pcie");
    CHECK(custom->source == "lab measurement");
    const GpuType* t4 = s.catalog.Find("T4");
    REQUIRE(t4 != nullptr);
    CHECK(t4->speed == 0.5);
    CHECK(t4->memory_mib == GpuCatalog::BuiltIn().Find("T4")->memory_mib);
  }

  SUBCASE("cluster") {
    CHECK(s.cluster.policy == SharingPolicy::kWeighted);
    CHECK(s.cluster.max_inst == 4);
    CHECK(s.cluster.switch_overhead == 0.1);
    CHECK(s.cluster.default_placement == "spread");
  }

  SUBCASE("node pools, with the fields derived from their labels") {
    REQUIRE(s.node_pools.size() == 3);
    const NodePool& l20 = s.node_pools[0];
    CHECK(l20.name == "gpu-l20");
    CHECK(l20.count == 4);
    CHECK(l20.gpu_type == "L20");
    CHECK(l20.gpus_per_node == 2);
    CHECK(l20.cpu_milli == 32000);
    CHECK(l20.memory_mib == 131072);
    CHECK(l20.pods == 64);
    CHECK(l20.zones == std::vector<std::string>{"cn-hangzhou-h", "cn-hangzhou-i"});
    CHECK(l20.instance_type == "ecs.gn8is.2xlarge");
    CHECK(l20.labels == Labels{{"ack.node.gpu.schedule", "cgpu"},
                               {"ack.node.gpu.placement", "binpack"},
                               {"ack.node.gpu.max-pod", "5"},
                               {"team", "ml"}});
    REQUIRE(l20.taints.size() == 1);
    CHECK(l20.taints[0].key == "nvidia.com/gpu");
    CHECK(l20.taints[0].value == "present");
    CHECK(l20.taints[0].effect == "NoSchedule");
    CHECK(l20.schedule == GpuSchedule::kCgpu);
    CHECK(l20.placement == "binpack");
    CHECK(l20.isolation == MemoryIsolation::kSoft);  // the buggy-module case
    CHECK(l20.cgpu_active);
    CHECK(l20.cgpu_version == "1.5.2");
    CHECK(l20.max_pods_per_card == 5);

    const NodePool& a10 = s.node_pools[1];
    CHECK(a10.count == 1);
    CHECK(a10.gpu_type == "A10-custom");
    CHECK(a10.gpus_per_node == 1);
    CHECK(a10.cpu_milli == 3920);
    CHECK(a10.memory_mib == 14033);
    CHECK(a10.schedule == GpuSchedule::kShare);
    CHECK_FALSE(a10.cgpu_active);
    CHECK(a10.isolation == MemoryIsolation::kSoft);
    CHECK(a10.placement.empty());

    const NodePool& cpu = s.node_pools[2];
    CHECK(cpu.gpu_type.empty());
    CHECK(cpu.gpus_per_node == 0);
    CHECK(cpu.cpu_milli == 8000);
    CHECK(cpu.memory_mib == 32768);
    CHECK(cpu.schedule == GpuSchedule::kDefault);
    CHECK_FALSE(cpu.cgpu_active);
    CHECK(cpu.labels.empty());
  }

  SUBCASE("a workload with every key") {
    REQUIRE(s.workloads.size() == 3);
    const Workload& w = s.workloads[0];
    CHECK(w.name == "ocr");
    CHECK(w.namespace_ == "inference");
    CHECK(w.replicas == 3);
    CHECK(w.labels == Labels{{"app", "ocr"}, {"tier", "gpu"}});
    CHECK(w.node_selector == Labels{{"team", "ml"}});

    REQUIRE(w.node_affinity.required_terms.size() == 2);
    REQUIRE(w.node_affinity.required_terms[0].size() == 1);
    CHECK(w.node_affinity.required_terms[0][0].key == "ack.node.gpu.schedule");
    CHECK(w.node_affinity.required_terms[0][0].op == "In");
    CHECK(w.node_affinity.required_terms[0][0].values ==
          std::vector<std::string>{"cgpu", "core_mem"});
    REQUIRE(w.node_affinity.required_terms[1].size() == 2);
    CHECK(w.node_affinity.required_terms[1][0].op == "Gt");
    CHECK(w.node_affinity.required_terms[1][0].values == std::vector<std::string>{"1"});
    CHECK(w.node_affinity.required_terms[1][1].op == "DoesNotExist");
    REQUIRE(w.node_affinity.preferred.size() == 1);
    CHECK(w.node_affinity.preferred[0].weight == 50);
    CHECK(w.node_affinity.preferred[0].expressions[0].values ==
          std::vector<std::string>{"cn-hangzhou-h"});

    REQUIRE(w.tolerations.size() == 2);
    CHECK(w.tolerations[0].key == "nvidia.com/gpu");
    CHECK(w.tolerations[0].op == "Exists");
    CHECK(w.tolerations[0].effect == "NoSchedule");
    CHECK_FALSE(w.tolerations[0].toleration_seconds.has_value());
    CHECK(w.tolerations[1].effect == "NoExecute");
    CHECK(w.tolerations[1].toleration_seconds == 60);

    REQUIRE(w.topology_spread.size() == 2);
    const TopologySpreadConstraint& zone = w.topology_spread[0];
    CHECK(zone.max_skew == 2);
    CHECK(zone.topology_key == "topology.kubernetes.io/zone");
    CHECK(zone.when_unsatisfiable == "DoNotSchedule");
    CHECK(zone.label_selector.match_labels == Labels{{"app", "ocr"}});
    REQUIRE(zone.label_selector.match_expressions.size() == 1);
    CHECK(zone.label_selector.match_expressions[0].key == "tier");
    CHECK(zone.label_selector.match_expressions[0].op == "NotIn");
    CHECK(zone.label_selector.match_expressions[0].values == std::vector<std::string>{"cpu"});
    CHECK(zone.match_label_keys == std::vector<std::string>{"pod-template-hash"});
    CHECK(zone.min_domains == 2);
    CHECK(zone.node_affinity_policy == "Ignore");
    CHECK(zone.node_taints_policy == "Honor");
    const TopologySpreadConstraint& host = w.topology_spread[1];
    CHECK(host.max_skew == 1);
    CHECK(host.when_unsatisfiable == "ScheduleAnyway");
    CHECK(host.label_selector.match_labels == w.labels);  // the default selector
    CHECK_FALSE(host.min_domains.has_value());
    CHECK(host.node_affinity_policy == "Honor");
    CHECK(host.node_taints_policy == "Ignore");

    CHECK(w.priority == 100);
    CHECK(w.cpu_milli == 2000);
    CHECK(w.memory_mib == 8192);
    CHECK(w.gpu_mem == 8);
    CHECK(w.gpu_core == 30);
    CHECK(w.gpu_count == 2);
    CHECK(w.whole_gpus == 0);
    CHECK(w.schd_weight == 3);
    CHECK(w.memory.weights_mib == 6144);
    CHECK(w.memory.activation_mib == 256);
    CHECK(w.memory.context_mib == 500);
    CHECK(w.image_pull == 30 * kS);
    CHECK(w.model_load == 45 * kS);
    CHECK(w.probe == ReadinessKind::kTcp);
    CHECK(w.on_load_oom == LoadOomReaction::kExit);
    CHECK(w.traffic.kind == ArrivalKind::kPoisson);
    CHECK(w.traffic.rate == 20);
    CHECK(w.traffic.scale == 1);
    CHECK(w.work.dist == WorkDistribution::kLognormal);
    CHECK(w.work.mean_s == doctest::Approx(0.02));
    CHECK(w.work.cv == 0.5);
    CHECK(w.concurrency == 4);
    CHECK(w.batching.max_batch == 8);
    CHECK(w.batching.max_wait == 5 * kMs);
    CHECK(w.batching.beta == 0.1);
    CHECK(w.cpu_before == 2 * kMs);
    CHECK(w.cpu_after == 1 * kMs);
    CHECK(w.timeout == 1 * kS);
    CHECK(w.on_timeout == TimeoutAction::kComplete);
    CHECK(w.routing == Routing::kLeastOutstanding);
    CHECK(w.slo.latency == 200 * kMs);
    CHECK(w.slo.percentile == 99.9);
    CHECK(w.slo.error_budget == doctest::Approx(0.001));
  }

  SUBCASE("piecewise and diurnal traffic, constant and gamma work, defaults elsewhere") {
    const Workload& chat = s.workloads[1];
    CHECK(chat.namespace_ == "default");
    CHECK(chat.replicas == 1);
    CHECK(chat.labels == Labels{{"app", "chat"}});
    CHECK(chat.gpu_mem == 4);
    CHECK(chat.gpu_count == 1);
    CHECK(chat.traffic.kind == ArrivalKind::kPiecewise);
    REQUIRE(chat.traffic.pieces.size() == 2);
    CHECK(chat.traffic.pieces[0].at == 0);
    CHECK(chat.traffic.pieces[0].rate == 10);
    CHECK(chat.traffic.pieces[1].at == 5400 * kS);
    CHECK(chat.traffic.pieces[1].rate == doctest::Approx(3.0 / 3600));
    CHECK(chat.work.dist == WorkDistribution::kConstant);
    CHECK(chat.work.mean_s == 1.5);
    CHECK(chat.work.cv == 0);
    CHECK(chat.concurrency == 0);  // unlimited
    CHECK(chat.routing == Routing::kRoundRobin);
    CHECK(chat.probe == ReadinessKind::kModel);
    CHECK(chat.on_load_oom == LoadOomReaction::kStayUp);
    CHECK(chat.on_timeout == TimeoutAction::kAbort);
    CHECK_FALSE(chat.memory.context_mib.has_value());

    const Workload& batch = s.workloads[2];
    CHECK(batch.whole_gpus == 1);
    CHECK(batch.gpu_mem == 0);
    CHECK(batch.traffic.kind == ArrivalKind::kDiurnal);
    CHECK(batch.traffic.diurnal_mean == 20);
    CHECK(batch.traffic.diurnal_amplitude == 0.5);
    CHECK(batch.traffic.diurnal_period == 12 * 3600 * kS);
    CHECK(batch.traffic.diurnal_peak_at == 9 * 3600 * kS);
    CHECK(batch.work.dist == WorkDistribution::kGamma);
    CHECK(batch.work.mean_s == doctest::Approx(250e-6));
    CHECK(batch.work.cv == 2);
    CHECK(batch.slo.error_budget == 0.002);
    CHECK(batch.slo.percentile == 99);
    CHECK(batch.slo.latency == 0);
  }

  SUBCASE("run") {
    CHECK(s.run.duration == 2 * 3600 * kS);
    CHECK(s.run.warmup == 600 * kS);
    CHECK(s.run.seed == std::numeric_limits<uint64_t>::max());
    CHECK(s.run.replications == 5);
  }

  SUBCASE("variants, with a star topology_spread expanded per workload") {
    REQUIRE(s.variants.size() == 2);
    const Variant& v = s.variants[0];
    CHECK(v.name == "upgrade-first");
    CHECK(v.description == "fix the module before the quotas");
    CHECK(v.policy == SharingPolicy::kFixedEqual);
    CHECK(v.max_inst == 5);
    CHECK(v.switch_overhead == 0.2);
    CHECK(v.placement == std::map<std::string, std::string>{{"gpu-l20", "spread"}, {"*", "fgd"}});
    CHECK(v.memory_isolation ==
          std::map<std::string, MemoryIsolation>{{"*", MemoryIsolation::kHard}});
    REQUIRE(v.topology_spread.size() == 3);
    CHECK(v.topology_spread.count("*") == 0);
    CHECK(v.topology_spread.at("ocr")[0].topology_key == "kubernetes.io/hostname");
    CHECK(v.topology_spread.at("ocr")[0].label_selector.match_labels == s.workloads[0].labels);
    CHECK(v.topology_spread.at("chat")[0].max_skew == 3);
    CHECK(v.topology_spread.at("chat")[0].label_selector.match_labels == Labels{{"app", "chat"}});
    CHECK(v.topology_spread.at("batch")[0].label_selector.match_labels == Labels{{"app", "batch"}});
    CHECK(v.gpu_mem == std::map<std::string, int>{{"ocr", 12}, {"*", 6}});
    CHECK(v.gpu_core == std::map<std::string, int>{{"ocr", 50}});
    CHECK(v.replicas == std::map<std::string, int>{{"ocr", 6}, {"*", 1}});
    CHECK(v.node_count == std::map<std::string, int>{{"gpu-l20", 6}});
    CHECK(v.traffic_scale == std::map<std::string, double>{{"*", 1.5}, {"chat", 2}});
    CHECK(s.variants[1].traffic_scale == std::map<std::string, double>{{"*", 2}});
    CHECK_FALSE(s.variants[1].policy.has_value());
  }
}

TEST_CASE("good.yaml's variant applies on top of the base") {
  Expected<Scenario> r = ReadScenarioFile(TestDataDir() + "good.yaml");
  REQUIRE(r.ok());
  Scenario s = ApplyVariant(*r, r->variants[0]);
  CHECK(s.node_pools[0].placement == "spread");
  CHECK(s.node_pools[1].placement == "fgd");
  CHECK(s.node_pools[0].isolation == MemoryIsolation::kHard);
  CHECK(s.node_pools[1].isolation == MemoryIsolation::kSoft);  // a share pool has no module
  CHECK(s.workloads[0].gpu_mem == 12);
  CHECK(s.workloads[1].gpu_mem == 6);
  CHECK(s.workloads[2].gpu_mem == 0);  // whole cards stay whole
  CHECK(s.workloads[1].traffic.scale == 2);
  CHECK(s.workloads[2].traffic.scale == 1.5);
}

// Reads `yaml` and returns the error as the user sees it ("" when it reads).
std::string ErrorOf(const std::string& yaml) {
  Expected<Scenario> r = ReadScenarioString(yaml, "s.yaml");
  return r.ok() ? "" : r.error().ToString();
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Scenario Read(const std::string& yaml) {
  Expected<Scenario> r = ReadScenarioString(yaml, "s.yaml");
  if (!r.ok()) FAIL(r.error().ToString());
  return *r;
}

TEST_CASE(
    "pod_affinity and pod_anti_affinity read Kubernetes' terms; the selector defaults to "
    "the workload's labels") {
  const Scenario s = Read(
      "name: s\nworkloads:\n  - name: web\n    replicas: 3\n    pod_anti_affinity:\n"
      "      required:\n        - {topology_key: kubernetes.io/hostname}\n"
      "      preferred:\n        - {weight: 100, topology_key: topology.kubernetes.io/zone,\n"
      "           namespaces: [a], namespace_selector: {}, match_label_keys: [pod-template-hash]}\n"
      "    pod_affinity:\n      required:\n"
      "        - {topology_key: zone, label_selector: {match_labels: {app: db}}}\n");
  const Workload& w = s.workloads.at(0);
  REQUIRE(w.pod_anti_affinity.required.size() == 1);
  CHECK(w.pod_anti_affinity.required[0].topology_key == "kubernetes.io/hostname");
  CHECK(w.pod_anti_affinity.required[0].label_selector.match_labels == Labels{{"app", "web"}});
  REQUIRE(w.pod_anti_affinity.preferred.size() == 1);
  CHECK(w.pod_anti_affinity.preferred[0].weight == 100);
  CHECK(w.pod_anti_affinity.preferred[0].term.namespaces == std::vector<std::string>{"a"});
  CHECK(w.pod_anti_affinity.preferred[0].term.namespace_selector.has_value());
  CHECK(w.pod_anti_affinity.preferred[0].term.match_label_keys ==
        std::vector<std::string>{"pod-template-hash"});
  REQUIRE(w.pod_affinity.required.size() == 1);
  CHECK(w.pod_affinity.required[0].label_selector.match_labels == Labels{{"app", "db"}});
  CHECK(Has(ErrorOf("name: s\nworkloads:\n  - name: web\n    pod_affinity:\n      required:\n"
                    "        - {topology_key: zone, weight: 3}\n"),
            "weight"));
  CHECK(Has(ErrorOf("name: s\nworkloads:\n  - name: web\n    pod_affinity:\n      preferred:\n"
                    "        - {topology_key: zone}\n"),
            "weight"));
}

TEST_CASE("kube: volumes keep labels, node affinity and access modes; classes allowed topologies") {
  const Scenario s = Read(
      "name: s\nkube:\n  pvcs:\n    - {namespace: db, name: data, access_modes: "
      "[ReadWriteOncePod]}\n  pvs:\n    - {name: d-1, labels: {topology.kubernetes.io/zone: h}, "
      "node_affinity: [[{key: topology.kubernetes.io/zone, operator: In, values: [h]}]], "
      "access_modes: [ReadWriteOnce]}\n  storage_classes:\n    - {name: zonal, provisioner: p, "
      "allowed_topologies: [[{key: topology.kubernetes.io/zone, operator: In, values: [h, "
      "i]}]]}\n");
  CHECK(s.kube.pvcs[0].access_modes == std::vector<std::string>{"ReadWriteOncePod"});
  CHECK(s.kube.pvs[0].labels.at("topology.kubernetes.io/zone") == "h");
  REQUIRE(s.kube.pvs[0].node_affinity.size() == 1);
  CHECK(s.kube.pvs[0].node_affinity[0][0].values == std::vector<std::string>{"h"});
  CHECK(s.kube.pvs[0].access_modes == std::vector<std::string>{"ReadWriteOnce"});
  REQUIRE(s.kube.storage_classes[0].allowed_topologies.size() == 1);
  CHECK(s.kube.storage_classes[0].allowed_topologies[0][0].values.size() == 2);
  CHECK(Has(ErrorOf("name: s\nkube:\n  storage_classes:\n    - {name: z, provisioner: p, "
                    "allowed_topologies: [[{key: k, operator: Exists}]]}\n"),
            "allowed topologies take only operator In"));
  CHECK(Has(ErrorOf("name: s\nkube:\n  pvcs:\n    - {name: d, access_modes: [RWO]}\n"),
            "access mode"));
}

TEST_CASE("workloads' host_ports read as container host ports: TCP and 0.0.0.0 by default") {
  const Scenario s = Read(
      "name: s\nworkloads:\n  - name: agent\n    host_ports:\n      - {port: 9100}\n"
      "      - {port: 53, protocol: UDP, host_ip: 10.0.0.1}\n");
  REQUIRE(s.workloads[0].host_ports.size() == 2);
  CHECK(s.workloads[0].host_ports[0] == HostPort{"0.0.0.0", "TCP", 9100});
  CHECK(s.workloads[0].host_ports[1] == HostPort{"10.0.0.1", "UDP", 53});
  CHECK(ErrorOf("name: s\nworkloads:\n  - name: a\n    host_ports: [{port: 0}]\n") ==
        "s.yaml:4: workloads[0].host_ports[0].port: 0 is not in 1..65535; a host port is "
        "1..65535");
  CHECK(Has(ErrorOf("name: s\nworkloads:\n  - name: a\n    host_ports: [{port: 80, "
                    "protocol: tcp}]\n"),
            "protocol"));
}

TEST_CASE("cluster.percentage_of_nodes_to_score is kube-scheduler's setting, 0 kept as adaptive") {
  CHECK(Read("name: s\ncluster:\n  percentage_of_nodes_to_score: 100\n")
            .cluster.percentage_of_nodes_to_score == 100);
  CHECK(Read("name: s\ncluster:\n  percentage_of_nodes_to_score: 0\n")
            .cluster.percentage_of_nodes_to_score == 0);
}

TEST_CASE("a minimal scenario takes every default") {
  Scenario s = Read("name: tiny\n");
  CHECK(s.file == "s.yaml");
  CHECK(s.cluster.policy == SharingPolicy::kNative);
  CHECK(s.cluster.max_inst == 0);
  CHECK(s.cluster.switch_overhead == 0.05);
  CHECK(s.cluster.default_placement == "binpack");
  CHECK(!s.cluster.percentage_of_nodes_to_score);  // adaptive, or 100 for paper placements
  CHECK(s.node_pools.empty());
  CHECK(s.run.duration == 3600 * kS);
  CHECK(s.run.warmup == 300 * kS);
  CHECK(s.run.seed == 1);
  CHECK(s.run.replications == 1);
  CHECK(s.catalog.Find("H200") != nullptr);
}

TEST_CASE("named nodes and current pods: an imported cluster keeps names, zones and placement") {
  const std::string pools =
      "name: imported\n"
      "node_pools:\n"
      "  - name: l20\n"
      "    gpu: L20\n"
      "    zones: [z1, z2]\n"
      "    nodes:\n"
      "      - cn-hangzhou.10.0.1.7\n"
      "      - {name: cn-hangzhou.10.0.2.9, zone: z9, labels: {rack: r2}}\n";
  const Scenario s = Read(pools +
                          "workloads:\n"
                          "  - name: ocr\n"
                          "    replicas: 3\n"
                          "    gpu_mem: 4\n"
                          "    pods:\n"
                          "      - {name: ocr-7d9f-abc, node: cn-hangzhou.10.0.2.9, cards: [0]}\n"
                          "      - {name: ocr-7d9f-def, node: cn-hangzhou.10.0.1.7}\n");
  REQUIRE(s.node_pools.size() == 1);
  CHECK(s.node_pools[0].count == 2);
  CHECK(s.node_pools[0].nodes[1].zone == "z9");
  CHECK(s.node_pools[0].nodes[1].labels.at("rack") == "r2");
  REQUIRE(s.workloads[0].pods.size() == 2);
  CHECK(s.workloads[0].pods[0].cards == std::vector<int>{0});
  CHECK(s.workloads[0].pods[1].cards.empty());

  auto error = [&](const std::string& yaml) {
    Expected<Scenario> r = ReadScenarioString(yaml, "s.yaml");
    REQUIRE_FALSE(r.ok());
    return r.error().ToString();
  };
  CHECK(error(pools + "    count: 3\n") ==
        "s.yaml:9: node_pools[0].count: count 3 disagrees with the 2 nodes listed; leave count "
        "out when nodes are listed");
  const std::string w = "workloads:\n  - name: ocr\n    replicas: 1\n    gpu_mem: 4\n    pods:\n";
  CHECK(
      error(pools + w + "      - {name: a, node: cn-hangzhou.10.0.2.8}\n")
          .starts_with("s.yaml:14: workloads[0].pods[0].node: no node \"cn-hangzhou.10.0.2.8\" in "
                       "node_pools"));
  CHECK(error(pools + w +
              "      - {name: a, node: cn-hangzhou.10.0.1.7}\n"
              "      - {name: b, node: cn-hangzhou.10.0.1.7}\n") ==
        "s.yaml:13: workloads[0].pods: 2 current pods listed for 1 replicas; list at most "
        "`replicas` pods");
  CHECK(error(pools + w + "      - {name: a, node: cn-hangzhou.10.0.1.7, cards: [1, 0]}\n") ==
        "s.yaml:14: workloads[0].pods[0].cards: cards must be distinct and in increasing order");
}

// A pool of `count` nodes names them <pool>-<ordinal>; current pods may name them, and the reader
// knows them without listing the pool (one of a hundred million nodes reads at once: the run
// limits refuse it later, docs/limits.md).
TEST_CASE("current pods on a pool's default node names: ordinals below count, written plainly") {
  auto scenario = [](const std::string& count, const std::string& node) {
    return "name: big\nnode_pools:\n  - {name: gpu, gpu: A10, count: " + count +
           "}\nworkloads:\n  - name: ocr\n    gpu_mem: 4\n    pods: [{name: ocr-0, node: " + node +
           "}]\n";
  };
  CHECK(Read(scenario("4", "gpu-3")).workloads[0].pods[0].node == "gpu-3");
  CHECK(Read(scenario("100000000", "gpu-99999999")).node_pools[0].count == 100000000);
  for (const char* node : {"gpu-4", "gpu-03", "gpu--1", "gpu-", "gpu-+1", "gpu-1x", "gpux-1"}) {
    CAPTURE(node);
    CHECK(Has(ErrorOf(scenario("4", node)), "no node \"" + std::string(node) + "\" in node_pools"));
  }
  CHECK(Has(ErrorOf(scenario("4", "gpu-4")), "did you mean `gpu-0`?"));  // a node of the pool
}

TEST_CASE("a GPU pool without ack.node.gpu.schedule is cgpu, with hard isolation, and says so") {
  Scenario s = Read("name: x\nnode_pools:\n  - {name: p, gpu: a10}\n");
  const NodePool& p = s.node_pools[0];
  CHECK(p.gpu_type == "A10");  // the catalog's spelling
  CHECK(p.schedule == GpuSchedule::kCgpu);
  CHECK(p.labels.at("ack.node.gpu.schedule") == "cgpu");
  CHECK(p.cgpu_active);
  CHECK(p.isolation == MemoryIsolation::kHard);
  CHECK(p.count == 1);
  CHECK(p.pods == 110);
  CHECK(p.max_pods_per_card == 0);
}

TEST_CASE("cgpu.disable.isolation=true turns the module's isolation off") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - name: p\n    gpu: T4\n    labels: {ack.node.gpu.schedule: "
      "core_mem, "
      "cgpu.disable.isolation: \"true\"}\n");
  CHECK(s.node_pools[0].schedule == GpuSchedule::kCoreMem);
  CHECK_FALSE(s.node_pools[0].cgpu_active);
  CHECK(s.node_pools[0].isolation == MemoryIsolation::kSoft);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpu: T4\n    labels: "
                "{cgpu.disable.isolation: \"true\"}\n    memory_isolation: hard\n") ==
        "s.yaml:6: node_pools[0].memory_isolation: hard isolation contradicts the label "
        "cgpu.disable.isolation=true; remove the label or make memory_isolation soft");
}

TEST_CASE("device_sharing: time-slicing or MPS replicas, no ACK sharing, the plugin's defaults") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - name: ts\n    gpu: L4\n    gpus_per_node: 4\n"
      "    device_sharing: {strategy: time-slicing, replicas: 4}\n"
      "  - name: mps\n    gpu: A10\n    device_sharing: {strategy: mps, replicas: 3, allocation: "
      "packed}\n");
  const NodePool& ts = s.node_pools[0];
  CHECK(ts.device_sharing.strategy == DeviceSharingStrategy::kTimeSlicing);
  CHECK(ts.device_sharing.replicas == 4);
  CHECK_FALSE(ts.device_sharing.fail_requests_greater_than_one);
  CHECK(ts.schedule == GpuSchedule::kDefault);
  CHECK(ts.labels.count("ack.node.gpu.schedule") == 0);
  CHECK_FALSE(ts.cgpu_active);
  CHECK(ts.isolation == MemoryIsolation::kSoft);
  const NodePool& mps = s.node_pools[1];
  CHECK(mps.device_sharing.strategy == DeviceSharingStrategy::kMps);
  CHECK(mps.device_sharing.fail_requests_greater_than_one);
  CHECK(mps.device_sharing.allocation == ReplicaAllocation::kPacked);
  CHECK(mps.isolation == MemoryIsolation::kHard);
  struct Bad {
    const char* sharing;
    const char* message;
  };
  const Bad bad[] = {
      {"{strategy: time-slicing, replicas: 1}",
       "s.yaml:3: node_pools[0].device_sharing.replicas: 1 is not in 2..256; the device plugin "
       "needs 2 or more"},
      {"{strategy: mps, replicas: 64}",
       "s.yaml:3: node_pools[0].device_sharing.replicas: 64 is not in 2..48; CUDA MPS serves at "
       "most 48 clients per card"},
      {"{strategy: hami, replicas: 4}",
       "s.yaml:3: node_pools[0].device_sharing.strategy: \"hami\" is not a valid device-plugin "
       "sharing strategy"},
      {"{strategy: time-slicing}", "s.yaml:3: node_pools[0].device_sharing"},
  };
  for (const Bad& b : bad) {
    CAPTURE(std::string(b.sharing));
    const std::string error =
        ErrorOf(std::string("name: x\nnode_pools:\n  - {name: p, gpu: L4, device_sharing: ") +
                b.sharing + "}\n");
    CAPTURE(error);
    CHECK(error.rfind(b.message, 0) == 0);
  }
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpu: L4\n    labels: "
                "{ack.node.gpu.schedule: cgpu}\n    device_sharing: {strategy: mps, replicas: 2}\n")
            .find("device_sharing replaces ACK's GPU sharing, but the pool's "
                  "ack.node.gpu.schedule is cgpu") != std::string::npos);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpu: L4\n    memory_isolation: hard\n"
                "    device_sharing: {strategy: mps, replicas: 2}\n")
            .find("with device_sharing the memory isolation follows the strategy") !=
        std::string::npos);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, device_sharing: {strategy: mps, replicas: "
                "2}}\n")
            .find("a pool without `gpu` has no cards to share") != std::string::npos);
}

TEST_CASE(
    "variant sharing: moves a pool between cGPU, whole cards and replicas, and translates "
    "requests no pool takes any more") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, gpus_per_node: 4, labels: "
      "{ack.node.gpu.placement: spread}}\n"
      "workloads:\n  - {name: a, gpu_mem: 8}\n  - {name: b, gpu_mem: 6, gpu_count: 2}\n"
      "variants:\n  - {name: ts, sharing: {p: timeslicing:4}}\n"
      "  - {name: back, sharing: {p: cgpu}}\n");
  const Scenario ts = ApplyVariant(s, s.variants[0]);
  CHECK(ts.node_pools[0].device_sharing.replicas == 4);
  CHECK(ts.node_pools[0].schedule == GpuSchedule::kDefault);
  CHECK(ts.node_pools[0].labels.count("ack.node.gpu.placement") == 0);
  CHECK(ts.workloads[0].whole_gpus == 1);
  CHECK(ts.workloads[0].gpu_mem == 0);
  CHECK(ts.workloads[1].whole_gpus == 2);  // one replica per card it shared
  // And back: whole cards ask their cards' gpu-mem (L4: 22 units) over gpu-count.
  const Scenario back = ApplyVariant(ts, s.variants[1]);
  CHECK(back.node_pools[0].schedule == GpuSchedule::kCgpu);
  CHECK(back.node_pools[0].cgpu_active);
  CHECK(back.workloads[1].gpu_mem == 2 * CardMemoryUnits(back.catalog.Find("L4")->memory_mib));
  CHECK(back.workloads[1].gpu_count == 2);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: L4}\nvariants:\n  - {name: v, "
                "sharing: {p: mig:1g.10gb}}\n")
            .find("node pool p: knobsim has no MIG geometry for GPU type \"L4\"") !=
        std::string::npos);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: L4}\nvariants:\n  - {name: v, "
                "sharing: {p: hami:0}}\n")
            .find("hami (10 vGPUs a card, HAMi's default) or hami:N, N in 1..256") !=
        std::string::npos);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: L4}\nvariants:\n  - {name: v, "
                "sharing: {p: mps:64}}\n")
            .find("mps:N with N in 2..48") != std::string::npos);
}

TEST_CASE("mig: every card cut into the same instances; single for one profile, else mixed") {
  Scenario s = Read(
      "name: x\nnode_pools:\n"
      "  - {name: one, gpu: H100, gpus_per_node: 8, mig: {layout: 1g.10gb*7}}\n"
      "  - {name: mix, gpu: A100-40G, mig: {layout: [3g.20gb, 2g.10gb, 1g.5gb*2]}}\n"
      "  - {name: forced, gpu: H100, mig: {strategy: mixed, layout: 3g.40gb+3g.40gb}}\n"
      "workloads:\n  - {name: w, mig_profile: 2g.10gb}\n  - {name: v, whole_gpus: 2}\n");
  const NodePool& one = s.node_pools[0];
  CHECK(one.mig.strategy == MigStrategy::kSingle);
  CHECK(one.mig.instances == std::vector<std::string>(7, "1g.10gb"));
  CHECK(one.card_slots() == 56);
  CHECK(one.schedule == GpuSchedule::kDefault);
  CHECK(one.labels.count("ack.node.gpu.schedule") == 0);
  CHECK(one.isolation == MemoryIsolation::kHard);
  CHECK_FALSE(one.cgpu_active);
  const NodePool& mix = s.node_pools[1];
  CHECK(mix.mig.strategy == MigStrategy::kMixed);
  CHECK(mix.mig.instances == std::vector<std::string>{"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"});
  CHECK(s.node_pools[2].mig.strategy == MigStrategy::kMixed);
  // The instances are card types of the catalog: a slice of the card's memory and speed.
  const GpuType* slice = s.catalog.Find("H100 MIG 1g.10gb");
  REQUIRE(slice != nullptr);
  CHECK(slice->memory_mib == s.catalog.Find("H100")->memory_mib / 8);
  CHECK(slice->speed == doctest::Approx(s.catalog.Find("H100")->speed / 7));
  CHECK(s.catalog.Find("A100-40G MIG 1g.5gb") != nullptr);
  CHECK(s.workloads[0].mig_profile == "2g.10gb");
  CHECK(s.workloads[0].whole_gpus == 1);
  CHECK(s.workloads[1].mig_profile.empty());
  struct Bad {
    const char* pool;
    const char* message;
  };
  const Bad bad[] = {
      {"{name: p, gpu: L4, mig: {layout: 1g.10gb}}",
       "node_pools[0].mig.layout: knobsim has no MIG geometry for GPU type \"L4\"; MIG is "
       "modelled on A100-40G, A100-80G, H100 and H200"},
      {"{name: p, gpu: H100, mig: {layout: 1g.5gb}}",
       "node_pools[0].mig.layout: H100 has no MIG profile \"1g.5gb\"; its profiles: 1g.10gb, "
       "1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb"},
      {"{name: p, gpu: H100, mig: {layout: 4g.40gb+4g.40gb}}",
       "node_pools[0].mig.layout: the MIG instances 4g.40gb*2 do not fit one H100 card"},
      {"{name: p, gpu: H100, mig: {layout: 1g.10gb*8}}",
       "node_pools[0].mig.layout: MIG layout item 1g.10gb*8 has a count outside 1..7"},
      {"{name: p, gpu: H100, mig: {strategy: single, layout: 3g.40gb+1g.10gb}}",
       "node_pools[0].mig.layout: the single MIG strategy advertises one profile"},
      {"{name: p, gpu: H100, mig: {layout: big}}",
       "node_pools[0].mig.layout: MIG layout item \"big\" is not a profile"},
      {"{name: p, mig: {layout: 1g.10gb}}",
       "node_pools[0].mig: a pool without `gpu` has no cards to cut"},
      {"{name: p, gpu: H100, mig: {layout: 1g.10gb}, device_sharing: {strategy: mps, replicas: "
       "2}}",
       "node_pools[0].device_sharing: device_sharing of MIG instances is not modelled"},
      {"{name: p, gpu: H100, mig: {layout: 1g.10gb}, memory_isolation: soft}",
       "node_pools[0].memory_isolation: a MIG instance has its own memory"},
      {"{name: p, gpu: H100, labels: {ack.node.gpu.schedule: cgpu}, mig: {layout: 1g.10gb}}",
       "node_pools[0].mig: mig replaces ACK's GPU sharing, but the pool's ack.node.gpu.schedule "
       "is cgpu"},
  };
  for (const Bad& b : bad) {
    CAPTURE(std::string(b.pool));
    const std::string error = ErrorOf(std::string("name: x\nnode_pools:\n  - ") + b.pool + "\n");
    CAPTURE(error);
    CHECK(error.find(b.message) != std::string::npos);
  }
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: w, gpu_mem: 4, mig_profile: 1g.10gb}\n")
            .find("mig_profile excludes gpu_mem and gpu_core") != std::string::npos);
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: w, mig_profile: 1g.10gb*2}\n")
            .find("mig_profile names one MIG profile") != std::string::npos);
}

TEST_CASE(
    "variant sharing mig: instances of the profile that holds each workload's memory on mixed "
    "pools, nvidia.com/gpu on single ones") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: H100, gpus_per_node: 2}\n"
      "workloads:\n"
      "  - {name: small, gpu_mem: 8}\n"
      "  - {name: quota, gpu_mem: 30}\n"
      "  - {name: demand, gpu_mem: 30, gpu_memory: {weights: 12Gi, activation: 1Gi}}\n"
      "  - {name: huge, gpu_mem: 70}\n"
      "variants:\n  - {name: mixed, sharing: {p: mig:3g.40gb+2g.20gb+1g.10gb*2}}\n"
      "  - {name: single, sharing: {p: mig:1g.20gb*4}}\n"
      "  - {name: back, sharing: {p: cgpu}}\n");
  const Scenario mixed = ApplyVariant(s, s.variants[0]);
  CHECK(mixed.node_pools[0].mig.strategy == MigStrategy::kMixed);
  CHECK(mixed.node_pools[0].card_slots() == 8);
  CHECK(mixed.node_pools[0].isolation == MemoryIsolation::kHard);
  CHECK(mixed.catalog.Find("H100 MIG 3g.40gb") != nullptr);
  // 8 GiB fits 1g.10gb (81559 / 8 = 10194 MiB); 30 GiB needs 3g.40gb; a declared demand of
  // 12 GiB + 1 GiB + the H100's 500 MiB context needs 2g.20gb; 70 GiB fits none: the largest.
  const std::vector<std::string> expected = {"1g.10gb", "3g.40gb", "2g.20gb", "3g.40gb"};
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(mixed.workloads[i].name);
    CHECK(mixed.workloads[i].mig_profile == expected[i]);
    CHECK(mixed.workloads[i].whole_gpus == 1);
    CHECK(mixed.workloads[i].gpu_mem == 0);
  }
  const Scenario single = ApplyVariant(s, s.variants[1]);
  CHECK(single.node_pools[0].mig.strategy == MigStrategy::kSingle);
  CHECK(single.workloads[0].whole_gpus == 1);
  CHECK(single.workloads[0].mig_profile.empty());  // nvidia.com/gpu
  // From MIG back to cGPU: a <g>g.<m>gb instance becomes m GiB of gpu-mem.
  const Scenario back = ApplyVariant(mixed, s.variants[2]);
  CHECK(back.workloads[0].mig_profile.empty());
  CHECK(back.workloads[0].whole_gpus == 0);
  CHECK(back.workloads[0].gpu_mem == 10);
  CHECK(back.workloads[1].gpu_mem == 40);
  // A MIG pod whose profile a new layout drops takes the smallest instance at least as large.
  Scenario relayout = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: H100, mig: {layout: 3g.40gb+2g.20gb+1g.10gb*2}}\n"
      "workloads:\n  - {name: chat, mig_profile: 3g.40gb, gpu_memory: {weights: 14Gi}}\n"
      "  - {name: embed, mig_profile: 1g.20gb}\n"
      "variants:\n  - {name: v, sharing: {p: mig-mixed:4g.40gb+2g.20gb+1g.10gb}}\n");
  const Scenario moved = ApplyVariant(relayout, relayout.variants[0]);
  CHECK(moved.workloads[0].mig_profile == "4g.40gb");  // not 2g.20gb, which holds its memory
  CHECK(moved.workloads[1].mig_profile == "2g.20gb");
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: H100}\nvariants:\n  - {name: v, "
                "sharing: {p: mig:7g.80gb+1g.10gb}}\n")
            .find("node pool p: the MIG instances 7g.80gb+1g.10gb do not fit one H100 card") !=
        std::string::npos);
}

TEST_CASE("pool labels with a meaning are validated") {
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpu: T4\n    labels:\n      "
                "ack.node.gpu.placement: spraed\n") ==
        "s.yaml:6: node_pools[0].labels.ack.node.gpu.placement: \"spraed\" is not a valid "
        "placement; did you mean `spread`?");
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpu: T4\n    labels: "
                "{ack.node.gpu.max-pod: \"0\"}\n") ==
        "s.yaml:5: node_pools[0].labels.ack.node.gpu.max-pod: 0 is less than 1");
  CHECK(ErrorOf("name: x\nnode_pools:\n  - name: p\n    gpus_per_node: 2\n") ==
        "s.yaml:4: node_pools[0].gpus_per_node: a pool without `gpu` has no cards; set `gpu` to "
        "a catalog type");
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: T4}\n  - {name: p, gpu: A10}\n") ==
        "s.yaml:4: node_pools[1].name: duplicate node pool name \"p\"");
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, taints: [{key: k, effect: NoSchedul}]}\n") ==
        "s.yaml:3: node_pools[0].taints[0].effect: \"NoSchedul\" is not a valid taint effect; did "
        "you mean `NoSchedule`?");
}

TEST_CASE("names are DNS-1123 labels, with the likely fix as hint") {
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: OCR_Service\n") ==
        "s.yaml:3: workloads[0].name: \"OCR_Service\" is not a valid name; did you mean "
        "`ocr-service`? names are DNS-1123 labels: lower-case letters, digits and '-', at most 63 "
        "characters");
}

TEST_CASE("wrong types name what was expected and what was found") {
  CHECK(ErrorOf("name: x\ncluster: 5\n") == "s.yaml:2: cluster: expected a mapping, found \"5\"");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    replicas: [1]\n") ==
        "s.yaml:4: workloads[0].replicas: expected a whole number, found a list");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    replicas: 2.5\n") ==
        "s.yaml:4: workloads[0].replicas: \"2.5\" is not a whole number");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    labels:\n") ==
        "s.yaml:4: workloads[0].labels: expected a mapping, found nothing");
  CHECK(ErrorOf("name: [x]\n") == "s.yaml:1: name: expected a string, found a list");
}

TEST_CASE("evidence: the fingerprint import writes is kept; anything else is refused") {
  Expected<Scenario> ok = ReadScenarioString("name: x\nevidence: kf1-0123456789abcdef\n", "s.yaml");
  REQUIRE(ok.ok());
  CHECK(ok->evidence == "kf1-0123456789abcdef");
  CHECK(ReadScenarioString("name: x\n", "s.yaml")->evidence.empty());
  CHECK(ErrorOf("name: x\nevidence: my-cluster\n")
            .starts_with("s.yaml:2: evidence: \"my-cluster\" is not an evidence fingerprint"));
}

TEST_CASE("unknown keys list the known ones when no key is close") {
  CHECK(
      ErrorOf("name: x\nrun: {length: 1h}\n") ==
      "s.yaml:2: run.length: unknown key; known keys: duration, warmup, seed, replications, start");
  CHECK(ErrorOf("name: x\nnodepools: []\n") ==
        "s.yaml:2: nodepools: unknown key; did you mean `node_pools`?");
  CHECK(ErrorOf("name: x\nbase: 1\n") ==
        "s.yaml:2: base: unknown key; known keys: name, description, gpu_types, cluster, "
        "node_pools, workloads, run, variants, kube, evidence, interference");
  CHECK(ErrorOf("name: x\nvariants:\n  - &v {name: a, policy: 1}\n  - <<: *v\n    name: b\n") ==
        "s.yaml:4: variants[1].<<: unknown key; YAML merge keys (<<) are not supported");
}

TEST_CASE("a key given twice is an error, not a silent override") {
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    replicas: 1\n    replicas: 2\n") ==
        "s.yaml:5: workloads[0].replicas: duplicate key; each key may appear once in a mapping");
}

TEST_CASE("one YAML document per file") {
  CHECK(ErrorOf("name: x\n---\nname: y\n") ==
        "s.yaml:3: a second YAML document; a scenario file holds one; put variants under "
        "`variants:` instead of a new document");
  CHECK(Read("name: x\n---\n").name == "x");
}

// Found by tools/fuzz/scenario_reader_fuzz: yaml-cpp's LoadAll read a line starting with `,`
// as an empty document, again and again, and never returned.
TEST_CASE("a line starting with a comma is a YAML error, not an endless read") {
  CHECK(ErrorOf(",") ==
        "s.yaml:1: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?");
  CHECK(ErrorOf("  name: x\n, replicas: 2\n") ==
        "s.yaml:2: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?");
  CHECK(ErrorOf("- a\n,\n") ==
        "s.yaml:2: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?");
}

TEST_CASE("workload resource rules follow ACK") {
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: a, gpu_mem: 4, whole_gpus: 1}\n") ==
        "s.yaml:3: workloads[0].whole_gpus: whole_gpus excludes gpu_mem and gpu_core; a pod "
        "either owns whole cards (nvidia.com/gpu) or shares them (aliyun.com/gpu-mem)");
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: a, gpu_count: 2}\n") ==
        "s.yaml:3: workloads[0].gpu_count: gpu_count splits gpu_mem over cards, but there is no "
        "gpu_mem; use whole_gpus for exclusive cards");
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: a, gpu_mem: 5.5}\n") ==
        "s.yaml:3: workloads[0].gpu_mem: \"5.5\" is not a whole number; extended resources such "
        "as aliyun.com/gpu-mem are integers");
  CHECK(
      Read("name: x\nworkloads:\n  - {name: a, gpu_mem: 8, gpu_count: 4}\n").workloads[0].gpu_mem ==
      8);
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: a, concurrency: 0}\n") ==
        "s.yaml:3: workloads[0].concurrency: 0 is less than 1; write `unlimited` for no limit");
}

TEST_CASE("scheduling constraints follow Kubernetes validation") {
  CHECK(ErrorOf(
            "name: x\nworkloads:\n  - name: a\n    tolerations: [{operator: Equal, value: v}]\n") ==
        "s.yaml:4: workloads[0].tolerations[0]: a toleration without `key` must use operator "
        "Exists");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    tolerations: [{key: k, operator: Exists, "
                "value: v}]\n") ==
        "s.yaml:4: workloads[0].tolerations[0].value: must be empty when the operator is Exists");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    tolerations: [{key: k, effect: NoSchedule, "
                "toleration_seconds: 60}]\n") ==
        "s.yaml:4: workloads[0].tolerations[0].toleration_seconds: needs effect NoExecute");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    node_affinity:\n      required: [[{key: k, "
                "operator: In}]]\n") ==
        "s.yaml:5: workloads[0].node_affinity.required[0][0]: operator In needs `values`");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    node_affinity:\n      required: [[{key: k, "
                "operator: Gt, values: [big]}]]\n") ==
        "s.yaml:5: workloads[0].node_affinity.required[0][0]: operator Gt needs exactly one "
        "integer in `values`");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    topology_spread:\n      - {topology_key: "
                "zone, when_unsatisfiable: ScheduleAnyway, min_domains: 2}\n") ==
        "s.yaml:5: workloads[0].topology_spread[0].min_domains: min_domains needs "
        "when_unsatisfiable DoNotSchedule");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    topology_spread:\n      - {max_skew: 0, "
                "topology_key: zone}\n") ==
        "s.yaml:5: workloads[0].topology_spread[0].max_skew: 0 is less than 1");
}

TEST_CASE("counts take a spread: uniform by default, even on request, nothing else") {
  const std::string head = "name: x\nworkloads:\n  - name: a\n    gpu_mem: 4\n    traffic:\n";
  CHECK(Read(head + "      counts: {step: 1m, values: [1, 2]}\n")
            .workloads[0]
            .traffic.counts.spread == CountSpread::kUniform);
  CHECK(Read(head + "      counts: {step: 1m, values: [1], spread: even}\n")
            .workloads[0]
            .traffic.counts.spread == CountSpread::kEven);
  CHECK(ErrorOf(head + "      counts: {step: 1m, values: [1], spread: poisson}\n")
            .find("workloads[0].traffic.counts.spread") != std::string::npos);
}

// A workload with two current pods; `counts` is the workload's counts: mapping.
std::string PerPodScenario(const std::string& counts) {
  return "name: x\nnode_pools:\n  - {name: p, gpu: T4, gpus_per_node: 1}\nworkloads:\n"
         "  - name: a\n    gpu_mem: 4\n    replicas: 2\n"
         "    pods: [{name: a-x, node: p-0}, {name: a-y, node: p-0}]\n"
         "    traffic:\n      counts: " +
         counts + "\n";
}

TEST_CASE("per-pod counts name current pods: each gets its replica ordinal, in the order written") {
  const Scenario s = Read(PerPodScenario("{step: 1m, per_pod: {a-y: [1, 2], a-x: [3]}}"));
  const IntervalCounts& c = s.workloads[0].traffic.counts;
  CHECK(c.values.empty());
  REQUIRE(c.per_pod.size() == 2);
  CHECK(c.per_pod[0].pod == "a-y");
  CHECK(c.per_pod[0].replica == 1);
  CHECK(c.per_pod[0].values == std::vector<int64_t>{1, 2});
  CHECK(c.per_pod[1].pod == "a-x");
  CHECK(c.per_pod[1].replica == 0);
  CHECK(c.per_pod[1].values == std::vector<int64_t>{3});

  const std::string csv =
      (std::filesystem::temp_directory_path() / "knobsim_per_pod_counts.csv").string();
  std::ofstream(csv) << "interval,a-x\n0,4\n1,5\n";
  const Scenario f = Read(PerPodScenario("{step: 1m, per_pod_file: " + csv + "}"));
  REQUIRE(f.workloads[0].traffic.counts.per_pod.size() == 1);
  CHECK(f.workloads[0].traffic.counts.per_pod[0].values == std::vector<int64_t>{4, 5});
  CHECK(f.workloads[0].traffic.counts.source == csv);
  // The Service's counts beside them: the requests of pods gone since.
  const Scenario both = Read(PerPodScenario("{step: 1m, values: [7, 8], per_pod: {a-x: [1]}}"));
  CHECK(both.workloads[0].traffic.counts.values == std::vector<int64_t>{7, 8});
  CHECK(both.workloads[0].traffic.counts.per_pod.size() == 1);

  struct Bad {
    std::string counts;
    std::string error;
  };
  const Bad cases[] = {
      {"{step: 1m, per_pod: {a-z: [1]}}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod.a-z: no pod \"a-z\" in the workload's "
       "`pods:`; did you mean `a-x`?"},
      {"{step: 1m, values: [1], file: c.txt, per_pod: {a-x: [1]}}",
       "s.yaml:10: workloads[0].traffic.counts.file: counts has both `values` and `file`; give "
       "values or file (the Service's requests), per_pod or per_pod_file (each pod's own), or "
       "one of each (the Service's then are those of pods no longer running)"},
      {"{step: 1m, per_pod: {a-x: [1]}, per_pod_file: p.csv}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod_file: counts has both `per_pod` and "
       "`per_pod_file`; give values or file (the Service's requests), per_pod or per_pod_file "
       "(each pod's own), or one of each (the Service's then are those of pods no longer "
       "running)"},
      {"{step: 1m, per_pod: {a-x: []}}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod.a-x: the pod's counts need at least one "
       "value"},
      {"{step: 1m, per_pod: {}}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod: per_pod maps pod names to their counts; "
       "per_pod: {POD: [3, 0, 5]}"},
      {"{step: 1m, per_pod: {a-x: [1], a-x: [2]}}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod.a-x: duplicate key; each key may appear "
       "once "
       "in a mapping"},
      {"{step: 1m}",
       "s.yaml:10: workloads[0].traffic.counts: counts needs its counts; give values or file "
       "(the Service's requests), per_pod or per_pod_file (each pod's own), or one of each (the "
       "Service's then are those of pods no longer running)"},
      {"{step: 1m, per_pod_file: /nonexistent/p.csv}",
       "s.yaml:10: workloads[0].traffic.counts.per_pod_file: /nonexistent/p.csv: cannot read the "
       "file: No such file or directory"},
  };
  for (const Bad& c : cases) {
    CAPTURE(c.counts);
    CHECK(ErrorOf(PerPodScenario(c.counts)) == c.error);
  }
  std::ofstream(csv) << "interval,a-q\n0,4\n";
  CHECK(ErrorOf(PerPodScenario("{step: 1m, per_pod_file: " + csv + "}")) ==
        "s.yaml:10: workloads[0].traffic.counts.per_pod_file: no pod \"a-q\" in the workload's "
        "`pods:`; did you mean `a-x`?");
  std::filesystem::remove(csv);
}

TEST_CASE("traffic and work are checked for shape") {
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    traffic: {}\n") ==
        "s.yaml:4: workloads[0].traffic: traffic needs one of `rate`, `piecewise`, `diurnal`, "
        "`replay` or `counts`");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    traffic:\n      piecewise: [{at: 1m, rate: "
                "1/s}]\n") ==
        "s.yaml:5: workloads[0].traffic.piecewise[0].at: the first piece must start at 0s");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    traffic:\n      piecewise:\n        - {at: "
                "0, rate: 1/s}\n        - {at: 2h, rate: 2/s}\n        - {at: 1h, rate: 3/s}\n") ==
        "s.yaml:8: workloads[0].traffic.piecewise[2].at: pieces must be in increasing order of "
        "`at`; this piece starts at 1h, the one before at 2h");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    traffic: {diurnal: {mean: 5/s, period: 1h, "
                "peak_at: 2h}}\n") ==
        "s.yaml:4: workloads[0].traffic.diurnal.peak_at: peak_at (2h) must be within the period "
        "(1h)");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    work: {dist: exponential, cv: 2}\n") ==
        "s.yaml:4: workloads[0].work.cv: exponential work has cv 1; use lognormal or gamma for "
        "another cv");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    work: {dist: pareto}\n") ==
        "s.yaml:4: workloads[0].work.dist: \"pareto\" is not a valid distribution; use one of "
        "constant, exponential, lognormal, gamma");
  CHECK(ErrorOf("name: x\nworkloads:\n  - name: a\n    work: {mean: 0s}\n") ==
        "s.yaml:4: workloads[0].work.mean: the mean work must be positive");
}

TEST_CASE("variants are checked against the scenario they change") {
  const std::string base =
      "name: x\nnode_pools:\n  - {name: share, gpu: T4, labels: {ack.node.gpu.schedule: share}}\n"
      "workloads:\n  - {name: a, gpu_mem: 4, gpu_count: 2}\n  - {name: b, whole_gpus: 1}\n"
      "variants:\n";
  CHECK(ErrorOf(base + "  - {name: v, memory_isolation: {share: hard}}\n") ==
        "s.yaml:8: variants[0].memory_isolation.share: node pool \"share\" has no cGPU module to "
        "enforce hard isolation; hard isolation needs ack.node.gpu.schedule cgpu or core_mem");
  CHECK(Read(base + "  - {name: v, memory_isolation: {\"*\": hard}}\n").variants.size() == 1);
  CHECK(ErrorOf(base + "  - {name: v, gpu_mem: {a: 3}}\n") ==
        "s.yaml:8: variants[0].gpu_mem.a: invalid replica for resource aliyun.com/gpu-mem, "
        "because 3 / 2 = 1.5; make gpu_mem a multiple of gpu_count (2)");
  CHECK(ErrorOf(base + "  - {name: v, gpu_mem: {\"*\": 3}}\n") ==
        "s.yaml:8: variants[0].gpu_mem.*: invalid replica for resource aliyun.com/gpu-mem, "
        "because 3 / 2 = 1.5; make gpu_mem a multiple of gpu_count (2)");
  CHECK(ErrorOf(base + "  - {name: v, gpu_mem: {b: 4}}\n") ==
        "s.yaml:8: variants[0].gpu_mem.b: workload \"b\" uses whole_gpus, which excludes gpu_mem");
  CHECK(ErrorOf(base + "  - {name: v, max_inst: 26}\n") ==
        "s.yaml:8: variants[0].max_inst: 26 is not in 1..25; cGPU runs at most 25 instances per "
        "card");
  CHECK(ErrorOf(base + "  - {name: v}\n  - {name: v}\n") ==
        "s.yaml:9: variants[1].name: duplicate variant name \"v\"");
  CHECK(ErrorOf(base + "  - {name: v, traffic_scale: -1}\n") ==
        "s.yaml:8: variants[0].traffic_scale: -1 is negative");
  CHECK(ErrorOf(base + "  - {name: v, node_count: {nope: 1}}\n") ==
        "s.yaml:8: variants[0].node_count.nope: unknown node pool \"nope\"; node pools: share");
}

// A model file of `knobsim interference fit`'s form (jobs bert and resnet) in a temporary folder.
std::string WriteInterferenceModel() {
  InterferenceModelFile f;
  f.model.weights.assign(kSurfaceTerms, 0.0);
  f.model.weights[0] = 1;
  f.model.weights[5] = -0.5;
  f.model.max_speed = 1.2;
  f.model.train_pairs = 1;
  f.profiles = {{"bert", 50, 20, 8000}, {"resnet", 80, 40, 6000}};
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "knobsim-reader-interference-model.json";
  std::ofstream(path) << InterferenceModelJson(f).dump(2) << "\n";
  return path.string();
}

TEST_CASE(
    "interference: workloads name a job of the cluster's model, give their own profile, or "
    "none") {
  const std::string model = WriteInterferenceModel();
  const std::string head = "name: x\ncluster: {policy: 5, interference: " + model +
                           "}\nnode_pools:\n  - {name: gpu, gpu: A10}\nworkloads:\n";
  const Scenario s = Read(head +
                          "  - {name: a, gpu_mem: 4, traffic: {rate: 1/s}, interference: resnet}\n"
                          "  - {name: b, gpu_mem: 4, traffic: {rate: 1/s}, interference: "
                          "{gpu_util_pct: 30, mem_bw_util_pct: 10, memory_mib: 2048}}\n"
                          "  - {name: c, gpu_mem: 4, traffic: {rate: 1/s}, interference: none}\n"
                          "  - {name: idle, gpu_mem: 4}\n"
                          "variants:\n  - {name: solo-split, interference: off}\n");
  REQUIRE(s.cluster.interference != nullptr);
  CHECK(s.cluster.interference->source == model);
  CHECK(s.cluster.interference->profiles.size() == 2);
  REQUIRE(s.workloads[0].interference.has_value());
  CHECK(s.workloads[0].interference->job == "resnet");
  CHECK(s.workloads[0].interference->gpu_util_pct == 80);
  REQUIRE(s.workloads[1].interference.has_value());
  CHECK(s.workloads[1].interference->job.empty());  // its own numbers: no fitted offsets
  CHECK(s.workloads[1].interference->memory_mib == 2048);
  CHECK_FALSE(s.workloads[2].interference.has_value());
  CHECK_FALSE(s.workloads[3].interference.has_value());  // no GPU work: nothing to profile
  CHECK(ApplyVariant(s, s.variants[0]).cluster.interference == nullptr);
  CHECK(ApplyVariant(s, Variant{}).cluster.interference == s.cluster.interference);
  // The same model may be named at the top level, as `interference: MODEL.json`.
  const Scenario top =
      Read("name: x\ninterference: " + model +
           "\nnode_pools:\n  - {name: gpu, gpu: A10}\nworkloads:\n"
           "  - {name: a, gpu_mem: 4, traffic: {rate: 1/s}, interference: bert}\n");
  REQUIRE(top.cluster.interference != nullptr);
  CHECK(top.workloads[0].interference->job == "bert");
}

TEST_CASE(
    "interference: a profile without a model, a missing profile, or an unknown job is "
    "refused") {
  const std::string model = WriteInterferenceModel();
  const std::string with_model = "name: x\ncluster: {policy: 5, interference: " + model +
                                 "}\nnode_pools:\n  - {name: gpu, gpu: A10}\nworkloads:\n";
  const std::string without = "name: x\nnode_pools:\n  - {name: gpu, gpu: A10}\nworkloads:\n";
  CHECK(ErrorOf(without + "  - {name: a, gpu_mem: 4, interference: resnet}\n") ==
        "s.yaml:5: workloads[0].interference: a workload's interference profile needs "
        "cluster.interference (a model file); fit one with `knobsim interference fit` and name it "
        "under cluster.interference");
  CHECK(ErrorOf(with_model + "  - {name: a, gpu_mem: 4, traffic: {rate: 1/s}}\n") ==
        "s.yaml:6: workloads[0].name: workload \"a\" runs GPU work on shared cards, but has no "
        "interference profile for cluster.interference; give `interference: JOB` (a job of \"" +
            model +
            "\"), its own {gpu_util_pct, mem_bw_util_pct, memory_mib}, or `interference: none` to "
            "share its cards by the POLICY split");
  CHECK(ErrorOf(with_model + "  - {name: a, gpu_mem: 4, interference: resnt}\n") ==
        "s.yaml:6: workloads[0].interference: the interference model \"" + model +
            "\" holds no job \"resnt\"; did you mean `resnet`?");
  CHECK(ErrorOf(with_model + "  - {name: a, whole_gpus: 1, interference: bert}\n") ==
        "s.yaml:6: workloads[0].interference: whole_gpus pods have their cards to themselves: "
        "nothing co-runs with them; leave interference out");
  CHECK(ErrorOf(with_model +
                "  - {name: a, gpu_mem: 4, interference: {gpu_util_pct: 130, mem_bw_util_pct: 1, "
                "memory_mib: 1}}\n") ==
        "s.yaml:6: workloads[0].interference.gpu_util_pct: 130 is not in [0, 100]");
  CHECK(ErrorOf(without +
                "  - {name: a, gpu_mem: 4}\nvariants:\n  - {name: v, interference: on}\n") ==
        "s.yaml:7: variants[0].interference: there is no interference model to turn on; name one "
        "under cluster.interference");
  CHECK(ErrorOf("name: x\ncluster: {interference: " + model + "}\ninterference: " + model + "\n") ==
        "s.yaml:3: interference: the interference model is named twice, here and under cluster:; "
        "keep one of them");
  const std::string missing = ErrorOf("name: x\ncluster: {interference: /nonexistent/m.json}\n");
  CHECK(missing.find("s.yaml:2: cluster.interference: /nonexistent/m.json") == 0);
}

TEST_CASE("a node pool's spot key sets its reclaim rate and replacement delay") {
  const std::string head = "name: x\nnode_pools:\n  - {name: gpu, gpu: A10, count: 2";
  const Scenario on_demand = Read(head + "}\n");
  CHECK(on_demand.node_pools[0].spot.per_node_hour == 0);
  CHECK(on_demand.node_pools[0].spot.replace_after == 180 * kS);
  const Scenario spot = Read(head + ", spot: {per_node_hour: 0.05, replace_after: 3m30s}}\n");
  CHECK(spot.node_pools[0].spot.per_node_hour == 0.05);
  CHECK(spot.node_pools[0].spot.replace_after == 210 * kS);
  CHECK(Read(head + ", spot: {per_node_hour: 2}}\n").node_pools[0].spot.replace_after == 180 * kS);
  CHECK(ErrorOf(head + ", spot: {per_node_hour: -1}}\n") ==
        "s.yaml:3: node_pools[0].spot.per_node_hour: -1 is not in [0, 60]; reclaims per node per "
        "hour, e.g. 0.05; 0 = on-demand");
  CHECK(ErrorOf(head + ", spot: {replace_after: 3m}}\n") ==
        "s.yaml:3: node_pools[0].spot: missing required key `per_node_hour`");
  CHECK(ErrorOf(head + ", spot: {per_node_hour: 0.1, replace_afer: 3m}}\n") ==
        "s.yaml:3: node_pools[0].spot.replace_afer: unknown key; did you mean `replace_after`?");
  CHECK(ErrorOf(head + ", spot: {per_node_hour: 0.1, replace_after: 180}}\n") ==
        "s.yaml:3: node_pools[0].spot.replace_after: \"180\" has no unit; add a unit, e.g. 180s");
  CHECK(ErrorOf(head + ", spot: 0.05}\n") ==
        "s.yaml:3: node_pools[0].spot: expected a mapping, found \"0.05\"");
}

TEST_CASE("spot: the notice defaults to ECS's 5 minutes with a drain, the protection to 1 hour") {
  const std::string head = "name: x\nnode_pools:\n  - {name: gpu, gpu: A10, count: 2";
  const SpotInterruptions plain = Read(head + ", spot: {per_node_hour: 1}}\n").node_pools[0].spot;
  CHECK(plain.notice == 300 * kS);
  CHECK(plain.drain_on_notice);
  CHECK(plain.protection == 3600 * kS);
  CHECK(plain.stockout == 0);
  CHECK_FALSE(plain.compensate_with_on_demand);
  const SpotInterruptions aws =
      Read(head + ", spot: {per_node_hour: 1, notice: 2m, on_notice: none, protection: 0s}}\n")
          .node_pools[0]
          .spot;
  CHECK(aws.notice == 120 * kS);
  CHECK_FALSE(aws.drain_on_notice);
  CHECK(aws.protection == 0);
  const Scenario scaled = Read(
      "name: x\ncluster: {cluster_autoscaler: {max_node_provision_time: 30m, "
      "initial_node_group_backoff: 1m, max_node_group_backoff: 10m, node_group_backoff_reset: "
      "1h}}\n"
      "node_pools:\n  - {name: gpu, gpu: A10, autoscaling: {min: 0, max: 4, provisioning: 20m}, "
      "spot: {per_node_hour: 1, stockout: 0.25, compensate_with_on_demand: true}}\n");
  CHECK(scaled.node_pools[0].spot.stockout == 0.25);
  CHECK(scaled.node_pools[0].spot.compensate_with_on_demand);
  const ClusterAutoscalerSettings& c = scaled.cluster.cluster_autoscaler;
  CHECK(c.max_node_provision_time == 1800 * kS);
  CHECK(c.backoff.initial == 60 * kS);
  CHECK(c.backoff.max == 600 * kS);
  CHECK(c.backoff.reset_after == 3600 * kS);
  CHECK(ClusterAutoscalerSettings{}.max_node_provision_time == 900 * kS);
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

TEST_CASE("the kube: section reads PDBs, StatefulSets, storage and quotas") {
  Expected<Scenario> s = ReadScenarioString(R"(name: x
kube:
  pdbs:
    - {namespace: infra, name: etcd, min_available: "51%", selector: {match_labels: {app: etcd}}}
    - {namespace: infra, name: all, max_unavailable: 0, selector: {}}
  stateful_sets:
    - {namespace: infra, name: etcd, replicas: 3, selector: {match_labels: {app: etcd}}, volume_claim_templates: [data]}
  pvcs:
    - {namespace: infra, name: data-etcd-0, storage_class: "", request: 20Gi, volume: d-1, phase: Bound}
  pvs:
    - {name: d-1, reclaim_policy: Delete, capacity: 20Gi, claim: infra/data-etcd-0, phase: Bound}
  storage_classes:
    - {name: essd, provisioner: diskplugin.csi.alibabacloud.com, default: true}
  resource_quotas:
    - {namespace: ai, name: gpu, hard: {requests.cpu: "64", limits.memory: 256Gi, requests.aliyun.com/gpu-mem: "96", pods: "50"}}
)",
                                            "s.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  const ScenarioKube& k = s->kube;
  REQUIRE(k.pdbs.size() == 2);
  CHECK(k.pdbs[0].min_available == IntOrPercent{51, true});
  CHECK(k.pdbs[0].unhealthy_pod_eviction_policy == "IfHealthyBudget");  // the API default
  CHECK_FALSE(k.pdbs[0].status);
  REQUIRE(k.pdbs[1].selector);  // `{}`: every pod of the namespace
  CHECK(k.pdbs[1].selector->match_labels.empty());
  CHECK(k.pdbs[1].max_unavailable == IntOrPercent{0, false});
  CHECK(k.stateful_sets[0].replicas == 3);
  CHECK(k.pvcs[0].storage_class_name == std::optional<std::string>(""));  // explicitly none
  CHECK(k.pvcs[0].requested_bytes == int64_t{20} << 30);
  CHECK(k.pvs[0].claim_name == "data-etcd-0");
  CHECK(k.storage_classes[0].reclaim_policy == "Delete");  // the API default
  CHECK(k.resource_quotas[0].hard.at("requests.cpu") == 64000);
  CHECK(k.resource_quotas[0].hard.at("limits.memory") == int64_t{256} << 30);
  CHECK(k.resource_quotas[0].hard.at("requests.aliyun.com/gpu-mem") == 96);
  CHECK(k.resource_quotas[0].hard.at("pods") == 50);
}

TEST_CASE("the kube: section names the field of a bad object") {
  auto error = [](const std::string& kube) {
    Expected<Scenario> s = ReadScenarioString("name: x\nkube:\n" + kube, "s.yaml");
    return s.ok() ? std::string("(no error)") : s.error().ToString();
  };
  CHECK(error("  pdbs:\n    - {name: a, min_available: 1, max_unavailable: 1}\n") ==
        "s.yaml:4: kube.pdbs[0].max_unavailable: min_available and max_unavailable are mutually "
        "exclusive; a PodDisruptionBudget sets one of the two");
  CHECK(error("  pdbs:\n    - {name: a, min_available: \"150%\"}\n") ==
        "s.yaml:4: kube.pdbs[0].min_available: \"150%\" is not a count or a percentage; write a "
        "whole number such as 1, or a percentage such as \"51%\"");
  CHECK(error("  pvs:\n    - {name: d, reclaim_policy: Keep}\n")
            .find("kube.pvs[0].reclaim_policy: \"Keep\" is not") != std::string::npos);
  CHECK(error("  pvs:\n    - {name: d, claim: data}\n") ==
        "s.yaml:4: kube.pvs[0].claim: \"data\" does not name a claim; write namespace/name, e.g. "
        "db/data-pg-0");
  CHECK(error("  pvcs:\n    - {name: c, request: 20GB}\n") ==
        "s.yaml:4: kube.pvcs[0].request: \"20GB\" is not a quantity; did you mean 20Gi?");
  CHECK(error("  resource_quotas:\n    - {name: q, hard: {limits.memory: 8GB}}\n") ==
        "s.yaml:4: kube.resource_quotas[0].hard.limits.memory: \"8GB\" is not a quantity; did you "
        "mean 8Gi?");
  CHECK(error("  pdb:\n    - {name: a}\n") ==
        "s.yaml:3: kube.pdb: unknown key; did you mean `pdbs`?");
  CHECK(error("  pdbs:\n    - {name: a}\n    - {name: a}\n") ==
        "s.yaml:5: kube.pdbs[1]: duplicate \"default/a\"");
}

TEST_CASE("cron_hpa: jobs with go-cron schedules, the HPA or the workload as target, run.start") {
  const Scenario s = Read(
      "name: s\ncluster: {cron_hpa_controller: {utc_offset: \"-05:30\"}}\nworkloads:\n"
      "  - name: web\n    hpa: {max_replicas: 6, metrics: [{metric: gpu_utilization, average: "
      "60}]}\n"
      "    cron_hpa:\n      target: hpa\n      exclude_dates: [\"* * * 25 12 *\"]\n"
      "      jobs:\n        - {name: up, schedule: \"0 30 7 * * MON-FRI\", target_size: 4}\n"
      "        - {name: down, schedule: \"@daily\", target_size: 1, run_once: true}\n"
      "  - name: batch\n    kind: StatefulSet\n"
      "    cron_hpa: {name: nightly, jobs: [{name: zero, schedule: \"0 0 23 * * *\", target_size: "
      "0}]}\n"
      "run: {start: \"2026-03-02T06:00:00+08:00\"}\n");
  CHECK(s.cluster.cron_hpa_controller.utc_offset_s == -(5 * 3600 + 30 * 60));
  REQUIRE(s.run.start_unix_s.has_value());
  CHECK(*s.run.start_unix_s == 1772402400);  // 2026-03-01T22:00:00Z
  const CronHpaSpec& web = *s.workloads[0].cron_hpa;
  CHECK(web.name == "web");
  CHECK(web.target_kind == "HorizontalPodAutoscaler");
  CHECK(web.target_name == "web");
  REQUIRE(web.exclude_dates.size() == 1);
  CHECK(web.exclude_dates[0].text == "* * * 25 12 *");
  REQUIRE(web.jobs.size() == 2);
  CHECK(web.jobs[0].schedule_text == "0 30 7 * * MON-FRI");
  CHECK(web.jobs[0].schedule == *ParseCronSchedule("0 30 7 * * 1-5"));
  CHECK(web.jobs[0].target_size == 4);
  CHECK(web.jobs[1].run_once);
  const CronHpaSpec& batch = *s.workloads[1].cron_hpa;
  CHECK(batch.name == "nightly");
  CHECK(batch.target_kind == "StatefulSet");
  CHECK(batch.jobs[0].target_size == 0);
}

TEST_CASE("cron_hpa errors name the field") {
  const std::string pre = "name: s\nworkloads:\n  - name: web\n";
  const std::string hpa =
      "    hpa: {max_replicas: 6, metrics: [{metric: gpu_utilization, average: 60}]}\n";
  struct Case {
    std::string yaml;
    std::string error;
  };
  const Case cases[] = {
      {pre + "    cron_hpa: {jobs: [{name: a, schedule: \"0 0 25 * * *\", target_size: 1}]}\n",
       "s.yaml:4: workloads[0].cron_hpa.jobs[0].schedule: the hour field"},
      {pre + "    cron_hpa: {jobs: [{name: a, schedule: \"0 0 1 * * *\", target_size: 1}, "
             "{name: a, schedule: \"0 0 2 * * *\", target_size: 2}]}\n",
       "duplicate job name \"a\""},
      {pre + "    cron_hpa: {jobs: []}\n", "list at least one job"},
      {pre +
           "    cron_hpa: {target: hpa, jobs: [{name: a, schedule: \"@daily\", target_size: 1}]}\n",
       "the workload has no hpa: to scale"},
      {pre + hpa +
           "    cron_hpa: {target: hpa, jobs: [{name: a, schedule: \"@daily\", "
           "target_size: 0}]}\n",
       "workloads[0].cron_hpa.jobs[0].target_size"},
      {pre + "    cron_hpa: {jobs: [{name: a, schedule: \"@daily\", target_size: 1}]}\n"
             "run: {start: \"2026-03-02 06:00\"}\n",
       "s.yaml:5: run.start: not an RFC 3339 instant in whole seconds"},
      {"name: s\ncluster: {cron_hpa_controller: {utc_offset: \"+8\"}}\n",
       "s.yaml:2: cluster.cron_hpa_controller.utc_offset: \"+8\" is not a UTC offset"},
      {pre + "    cron_hpa: {jobs: [{name: a, schedule: \"@daily\", target_size: 1}]}\n"
             "variants: [{name: v, cron_hpa: {nobody: false}}]\n",
       "unknown workload \"nobody\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.yaml);
    CHECK_MESSAGE(Has(ErrorOf(c.yaml), c.error), ErrorOf(c.yaml));
  }
}

TEST_CASE("an hpa's cpu metric: utilization in percent of the request, average as a quantity") {
  const std::string pre = "name: s\nworkloads:\n  - name: web\n    cpu: 1\n    hpa: ";
  struct Case {
    std::string hpa;
    HpaTargetType type;
    int32_t utilization;
    int64_t milli;
  };
  const Case cases[] = {
      {"{max_replicas: 4, metrics: [{metric: cpu, utilization: 50}]}", HpaTargetType::kUtilization,
       50, 0},
      {"{max_replicas: 4, metrics: [{metric: cpu, average: 500m}]}", HpaTargetType::kAverageValue,
       0, 500},
      {"{max_replicas: 4, metrics: [{metric: cpu, average: 1.5}]}", HpaTargetType::kAverageValue, 0,
       1500},
  };
  for (const Case& c : cases) {
    CAPTURE(c.hpa);
    const Scenario s = Read(pre + c.hpa + "\n");
    REQUIRE(s.workloads[0].hpa->metrics.size() == 1);
    const HpaMetric& m = s.workloads[0].hpa->metrics[0];
    CHECK(m.kind == HpaMetricKind::kCpu);
    CHECK(m.name == "cpu");
    CHECK(m.target_type == c.type);
    CHECK(m.target_utilization == c.utilization);
    CHECK(m.target_milli == c.milli);
  }
}

TEST_CASE("an hpa without metrics keeps them empty: cpu at 80 %, the API's default") {
  for (const char* metrics : {"", ", metrics: []"}) {
    CAPTURE(metrics);
    const Scenario s =
        Read(std::string("name: s\nworkloads:\n  - name: web\n    hpa: {max_replicas: 3") +
             metrics + "}\n");
    CHECK(s.workloads[0].hpa->metrics.empty());
  }
}

TEST_CASE("hpa metric targets the metric cannot take are errors naming the field") {
  const std::string pre =
      "name: s\nworkloads:\n  - name: web\n    hpa: {max_replicas: 3, metrics: ";
  struct Case {
    std::string metrics;
    std::string error;
  };
  const Case cases[] = {
      {"[{metric: cpu}]", "s.yaml:4: workloads[0].hpa.metrics[0]: give cpu's target as"},
      {"[{metric: cpu, utilization: 50, average: 1}]", "give cpu's target as"},
      {"[{metric: cpu, utilization: 0}]", "workloads[0].hpa.metrics[0].utilization"},
      {"[{metric: cpu, utilization: 50%}]", "workloads[0].hpa.metrics[0].utilization"},
      {"[{metric: cpu, average: 50x}]", "workloads[0].hpa.metrics[0].average"},
      {"[{metric: cpu, average: 0}]", "the target must be at least 1m"},
      {"[{metric: cpu, utilization: 50, value: 1}]", "a Resource metric has no Value target"},
      {"[{metric: gpu_utilization, utilization: 50}]",
       "workloads[0].hpa.metrics[0].utilization: utilization is a percent of the pod's request"},
      {"[{metric: memory, average: 1Gi}]", "workloads[0].hpa.metrics[0].metric"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.metrics);
    const std::string error = ErrorOf(pre + c.metrics + "}\n");
    CHECK_MESSAGE(Has(error, c.error), error);
  }
}

TEST_CASE("the hpa_target variant moves a cpu target in its own unit, the default one too") {
  const Scenario s = Read(
      "name: s\nworkloads:\n"
      "  - name: a\n    hpa: {max_replicas: 3, metrics: [{metric: cpu, utilization: 50}]}\n"
      "  - name: b\n    hpa: {max_replicas: 3, metrics: [{metric: cpu, average: 500m}]}\n"
      "  - name: c\n    hpa: {max_replicas: 3}\n"
      "variants: [{name: v, hpa_target: {a: 70, b: 0.25, c: 60}}]\n");
  const Scenario v = ApplyVariant(s, s.variants[0]);
  CHECK(v.workloads[0].hpa->metrics[0].target_utilization == 70);
  CHECK(v.workloads[1].hpa->metrics[0].target_milli == 250);
  REQUIRE(v.workloads[2].hpa->metrics.size() == 1);
  CHECK(v.workloads[2].hpa->metrics[0].kind == HpaMetricKind::kCpu);
  CHECK(v.workloads[2].hpa->metrics[0].target_utilization == 60);
}

TEST_CASE("the hpa stabilization-window variants set the behavior, creating it with defaults") {
  const Scenario s = Read(
      "name: s\nworkloads:\n"
      "  - name: a\n    hpa: {max_replicas: 3, behavior: {scale_down: {stabilization_window: "
      "60s, policies: [{type: Pods, value: 1, period: 60s}]}}}\n"
      "  - name: b\n    hpa: {max_replicas: 3}\n"
      "variants: [{name: v, hpa_scale_down_window: {a: 10m, b: 0s}, hpa_scale_up_window: {b: "
      "30s}}]\n");
  const Scenario v = ApplyVariant(s, s.variants[0]);
  const HpaScalingRules& a_down = *v.workloads[0].hpa->behavior->scale_down;
  CHECK(a_down.stabilization_window_s == 600);
  CHECK(a_down.policies.size() == 1);  // the rest as written
  CHECK_FALSE(v.workloads[0].hpa->behavior->scale_up);
  REQUIRE(v.workloads[1].hpa->behavior);  // created: the API's defaults but these windows
  CHECK(v.workloads[1].hpa->behavior->scale_down->stabilization_window_s == 0);
  CHECK(v.workloads[1].hpa->behavior->scale_down->policies.empty());
  CHECK(v.workloads[1].hpa->behavior->scale_up->stabilization_window_s == 30);
  CHECK(Has(ErrorOf("name: s\nworkloads:\n  - name: a\n    hpa: {max_replicas: 3}\n"
                    "variants: [{name: v, hpa_scale_up_window: {a: 2h}}]\n"),
            "a stabilization window is whole seconds from 0s to 1h"));
  CHECK(Has(ErrorOf("name: s\nworkloads:\n  - name: a\n"
                    "variants: [{name: v, hpa_scale_up_window: {a: 1m}}]\n"),
            "workload \"a\" has no hpa"));
}

TEST_CASE("node pool autoscaling: bounds, provisioning, the autoscaler's flags, variants") {
  const Scenario s = Read(
      "name: s\n"
      "cluster:\n"
      "  cluster_autoscaler: {scan_interval: 20s, expander: \"priority,least-waste\",\n"
      "    scale_down_utilization_threshold: 0.4, scale_down_unneeded_time: 5m,\n"
      "    scale_down_enabled: false, knows_gpu_share: false}\n"
      "node_pools:\n"
      "  - {name: a, count: 2, cpu: 8, memory: 32Gi,\n"
      "     autoscaling: {min: 1, max: 6, provisioning: {min: 90s, max: 5m}, priority: 10}}\n"
      "  - {name: b, cpu: 8, memory: 32Gi, autoscaling: {min: 2, max: 3, provisioning: 10m}}\n"
      "  - {name: c, count: 4, cpu: 8, memory: 32Gi}\n"
      "variants: [{name: v, pool_min: {a: 3}, pool_max: {a: 4}}]\n");
  const PoolAutoscaling& a = *s.node_pools[0].autoscaling;
  CHECK(s.node_pools[0].count == 2);
  CHECK(a.min == 1);
  CHECK(a.max == 6);
  CHECK(a.provisioning_min == 90 * kNanosPerSecond);
  CHECK(a.provisioning_max == 300 * kNanosPerSecond);
  CHECK(a.priority == 10);
  CHECK(s.node_pools[0].slots() == 6);
  // Without count a pool starts at its minimum; one duration is a fixed delay.
  const PoolAutoscaling& b = *s.node_pools[1].autoscaling;
  CHECK(s.node_pools[1].count == 2);
  CHECK(b.provisioning_min == 600 * kNanosPerSecond);
  CHECK(b.provisioning_max == 600 * kNanosPerSecond);
  CHECK(!b.priority.has_value());
  CHECK(!s.node_pools[2].autoscaling.has_value());
  CHECK(s.node_pools[2].slots() == 4);
  const ClusterAutoscalerSettings& ca = s.cluster.cluster_autoscaler;
  CHECK(ca.scan_interval == 20 * kNanosPerSecond);
  CHECK(ca.expander == "priority,least-waste");
  CHECK(ca.utilization_threshold == 0.4);
  CHECK(ca.gpu_utilization_threshold == 0.5);  // upstream's default
  CHECK(ca.unneeded_time == 300 * kNanosPerSecond);
  CHECK(ca.delay_after_add == 600 * kNanosPerSecond);
  CHECK(!ca.scale_down);
  CHECK(!ca.knows_gpu_share);
  CHECK(s.variants[0].pool_min.at("a") == 3);
  CHECK(s.variants[0].pool_max.at("a") == 4);
  // Defaults: upstream's flags, ACK's 2-3 minute join.
  const ClusterAutoscalerSettings defaults;
  CHECK(defaults.expander == "least-waste");
  CHECK(defaults.scan_interval == 10 * kNanosPerSecond);
  CHECK(defaults.knows_gpu_share);
  CHECK(PoolAutoscaling{}.provisioning_min == 120 * kNanosPerSecond);
  CHECK(PoolAutoscaling{}.provisioning_max == 180 * kNanosPerSecond);
}

TEST_CASE("node pool autoscaling errors name the field") {
  const std::string pool = "name: s\nnode_pools:\n  - name: a\n    cpu: 8\n";
  struct Case {
    std::string yaml;
    std::string error;
  };
  const Case cases[] = {
      {pool + "    autoscaling: {min: 3, max: 2}\n",
       "s.yaml:5: node_pools[0].autoscaling.max: max is below min"},
      {pool + "    count: 9\n    autoscaling: {min: 1, max: 4}\n",
       "node_pools[0].count: count 9 is outside the autoscaling bounds [1, 4]"},
      {pool + "    autoscaling: {max: 4}\n",
       "node_pools[0].autoscaling: missing required key `min`"},
      {pool + "    autoscaling: {min: 1, max: 4, provisioning: {min: 3m, max: 1m}}\n",
       "node_pools[0].autoscaling.provisioning.max: max is below min"},
      {pool + "    nodes: [n1]\n    autoscaling: {min: 1, max: 4}\n",
       "a pool with listed nodes cannot autoscale"},
      {pool +
           "    spot: {per_node_hour: 0.1, replace_after: 3m}\n    autoscaling: {min: 1, max: 4}\n",
       "s.yaml:5: node_pools[0].spot.replace_after: an autoscaled pool's reclaimed node is not "
       "replaced after a delay; leave replace_after out"},
      {pool + "    spot: {per_node_hour: 0.1, stockout: 0.2}\n",
       "s.yaml:5: node_pools[0].spot.stockout: stockout applies to the new instances of an "
       "autoscaled pool"},
      {pool + "    spot: {per_node_hour: 0.1, compensate_with_on_demand: true}\n",
       "node_pools[0].spot.compensate_with_on_demand: compensate_with_on_demand applies to"},
      {pool + "    spot: {per_node_hour: 0.1, stockout: 1.5}\n    autoscaling: {min: 1, max: 4}\n",
       "node_pools[0].spot.stockout: 1.5 is not in [0, 1]"},
      {pool + "    spot: {per_node_hour: 0.1, on_notice: evict}\n",
       "node_pools[0].spot.on_notice: \"evict\" is not a valid on_notice; use one of drain, none"},
      {pool + "    autoscaling: {min: 1, max: 4, provisioning: 20m}\n",
       "s.yaml:5: node_pools[0].autoscaling.provisioning: provisioning can take longer than the "
       "cluster-autoscaler's max_node_provision_time (15m); raise "
       "cluster.cluster_autoscaler.max_node_provision_time"},
      {"name: s\ncluster: {cluster_autoscaler: {max_node_provision_time: 0s}}\n",
       "cluster.cluster_autoscaler.max_node_provision_time: must be above 0"},
      {"name: s\ncluster: {cluster_autoscaler: {expander: price}}\n",
       "s.yaml:2: cluster.cluster_autoscaler.expander: unknown expander 'price'"},
      {"name: s\ncluster: {cluster_autoscaler: {scan_interval: 0s}}\n",
       "the scan interval must be above 0"},
      {"name: s\ncluster: {cluster_autoscaler: {scale_down_unneded_time: 5m}}\n",
       "cluster.cluster_autoscaler.scale_down_unneded_time: unknown key"},
      {pool + "variants: [{name: v, pool_min: {a: 2}}]\n", "node pool \"a\" has no autoscaling"},
      {pool + "    autoscaling: {min: 1, max: 4}\nvariants: [{name: v, pool_min: {a: 5}}]\n",
       "pool \"a\": min 5 is above max 4"},
      {pool + "    autoscaling: {min: 1, max: 4}\nvariants: [{name: v, pool_max: {b: 5}}]\n",
       "unknown node pool \"b\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.yaml);
    CHECK_MESSAGE(Has(ErrorOf(c.yaml), c.error), ErrorOf(c.yaml));
  }
}

}  // namespace

TEST_CASE("hami: a pool's vGPU split and a workload's request with HAMi's webhook defaults") {
  Scenario s = Read(
      "name: x\nnode_pools:\n"
      "  - {name: p, gpu: L4, gpus_per_node: 4, hami: {split_count: 5, memory_scaling: 0.5, "
      "core_policy: force}}\n"
      "  - {name: d, gpu: L4, hami: {}}\n"
      "workloads:\n"
      "  - {name: mem, hami: {gpumem: 6000}}\n"
      "  - {name: pct, hami: {gpus: 2, gpumem_percentage: 100}}\n"
      "  - {name: half, hami: {gpumem_percentage: 50, gpucores: 30, node_policy: spread, "
      "gpu_policy: binpack, use_gputype: L4}}\n"
      "  - {name: slots, hami: {}}\n");
  const NodePool& p = s.node_pools[0];
  CHECK(p.hami.split_count == 5);
  CHECK(p.hami.memory_scaling == 0.5);
  CHECK(p.hami.core_policy == HamiCorePolicy::kForce);
  CHECK(p.schedule == GpuSchedule::kDefault);
  CHECK(!p.cgpu_active);
  CHECK(p.isolation == MemoryIsolation::kHard);
  CHECK(s.node_pools[1].hami.split_count == 10);  // HAMi's chart default
  struct Want {
    int vgpus;
    int64_t mem_mib;
    int mem_percent;
    int cores;
  };
  // GenerateResourceRequests after MutateAdmission: gpumem alone leaves gpucores at 0; slots
  // alone, or 100 % of the memory, ask the card alone (gpucores 100).
  const Want want[] = {{1, 6000, 100, 0}, {2, 0, 100, 100}, {1, 0, 50, 30}, {1, 0, 100, 100}};
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(s.workloads[i].name);
    const HamiRequest& r = s.workloads[i].hami.request;
    CHECK(r.vgpus == want[i].vgpus);
    CHECK(r.mem_mib == want[i].mem_mib);
    CHECK(r.mem_percent == want[i].mem_percent);
    CHECK(r.cores == want[i].cores);
  }
  CHECK(s.workloads[2].hami.annotations.at(kHamiNodePolicyAnnotation) == "spread");
  CHECK(s.workloads[2].hami.annotations.at(kHamiGpuPolicyAnnotation) == "binpack");
  CHECK(s.workloads[2].hami.annotations.at(kHamiUseTypeAnnotation) == "L4");

  struct Bad {
    const char* yaml;
    const char* message;
  };
  const Bad bad[] = {
      {"node_pools:\n  - {name: p, gpu: L4, hami: {memory_scaling: 2}}\n",
       "memory oversubscription (above 1) is not modelled"},
      {"node_pools:\n  - {name: p, gpu: L4, hami: {split_count: 0}}\n", "is not in 1..256"},
      {"node_pools:\n  - {name: p, gpu: L4, hami: {}, mig: {layout: 1g.10gb}}\n",
       "mig and hami are two ways to share the cards"},
      {"node_pools:\n  - {name: p, gpu: L4, hami: {}, memory_isolation: soft}\n",
       "HAMi-core limits each pod's memory"},
      {"node_pools:\n  - {name: p, hami: {}}\n", "a pool without `gpu` has no cards to split"},
      {"node_pools:\n  - name: p\n    gpu: L4\n    labels: {ack.node.gpu.schedule: cgpu}\n"
       "    hami: {}\n",
       "hami replaces ACK's GPU sharing"},
      {"workloads:\n  - {name: w, gpu_mem: 4, hami: {gpumem: 4000}}\n", "hami excludes gpu_mem"},
      {"workloads:\n  - {name: w, hami: {gpumem: 4000, gpumem_percentage: 50}}\n",
       "gpumem and gpumem_percentage are two ways"},
      {"workloads:\n  - {name: w, hami: {gpu_policy: topology-aware}}\n",
       "numa and topology-aware are not modelled"},
      {"workloads:\n  - {name: w, hami: {gpucores: 120}}\n", "is not in 0..100"},
      {"workloads:\n  - {name: w, hami: {cores: 10}}\n", "cores"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.yaml);
    const std::string error = ErrorOf(std::string("name: x\n") + b.yaml);
    CAPTURE(error);
    CHECK(error.find(b.message) != std::string::npos);
  }
}

TEST_CASE("variant sharing hami: requests translated to vGPUs and back") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, gpus_per_node: 4}\n"
      "workloads:\n  - {name: a, gpu_mem: 8, gpu_core: 30}\n  - {name: b, gpu_mem: 6, gpu_count: "
      "2}\n"
      "variants:\n  - {name: hami, sharing: {p: hami:4}}\n  - {name: back, sharing: {p: cgpu}}\n"
      "  - {name: whole, sharing: {p: exclusive}}\n");
  const Scenario hami = ApplyVariant(s, s.variants[0]);
  CHECK(hami.node_pools[0].hami.split_count == 4);
  CHECK(hami.node_pools[0].schedule == GpuSchedule::kDefault);
  CHECK(hami.workloads[0].gpu_mem == 0);
  CHECK(hami.workloads[0].hami.request == HamiRequest{1, 8192, 100, 30});
  CHECK(hami.workloads[1].hami.request == HamiRequest{2, 3072, 100, 0});
  const Scenario back = ApplyVariant(hami, s.variants[1]);
  CHECK(back.workloads[0].gpu_mem == 8);
  CHECK(back.workloads[0].gpu_core == 0);  // a cgpu pool offers no gpu-core.percentage
  CHECK(!back.workloads[0].hami.enabled());
  CHECK(back.workloads[1].gpu_mem == 6);
  CHECK(back.workloads[1].gpu_count == 2);
  const Scenario whole = ApplyVariant(hami, s.variants[2]);
  CHECK(whole.workloads[1].whole_gpus == 2);
  const Scenario again = ApplyVariant(whole, s.variants[0]);
  CHECK(again.workloads[1].hami.request == HamiRequest{2, 0, 100, 100});
}

TEST_CASE("dra: a pool whose GPUs DRA allocates, and workloads' claims") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, gpus_per_node: 4, dra: true}\n"
      "workloads:\n"
      "  - {name: own, dra: {gpus: 2}}\n"
      "  - {name: tsl, dra: {shared: true}}\n"
      "  - {name: mps, dra: {shared: true, sharing: mps, mps: {active_thread_percentage: 25, "
      "pinned_memory: 4Gi}}}\n");
  const NodePool& p = s.node_pools[0];
  CHECK(p.dra.enabled);
  CHECK(p.schedule == GpuSchedule::kDefault);
  CHECK(!p.cgpu_active);
  CHECK(p.isolation == MemoryIsolation::kSoft);
  CHECK(s.workloads[0].dra == WholeGpuAsk(2, false, DeviceSharingStrategy::kTimeSlicing, 0, 0));
  CHECK(s.workloads[1].dra == WholeGpuAsk(1, true, DeviceSharingStrategy::kTimeSlicing, 0, 0));
  CHECK(s.workloads[2].dra == WholeGpuAsk(1, true, DeviceSharingStrategy::kMps, 25, 4096));
  CHECK(s.workloads[2].asks_gpu());

  struct Bad {
    const char* yaml;
    const char* message;
  };
  const Bad bad[] = {
      {"node_pools:\n  - {name: p, dra: true}\n", "a pool without `gpu` has no cards to publish"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: true, hami: {}}\n",
       "hami and dra are two ways to hand out the cards"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: true, memory_isolation: hard}\n",
       "with dra the memory isolation follows each claim's sharing"},
      {"node_pools:\n  - name: p\n    gpu: L4\n    labels: {ack.node.gpu.placement: spread}\n"
       "    dra: true\n",
       "has no meaning with dra"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: false}\n", "dra: false is the default"},
      {"workloads:\n  - {name: w, whole_gpus: 1, dra: {}}\n", "dra excludes whole_gpus"},
      {"workloads:\n  - {name: w, dra: {sharing: mps}}\n", "sharing governs the pods of one claim"},
      {"workloads:\n  - {name: w, dra: {shared: true, mps: {pinned_memory: 1Gi}}}\n",
       "mps settings need sharing: mps"},
      {"workloads:\n  - {name: w, dra: {gpus: 33}}\n", "is not in 1..32"},
      {"workloads:\n  - {name: w, dra: {count: 2}}\n", "count"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.yaml);
    const std::string error = ErrorOf(std::string("name: x\n") + b.yaml);
    CAPTURE(error);
    CHECK(error.find(b.message) != std::string::npos);
  }
}

TEST_CASE("variant sharing dra: requests become a claim of whole GPUs per pod, and back") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, gpus_per_node: 4}\n"
      "workloads:\n  - {name: a, gpu_mem: 8, gpu_core: 30}\n  - {name: b, gpu_mem: 6, gpu_count: "
      "2}\n  - {name: c, cpu: 1}\n"
      "variants:\n  - {name: dra, sharing: {p: dra}}\n  - {name: back, sharing: {p: exclusive}}\n");
  const Scenario dra = ApplyVariant(s, s.variants[0]);
  CHECK(dra.node_pools[0].dra.enabled);
  CHECK(dra.node_pools[0].schedule == GpuSchedule::kDefault);
  CHECK(dra.workloads[0].dra == WholeGpuAsk(1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0));
  CHECK(dra.workloads[0].gpu_mem == 0);
  CHECK(dra.workloads[1].dra.gpus == 2);
  CHECK(!dra.workloads[2].dra.enabled());  // no GPU: nothing to claim
  const Scenario back = ApplyVariant(dra, s.variants[1]);
  CHECK(!back.node_pools[0].dra.enabled);
  CHECK(back.workloads[1].whole_gpus == 2);
  CHECK(!back.workloads[1].dra.enabled());
}

TEST_CASE("dra: MIG instances of the NVIDIA driver and HAMi's shared GPUs, pools and claims") {
  Scenario s = Read(
      "name: x\nnode_pools:\n"
      "  - {name: m, gpu: H100, gpus_per_node: 2, dra: {mig: 3g.40gb+2g.20gb+1g.10gb*2}}\n"
      "  - {name: h, gpu: L4, gpus_per_node: 4, dra: {driver: hami}}\n"
      "workloads:\n"
      "  - {name: small, dra: {mig_profile: 1g.10gb}}\n"
      "  - {name: share, dra: {memory: 6Gi, cores: 30}}\n"
      "  - {name: whole, dra: {driver: hami, gpus: 2}}\n");
  const NodePool& m = s.node_pools[0];
  CHECK(m.dra.enabled);
  CHECK(m.dra.driver == DraDriver::kNvidia);
  CHECK(m.mig.instances == std::vector<std::string>{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"});
  CHECK(m.card_slots() == 8);  // each instance a card slot
  CHECK(m.isolation == MemoryIsolation::kHard);
  const NodePool& h = s.node_pools[1];
  CHECK(h.dra.driver == DraDriver::kHamiCore);
  CHECK(h.isolation == MemoryIsolation::kHard);
  CHECK(s.workloads[0].dra.mig_profile == "1g.10gb");
  CHECK(s.workloads[0].dra.driver == DraDriver::kNvidia);
  const DraAsk& share = s.workloads[1].dra;
  CHECK(share.driver == DraDriver::kHamiCore);  // memory and cores imply HAMi's driver
  CHECK(share.memory_mib == 6144);
  CHECK(share.cores == 30);
  CHECK(s.workloads[2].dra.driver == DraDriver::kHamiCore);
  CHECK(!s.workloads[2].dra.memory_mib);  // the device's default: all of it
  // The node advertises no device-plugin resource: the slices publish the cards.
  const NodeSpec node = NodeSpecForPool(s, 0, 0);
  CHECK(node.allocatable.count("nvidia.com/gpu") == 0);
  CHECK(node.allocatable.count("nvidia.com/mig-1g.10gb") == 0);
  CHECK(!node.mig.enabled());
  CHECK(node.gpu_cards == 8);
  // GPUs shared by consumable memory: the pool's request policy, the claims' memory.
  const Scenario shared = Read(
      "name: x\nnode_pools:\n  - {name: s, gpu: L4, dra: {shared_memory: {default: 4Gi, min: "
      "1Gi, step: 512Mi}}}\nworkloads:\n  - {name: w, dra: {driver: nvidia, memory: 6Gi}}\n");
  CHECK(shared.node_pools[0].dra.shared_memory == DraPool::SharedMemory{4096, 1024, 512});
  CHECK(shared.workloads[0].dra.driver == DraDriver::kNvidia);
  CHECK(shared.workloads[0].dra.memory_mib == 6144);
  // DynamicMIG: each card whole, then its 18 MIG placements: 19 card slots a card.
  const Scenario dynamic = Read(
      "name: x\nnode_pools:\n  - {name: d, gpu: H100, gpus_per_node: 2, dra: {dynamic_mig: "
      "true}}\n");
  CHECK(dynamic.node_pools[0].dra.dynamic_mig);
  CHECK(dynamic.node_pools[0].card_slots() == 38);
  CHECK(dynamic.catalog.Find("H100 MIG 4g.40gb") != nullptr);

  struct Bad {
    const char* yaml;
    const char* message;
  };
  const Bad bad[] = {
      {"node_pools:\n  - {name: p, gpu: H100, dra: {driver: hami, mig: 1g.10gb}}\n",
       "HAMi's DRA driver publishes whole cards, not MIG instances"},
      {"node_pools:\n  - {name: p, gpu: H100, dra: {mig: 4g.40gb*2}}\n", "4g.40gb"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: {driver: amd}}\n", "DRA driver"},
      {"workloads:\n  - {name: w, dra: {driver: nvidia, cores: 10}}\n",
       "the NVIDIA DRA driver's GPUs have no cores capacity"},
      {"workloads:\n  - {name: w, dra: {driver: nvidia, memory: 1Gi, mig_profile: 1g.10gb}}\n",
       "MIG instances have no consumable capacity"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: {shared_memory: {step: 0}}}\n",
       "min and step are at least 1Mi"},
      {"workloads:\n  - {name: w, dra: {cores: 101}}\n", "0..100"},
      {"workloads:\n  - {name: w, dra: {memory: 4Gi, shared: true}}\n",
       "a claim of HAMi's DRA driver shared by several pods is not modelled"},
      {"workloads:\n  - {name: w, dra: {memory: 4Gi, mig_profile: 1g.10gb}}\n",
       "HAMi's DRA driver publishes whole cards"},
      {"workloads:\n  - {name: w, dra: {mig_profile: 1g10gb}}\n", "not a MIG profile name"},
      {"node_pools:\n  - {name: p, gpu: L4, dra: {dynamic_mig: true}}\n",
       "knobsim has no MIG geometry for L4"},
      {"node_pools:\n  - {name: p, gpu: H100, dra: {driver: hami, dynamic_mig: true}}\n",
       "DynamicMIG is the NVIDIA DRA driver's"},
      {"node_pools:\n  - {name: p, gpu: H100, dra: {mig: 7g.80gb, dynamic_mig: true}}\n",
       "with dynamic_mig the driver creates MIG instances as claims ask"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.yaml);
    const std::string error = ErrorOf(std::string("name: x\n") + b.yaml);
    CAPTURE(error);
    CHECK(error.find(b.message) != std::string::npos);
  }
}

TEST_CASE("variant sharing dra:hami and dra:mig: requests become shares and instances, and back") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: H100, gpus_per_node: 2}\n"
      "workloads:\n  - {name: a, gpu_mem: 8, gpu_core: 30}\n"
      "  - {name: b, gpu_mem: 12, gpu_count: 2}\n  - {name: c, whole_gpus: 1}\n"
      "  - {name: d, cpu: 1}\n"
      "variants:\n  - {name: hami, sharing: {p: \"dra:hami\"}}\n"
      "  - {name: mig, sharing: {p: \"dra:mig:3g.40gb*2\"}}\n"
      "  - {name: dynamic, sharing: {p: \"dra:dynamic-mig\"}}\n"
      "  - {name: back, sharing: {p: cgpu}}\n");
  const Scenario hami = ApplyVariant(s, s.variants[0]);
  CHECK(hami.node_pools[0].dra.driver == DraDriver::kHamiCore);
  const DraAsk& a = hami.workloads[0].dra;
  CHECK(a.driver == DraDriver::kHamiCore);
  CHECK(a.gpus == 1);
  CHECK(a.memory_mib == 8192);
  CHECK(a.cores == 30);
  const DraAsk& b = hami.workloads[1].dra;
  CHECK(b.gpus == 2);
  CHECK(b.memory_mib == 6144);  // per card
  CHECK(b.cores == 0);          // gpu-mem without gpu-core: compute not limited
  const DraAsk& c = hami.workloads[2].dra;
  CHECK(c.gpus == 1);
  CHECK(!c.memory_mib);  // a whole card: all its memory
  CHECK(c.cores == 100);
  CHECK(!hami.workloads[3].dra.enabled());
  const Scenario mig = ApplyVariant(s, s.variants[1]);
  CHECK(mig.node_pools[0].mig.instances == std::vector<std::string>{"3g.40gb", "3g.40gb"});
  CHECK(mig.node_pools[0].dra.enabled);
  CHECK(mig.workloads[0].dra.mig_profile == "3g.40gb");
  CHECK(mig.workloads[2].dra.mig_profile == "3g.40gb");
  CHECK(mig.workloads[0].dra.driver == DraDriver::kNvidia);
  // DynamicMIG offers each card whole and every profile: whole cards are what a request
  // becomes where whole cards are offered, a MIG claim keeps its profile.
  const Scenario dynamic = ApplyVariant(s, s.variants[2]);
  CHECK(dynamic.node_pools[0].dra.dynamic_mig);
  CHECK(dynamic.node_pools[0].card_slots() == 38);
  CHECK(dynamic.workloads[0].dra.gpus == 1);
  CHECK(dynamic.workloads[0].dra.mig_profile.empty());
  CHECK(ApplyVariant(mig, s.variants[2]).workloads[0].dra.mig_profile == "3g.40gb");
  // From HAMi shares to MIG instances, and from claims back to ACK's gpu-mem.
  const Scenario hami_to_mig = ApplyVariant(hami, s.variants[1]);
  CHECK(hami_to_mig.workloads[0].dra.mig_profile == "3g.40gb");
  CHECK(!hami_to_mig.workloads[0].dra.memory_mib);
  const Scenario back = ApplyVariant(hami, s.variants[3]);  // cgpu
  CHECK(!back.workloads[0].dra.enabled());
  CHECK(back.workloads[0].gpu_mem == 8);
  CHECK(ErrorOf("name: x\nnode_pools:\n  - {name: p, gpu: L4}\nvariants:\n  - {name: v, "
                "sharing: {p: \"dra:mig:1g.10gb\"}}\n")
            .find("MIG") != std::string::npos);
}

TEST_CASE("variant gpu_mem and gpu_core on a HAMi workload: its gpumem and gpucores") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, hami: {}}\n"
      "workloads:\n  - {name: a, hami: {gpumem: 4000, gpucores: 20}, pods: [{name: a-0, node: "
      "p-0}]}\n  - {name: b, cpu: 1}\n"
      "variants:\n  - {name: more, gpu_mem: {\"*\": 6}, gpu_core: {a: 40}}\n");
  const Scenario more = ApplyVariant(s, s.variants[0]);
  CHECK(more.workloads[0].hami.request == HamiRequest{1, 6144, 100, 40});
  CHECK(more.workloads[0].pods.empty());  // rolled out again
  CHECK(more.workloads[1].gpu_mem == 0);  // "*" passes a workload without a GPU by
}

TEST_CASE(
    "renamed replicas: a pool advertising nvidia.com/gpu.shared, workloads asking it, and a "
    "sharing change that translates the request") {
  Scenario s = Read(
      "name: x\nnode_pools:\n  - {name: p, gpu: L4, gpus_per_node: 2, device_sharing: {strategy: "
      "time-slicing, replicas: 4, rename_by_default: true}}\n"
      "workloads:\n  - {name: a, gpu_resource: nvidia.com/gpu.shared}\n"
      "  - {name: b, whole_gpus: 1}\n"
      "variants:\n  - {name: plain, sharing: {p: timeslicing:4}}\n");
  CHECK(s.node_pools[0].device_sharing.renamed);
  CHECK(s.workloads[0].shared_replicas);
  CHECK(s.workloads[0].whole_gpus == 1);
  const NodeSpec node = NodeSpecForPool(s, 0, 0);
  CHECK(node.allocatable.at("nvidia.com/gpu.shared") == 8);
  CHECK(node.allocatable.count("nvidia.com/gpu") == 0);
  CHECK(PodSpecForWorkload(s.workloads[0], 0).requests.at("nvidia.com/gpu.shared") == 1);
  // Without the rename, the replicas are nvidia.com/gpu again: so is what the pods ask.
  const Scenario plain = ApplyVariant(s, s.variants[0]);
  CHECK_FALSE(plain.workloads[0].shared_replicas);
  CHECK(plain.workloads[0].whole_gpus == 1);
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: w, gpu_mem: 4, gpu_resource: "
                "nvidia.com/gpu.shared}\n")
            .find("gpu_resource excludes gpu_mem") != std::string::npos);
  CHECK(ErrorOf("name: x\nworkloads:\n  - {name: w, gpu_resource: nvidia.com/gpu.x}\n")
            .find("is not a valid GPU device resource") != std::string::npos);
}

}  // namespace knobsim
