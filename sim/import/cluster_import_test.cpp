#include "sim/import/cluster_import.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace knobsim {
namespace {

constexpr double kHour = 3600;

TEST_CASE("--probe-rule reads [NS/]NAME=tcp|model and rejects anything else") {
  struct Case {
    const char* text;
    bool ok;
    const char* ns;
    const char* name;
    ReadinessKind kind;
  };
  const Case cases[] = {
      {"ocr=tcp", true, "*", "ocr", ReadinessKind::kTcp},
      {"ai-infer/ocr=model", true, "ai-infer", "ocr", ReadinessKind::kModel},
      {"*=tcp", true, "*", "*", ReadinessKind::kTcp},
      {"llm/*=model", true, "llm", "*", ReadinessKind::kModel},
      {"ocr", false, "", "", ReadinessKind::kTcp},
      {"ocr=maybe", false, "", "", ReadinessKind::kTcp},
      {"=tcp", false, "", "", ReadinessKind::kTcp},
      {"a/b/c=tcp", false, "", "", ReadinessKind::kTcp},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Expected<ProbeRule> r = ParseProbeRule(c.text);
    REQUIRE(r.ok() == c.ok);
    if (!c.ok) {
      CHECK(r.error().path == "--probe-rule");
      CHECK(r.error().message.find(c.text) != std::string::npos);
      continue;
    }
    CHECK(r->ns == c.ns);
    CHECK(r->name == c.name);
    CHECK(r->probe == c.kind);
  }
}

TEST_CASE("a readiness probe is port-only unless it asks the model") {
  struct Case {
    ProbeKind kind;
    const char* path;
    const char* grpc_service;
    ReadinessKind want;
  };
  const Case cases[] = {
      {ProbeKind::kNone, "", "", ReadinessKind::kTcp},
      {ProbeKind::kTcpSocket, "", "", ReadinessKind::kTcp},
      {ProbeKind::kHttpGet, "/healthz", "", ReadinessKind::kTcp},
      {ProbeKind::kHttpGet, "/", "", ReadinessKind::kTcp},
      {ProbeKind::kHttpGet, "/v1/models", "", ReadinessKind::kModel},
      {ProbeKind::kHttpGet, "/v1/models/", "", ReadinessKind::kModel},
      {ProbeKind::kHttpGet, "/v1/models/resnet", "", ReadinessKind::kModel},
      {ProbeKind::kHttpGet, "/v2/health/ready", "", ReadinessKind::kModel},
      {ProbeKind::kHttpGet, "/v2/models/bert/ready", "", ReadinessKind::kModel},
      {ProbeKind::kHttpGet, "/v2/health/live", "", ReadinessKind::kTcp},
      {ProbeKind::kHttpGet, "/health/ready", "", ReadinessKind::kModel},
      {ProbeKind::kGrpc, "", "", ReadinessKind::kTcp},
      {ProbeKind::kGrpc, "", "inference.GRPCInferenceService", ReadinessKind::kModel},
      {ProbeKind::kExec, "", "", ReadinessKind::kModel},
  };
  for (const Case& c : cases) {
    Probe p;
    p.kind = c.kind;
    p.http_path = c.path;
    p.grpc_service = c.grpc_service;
    std::string why;
    CAPTURE(c.path);
    CAPTURE(static_cast<int>(c.kind));
    CHECK(ClassifyProbe(p, &why) == c.want);
    CHECK(!why.empty());
  }
}

TEST_CASE("the memory rule makes the simulated peak the measured peak") {
  struct Case {
    double peak, rest;
    int64_t context;
    int concurrency;
    int64_t weights, activation;
  };
  const Case cases[] = {
      {2865, 2542, 450, 1, 2092, 323},  // context + weights + activation = 2865
      {2865, 2542.5, 450, 1, 2092, 323},
      {3000, 2000, 450, 4, 1550, 250},  // 450 + 1550 + 4 x 250 = 3000
      {3001, 2000, 450, 4, 1550, 251},  // rounded up: 3004 >= 3001
      {300, 200, 450, 1, 0, 0},         // under the context: nothing beyond it
      {600, 200, 450, 1, 0, 150},
  };
  for (const Case& c : cases) {
    CAPTURE(c.peak);
    const GpuMemoryFit f = FitGpuMemory(c.peak, c.rest, c.context, c.concurrency);
    CHECK(f.weights_mib == c.weights);
    CHECK(f.activation_mib == c.activation);
    if (c.peak >= c.context) {
      const int64_t sim = c.context + f.weights_mib + f.activation_mib * c.concurrency;
      CHECK(sim >= c.peak);
      CHECK(sim < c.peak + c.concurrency);
    }
  }
}

TEST_CASE("traffic becomes hourly means, and a flat series a Poisson rate") {
  std::vector<double> t, flat, daily;
  for (int i = 0; i < 48 * 12; ++i) {  // two days at 5-minute steps
    t.push_back(1000 + i * 300.0);
    flat.push_back(i % 2 ? 4.1 : 3.9);
    daily.push_back(5 + 4 * std::cos(2 * M_PI * i * 300.0 / 86400));
  }
  const TrafficCurve f = DownsampleTraffic(t, flat, 1000, 1000 + 48 * kHour, kHour, 0.05);
  CHECK(f.flat);
  CHECK(f.mean == doctest::Approx(4.0));
  CHECK(f.pieces.size() == 48);
  const TrafficCurve d = DownsampleTraffic(t, daily, 1000, 1000 + 48 * kHour, kHour, 0.05);
  CHECK_FALSE(d.flat);
  REQUIRE(d.pieces.size() == 48);
  CHECK(d.pieces[0].at == 0);
  CHECK(d.pieces[1].at == 3600 * kNanosPerSecond);
  CHECK(d.pieces[0].rate == doctest::Approx(8.96).epsilon(0.01));   // the hour after the peak
  CHECK(d.pieces[12].rate == doctest::Approx(1.04).epsilon(0.02));  // the trough
  CHECK(d.mean == doctest::Approx(5.0).epsilon(0.01));
  // A piece without samples holds 0: the pod was not serving.
  const TrafficCurve gap =
      DownsampleTraffic({1000, 1100}, {2, 4}, 1000, 1000 + 3 * kHour, kHour, 0);
  REQUIRE(gap.pieces.size() == 3);
  CHECK(gap.pieces[0].rate == 3);
  CHECK(gap.pieces[2].rate == 0);
}

TEST_CASE("the work fit uses only cards where busy is linear in the rates") {
  struct Case {
    int policy;
    double overhead;
    bool exclusive;
    int pods;
    bool want;
  };
  const Case cases[] = {
      {1, 0.05, false, 3, true}, {2, 0, false, 3, true},     {4, 0, false, 2, true},
      {5, 0, false, 3, true},    {5, 0.05, false, 3, false}, {5, 0.05, false, 1, true},
      {0, 0, false, 1, false},   {3, 0, false, 1, false},    {3, 0, true, 1, true},
      {0, 0, true, 1, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.policy);
    CAPTURE(c.pods);
    CHECK(FitEligible(c.policy, c.overhead, c.exclusive, c.pods) == c.want);
  }
}

// A small export: three nodes, two alike but for hostname and zone, one tainted.
KubeObjects SmallCluster() {
  KubeObjects o;
  for (int i = 0; i < 3; ++i) {
    NodeSpec n;
    n.name = "node-" + std::to_string(i);
    n.labels = {{"kubernetes.io/hostname", n.name},
                {"topology.kubernetes.io/zone", i % 2 ? "zone-b" : "zone-a"},
                {"aliyun.accelerator/nvidia_name", "NVIDIA-L20"},
                {"ack.node.gpu.schedule", "cgpu"}};
    n.gpu_model = "NVIDIA-L20";
    n.gpu_cards = 2;
    n.card_mem_units = 44;
    n.gpu_schedule = "cgpu";
    n.allocatable = {{"cpu", 31600}, {"memory", int64_t{64} << 30}, {"pods", 64}};
    if (i == 2) n.taints.push_back({"dedicated", "llm", "NoSchedule"});
    o.nodes.push_back(n);
  }
  auto pod = [&](std::string ns, std::string name, std::string node, int card, std::string app) {
    PodSpec p;
    p.namespace_ = std::move(ns);
    p.name = std::move(name);
    p.node_name = std::move(node);
    p.phase = "Running";
    p.labels = {{"app", app}, {"pod-template-hash", "abc12"}};
    p.requests = {{"cpu", 2000}, {"memory", int64_t{4} << 30}};
    p.gpu_mem = 4;
    p.container_gpus = {{4, 0}};
    p.containers.resize(1);
    p.containers[0].readiness.kind = ProbeKind::kTcpSocket;
    p.allocated_mem = {{card, 4}};
    o.pods.push_back(p);
  };
  pod("team-a", "ocr-1", "node-0", 0, "ocr");
  pod("team-a", "ocr-2", "node-1", 1, "ocr");
  pod("team-b", "ocr-1", "node-2", 0, "ocr-b");  // bare pods, both owners named "ocr-1"
  return o;
}

TEST_CASE("nodes that differ only in hostname and zone share a pool and keep both") {
  const ImportModel m = ImportCluster(SmallCluster(), nullptr, {});
  REQUIRE(m.pools.size() == 2);
  const ImportedPool& p = m.pools[0];
  CHECK(p.pool.name == "gpu-l20-1");
  CHECK(m.pools[1].pool.name == "gpu-l20-2");
  CHECK(p.pool.count == 2);
  CHECK(p.pool.gpu_type == "L20");
  CHECK(p.pool.gpus_per_node == 2);
  CHECK(p.pool.cpu_milli == 31600);
  CHECK(p.pool.memory_mib == 65536);
  CHECK(p.pool.isolation == MemoryIsolation::kHard);
  CHECK(p.pool.labels.count("kubernetes.io/hostname") == 0);
  CHECK(p.pool.labels.count("topology.kubernetes.io/zone") == 0);
  REQUIRE(p.nodes.size() == 2);
  CHECK(p.nodes[0].name == "node-0");
  CHECK(p.nodes[0].zone == "zone-a");
  CHECK(p.nodes[1].zone == "zone-b");
  CHECK(m.pools[1].pool.taints.size() == 1);
}

TEST_CASE("share and disabled-isolation pools are soft; unknown GPUs get a catalog entry") {
  KubeObjects o = SmallCluster();
  o.nodes[0].gpu_schedule = "share";
  o.nodes[1].labels["cgpu.disable.isolation"] = "true";
  o.nodes[2].gpu_model = "NVIDIA-H20";
  o.nodes[2].labels["aliyun.accelerator/nvidia_mem"] = "97871MiB";
  const ImportModel m = ImportCluster(o, nullptr, {});
  REQUIRE(m.pools.size() == 3);
  for (const ImportedPool& p : m.pools) CAPTURE(p.pool.name);
  CHECK(m.pools[0].pool.isolation == MemoryIsolation::kSoft);
  CHECK(m.pools[0].pool.labels.at("ack.node.gpu.schedule") == "share");
  CHECK(m.pools[1].pool.isolation == MemoryIsolation::kSoft);
  CHECK_FALSE(m.pools[1].pool.cgpu_active);
  REQUIRE(m.gpu_types.size() == 1);
  CHECK(m.gpu_types[0].type.name == "nvidia-h20");
  CHECK(m.gpu_types[0].type.memory_mib == 97871);
  CHECK(m.gpu_types[0].type.speed == 1.0);
  CHECK(m.pools[2].pool.gpu_type == "nvidia-h20");
}

TEST_CASE("workloads take the owner's name when unique, else <namespace>-<name>") {
  const ImportModel m = ImportCluster(SmallCluster(), nullptr, {});
  std::vector<std::string> names;
  for (const ImportedWorkload& w : m.workloads)
    names.push_back(w.spec.namespace_ + ":" + w.spec.name);
  // Three bare pods: team-a/ocr-1, team-a/ocr-2, team-b/ocr-1.
  CHECK(names ==
        std::vector<std::string>{"team-a:team-a-ocr-1", "team-a:ocr-2", "team-b:team-b-ocr-1"});
  const ImportedWorkload& w = m.workloads[0];
  CHECK(w.spec.labels.count("pod-template-hash") == 0);
  CHECK(w.spec.labels.at("app") == "ocr");
  CHECK(w.spec.cpu_milli == 2000);
  CHECK(w.spec.memory_mib == 4096);
  CHECK(w.spec.gpu_mem == 4);
  CHECK(w.spec.probe == ReadinessKind::kTcp);
  REQUIRE(w.pods.size() == 1);
  CHECK(w.pods[0].node == "node-0");
  CHECK(w.pods[0].cards == std::vector<int>{0});
  CHECK(m.defaults.size() >= 3);
}

TEST_CASE("--probe-rule overrides the probe's reading, the last matching rule winning") {
  ImportOptions opt;
  opt.probe_rules = {{"*", "*", ReadinessKind::kModel}, {"team-b", "ocr-1", ReadinessKind::kTcp}};
  const ImportModel m = ImportCluster(SmallCluster(), nullptr, opt);
  CHECK(m.workloads[0].spec.probe == ReadinessKind::kModel);
  CHECK(m.workloads[2].spec.probe == ReadinessKind::kTcp);
  CHECK(m.workloads[0].notes.at("probe").find("--probe-rule") != std::string::npos);
}

TEST_CASE("metrics become gpu_memory, traffic and a fitted work per request") {
  KubeObjects o = SmallCluster();
  Metrics mx;
  const double start = 0, end = 48 * kHour;
  // ocr-2 alone on node-1 card 1 (L20, speed 0.956), 30 ms of work per request.
  PodRate r;
  r.pod = {"team-a", "ocr-2"};
  CardUtilization cu;
  cu.card = {"node-1", "1", ""};
  cu.metric = "DCGM_FI_DEV_GPU_UTIL";
  for (int i = 0; i < 48 * 60; ++i) {
    const double t = i * 60.0;
    const double rate = 10 + 5 * std::sin(2 * M_PI * t / 86400);
    r.times.push_back(t);
    r.rate.push_back(rate);
    cu.times.push_back(t);
    cu.busy.push_back(rate * 0.030 / 0.956);
  }
  cu.pods = {r.pod};
  mx.rates.push_back(r);
  mx.cards.push_back(cu);
  mx.pod_memory.push_back(
      {{"team-a", "ocr-2"}, 5000, 4000, "DCGM_FI_DEV_FB_USED per pod", cu.card});
  mx.rates.push_back({{"gone", "pod"}, {0}, {1}, ""});  // a pod no longer in the export
  ImportOptions opt;
  opt.window_start = start;
  opt.window_end = end;
  const ImportModel m = ImportCluster(o, &mx, opt);
  const ImportedWorkload& w = m.workloads[1];
  REQUIRE(w.spec.name == "ocr-2");
  REQUIRE(w.has_memory);
  CHECK(w.spec.memory.weights_mib == 4000 - 450);  // L20 context 450 MiB (catalog)
  CHECK(w.spec.memory.activation_mib == 1000);
  REQUIRE(w.has_traffic);
  CHECK(w.spec.traffic.kind == ArrivalKind::kPiecewise);
  CHECK(w.spec.traffic.pieces.size() == 48);
  REQUIRE(w.has_work);
  CHECK(w.spec.work.mean_s == doctest::Approx(0.030).epsilon(1e-6));
  CHECK(w.notes.at("work").find("fitted") != std::string::npos);
  CHECK(m.duration_s == kHour);  // the run: the window's first hour by default (RunLength)
  bool warned = false;
  for (const std::string& s : m.warnings)
    warned = warned || s.find("gone/pod") != std::string::npos;
  CHECK(warned);
  // Workloads without metrics keep their defaults, said so.
  CHECK_FALSE(m.workloads[0].has_memory);
  CHECK(m.workloads[0].notes.at("gpu_memory").find("default") != std::string::npos);
}

TEST_CASE("a whole-GPU pod without allocation annotations finds its card by the DCGM labels") {
  KubeObjects o = SmallCluster();
  o.pods[0].gpu_mem = 0;
  o.pods[0].container_gpus = {{0, 0}};
  o.pods[0].whole_gpus = 1;
  o.pods[0].allocated_mem.clear();
  Metrics mx;
  CardUtilization cu;
  cu.card = {"node-0", "1", ""};
  cu.times = {0, 60};
  cu.busy = {0.1, 0.1};
  cu.pods = {{"team-a", "ocr-1"}};
  mx.cards.push_back(cu);
  ImportOptions opt;
  opt.window_end = 120;
  const ImportModel m = ImportCluster(o, &mx, opt);
  REQUIRE(m.workloads[0].pods.size() == 1);
  CHECK(m.workloads[0].pods[0].cards == std::vector<int>{1});
  CHECK(m.workloads[0].spec.whole_gpus == 1);
}

TEST_CASE("a pod on a node absent from the export is a warning and left to the scheduler") {
  KubeObjects o = SmallCluster();
  o.pods[1].node_name = "node-gone";
  const ImportModel m = ImportCluster(o, nullptr, {});
  CHECK(m.workloads[1].pods.empty());
  CHECK(m.workloads[1].spec.replicas == 1);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].find("node-gone") != std::string::npos);
}

TEST_CASE("--isolation reads POOL=hard|soft and rejects anything else") {
  struct Case {
    const char* text;
    bool ok;
    const char* pool;
    MemoryIsolation isolation;
  };
  const Case cases[] = {
      {"gpu-l20-1=soft", true, "gpu-l20-1", MemoryIsolation::kSoft},
      {"*=hard", true, "*", MemoryIsolation::kHard},
      {"gpu-l20-1", false, "", MemoryIsolation::kHard},
      {"gpu-l20-1=off", false, "", MemoryIsolation::kHard},
      {"=soft", false, "", MemoryIsolation::kHard},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Expected<IsolationRule> r = ParseIsolationRule(c.text);
    REQUIRE(r.ok() == c.ok);
    if (!c.ok) {
      CHECK(r.error().path == "--isolation");
      CHECK(r.error().message.find(c.text) != std::string::npos);
      continue;
    }
    CHECK(r->pool == c.pool);
    CHECK(r->isolation == c.isolation);
  }
}

// SmallCluster's team-a/ocr-1 holds 4 of 44 units on node-0's L20 card 0: a visible quota of
// floor(46068 x 4 / 44) = 4188 MiB.
Metrics PeakOfOcr1(double peak_mib) {
  Metrics mx;
  mx.pod_memory.push_back({{"team-a", "ocr-1"},
                           peak_mib,
                           peak_mib - 500,
                           "DCGM_FI_DEV_FB_USED per pod",
                           {"node-0", "0", ""}});
  return mx;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST_CASE("a pod that ran healthy above its cGPU quota makes its pool soft, named in the comment") {
  const Metrics mx = PeakOfOcr1(5000);
  const ImportModel m = ImportCluster(SmallCluster(), &mx, {});
  REQUIRE(m.pools.size() == 2);
  const ImportedPool& p = m.pools[0];
  CHECK(p.pool.isolation == MemoryIsolation::kSoft);
  CHECK(p.pool.cgpu_active);  // the buggy module still shares compute by the cluster POLICY
  REQUIRE(p.over_quota.size() == 1);
  CHECK(p.over_quota[0].pod == "ocr-1");
  CHECK(p.over_quota[0].node == "node-0");
  CHECK(p.over_quota[0].card == 0);
  CHECK(p.over_quota[0].quota_mib == 4188);
  const std::string notes = Joined(p.isolation_notes);
  CHECK(notes.find("rule 3") != std::string::npos);
  CHECK(notes.find("team-a/ocr-1 on node-0 gpu0: peak 5000 MiB > quota 4188 MiB (119 %)") !=
        std::string::npos);
  // The other pool saw nothing over quota.
  CHECK(m.pools[1].pool.isolation == MemoryIsolation::kHard);
  CHECK(Joined(m.pools[1].isolation_notes).find("rule 4") != std::string::npos);
}

TEST_CASE("a peak within the margin, or from a pod that was not healthy, is no evidence") {
  SUBCASE("within 2 % of the quota") {
    const Metrics mx = PeakOfOcr1(4188 * 1.02 - 1);
    const ImportModel m = ImportCluster(SmallCluster(), &mx, {});
    CHECK(m.pools[0].pool.isolation == MemoryIsolation::kHard);
    CHECK(m.pools[0].over_quota.empty());
  }
  struct Case {
    const char* name;
    void (*spoil)(PodSpec&);
  };
  const Case cases[] = {
      {"not Ready", [](PodSpec& p) { p.ready_status = "False"; }},
      {"OOMKilled before",
       [](PodSpec& p) { p.containers[0].last_terminated_reason = "OOMKilled"; }},
      {"crash-looping", [](PodSpec& p) { p.containers[0].waiting_reason = "CrashLoopBackOff"; }},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    KubeObjects o = SmallCluster();
    c.spoil(o.pods[0]);
    const Metrics mx = PeakOfOcr1(5000);
    const ImportModel m = ImportCluster(o, &mx, {});
    CHECK(m.pools[0].pool.isolation == MemoryIsolation::kHard);
    CHECK(Joined(m.warnings).find("not counted as evidence") != std::string::npos);
  }
}

TEST_CASE("a cGPU release listed as lacking isolation makes its pool soft") {
  KubeObjects o = SmallCluster();
  for (int i : {0, 1}) o.nodes[i].labels["aliyun.accelerator/cgpu-version"] = "1.0.3";
  ImportOptions opt;
  CHECK(ImportCluster(o, nullptr, opt).pools[0].pool.isolation == MemoryIsolation::kHard);
  opt.cgpu_no_isolation_versions = {"1.0.3"};
  const ImportModel m = ImportCluster(o, nullptr, opt);
  CHECK(m.pools[0].pool.isolation == MemoryIsolation::kSoft);
  CHECK(m.pools[0].pool.cgpu_version == "1.0.3");
  CHECK(Joined(m.pools[0].isolation_notes).find("rule 2") != std::string::npos);
  CHECK(m.pools[1].pool.isolation == MemoryIsolation::kHard);
}

TEST_CASE("--isolation overrides the import's reading; unknown pools and impossible hard fail") {
  KubeObjects o = SmallCluster();
  o.nodes[2].gpu_schedule = "share";  // gpu-l20-2: no cGPU module
  const Metrics mx = PeakOfOcr1(5000);
  ImportModel m = ImportCluster(o, &mx, {});
  REQUIRE(m.pools[0].pool.isolation == MemoryIsolation::kSoft);
  CHECK(ApplyIsolationRules(m, {{"gpu-l20-1", MemoryIsolation::kHard}}).ok());
  CHECK(m.pools[0].pool.isolation == MemoryIsolation::kHard);
  CHECK(m.pools[0].isolation_notes.back() ==
        "memory isolation overridden by --isolation gpu-l20-1=hard");
  // `*=hard` passes by the share pool; naming it is an error.
  CHECK(ApplyIsolationRules(m, {{"*", MemoryIsolation::kHard}}).ok());
  CHECK(m.pools[1].pool.isolation == MemoryIsolation::kSoft);
  const auto share = ApplyIsolationRules(m, {{"gpu-l20-2", MemoryIsolation::kHard}});
  REQUIRE_FALSE(share.ok());
  CHECK(share.error().path == "--isolation");
  CHECK(share.error().message.find("without a cGPU module") != std::string::npos);
  const auto unknown = ApplyIsolationRules(m, {{"gpu-l2", MemoryIsolation::kSoft}});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("names no imported pool") != std::string::npos);
  CHECK(unknown.error().hint.find("gpu-l20-1, gpu-l20-2") != std::string::npos);
}

TEST_CASE("a node label pods select by is kept even when it reads like a token") {
  KubeObjects o = SmallCluster();
  const std::string id = "np933b39b9fae9d967ba718d3decf92b60";  // ACK node pool ids look so
  for (NodeSpec& n : o.nodes) {
    n.labels["alibabacloud.com/nodepool-id"] = id;
    n.labels["example.com/opaque"] = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg";
  }
  o.pods[0].node_selector = {{"alibabacloud.com/nodepool-id", id}};
  const ImportModel m = ImportCluster(o, nullptr, {});
  CHECK(m.pools[0].pool.labels.at("alibabacloud.com/nodepool-id") == id);
  CHECK(m.pools[0].pool.labels.count("example.com/opaque") == 0);
  const std::string warnings = Joined(m.warnings);
  CHECK(warnings.find("example.com/opaque") != std::string::npos);
  CHECK(warnings.find("Zm9vYmFy") == std::string::npos);  // the value is never shown
}

}  // namespace
}  // namespace knobsim
