// ScenarioFromImport against the round trip it replaces: the model written by WriteScenarioYaml
// and read by the scenario reader must give the same Scenario, on the bundled exports (with
// and without metrics) and on models made to hit the writer's conditions and rounding.
#include "sim/import/imported_scenario.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/import/scenario_writer.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"
#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

std::string Root() {
  const std::string here = __FILE__;  // <root>/sim/import/imported_scenario_test.cpp
  const size_t at = here.rfind("sim/import/");
  return at == std::string::npos ? std::string() : here.substr(0, at);
}

// Field by field, so a difference names the field.
void CheckSelector(const LabelSelector& a, const LabelSelector& b) {
  CHECK(a.match_labels == b.match_labels);
  REQUIRE(a.match_expressions.size() == b.match_expressions.size());
  for (size_t i = 0; i < a.match_expressions.size(); ++i) {
    CHECK(a.match_expressions[i].key == b.match_expressions[i].key);
    CHECK(a.match_expressions[i].op == b.match_expressions[i].op);
    CHECK(a.match_expressions[i].values == b.match_expressions[i].values);
  }
}

void CheckTerm(const std::vector<NodeSelectorRequirement>& a,
               const std::vector<NodeSelectorRequirement>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].key == b[i].key);
    CHECK(a[i].op == b[i].op);
    CHECK(a[i].values == b[i].values);
  }
}

void CheckPool(const NodePool& a, const NodePool& b) {
  CAPTURE(a.name);
  CHECK(a.name == b.name);
  CHECK(a.count == b.count);
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].zone == b.nodes[i].zone);
    CHECK(a.nodes[i].labels == b.nodes[i].labels);
  }
  CHECK(a.gpu_type == b.gpu_type);
  CHECK(a.gpus_per_node == b.gpus_per_node);
  CHECK(a.cpu_milli == b.cpu_milli);
  CHECK(a.memory_mib == b.memory_mib);
  CHECK(a.pods == b.pods);
  CHECK(a.zones == b.zones);
  CHECK(a.labels == b.labels);
  REQUIRE(a.taints.size() == b.taints.size());
  for (size_t i = 0; i < a.taints.size(); ++i) {
    CHECK(a.taints[i].key == b.taints[i].key);
    CHECK(a.taints[i].value == b.taints[i].value);
    CHECK(a.taints[i].effect == b.taints[i].effect);
  }
  CHECK(a.instance_type == b.instance_type);
  CHECK(a.schedule == b.schedule);
  CHECK(a.placement == b.placement);
  CHECK(a.isolation == b.isolation);
  CHECK(a.cgpu_active == b.cgpu_active);
  CHECK(a.cgpu_version == b.cgpu_version);
  CHECK(a.max_pods_per_card == b.max_pods_per_card);
  CHECK(a.device_sharing == b.device_sharing);
  CHECK(a.mig == b.mig);
  CHECK(a.spot.per_node_hour == b.spot.per_node_hour);
  CHECK(a.spot.replace_after == b.spot.replace_after);
}

void CheckTraffic(const Traffic& a, const Traffic& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.rate == b.rate);  // exactly: the same text read by the same parser
  REQUIRE(a.pieces.size() == b.pieces.size());
  for (size_t i = 0; i < a.pieces.size(); ++i) {
    CHECK(a.pieces[i].at == b.pieces[i].at);
    CHECK(a.pieces[i].rate == b.pieces[i].rate);
  }
  CHECK(a.diurnal_mean == b.diurnal_mean);
  CHECK(a.diurnal_amplitude == b.diurnal_amplitude);
  CHECK(a.diurnal_period == b.diurnal_period);
  CHECK(a.diurnal_peak_at == b.diurnal_peak_at);
  CHECK(a.scale == b.scale);
  CHECK(a.counts.step == b.counts.step);
  CHECK(a.counts.spread == b.counts.spread);
  CHECK(a.counts.values == b.counts.values);
  CHECK(a.counts.source == b.counts.source);
  REQUIRE(a.counts.per_pod.size() == b.counts.per_pod.size());
  for (size_t i = 0; i < a.counts.per_pod.size(); ++i) {
    CHECK(a.counts.per_pod[i].pod == b.counts.per_pod[i].pod);
    CHECK(a.counts.per_pod[i].replica == b.counts.per_pod[i].replica);
    CHECK(a.counts.per_pod[i].values == b.counts.per_pod[i].values);
  }
}

void CheckWorkload(const Workload& a, const Workload& b) {
  CAPTURE(a.name);
  CHECK(a.name == b.name);
  CHECK(a.namespace_ == b.namespace_);
  CHECK(a.replicas == b.replicas);
  CHECK(a.whole_gpus == b.whole_gpus);
  CHECK(a.mig_profile == b.mig_profile);
  CHECK(a.labels == b.labels);
  CHECK(a.node_selector == b.node_selector);
  REQUIRE(a.node_affinity.required_terms.size() == b.node_affinity.required_terms.size());
  for (size_t i = 0; i < a.node_affinity.required_terms.size(); ++i)
    CheckTerm(a.node_affinity.required_terms[i], b.node_affinity.required_terms[i]);
  REQUIRE(a.node_affinity.preferred.size() == b.node_affinity.preferred.size());
  for (size_t i = 0; i < a.node_affinity.preferred.size(); ++i) {
    CHECK(a.node_affinity.preferred[i].weight == b.node_affinity.preferred[i].weight);
    CheckTerm(a.node_affinity.preferred[i].expressions, b.node_affinity.preferred[i].expressions);
  }
  REQUIRE(a.tolerations.size() == b.tolerations.size());
  for (size_t i = 0; i < a.tolerations.size(); ++i) {
    CHECK(a.tolerations[i].key == b.tolerations[i].key);
    CHECK(a.tolerations[i].op == b.tolerations[i].op);
    CHECK(a.tolerations[i].value == b.tolerations[i].value);
    CHECK(a.tolerations[i].effect == b.tolerations[i].effect);
    CHECK(a.tolerations[i].toleration_seconds == b.tolerations[i].toleration_seconds);
  }
  REQUIRE(a.topology_spread.size() == b.topology_spread.size());
  for (size_t i = 0; i < a.topology_spread.size(); ++i) {
    const TopologySpreadConstraint &x = a.topology_spread[i], &y = b.topology_spread[i];
    CHECK(x.max_skew == y.max_skew);
    CHECK(x.topology_key == y.topology_key);
    CHECK(x.when_unsatisfiable == y.when_unsatisfiable);
    CheckSelector(x.label_selector, y.label_selector);
    CHECK(x.match_label_keys == y.match_label_keys);
    CHECK(x.min_domains == y.min_domains);
    CHECK(x.node_affinity_policy == y.node_affinity_policy);
    CHECK(x.node_taints_policy == y.node_taints_policy);
  }
  for (const auto& [x, y] : {std::pair{&a.pod_affinity, &b.pod_affinity},
                            std::pair{&a.pod_anti_affinity, &b.pod_anti_affinity}}) {
    auto same = [](const PodAffinityTerm& t, const PodAffinityTerm& u) {
      CHECK(t.topology_key == u.topology_key);
      CheckSelector(t.label_selector, u.label_selector);
      CHECK(t.namespaces == u.namespaces);
      CHECK(t.namespace_selector.has_value() == u.namespace_selector.has_value());
      if (t.namespace_selector && u.namespace_selector)
        CheckSelector(*t.namespace_selector, *u.namespace_selector);
      CHECK(t.match_label_keys == u.match_label_keys);
      CHECK(t.mismatch_label_keys == u.mismatch_label_keys);
    };
    REQUIRE(x->required.size() == y->required.size());
    for (size_t i = 0; i < x->required.size(); ++i) same(x->required[i], y->required[i]);
    REQUIRE(x->preferred.size() == y->preferred.size());
    for (size_t i = 0; i < x->preferred.size(); ++i) {
      CHECK(x->preferred[i].weight == y->preferred[i].weight);
      same(x->preferred[i].term, y->preferred[i].term);
    }
  }
  CHECK(a.priority == b.priority);
  CHECK(a.cpu_milli == b.cpu_milli);
  CHECK(a.memory_mib == b.memory_mib);
  CHECK(a.gpu_mem == b.gpu_mem);
  CHECK(a.gpu_core == b.gpu_core);
  CHECK(a.gpu_count == b.gpu_count);
  CHECK(a.whole_gpus == b.whole_gpus);
  CHECK(a.schd_weight == b.schd_weight);
  CHECK(a.memory.weights_mib == b.memory.weights_mib);
  CHECK(a.memory.activation_mib == b.memory.activation_mib);
  CHECK(a.memory.context_mib == b.memory.context_mib);
  CHECK(a.image_pull == b.image_pull);
  CHECK(a.model_load == b.model_load);
  CHECK(a.probe == b.probe);
  CHECK(a.on_load_oom == b.on_load_oom);
  CheckTraffic(a.traffic, b.traffic);
  CHECK(a.work.dist == b.work.dist);
  CHECK(a.work.mean_s == b.work.mean_s);
  CHECK(a.work.cv == b.work.cv);
  CHECK(a.concurrency == b.concurrency);
  CHECK(a.batching.max_batch == b.batching.max_batch);
  CHECK(a.batching.max_wait == b.batching.max_wait);
  CHECK(a.batching.beta == b.batching.beta);
  CHECK(a.cpu_before == b.cpu_before);
  CHECK(a.cpu_after == b.cpu_after);
  CHECK(a.timeout == b.timeout);
  CHECK(a.on_timeout == b.on_timeout);
  CHECK(a.routing == b.routing);
  CHECK(a.slo.percentile == b.slo.percentile);
  CHECK(a.slo.latency == b.slo.latency);
  CHECK(a.slo.error_budget == b.slo.error_budget);
  REQUIRE(a.pods.size() == b.pods.size());
  for (size_t i = 0; i < a.pods.size(); ++i) {
    CHECK(a.pods[i].name == b.pods[i].name);
    CHECK(a.pods[i].node == b.pods[i].node);
    CHECK(a.pods[i].cards == b.pods[i].cards);
    CHECK(a.pods[i].ready == b.pods[i].ready);
    CHECK(a.pods[i].ready_after == b.pods[i].ready_after);
  }
  CHECK(a.kind == b.kind);
  CHECK(a.images == b.images);
  CHECK(a.image_size_mib == b.image_size_mib);
  CHECK(a.annotations == b.annotations);
  CHECK(a.volumes == b.volumes);
}

// The conversion and the round trip agree, or both refuse.
void CheckAgree(const ImportModel& model) {
  const Expected<Scenario> direct = ScenarioFromImport(model, "<imported export>");
  const Expected<Scenario> read = ReadScenarioString(WriteScenarioYaml(model), "<imported export>");
  if (!read.ok()) {
    CAPTURE(read.error().ToString());
    CHECK_FALSE(direct.ok());
    return;
  }
  if (!direct.ok()) FAIL_CHECK(direct.error().ToString());
  REQUIRE(direct.ok());
  const Scenario &a = *direct, &b = *read;
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
  CHECK(a.file == b.file);
  REQUIRE(a.catalog.types().size() == b.catalog.types().size());
  for (size_t i = 0; i < a.catalog.types().size(); ++i) {
    const GpuType &x = a.catalog.types()[i], &y = b.catalog.types()[i];
    CHECK(x.name == y.name);
    CHECK(x.memory_mib == y.memory_mib);
    CHECK(x.speed == y.speed);
    CHECK(x.context_mib == y.context_mib);
    CHECK(x.interconnect == y.interconnect);
    CHECK(x.source == y.source);
  }
  CHECK(a.cluster.policy == b.cluster.policy);
  CHECK(a.cluster.max_inst == b.cluster.max_inst);
  CHECK(a.cluster.switch_overhead == b.cluster.switch_overhead);
  CHECK(a.cluster.default_placement == b.cluster.default_placement);
  REQUIRE(a.node_pools.size() == b.node_pools.size());
  for (size_t i = 0; i < a.node_pools.size(); ++i) CheckPool(a.node_pools[i], b.node_pools[i]);
  REQUIRE(a.workloads.size() == b.workloads.size());
  for (size_t i = 0; i < a.workloads.size(); ++i) CheckWorkload(a.workloads[i], b.workloads[i]);
  CHECK(a.run.duration == b.run.duration);
  CHECK(a.run.warmup == b.run.warmup);
  CHECK(a.run.seed == b.run.seed);
  CHECK(a.run.replications == b.run.replications);
  CHECK(a.variants.size() == b.variants.size());
  CHECK(a.kube == b.kube);  // every listed field (sim/io/kube_scenario_fields.h)
}

// The import command's window: the last sample, back `window_s`, or the first sample.
ImportModel ImportWithMetrics(const std::vector<std::string>& kube,
                              const std::vector<std::string>& prom, const std::string& rate_metric,
                              ImportOptions options) {
  Expected<KubeObjects> objects = ReadKubeFiles(kube);
  REQUIRE(objects.ok());
  if (prom.empty()) return ImportCluster(*objects, nullptr, options);
  std::vector<PromResult> results;
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (const std::string& path : prom) {
    Expected<PromResult> r = ReadPromFile(path);
    REQUIRE(r.ok());
    for (const PromSeries& s : r->series)
      for (double t : s.times) first = std::min(first, t), last = std::max(last, t);
    results.push_back(std::move(*r));
  }
  options.window_end = last;
  options.window_start = std::max(first, last - 24 * 3600.0);
  MetricNames names;
  names.rate_metric = rate_metric;
  const Metrics metrics =
      InterpretPodMemoryMetrics(results, names, options.window_start, options.window_end);
  return ImportCluster(*objects, &metrics, options);
}

TEST_CASE("ScenarioFromImport is the written scenario read back, on the bundled exports") {
  const std::string e20 = Root() + "tools/knobsim/testdata/export20/";
  const std::string ce = Root() + "tools/knobsim/testdata/check-export/";
  const std::string prom = e20 + "prom/";
  SUBCASE("export20 with metrics: fitted work, piecewise traffic, memory") {
    CheckAgree(ImportWithMetrics(
        {e20 + "export.json"},
        {prom + "DCGM_CUSTOM_PROCESS_MEM_USED.json", prom + "DCGM_FI_DEV_FB_USED.json",
         prom + "DCGM_FI_DEV_GPU_UTIL.json", prom + "http_requests_per_second.json"},
        "http_requests_per_second", {}));
  }
  SUBCASE("export20 with --traffic counts: each pod's own counts") {
    ImportOptions options;
    options.traffic_counts = true;
    const ImportModel model = ImportWithMetrics(
        {e20 + "export.json"},
        {prom + "DCGM_CUSTOM_PROCESS_MEM_USED.json", prom + "DCGM_FI_DEV_FB_USED.json",
         prom + "DCGM_FI_DEV_GPU_UTIL.json", prom + "http_requests_per_second.json"},
        "http_requests_per_second", options);
    int per_pod = 0;
    for (const ImportedWorkload& w : model.workloads)
      per_pod += w.has_traffic && !w.spec.traffic.counts.per_pod.empty();
    CHECK(per_pod > 0);
    CheckAgree(model);
  }
  SUBCASE("export20 without metrics, POLICY 1 and an odd switch overhead") {
    ImportOptions options;
    options.policy = 1;
    options.switch_overhead = 0.0123456789;
    CheckAgree(ImportWithMetrics({e20 + "export.yaml"}, {}, "", options));
  }
  SUBCASE("check-export with its memory metrics") {
    CheckAgree(ImportWithMetrics({ce + "export.json"}, {ce + "gpu-memory.json"}, "", {}));
    CheckAgree(
        ImportWithMetrics({ce + "export-clean.json"}, {ce + "gpu-memory-clean.json"}, "", {}));
  }
  SUBCASE("device-plugin replicas and MIG (the gpu-modes exports)") {
    const std::string g = Root() + "tools/knobsim/testdata/gpu-modes/";
    for (const char* file :
         {"gfd-plain.json", "time-slicing.json", "mps.json", "mig-mixed.json", "mig-single.json"}) {
      CAPTURE(file);
      CheckAgree(ImportWithMetrics({g + file}, {}, "", {}));
    }
  }
  SUBCASE("manifests without pods") {
    const std::string m = Root() + "scenarios/gate-example/manifests/";
    CheckAgree(ImportWithMetrics({m + "face-detect.yaml", m + "ocr.yaml"}, {}, "", {}));
  }
}

// A model as ImportCluster might make it, then bent to each of the writer's conditions.
ImportModel SmallModel() {
  ImportModel m;
  m.name = "imported";
  m.duration_s = 5400.25;
  ImportedGpuType t;
  t.type = {"nvidia-h20", 97871, 1.0, 0, "pcie", ""};
  m.gpu_types.push_back(t);
  ImportedPool p;
  p.pool.name = "gpu-nvidia-h20";
  p.pool.gpu_type = "nvidia-h20";
  p.pool.gpus_per_node = 8;
  p.pool.cpu_milli = 31600;
  p.pool.memory_mib = 65535;
  p.pool.pods = 64;
  p.pool.labels = {{"ack.node.gpu.schedule", "cgpu"},
                   {"ack.node.gpu.placement", "spread"},
                   {"ack.node.gpu.max-pod", "4"},
                   {"team", "true"}};
  p.pool.taints = {{"dedicated", "", "NoSchedule"}};
  p.pool.isolation = MemoryIsolation::kSoft;
  p.nodes = {{"n0", "zone-a", {}}, {"n1", "", {{"x/zone", "b"}}}};
  p.pool.count = 2;
  m.pools.push_back(p);
  ImportedPool cpu;
  cpu.pool.name = "cpu";
  cpu.pool.cpu_milli = 4000;
  cpu.pool.labels = {{"ack.node.gpu.schedule", "cgpu"}};  // a CPU node with the label
  cpu.nodes = {{"c0", "", {}}};
  cpu.pool.count = 1;
  m.pools.push_back(cpu);
  ImportedWorkload w;
  w.kind = "StatefulSet";
  w.owner = "ocr";
  w.spec.name = "ocr";
  w.spec.namespace_ = "vision";
  w.spec.replicas = 3;
  w.spec.kind = "StatefulSet";
  w.spec.gpu_mem = 8;
  w.spec.gpu_count = 2;
  w.spec.gpu_core = 30;
  w.spec.memory.weights_mib = 3000;
  w.spec.memory.context_mib = 400;  // not written: the catalog's context
  w.has_memory = true;
  w.spec.traffic.kind = ArrivalKind::kPiecewise;
  w.spec.traffic.pieces = {{0, 12.345678901}, {3600 * kNanosPerSecond, 0.000123456789}};
  w.has_traffic = true;
  w.spec.work.mean_s = 0.0123456789;
  w.has_work = true;
  w.spec.tolerations = {{"", "Exists", "", "", std::nullopt}, {"k", "Equal", "v", "NoExecute", 30}};
  w.spec.concurrency = 7;  // not written
  w.pods = {{"ocr-0", "n0", {0, 3}, false}, {"ocr-1", "n1", {}, true}};
  m.workloads.push_back(w);
  ImportedWorkload cpu_w;
  cpu_w.kind = "DaemonSet";
  cpu_w.spec.name = "agent";
  cpu_w.spec.kind = "DaemonSet";
  cpu_w.spec.gpu_count = 2;  // without gpu_mem: not written
  cpu_w.spec.gpu_core = 50;
  cpu_w.spec.labels.clear();           // written without labels: {app: agent}
  cpu_w.spec.memory.weights_mib = 10;  // has_memory false: not written
  m.workloads.push_back(cpu_w);
  ImportedWorkload flat;
  flat.spec.name = "flat";
  flat.spec.whole_gpus = 1;
  flat.spec.gpu_mem = 4;  // whole_gpus wins in the writer
  flat.spec.traffic.kind = ArrivalKind::kPoisson;
  flat.spec.traffic.rate = 1.0 / 3;
  flat.has_traffic = true;
  m.workloads.push_back(flat);
  PodDisruptionBudgetSpec pdb;
  pdb.name = "ocr";
  pdb.uid = "123";
  pdb.max_unavailable = IntOrPercent{25, true};
  pdb.selector = LabelSelector{{{"app", "ocr"}}, {}};
  m.kube.pdbs.push_back(pdb);
  PersistentVolumeClaimSpec pvc;
  pvc.name = "data";
  pvc.uid = "u";
  pvc.storage_class_name = "";
  pvc.requested_bytes = 3 * (int64_t{1} << 30) + 512;
  m.kube.pvcs.push_back(pvc);
  PersistentVolumeSpec pv;
  pv.name = "pv-1";
  pv.claim_namespace = "default";
  pv.claim_name = "data";
  m.kube.pvs.push_back(pv);
  ResourceQuotaSpec q;
  q.name = "gpu";
  q.hard = {{"requests.cpu", 3920}, {"limits.memory", int64_t{128} << 30}, {"pods", 50}};
  m.kube.resource_quotas.push_back(q);
  return m;
}

TEST_CASE("ScenarioFromImport follows the writer's conditions and rounding") {
  CheckAgree(SmallModel());
  ImportModel counted = SmallModel();
  Traffic& t = counted.workloads[0].spec.traffic;
  t.kind = ArrivalKind::kCounts;
  t.counts.step = 90 * kNanosPerSecond;
  t.counts.per_pod = {{"ocr-1", 0, {3, 0, 7}}, {"ocr-0", 0, std::vector<int64_t>(45, 2)}};
  CheckAgree(counted);
  const Scenario c = *ScenarioFromImport(counted, "x");
  CHECK(c.workloads[0].traffic.counts.per_pod[0].replica == 1);  // its index in `pods:`
  CHECK(c.workloads[0].traffic.counts.per_pod[1].replica == 0);
  const Scenario s = *ScenarioFromImport(SmallModel(), "x");
  CHECK(s.workloads[0].traffic.pieces[0].rate == 12.3457);  // six significant digits
  CHECK(s.workloads[0].work.mean_s == 0.01235);             // "12.35ms"
  CHECK(s.workloads[1].gpu_count == 1);
  CHECK(s.workloads[1].labels == Labels{{"app", "agent"}});
  CHECK(s.node_pools[1].schedule == GpuSchedule::kCgpu);  // from its label, as the reader reads it
  CHECK_FALSE(s.node_pools[1].cgpu_active);
  CHECK(s.run.duration == 5400250 * kNanosPerMilli);
}

TEST_CASE("ScenarioFromImport refuses what the reader refuses, naming the field") {
  struct Case {
    const char* name;
    void (*bend)(ImportModel&);
    const char* path;
  };
  const Case cases[] = {
      {"a rollout's surge", [](ImportModel& m) { m.workloads[0].spec.replicas = 1; },
       "workloads[0].pods"},
      {"traffic without a GPU", [](ImportModel& m) { m.workloads[1].has_traffic = true; },
       "workloads[1].traffic"},
      {"a pod name that is no DNS label",
       [](ImportModel& m) { m.workloads[0].pods[0].name = "ocr.0"; }, "workloads[0].pods[0].name"},
      {"a duplicate workload name", [](ImportModel& m) { m.workloads[2].spec.name = "ocr"; },
       "workloads[2].name"},
      {"gpu_mem that does not split", [](ImportModel& m) { m.workloads[0].spec.gpu_mem = 7; },
       "workloads[0].gpu_mem"},
      {"a card above 63", [](ImportModel& m) { m.workloads[0].pods[0].cards = {64}; },
       "workloads[0].pods[0].cards"},
      {"an unknown placement",
       [](ImportModel& m) { m.pools[0].pool.labels["ack.node.gpu.placement"] = "diagonal"; },
       "node_pools[0].labels.ack.node.gpu.placement"},
      {"a long pool name", [](ImportModel& m) { m.pools[0].pool.name = std::string(64, 'g'); },
       "node_pools[0].name"},
      {"per-pod counts of a pod not in pods:",
       [](ImportModel& m) {
         m.workloads[0].spec.traffic.kind = ArrivalKind::kCounts;
         m.workloads[0].spec.traffic.counts.step = kNanosPerSecond;
         m.workloads[0].spec.traffic.counts.per_pod = {{"ocr-9", 0, {1}}};
       },
       "workloads[0].traffic.counts.per_pod.ocr-9"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    ImportModel m = SmallModel();
    c.bend(m);
    const Expected<Scenario> direct = ScenarioFromImport(m, "<imported export>");
    REQUIRE_FALSE(direct.ok());
    CHECK(direct.error().file == "<imported export>");
    CHECK(direct.error().path == c.path);
    CheckAgree(m);  // the reader refuses it too
  }
}

}  // namespace
}  // namespace knobsim
