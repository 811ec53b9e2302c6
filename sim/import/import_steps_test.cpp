// Each step of ImportCluster on its own (import_steps.h); cluster_import_test.cpp runs them
// together.
#include "sim/import/import_steps.h"
#include "sim/dns_label.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace knobsim {
namespace {

using namespace import_text;

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

NodeSpec GpuNode(const std::string& name, const std::string& zone) {
  NodeSpec n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name},
              {"topology.kubernetes.io/zone", zone},
              {"ack.node.gpu.schedule", "cgpu"}};
  n.gpu_model = "NVIDIA-L20";
  n.gpu_cards = 2;
  n.card_mem_units = 44;
  n.gpu_schedule = "cgpu";
  n.allocatable = {{"cpu", 31600}, {"memory", int64_t{64} << 30}, {"pods", 64}};
  return n;
}

PodSpec GpuPod(const std::string& name, const std::string& node, int card) {
  PodSpec p;
  p.namespace_ = "team";
  p.name = name;
  p.node_name = node;
  p.phase = "Running";
  p.labels = {{"app", name}};
  p.requests = {{"cpu", 1500}, {"memory", (int64_t{3} << 30) + 1}};
  p.gpu_mem = 4;
  p.container_gpus = {{4, 0}};
  p.containers.resize(1);
  p.containers[0].name = "server";
  if (card >= 0) p.allocated_mem = {{card, 4}};
  return p;
}

TEST_CASE("import text: DNS labels, bins and the median step") {
  struct Label {
    const char* text;
    bool is_label;
    const char* made;
  };
  const Label labels[] = {
      {"ocr", true, "ocr"}, {"OCR_v2", false, "ocr-v2"},        {"-a-", false, "a"},
      {"", false, "x"},     {"team-ocr-1", true, "team-ocr-1"}, {"a.b", false, "a-b"}};
  for (const Label& l : labels) {
    CAPTURE(l.text);
    CHECK(IsDnsLabel(l.text) == l.is_label);
    CHECK(DnsLabel(l.text) == l.made);
  }
  const std::vector<double> bins = Bin({0, 10, 20, 70}, {1, 3, NAN, 5}, 0, 30, 3);
  CHECK(bins[0] == 2);
  CHECK(std::isnan(bins[1]));
  CHECK(bins[2] == 5);
  CHECK(MedianStep({0, 60, 120, 300}) == 60);
  CHECK(MedianStep({5}) == 0);
  CHECK(Mib(4187.6) == "4188 MiB");
  CHECK(Seconds(0.0305) == "30.5 ms");
  CHECK(Seconds(3600) == "3600 s");
}

TEST_CASE("per-node and per-pod labels are the ones that never tell workloads or pools apart") {
  struct Case {
    const char* key;
    bool per_node;
    bool per_pod;
  };
  const Case cases[] = {
      {"kubernetes.io/hostname", true, false},
      {"topology.kubernetes.io/zone", true, false},
      {"failure-domain.beta.kubernetes.io/zone", true, false},
      {"topology.diskplugin.csi.alibabacloud.com/zone", true, false},
      {"zone", true, false},
      {"pod-template-hash", false, true},
      {"controller-revision-hash", false, true},
      {"statefulset.kubernetes.io/pod-name", false, true},
      {"app", false, false},
      {"ack.node.gpu.schedule", false, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.key);
    CHECK(IsPerNodeLabel(c.key) == c.per_node);
    CHECK(IsPerPodLabel(c.key) == c.per_pod);
  }
}

TEST_CASE("the node labels pods select by come from selectors and both kinds of affinity") {
  PodSpec a, b;
  a.node_selector = {{"pool", "gpu"}};
  a.node_affinity.required_terms = {{{"np-id", "In", {"np1", "np2"}}}};
  b.node_affinity.preferred.push_back({10, {{"disk", "In", {"ssd"}}}});
  const auto selected = SelectedNodeLabels({a, b});
  const std::set<std::pair<std::string, std::string>> want = {
      {"pool", "gpu"}, {"np-id", "np1"}, {"np-id", "np2"}, {"disk", "ssd"}};
  CHECK(selected == want);
}

TEST_CASE("pools are named by GPU type, numbered only where several share a name") {
  struct Case {
    std::vector<std::string> gpus;
    std::vector<std::string> names;
  };
  const Case cases[] = {
      {{"L20"}, {"gpu-l20"}},
      {{"L20", "L20", ""}, {"gpu-l20-1", "gpu-l20-2", "cpu"}},
      {{"", "A100-80G", ""}, {"cpu-1", "gpu-a100-80g", "cpu-2"}},
  };
  for (const Case& c : cases) {
    std::vector<ImportedPool> pools(c.gpus.size());
    for (size_t i = 0; i < pools.size(); ++i) {
      pools[i].pool.gpu_type = c.gpus[i];
      pools[i].nodes.resize(i + 1);
    }
    NamePools(pools);
    for (size_t i = 0; i < pools.size(); ++i) {
      CHECK(pools[i].pool.name == c.names[i]);
      CHECK(pools[i].pool.count == static_cast<int>(i + 1));
    }
  }
}

TEST_CASE("PoolsFromNodes: what sets a node's pool, its schedule and rule-1 isolation") {
  struct Case {
    const char* name;
    void (*change)(NodeSpec&);
    size_t pools;
    bool cgpu_active;
    MemoryIsolation isolation;
    const char* note;     // in the second pool's isolation notes ("" none)
    const char* warning;  // in the warnings ("" none)
  };
  const Case cases[] = {
      {"only the zone differs", [](NodeSpec& n) { n.labels["topology.kubernetes.io/zone"] = "z9"; },
       1, true, MemoryIsolation::kHard, "", ""},
      {"share", [](NodeSpec& n) { n.gpu_schedule = "share"; }, 2, false, MemoryIsolation::kSoft,
       "rule 1, no cGPU module (schedule share)", ""},
      {"isolation disabled", [](NodeSpec& n) { n.labels["cgpu.disable.isolation"] = "true"; }, 2,
       false, MemoryIsolation::kSoft, "cgpu.disable.isolation=true", ""},
      // mps, topology and mig never get here: the kube reader refuses them (gpu_sharing_modes.h).
      {"unknown schedule", [](NodeSpec& n) { n.gpu_schedule = "disabled"; }, 2, false,
       MemoryIsolation::kSoft, "schedule default",
       "ack.node.gpu.schedule=disabled is not simulated"},
      {"cordoned", [](NodeSpec& n) { n.unschedulable = true; }, 2, true, MemoryIsolation::kHard, "",
       "is cordoned"},
      {"a credential-like label",
       [](NodeSpec& n) { n.labels["x/token"] = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg"; }, 1, true,
       MemoryIsolation::kHard, "", "node label x/token looks like a credential"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    KubeObjects o;
    o.nodes = {GpuNode("n0", "a"), GpuNode("n1", "b")};
    c.change(o.nodes[1]);
    ImportModel m;
    const NodeIndex index = PoolsFromNodes(o, {}, m);
    REQUIRE(m.pools.size() == c.pools);
    const ImportedPool& p = m.pools.back();
    CHECK(p.pool.cgpu_active == c.cgpu_active);
    CHECK(p.pool.isolation == c.isolation);
    CHECK(index.pool_of_node.at("n1") == static_cast<int>(c.pools - 1));
    CHECK(index.gpu_of_node.at("n1") == "L20");
    CHECK(index.node_by_name.at("n1") == &o.nodes[1]);
    CHECK(p.pool.labels.count("kubernetes.io/hostname") == 0);
    CHECK(p.pool.labels.count("x/token") == 0);
    if (*c.note) CHECK(Joined(p.isolation_notes).find(c.note) != std::string::npos);
    if (*c.warning) CHECK(Joined(m.warnings).find(c.warning) != std::string::npos);
    if (!*c.warning) CHECK(m.warnings.empty());
  }
}

TEST_CASE("PoolsFromNodes: an unknown GPU gets one catalog entry, CPU nodes a cpu pool") {
  KubeObjects o;
  o.nodes = {GpuNode("n0", "a"), GpuNode("n1", "a"), GpuNode("c0", "a")};
  for (int i : {0, 1}) o.nodes[i].gpu_model = "NVIDIA-H20";
  o.nodes[0].labels["aliyun.accelerator/nvidia_mem"] = "97871MiB";
  o.nodes[1].labels["ack.node.gpu.placement"] = "spread";  // another pool, same GPU
  o.nodes[2].gpu_cards = 0;
  ImportModel m;
  PoolsFromNodes(o, {}, m);
  REQUIRE(m.gpu_types.size() == 1);
  CHECK(m.gpu_types[0].type.name == "nvidia-h20");
  CHECK(m.gpu_types[0].type.memory_mib == 97871);
  REQUIRE(m.pools.size() == 3);
  CHECK(m.pools[0].pool.name == "gpu-nvidia-h20-1");
  CHECK(m.pools[2].pool.name == "cpu");
  CHECK(m.pools[2].pool.isolation == MemoryIsolation::kSoft);
  CHECK(m.pools[2].notes.empty());
  CHECK(m.pools[0].pool.memory_mib == 65536);
}

TEST_CASE("PoolsFromNodes: GPU feature discovery's labels where ACK's are absent") {
  KubeObjects o;
  o.nodes = {GpuNode("a100", "a"), GpuNode("a10g", "a"), GpuNode("plain", "a")};
  for (NodeSpec& n : o.nodes) {
    n.labels.erase("ack.node.gpu.schedule");
    n.gpu_schedule = "default";
    n.gpu_cards = 8;
    n.card_mem_units = 0;
  }
  // The kube reader fills gpu_model from nvidia.com/gpu.product when nvidia_name is absent.
  o.nodes[0].gpu_model = o.nodes[0].labels["nvidia.com/gpu.product"] = "NVIDIA-A100-SXM4-80GB";
  o.nodes[0].labels["nvidia.com/gpu.count"] = "8";
  o.nodes[1].gpu_model = o.nodes[1].labels["nvidia.com/gpu.product"] = "NVIDIA-A10G";
  o.nodes[1].labels["nvidia.com/gpu.memory"] = "23028";
  // The driver sees 16, the plugin offers 8 (cards marked unhealthy): capacity wins. More
  // offered than seen is sharing, refused by the kube reader (gpu_sharing_modes.h).
  o.nodes[1].labels["nvidia.com/gpu.count"] = "16";
  o.nodes[2].gpu_model = "NVIDIA-L20";  // aliyun.accelerator/nvidia_name
  o.nodes[2].labels["aliyun.accelerator/nvidia_name"] = "NVIDIA-L20";
  ImportModel m;
  const NodeIndex nodes = PoolsFromNodes(o, {}, m);
  CHECK(nodes.gpu_of_node.at("a100") == "A100-80G");
  CHECK(m.pools[0].notes[0] ==
        "gpu A100-80G from node label nvidia.com/gpu.product \"NVIDIA-A100-SXM4-80GB\"; 8 cards "
        "from capacity");
  CHECK(m.pools[2].notes[0].find("from node label aliyun.accelerator/nvidia_name") !=
        std::string::npos);
  REQUIRE(m.gpu_types.size() == 1);  // the A10G is no A10
  CHECK(m.gpu_types[0].type.name == "nvidia-a10g");
  CHECK(m.gpu_types[0].type.memory_mib == 23028);
  CHECK(m.gpu_types[0].note.find("from node label nvidia.com/gpu.memory") != std::string::npos);
  CHECK(m.pools[1].pool.gpus_per_node == 8);
  CHECK(Joined(m.warnings)
            .find("node a10g: nvidia.com/gpu.count=16 but its capacity offers 8 "
                  "cards; the capacity is imported") != std::string::npos);
  // An unknown product: its real memory, and a loud warning naming the speed assumed.
  CHECK(Joined(m.warnings)
            .find("node a10g: \"NVIDIA-A10G\" (node label nvidia.com/gpu.product) is not in the "
                  "GPU catalog: imported as type nvidia-a10g with 23028 MiB from node label "
                  "nvidia.com/gpu.memory and speed 1.0, the A10's") != std::string::npos);
  CHECK(Joined(m.warnings).find("node a100") == std::string::npos);
}

TEST_CASE("WorkloadProbe: the GPU container's probe, else the first probed one, then the rules") {
  struct Case {
    const char* name;
    int gpu_container;  // -1: none asks for GPU memory
    ProbeKind first, second;
    std::vector<ProbeRule> rules;
    ReadinessKind want;
    const char* why;
  };
  const Case cases[] = {
      {"gpu container's tcp",
       1,
       ProbeKind::kExec,
       ProbeKind::kTcpSocket,
       {},
       ReadinessKind::kTcp,
       "tcpSocket"},
      {"first probed", -1, ProbeKind::kNone, ProbeKind::kExec, {}, ReadinessKind::kModel, "exec"},
      {"no probe",
       -1,
       ProbeKind::kNone,
       ProbeKind::kNone,
       {},
       ReadinessKind::kTcp,
       "no readiness probe"},
      {"a rule for this owner",
       1,
       ProbeKind::kNone,
       ProbeKind::kTcpSocket,
       {{"team", "ocr", ReadinessKind::kModel}},
       ReadinessKind::kModel,
       "--probe-rule team/ocr"},
      {"a rule for another namespace",
       1,
       ProbeKind::kNone,
       ProbeKind::kTcpSocket,
       {{"other", "*", ReadinessKind::kModel}},
       ReadinessKind::kTcp,
       "tcpSocket"},
      {"the last rule wins",
       1,
       ProbeKind::kNone,
       ProbeKind::kTcpSocket,
       {{"*", "*", ReadinessKind::kModel}, {"*", "ocr", ReadinessKind::kTcp}},
       ReadinessKind::kTcp,
       "--probe-rule */ocr"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    PodSpec p;
    p.containers.resize(2);
    p.containers[0].readiness.kind = c.first;
    p.containers[0].readiness.exec_command = "sh";
    p.containers[1].readiness.kind = c.second;
    p.containers[1].readiness.exec_command = "sh";
    p.container_gpus.resize(2);
    if (c.gpu_container >= 0) p.container_gpus[c.gpu_container].gpu_mem = 4;
    std::string why;
    CHECK(WorkloadProbe(p, "team", "ocr", c.rules, &why) == c.want);
    CHECK(why.find(c.why) != std::string::npos);
  }
}

TEST_CASE("WorkloadsFromPods: one workload per owner with live pods, placed where exported") {
  KubeObjects o;
  o.nodes = {GpuNode("n0", "a")};
  o.pods = {GpuPod("ocr", "n0", 1), GpuPod("done", "n0", 0), GpuPod("lost", "n-gone", 0),
            GpuPod("pinned", "n0", -1)};
  o.pods[0].labels["pod-template-hash"] = "abc";
  o.pods[1].phase = "Succeeded";
  o.pods[3].node_affinity.required_terms = {{{"metadata.name", "In", {"n0"}}}};
  ImportModel m;
  const NodeIndex nodes = PoolsFromNodes(o, {}, m);
  const PodIndex pods = WorkloadsFromPods(o, nodes, {}, m);
  REQUIRE(m.workloads.size() == 3);  // `done` ran to completion
  const ImportedWorkload& w = m.workloads[1];
  CHECK(w.spec.name == "ocr");
  CHECK(w.kind == "Pod");
  CHECK(w.spec.replicas == 1);
  CHECK(w.notes.at("replicas") == "pods in the export (Pod)");
  CHECK(w.spec.labels == Labels{{"app", "ocr"}});
  CHECK(w.spec.cpu_milli == 1500);
  CHECK(w.spec.memory_mib == 3073);  // requests round up to whole MiB
  CHECK(w.spec.gpu_mem == 4);
  CHECK(pods.place.at(0).cards == std::vector<int>{1});
  CHECK(pods.card_pods.at({"n0", 1}) == std::vector<int>{0});
  CHECK(pods.workload_of.at({"team", "ocr"}) == std::pair<int, int>{1, 0});
  CHECK(pods.place.count(2) == 0);  // its node is not in the export
  CHECK(pods.workload_of.count({"team", "lost"}) == 1);
  CHECK(m.workloads[2].notes.at("pods").find("matchFields metadata.name") != std::string::npos);
  CHECK(m.workloads[2].spec.node_affinity.required_terms.empty());
  const std::string warnings = Joined(m.warnings);
  CHECK(warnings.find("bound to node n-gone") != std::string::npos);
  CHECK(warnings.find("1 Succeeded or Failed pods") != std::string::npos);
}

// A cluster with one node, one pod per card name given, and the indexes of the first steps.
struct Imported {
  KubeObjects objects;
  ImportModel model;
  NodeIndex nodes;
  PodIndex pods;
  void Run() {
    nodes = PoolsFromNodes(objects, {}, model);
    pods = WorkloadsFromPods(objects, nodes, {}, model);
  }
};

TEST_CASE("CardsFromDcgm gives a card-less pod the cards whose series name it, and no other") {
  Imported c;
  c.objects.nodes = {GpuNode("n0", "a")};
  c.objects.pods = {GpuPod("whole", "n0", -1), GpuPod("shared", "n0", 0)};
  c.objects.pods[0].whole_gpus = 1;
  c.Run();
  Metrics mx;
  CardUtilization cu;
  cu.card = {"n0", "1", ""};
  cu.pods = {{"team", "whole"}, {"team", "shared"}, {"team", "gone"}};
  mx.cards.push_back(cu);
  cu.card = {"n-other", "0", ""};
  mx.cards.push_back(cu);
  KnownPods known(c.pods);
  CardsFromDcgm(mx, c.nodes, known, c.pods);
  CHECK(c.pods.place.at(0).cards == std::vector<int>{1});
  CHECK(c.pods.place.at(1).cards == std::vector<int>{0});  // its annotation stands
  CHECK(c.pods.card_pods.at({"n0", 1}) == std::vector<int>{0});
  CHECK(known.unknown() == std::set<PodKey>{{"team", "gone"}});
}

TEST_CASE("MemoryFromPeaks: the highest peak of a workload's pods, else a default with totals") {
  Imported c;
  c.objects.nodes = {GpuNode("n0", "a")};
  c.objects.pods = {GpuPod("a", "n0", 0), GpuPod("b", "n0", 1)};
  c.Run();
  Metrics mx;
  mx.pod_memory.push_back({{"team", "a"}, 5000, 4000, "DCGM", {"n0", "0", ""}});
  mx.pod_memory.push_back({{"team", "a"}, 4000, 3900, "DCGM", {"n0", "0", ""}});
  CardTotalMemory total;
  total.card = {"n0", "1", ""};
  total.peak_mib = 9000;
  total.pods = {{"team", "b"}, {"team", "x"}};
  mx.card_totals.push_back(total);
  KnownPods known(c.pods);
  MemoryFromPeaks(mx, c.nodes, c.pods, known, GpuCatalog::BuiltIn(), c.model);
  const ImportedWorkload& a = c.model.workloads[0];
  REQUIRE(a.has_memory);
  CHECK(a.spec.memory.weights_mib == 4000 - 450);  // L20 context 450 MiB
  CHECK(a.spec.memory.activation_mib == 1000);
  CHECK(a.notes.at("gpu_memory").find("window peak of DCGM: 5000 MiB (a)") == 0);
  const ImportedWorkload& b = c.model.workloads[1];
  CHECK_FALSE(b.has_memory);
  CHECK(b.notes.at("gpu_memory").find("total peak 9000 MiB over 2 pods") != std::string::npos);
  CHECK(c.model.defaults == std::vector<std::string>{"gpu_memory of team/b"});
}

TEST_CASE("TrafficFromRates: summed pod rates, Poisson when flat, else hourly pieces") {
  struct Case {
    const char* name;
    double amplitude;  // of a daily sine on 10/s, per pod
    ArrivalKind want;
    double mean;
  };
  const Case cases[] = {{"flat", 0, ArrivalKind::kPoisson, 20},
                        {"daily", 0.5, ArrivalKind::kPiecewise, 20}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Imported im;
    im.objects.nodes = {GpuNode("n0", "a")};
    im.objects.pods = {GpuPod("a", "n0", 0), GpuPod("b", "n0", 1)};
    im.objects.pods[0].labels["app"] = "same";
    im.objects.pods[1].labels["app"] = "same";
    im.Run();
    Metrics mx;
    for (const char* pod : {"a", "b"}) {
      PodRate r;
      r.pod = {"team", pod};
      for (int i = 0; i < 24 * 60; ++i) {
        r.times.push_back(i * 60.0);
        r.rate.push_back(10 * (1 + c.amplitude * std::sin(2 * M_PI * i / (24 * 60.0))));
      }
      mx.rates.push_back(r);
    }
    ImportOptions options;
    options.window_end = 24 * 3600;
    KnownPods known(im.pods);
    // Both pods in one workload: put pod b's rate under workload 0 too.
    RateIndex rates = IndexRates(mx, im.pods, known, im.model.workloads.size());
    rates.of_workload[0].push_back(rates.of_workload[1].front());
    rates.of_workload[1].clear();
    TrafficFromRates(rates, options, im.model);
    const ImportedWorkload& w = im.model.workloads[0];
    REQUIRE(w.has_traffic);
    CHECK_FALSE(im.model.workloads[1].has_traffic);
    CHECK(w.spec.traffic.kind == c.want);
    if (c.want == ArrivalKind::kPoisson) {
      CHECK(w.spec.traffic.rate == doctest::Approx(c.mean));
      CHECK(w.notes.at("traffic").find("(2 pods); flat within 5 %") != std::string::npos);
    } else {
      CHECK(w.spec.traffic.pieces.size() == 24);
      CHECK(w.notes.at("traffic").find("summed over 2 pods, mean per 3600 s piece") !=
            std::string::npos);
    }
  }
}

TEST_CASE(
    "TrafficFromRates with --traffic counts: requests per sample step, rounded on the total") {
  struct Case {
    const char* name;
    double sample_s;    // the rate metric's step
    double count_step;  // --count-step (0: auto)
    double rate;        // per pod, requests/s
    int64_t want_step_s;
    int64_t want_total;    // 2 pods over the hour, summed
    int64_t want_per_pod;  // each pod's own, rounded on its own total
  };
  const Case cases[] = {{"auto step", 60, 0, 1.5, 60, 2 * 5400, 5400},
                        {"a coarser step", 60, 300, 1.5, 300, 2 * 5400, 5400},
                        {"a finer step is raised to the samples", 300, 60, 0.25, 300, 2 * 900, 900},
                        {"fractions carried, not lost", 60, 0, 1.0 / 70, 60, 103, 51}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Imported im;
    im.objects.nodes = {GpuNode("n0", "a")};
    im.objects.pods = {GpuPod("a", "n0", 0), GpuPod("b", "n0", 1)};
    im.Run();
    Metrics mx;
    for (const char* pod : {"a", "b"}) {
      PodRate r;
      r.pod = {"team", pod};
      // A sample at t is the rate over (t - step, t]: the hour's samples end at 3600 s.
      for (double t = c.sample_s; t <= 3600; t += c.sample_s) {
        r.times.push_back(t);
        r.rate.push_back(c.rate);
      }
      mx.rates.push_back(r);
    }
    ImportOptions options;
    options.window_end = 3600;
    options.traffic_counts = true;
    options.count_step_s = c.count_step;
    // Summed when no series is a current pod's; per pod (each rounded on its own total) when
    // both are.
    for (const bool per_pod : {false, true}) {
      CAPTURE(per_pod);
      ImportModel model = im.model;
      KnownPods known(im.pods);
      RateIndex rates = IndexRates(mx, im.pods, known, model.workloads.size());
      rates.of_workload[0].push_back(rates.of_workload[1].front());
      rates.of_workload[1].clear();
      if (!per_pod) rates.current.clear();
      TrafficFromRates(rates, options, model);
      const Traffic& t = model.workloads[0].spec.traffic;
      REQUIRE(t.kind == ArrivalKind::kCounts);
      CHECK(t.counts.step == c.want_step_s * kNanosPerSecond);
      const size_t steps = static_cast<size_t>(3600 / c.want_step_s);
      int64_t total = 0;
      if (per_pod) {
        CHECK(t.counts.values.empty());
        REQUIRE(t.counts.per_pod.size() == 2);
        CHECK(t.counts.per_pod[0].pod == "a");
        CHECK(t.counts.per_pod[1].pod == "b");
        for (const PodCounts& pod : t.counts.per_pod) {
          CHECK(pod.values.size() == steps);
          int64_t own = 0;
          for (int64_t n : pod.values) own += n;
          CHECK(own == c.want_per_pod);
          total += own;
        }
      } else {
        CHECK(t.counts.per_pod.empty());
        CHECK(t.counts.values.size() == steps);
        for (int64_t n : t.counts.values) total += n;
        CHECK(total == c.want_total);
      }
      CHECK(model.warnings.size() == (c.count_step > 0 && c.count_step < c.sample_s ? 1u : 0u));
    }
  }
}

TEST_CASE("--traffic counts per pod: requests of pods no longer running are the Service's counts") {
  Imported im;
  im.objects.nodes = {GpuNode("n0", "a")};
  im.objects.pods = {GpuPod("a", "n0", 0), GpuPod("b", "n0", 1)};
  im.Run();
  Metrics mx;
  for (const char* pod : {"a", "b"}) {
    PodRate r;
    r.pod = {"team", pod};
    for (double t = 60; t <= 3600; t += 60) {
      r.times.push_back(t);
      r.rate.push_back(pod[0] == 'a' ? 1.0 : 0.5);
    }
    mx.rates.push_back(r);
  }
  ImportOptions options;
  options.window_end = 3600;
  options.traffic_counts = true;
  KnownPods known(im.pods);
  RateIndex rates = IndexRates(mx, im.pods, known, im.model.workloads.size());
  rates.of_workload[0].push_back(rates.of_workload[1].front());
  rates.of_workload[1].clear();
  rates.current.erase(rates.of_workload[0][1]);  // pod b: gone before the export
  TrafficFromRates(rates, options, im.model);
  const Traffic& t = im.model.workloads[0].spec.traffic;
  REQUIRE(t.counts.per_pod.size() == 1);
  CHECK(t.counts.per_pod[0].pod == "a");
  CHECK(t.counts.per_pod[0].values == std::vector<int64_t>(60, 60));
  CHECK(t.counts.values == std::vector<int64_t>(60, 30));  // pod b's, routed by the Service
  CHECK(im.model.warnings.empty());
  CHECK(im.model.workloads[0].notes.at("traffic").ends_with(
      "; and at the Service (values) the 1800 requests of 1 pod no longer running, routed among "
      "the current pods"));
}

TEST_CASE("TrafficFromRates leaves out the traffic of a workload without a GPU, with a warning") {
  Imported im;
  im.objects.nodes = {GpuNode("n0", "a")};
  PodSpec router = GpuPod("router", "n0", -1);
  router.gpu_mem = 0;
  router.container_gpus.clear();
  im.objects.pods = {GpuPod("a", "n0", 0), router};
  im.Run();
  Metrics mx;
  for (const char* pod : {"a", "router"}) {
    PodRate r;
    r.pod = {"team", pod};
    for (int i = 0; i < 60; ++i) {
      r.times.push_back(i * 60.0);
      r.rate.push_back(5);
    }
    mx.rates.push_back(r);
  }
  ImportOptions options;
  options.window_end = 3600;
  KnownPods known(im.pods);
  const RateIndex rates = IndexRates(mx, im.pods, known, im.model.workloads.size());
  TrafficFromRates(rates, options, im.model);
  int with_traffic = 0;
  for (const ImportedWorkload& w : im.model.workloads) {
    if (w.spec.name == "router") {
      CHECK_FALSE(w.has_traffic);
      CHECK(w.notes.at("traffic").find("no GPU") != std::string::npos);
    }
    with_traffic += w.has_traffic;
  }
  CHECK(with_traffic == 1);
  REQUIRE(im.model.warnings.size() == 1);
  CHECK(im.model.warnings[0].find("team/router: has a request rate but no GPU") == 0);
}

TEST_CASE("FitWork and DefaultWork: fitted where a card is linear, else the default") {
  struct Case {
    const char* name;
    int policy;
    double overhead;
    bool fitted;
    const char* report;
  };
  const Case cases[] = {
      {"POLICY 5 without overhead", 5, 0, true, "work per request: NNLS over 1 cards"},
      {"POLICY 0", 0, 0, false, "no card to fit (1 left out under POLICY 0"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Imported im;
    im.objects.nodes = {GpuNode("n0", "a")};
    im.objects.pods = {GpuPod("ocr", "n0", 0)};
    im.Run();
    Metrics mx;
    PodRate r;
    r.pod = {"team", "ocr"};
    CardUtilization cu;
    cu.card = {"n0", "0", ""};
    for (int i = 0; i < 48 * 60; ++i) {
      const double rate = 10 + 5 * std::sin(2 * M_PI * i / (24 * 60.0));
      r.times.push_back(i * 60.0);
      r.rate.push_back(rate);
      cu.times.push_back(i * 60.0);
      cu.busy.push_back(rate * 0.030 / 0.956);  // L20 speed 0.956
    }
    mx.rates.push_back(r);
    mx.cards.push_back(cu);
    ImportOptions options;
    options.policy = c.policy;
    options.switch_overhead = c.overhead;
    options.window_end = 48 * 3600;
    KnownPods known(im.pods);
    const RateIndex rates = IndexRates(mx, im.pods, known, im.model.workloads.size());
    TrafficFromRates(rates, options, im.model);
    FitWork(im.objects, mx, im.nodes, im.pods, rates, GpuCatalog::BuiltIn(), options, im.model);
    DefaultWork(options, im.model);
    const ImportedWorkload& w = im.model.workloads[0];
    CHECK(Joined(im.model.fit_report).find(c.report) != std::string::npos);
    REQUIRE(w.has_work);
    if (c.fitted) {
      CHECK(w.spec.work.mean_s == doctest::Approx(0.030).epsilon(1e-6));
      CHECK(w.notes.at("work").find("fitted (NNLS, POLICY 5, switch overhead 0)") == 0);
      CHECK(im.model.defaults.empty());
    } else {
      CHECK(w.spec.work.mean_s == options.default_work_s);
      CHECK(w.notes.at("work").find("default 10 ms") == 0);
      CHECK(im.model.defaults == std::vector<std::string>{"work of team/ocr"});
    }
  }
}

TEST_CASE("RanHealthy: only a running, ready pod without OOM or crash is evidence") {
  struct Case {
    const char* name;
    void (*change)(PodSpec&);
    bool healthy;
    const char* why;
  };
  const Case cases[] = {
      {"running", [](PodSpec&) {}, true, ""},
      {"ready reported", [](PodSpec& p) { p.ready_status = "True"; }, true, ""},
      {"pending", [](PodSpec& p) { p.phase = "Pending"; }, false, "phase Pending"},
      {"not ready", [](PodSpec& p) { p.ready_status = "False"; }, false, "not Ready"},
      {"oom before", [](PodSpec& p) { p.containers[0].last_terminated_reason = "OOMKilled"; },
       false, "container server OOMKilled"},
      {"crash loop", [](PodSpec& p) { p.containers[0].waiting_reason = "CrashLoopBackOff"; }, false,
       "container server CrashLoopBackOff"},
      {"error", [](PodSpec& p) { p.containers[0].terminated_reason = "Error"; }, false,
       "container server Error"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    PodSpec p = GpuPod("a", "n0", 0);
    c.change(p);
    std::string why;
    CHECK(RanHealthy(p, &why) == c.healthy);
    CHECK(why == c.why);
  }
}

TEST_CASE("DecideIsolation: rules 2-4 on the pools with an active cGPU module") {
  struct Case {
    const char* name;
    double peak_mib;      // of pod a, quota 4188 MiB (4 of 44 units of an L20)
    const char* version;  // of the nodes
    bool with_metrics;
    MemoryIsolation want;
    const char* note;
  };
  const Case cases[] = {
      {"peak over quota", 5000, "", true, MemoryIsolation::kSoft, "rule 3, 1 pod(s)"},
      {"peak within the margin", 4188 * 1.02 - 1, "", true, MemoryIsolation::kHard,
       "rule 4, cGPU runs and no pod's measured peak is above its quota"},
      {"no metrics", 0, "", false, MemoryIsolation::kHard, "no metrics to say otherwise"},
      {"listed version", 0, "1.0.3", false, MemoryIsolation::kSoft, "rule 2, node label"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Imported im;
    im.objects.nodes = {GpuNode("n0", "a")};
    im.objects.nodes[0].labels["aliyun.accelerator/cgpu-version"] = c.version;
    if (!*c.version) im.objects.nodes[0].labels.erase("aliyun.accelerator/cgpu-version");
    im.objects.pods = {GpuPod("a", "n0", 0)};
    im.Run();
    ImportOptions options;
    options.cgpu_no_isolation_versions = {"1.0.3"};
    Metrics mx;
    mx.pod_memory.push_back({{"team", "a"}, c.peak_mib, 1000, "DCGM", {"n0", "0", ""}});
    DecideIsolation(im.objects, c.with_metrics ? &mx : nullptr, im.nodes, im.pods,
                    GpuCatalog::BuiltIn(), options, im.model);
    const ImportedPool& p = im.model.pools[0];
    CHECK(p.pool.isolation == c.want);
    CHECK(Joined(p.isolation_notes).find(c.note) != std::string::npos);
    if (c.want == MemoryIsolation::kSoft && !*c.version) {
      REQUIRE(p.over_quota.size() == 1);
      CHECK(p.over_quota[0].quota_mib == 4188);
      CHECK(p.isolation_notes.back() ==
            "  team/a on n0 gpu0: peak 5000 MiB > quota 4188 MiB (119 %)");
    }
  }
}

TEST_CASE("OverQuotaEvidence: an unhealthy pod above its quota is a warning, not evidence") {
  Imported im;
  im.objects.nodes = {GpuNode("n0", "a")};
  im.objects.pods = {GpuPod("a", "n0", 0)};
  im.objects.pods[0].ready_status = "False";
  im.Run();
  Metrics mx;
  mx.pod_memory.push_back({{"team", "a"}, 5000, 1000, "DCGM", {"n0", "", ""}});
  OverQuotaEvidence(im.objects, mx, im.nodes, im.pods, GpuCatalog::BuiltIn(), {}, im.model);
  CHECK(im.model.pools[0].over_quota.empty());
  CHECK(Joined(im.model.warnings)
            .find("pod team/a peaked at 5000 MiB over its quota 4188 MiB but "
                  "not Ready") != std::string::npos);
}

TEST_CASE("CurrentPods lists each placed pod by name, not-Ready ones as such") {
  Imported im;
  im.objects.nodes = {GpuNode("n0", "a")};
  im.objects.pods = {GpuPod("b", "n0", 1), GpuPod("a", "n0", 0), GpuPod("c", "", -1)};
  for (PodSpec& p : im.objects.pods) p.labels["app"] = "one";
  im.objects.pods[0].ready_status = "False";
  im.Run();
  // Three bare pods: three workloads; merge them into one to see the order.
  for (auto& [key, at] : im.pods.workload_of) at.first = 0;
  CurrentPods(im.objects, im.pods, im.model);
  const auto& pods = im.model.workloads[0].pods;
  REQUIRE(pods.size() == 2);  // c is not bound
  CHECK(pods[0].name == "a");
  CHECK(pods[0].ready);
  CHECK(pods[1].name == "b");
  CHECK(pods[1].cards == std::vector<int>{1});
  CHECK_FALSE(pods[1].ready);
}

TEST_CASE("KubeSection keeps the objects the checks read and names the kinds skipped") {
  KubeObjects o;
  o.pdbs.resize(2);
  o.pvcs.resize(1);
  o.skipped_kinds = {{"ConfigMap", 3}, {"Service", 2}};
  o.jobs.resize(1);
  ImportModel m;
  KubeSection(o, m);
  CHECK(m.kube.pdbs.size() == 2);
  CHECK(m.kube.pvcs.size() == 1);
  CHECK(m.header ==
        std::vector<std::string>{"kinds knobsim does not use, skipped: ConfigMap 3, Service 2",
                                 "jobs: 1 (read only for pod ownership)"});
}

}  // namespace
}  // namespace knobsim
