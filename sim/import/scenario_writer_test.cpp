#include "sim/import/scenario_writer.h"

#include <doctest/doctest.h>

#include "sim/dra_ask_test_support.h"
#include "sim/io/scenario_reader.h"
#include "sim/scenario_objects.h"

namespace knobsim {
namespace {

TEST_CASE("scalars are plain only where YAML reads them back as the same string") {
  const std::pair<const char*, const char*> cases[] = {
      {"cgpu", "cgpu"},
      {"cn-hangzhou.10.0.1.14", "cn-hangzhou.10.0.1.14"},
      {"aliyun.com/gpu-count", "aliyun.com/gpu-count"},
      {"true", "\"true\""},
      {"No", "\"No\""},
      {"2", "\"2\""},
      {"46068MiB", "\"46068MiB\""},
      {"", "\"\""},
      {"a: b", "\"a: b\""},
      {"say \"hi\"", "\"say \\\"hi\\\"\""},
  };
  for (const auto& [in, out] : cases) {
    CAPTURE(in);
    CHECK(YamlScalar(in) == out);
  }
}

TEST_CASE("durations are written in the reader's grammar") {
  const std::pair<double, const char*> cases[] = {
      {0, "0"},    {3600, "1h"},       {604800, "168h"},    {5400, "90m"},
      {90, "90s"}, {0.0586, "58.6ms"}, {1.2512, "1.2512s"}, {0.0000125, "12.5us"},
  };
  for (const auto& [s, text] : cases) {
    CAPTURE(s);
    CHECK(ScenarioDuration(s) == text);
  }
}

ImportModel Small() {
  ImportModel m;
  m.name = "small";
  ImportedPool p;
  p.pool.name = "gpu-l20";
  p.pool.count = 2;
  p.pool.gpu_type = "L20";
  p.pool.gpus_per_node = 2;
  p.pool.cpu_milli = 31600;
  p.pool.memory_mib = 65536;
  p.pool.pods = 64;
  p.pool.labels = {{"ack.node.gpu.schedule", "cgpu"}, {"aliyun.accelerator/nvidia_count", "2"}};
  p.pool.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  p.nodes = {{"node-0", "zone-a", {}}, {"node-1", "zone-b", {{"x/zone", "zone-b"}}}};
  m.pools.push_back(p);
  ImportedWorkload w;
  w.kind = "Deployment";
  w.owner = "ocr";
  w.spec.name = "ocr";
  w.spec.namespace_ = "ai";
  w.spec.replicas = 2;
  w.spec.gpu_mem = 4;
  w.spec.cpu_milli = 2000;
  w.spec.memory_mib = 4096;
  w.spec.probe = ReadinessKind::kTcp;
  w.spec.host_ports = {{"0.0.0.0", "TCP", 9100}, {"10.0.0.1", "UDP", 53}};
  w.spec.memory = {2000, 300, std::nullopt};
  w.has_memory = true;
  w.spec.traffic.kind = ArrivalKind::kPiecewise;
  w.spec.traffic.pieces = {{0, 2.5}, {3600 * kNanosPerSecond, 0.000123}};
  w.has_traffic = true;
  w.spec.work.mean_s = 0.0586;
  w.has_work = true;
  w.notes["work"] = "fitted";
  w.pods = {{"ocr-a", "node-0", {1}, true}, {"ocr-b", "node-1", {}, false}};
  m.workloads.push_back(w);
  PodDisruptionBudgetSpec pdb;
  pdb.namespace_ = "infra";
  pdb.name = "etcd";
  pdb.min_available = IntOrPercent{51, true};
  pdb.selector = LabelSelector{{{"app", "etcd"}}, {{"tier", "NotIn", {"test"}}}};
  pdb.status = PodDisruptionBudgetSpec::Status{2, 2, 0, 3, {}};
  m.kube.pdbs.push_back(pdb);
  PodDisruptionBudgetSpec none;
  none.namespace_ = "ai";
  none.name = "ocr";
  none.max_unavailable = IntOrPercent{1, false};
  m.kube.pdbs.push_back(none);  // no selector: matches no pod
  StatefulSetSpec sts;
  sts.namespace_ = "infra";
  sts.name = "etcd";
  sts.replicas = 3;
  sts.selector.match_labels = {{"app", "etcd"}};
  sts.template_labels = {{"app", "etcd"}};
  sts.volume_claim_templates = {"data"};
  sts.status_replicas = 3;
  sts.ready_replicas = 2;
  m.kube.stateful_sets.push_back(sts);
  PersistentVolumeClaimSpec claim;
  claim.namespace_ = "infra";
  claim.name = "data-etcd-0";
  claim.storage_class_name = "alicloud-disk-essd";
  claim.requested_bytes = int64_t{20} << 30;
  claim.volume_name = "d-0001";
  claim.phase = "Bound";
  m.kube.pvcs.push_back(claim);
  PersistentVolumeClaimSpec defaulted;
  defaulted.namespace_ = "ai";
  defaulted.name = "cache";
  defaulted.requested_bytes = 1536LL << 20;
  m.kube.pvcs.push_back(defaulted);
  PersistentVolumeSpec pv;
  pv.name = "d-0001";
  pv.storage_class_name = "alicloud-disk-essd";
  pv.reclaim_policy = "Delete";
  pv.claim_namespace = "infra";
  pv.claim_name = "data-etcd-0";
  pv.capacity_bytes = int64_t{20} << 30;
  pv.phase = "Bound";
  m.kube.pvs.push_back(pv);
  StorageClassSpec sc;
  sc.name = "alicloud-disk-essd";
  sc.provisioner = "diskplugin.csi.alibabacloud.com";
  sc.volume_binding_mode = "WaitForFirstConsumer";
  sc.is_default = true;
  m.kube.storage_classes.push_back(sc);
  ResourceQuotaSpec quota;
  quota.namespace_ = "ai";
  quota.name = "gpu";
  quota.hard = {{"requests.cpu", 3920},
                {"limits.memory", int64_t{128} << 30},
                {"requests.aliyun.com/gpu-mem", 64},
                {"pods", 50}};
  quota.used = {{"requests.cpu", 12000}, {"requests.aliyun.com/gpu-mem", 40}};
  m.kube.resource_quotas.push_back(quota);
  m.duration_s = 2 * 3600;
  return m;
}

TEST_CASE("the written scenario reads back with the same numbers") {
  const std::string text = WriteScenarioYaml(Small());
  CHECK(text.find("work: {dist: exponential, mean: 58.6ms}  # fitted") != std::string::npos);
  CHECK(text.find("- {name: ocr-a, node: node-0, cards: [1]}") != std::string::npos);
  CHECK(text.find("- {name: ocr-b, node: node-1, ready: false}") != std::string::npos);
  CHECK(text.find("- {at: 1h, rate: 0.000123/s}") != std::string::npos);
  CHECK(text.find("\nkube:\n  pdbs:\n") != std::string::npos);
  CHECK(text.find("host_ports:\n      - {port: 9100}\n      - {port: 53, protocol: UDP, host_ip: "
                  "\"10.0.0.1\"}\n") != std::string::npos);
  CHECK(text.find(
            "hard: {limits.memory: \"128Gi\", pods: \"50\", requests.aliyun.com/gpu-mem: \"64\", "
            "requests.cpu: \"3920m\"}") != std::string::npos);
  Expected<Scenario> s = ReadScenarioString(text, "small.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  REQUIRE(s->node_pools.size() == 1);
  CHECK(s->node_pools[0].count == 2);
  CHECK(s->node_pools[0].cpu_milli == 31600);
  CHECK(s->node_pools[0].memory_mib == 65536);
  CHECK(s->node_pools[0].isolation == MemoryIsolation::kHard);
  REQUIRE(s->workloads.size() == 1);
  const Workload& w = s->workloads[0];
  CHECK(w.namespace_ == "ai");
  CHECK(w.gpu_mem == 4);
  CHECK(w.probe == ReadinessKind::kTcp);
  CHECK(w.host_ports == std::vector<HostPort>{{"0.0.0.0", "TCP", 9100}, {"10.0.0.1", "UDP", 53}});
  REQUIRE(w.pods.size() == 2);
  CHECK(w.pods[0].ready);
  CHECK_FALSE(w.pods[1].ready);
  CHECK(w.memory.weights_mib == 2000);
  CHECK(w.memory.activation_mib == 300);
  REQUIRE(w.traffic.pieces.size() == 2);
  CHECK(w.traffic.pieces[1].rate == doctest::Approx(0.000123));
  CHECK(w.work.mean_s == doctest::Approx(0.0586));
  CHECK(s->run.duration == 2 * 3600 * kNanosPerSecond);
}

TEST_CASE("DynamicMIG and shared-memory dra pools read back as written") {
  for (const bool dynamic : {true, false}) {
    ImportModel m = Small();
    NodePool& pool = m.pools[0].pool;
    pool.gpu_type = "H100";
    pool.labels.clear();
    pool.dra.enabled = true;
    pool.dra.dynamic_mig = dynamic;
    if (!dynamic) pool.dra.shared_memory = DraPool::SharedMemory{10240, 1024, 1024};
    UseDevicePluginCards(pool);
    m.workloads[0].spec.gpu_mem = 0;
    m.workloads[0].spec.dra.gpus = 1;
    if (!dynamic) m.workloads[0].spec.dra.memory_mib = 30720;
    const std::string text = WriteScenarioYaml(m);
    CAPTURE(text);
    CHECK(text.find(dynamic ? "dra: {dynamic_mig: true}"
                            : "dra: {shared_memory: {default: 10Gi, min: 1Gi, step: 1Gi}}") !=
          std::string::npos);
    Expected<Scenario> s = ReadScenarioString(text, "dra.yaml");
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
    CHECK(s->node_pools[0].dra == pool.dra);
    CHECK(s->workloads[0].dra == m.workloads[0].spec.dra);
  }
}

TEST_CASE("MIG and HAMi dra pools and their claims read back as written") {
  for (const DraDriver driver : {DraDriver::kNvidia, DraDriver::kHamiCore}) {
    ImportModel m = Small();
    NodePool& pool = m.pools[0].pool;
    pool.gpu_type = "H100";
    pool.labels.clear();
    pool.dra.enabled = true;
    pool.dra.driver = driver;
    DraAsk ask;
    ask.gpus = 1;
    ask.driver = driver;
    if (driver == DraDriver::kNvidia) {
      pool.mig = {MigStrategy::kMixed, {"1g.10gb", "1g.10gb", "3g.40gb"}};
      ask.mig_profile = "1g.10gb";
    } else {
      ask.memory_mib = 6000;
      ask.cores = 0;
    }
    UseDevicePluginCards(pool);
    m.workloads[0].spec.gpu_mem = 0;
    m.workloads[0].spec.dra = ask;
    const std::string text = WriteScenarioYaml(m);
    CAPTURE(text);
    CHECK(text.find(driver == DraDriver::kNvidia ? "dra: {mig: \"1g.10gb*2+3g.40gb\"}"
                                                 : "dra: {driver: hami}") != std::string::npos);
    CHECK(text.find(driver == DraDriver::kNvidia
                        ? "dra: {gpus: 1, mig_profile: \"1g.10gb\"}"
                        : "dra: {gpus: 1, driver: hami, memory: 6000Mi, cores: 0}") !=
          std::string::npos);
    Expected<Scenario> s = ReadScenarioString(text, "dra.yaml");
    REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
    CHECK(s->node_pools[0].dra == pool.dra);
    CHECK(s->node_pools[0].mig.instances == pool.mig.instances);
    CHECK(s->workloads[0].dra == ask);
  }
}

TEST_CASE("a dra pool and the claims of its workloads read back as written") {
  ImportModel m = Small();
  m.pools[0].pool.dra.enabled = true;
  m.pools[0].pool.labels.clear();
  UseDevicePluginCards(m.pools[0].pool);
  const DraAsk shared = WholeGpuAsk(2, true, DeviceSharingStrategy::kMps, 40, 6144);
  m.workloads[0].spec.gpu_mem = 0;
  m.workloads[0].spec.dra = shared;
  ImportedWorkload own = m.workloads[0];
  own.spec.name = "own";
  own.spec.dra = WholeGpuAsk(1, false, DeviceSharingStrategy::kTimeSlicing, 0, 0);
  own.pods.clear();
  m.workloads.push_back(own);
  const std::string text = WriteScenarioYaml(m);
  CAPTURE(text);
  CHECK(text.find("    dra: true\n") != std::string::npos);
  CHECK(text.find("dra: {gpus: 2, shared: true, sharing: mps, mps: {active_thread_percentage: 40, "
                  "pinned_memory: 6Gi}}") != std::string::npos);
  Expected<Scenario> s = ReadScenarioString(text, "dra.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  CHECK(s->node_pools[0].dra.enabled);
  CHECK(s->workloads[0].dra == shared);
  CHECK(s->workloads[1].dra == own.spec.dra);
}

TEST_CASE("the kube: section reads back as the objects the import kept") {
  const ImportModel m = Small();
  Expected<Scenario> s = ReadScenarioString(WriteScenarioYaml(m), "small.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  const ScenarioKube& k = s->kube;
  REQUIRE(k.pdbs.size() == 2);
  CHECK(k.pdbs[0].min_available == m.kube.pdbs[0].min_available);
  CHECK_FALSE(k.pdbs[0].max_unavailable);
  REQUIRE(k.pdbs[0].selector);
  CHECK(k.pdbs[0].selector->match_labels == m.kube.pdbs[0].selector->match_labels);
  REQUIRE(k.pdbs[0].selector->match_expressions.size() == 1);
  CHECK(k.pdbs[0].selector->match_expressions[0].op == "NotIn");
  REQUIRE(k.pdbs[0].status);
  CHECK(k.pdbs[0].status->disruptions_allowed == 0);
  CHECK(k.pdbs[0].status->expected_pods == 3);
  CHECK_FALSE(k.pdbs[1].selector);
  CHECK(k.pdbs[1].max_unavailable == IntOrPercent{1, false});
  REQUIRE(k.stateful_sets.size() == 1);
  CHECK(k.stateful_sets[0].replicas == 3);
  CHECK(k.stateful_sets[0].ready_replicas == 2);
  CHECK(k.stateful_sets[0].volume_claim_templates == std::vector<std::string>{"data"});
  REQUIRE(k.pvcs.size() == 2);
  CHECK(k.pvcs[0].storage_class_name == std::optional<std::string>("alicloud-disk-essd"));
  CHECK(k.pvcs[0].requested_bytes == int64_t{20} << 30);
  CHECK(k.pvcs[0].volume_name == "d-0001");
  CHECK(k.pvcs[0].phase == "Bound");
  CHECK_FALSE(k.pvcs[1].storage_class_name);
  CHECK(k.pvcs[1].requested_bytes == 1536LL << 20);
  REQUIRE(k.pvs.size() == 1);
  CHECK(k.pvs[0].reclaim_policy == "Delete");
  CHECK(k.pvs[0].claim_namespace == "infra");
  CHECK(k.pvs[0].claim_name == "data-etcd-0");
  CHECK(k.pvs[0].capacity_bytes == int64_t{20} << 30);
  REQUIRE(k.storage_classes.size() == 1);
  CHECK(k.storage_classes[0].is_default);
  CHECK(k.storage_classes[0].volume_binding_mode == "WaitForFirstConsumer");
  REQUIRE(k.resource_quotas.size() == 1);
  CHECK(k.resource_quotas[0].hard == m.kube.resource_quotas[0].hard);
  CHECK(k.resource_quotas[0].used == m.kube.resource_quotas[0].used);
}

TEST_CASE("names from the export in comments cannot end the comment: the output reads back") {
  // An owner (named only in a comment) and notes that hold line breaks (YAML's and Unicode's)
  // and a control character: each comment stays one line, and the scenario reads back as if
  // they were not there.
  ImportModel m = Small();
  m.workloads[0].owner = "ocr\nnode_pools: []\r\x01\xE2\x80\xA8x\n- {name: evil}";
  m.workloads[0].notes["work"] = "fitted\nrun: {duration: 1s}";
  m.pools[0].notes = {"pool note\u0085end"};
  const std::string text = WriteScenarioYaml(m);
  CHECK(text.find("# Deployment ai/ocr\\nnode_pools: []\\r\\x01\\u2028x\\n- {name: evil}\n") !=
        std::string::npos);
  CHECK(text.find("# fitted\\nrun: {duration: 1s}") != std::string::npos);
  CHECK(text.find("# pool note\\u0085end") != std::string::npos);
  Expected<Scenario> s = ReadScenarioString(text, "hostile.yaml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().ToString()));
  REQUIRE(s->node_pools.size() == 1);
  REQUIRE(s->workloads.size() == 1);
  CHECK(s->workloads[0].name == "ocr");
  CHECK(s->run.duration == 2 * 3600 * kNanosPerSecond);
}

TEST_CASE("the same model gives the same bytes") {
  CHECK(WriteScenarioYaml(Small()) == WriteScenarioYaml(Small()));
}

}  // namespace
}  // namespace knobsim
