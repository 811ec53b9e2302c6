// CheckEvidence and RunLength (import_steps.h): impossible evidence flagged, named and
// corrected; the run length of an imported scenario.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "sim/import/import_steps.h"

namespace knobsim {
namespace {

constexpr const char* kUtil = "DCGM_FI_DEV_GPU_UTIL";

bool Has(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

// n0: two L20 cards under cGPU; n1: one A10 (23028 MiB, context 400 MiB) shared. Pod a runs
// on n0 card 0 (4 of 44 units), pod b on n1 card 0.
struct Cluster {
  KubeObjects objects;
  ImportModel model;
  NodeIndex nodes;
  PodIndex pods;
  const GpuCatalog catalog = GpuCatalog::BuiltIn();

  Cluster() {
    objects.nodes = {Node("n0", "NVIDIA-L20", 2, "cgpu"), Node("n1", "NVIDIA-A10", 1, "share")};
    objects.pods = {Pod("a", "n0"), Pod("b", "n1")};
    nodes = PoolsFromNodes(objects, {}, model);
    pods = WorkloadsFromPods(objects, nodes, {}, model);
    model.warnings.clear();
  }
  static NodeSpec Node(const std::string& name, const std::string& gpu, int cards,
                       const std::string& schedule) {
    NodeSpec n;
    n.name = name;
    n.labels = {{"kubernetes.io/hostname", name}, {"ack.node.gpu.schedule", schedule}};
    n.gpu_model = gpu;
    n.gpu_cards = cards;
    n.card_mem_units = gpu == "NVIDIA-A10" ? 22 : 44;
    n.gpu_schedule = schedule;
    n.allocatable = {{"cpu", 31600}, {"memory", int64_t{64} << 30}, {"pods", 64}};
    return n;
  }
  static PodSpec Pod(const std::string& name, const std::string& node) {
    PodSpec p;
    p.namespace_ = "team";
    p.name = name;
    p.node_name = node;
    p.phase = "Running";
    p.labels = {{"app", name}};
    p.requests = {{"cpu", 1000}, {"memory", int64_t{1} << 30}};
    p.gpu_mem = 4;
    p.container_gpus = {{4, 0}};
    p.containers.resize(1);
    p.containers[0].name = "server";
    p.allocated_mem = {{0, 4}};
    return p;
  }
  int WorkloadOf(const std::string& pod) const { return pods.workload_of.at({"team", pod}).first; }
  std::optional<Metrics> Check(const Metrics& m) {
    return CheckEvidence(m, nodes, pods, catalog, model);
  }
};

CardUtilization Card(const std::string& node, const std::string& gpu) {
  CardUtilization cu;
  cu.card = {node, gpu, ""};
  cu.metric = kUtil;
  cu.times = {0, 60};
  cu.busy = {0.5, 0.6};
  return cu;
}

PodRate Rate(const std::string& pod, const std::string& node, std::vector<double> rate) {
  PodRate r;
  r.pod = {"team", pod};
  r.node = node;
  for (size_t i = 0; i < rate.size(); ++i) r.times.push_back(60.0 * static_cast<double>(i));
  r.rate = std::move(rate);
  return r;
}

TEST_CASE("CheckEvidence names each kind of impossible evidence, beside what it affected") {
  struct Case {
    const char* what;
    std::function<void(Metrics&)> make;
    std::vector<std::string> says;  // parts of the one warning
    const char* pod;                // the workload whose comment it is (nullptr: a pool's)
    const char* key;
    bool corrected;  // new metrics handed on
  };
  const Case cases[] = {
      {"utilization above 100 %",
       [](Metrics& m) {
         CardUtilization cu = Card("n0", "0");
         cu.clamped = 1;
         cu.dropped_high = 2;
         cu.largest = 1.8;
         m.cards.push_back(cu);
       },
       {"card n0/gpu 0: DCGM_FI_DEV_GPU_UTIL above 100 % at 3 samples (largest 180 %)",
        "1 within 5 % of it clamped to 100 %", "2 further above dropped as missing"},
       nullptr,
       "",
       false},
      {"utilization below 0",
       [](Metrics& m) {
         CardUtilization cu = Card("n1", "0");
         cu.dropped_negative = 1;
         cu.smallest = -0.02;
         m.cards.push_back(cu);
       },
       {"card n1/gpu 0: DCGM_FI_DEV_GPU_UTIL 1 sample below 0 % (smallest -2 %) dropped"},
       nullptr,
       "",
       false},
      {"negative request rates",
       [](Metrics& m) {
         PodRate r = Rate("a", "", {1, 2});
         r.negative = 4;
         r.lowest = -3.5;
         m.rates.push_back(r);
       },
       {"pod team/a: 4 negative request-rate samples (lowest -3.5/s)",
        "dropped as missing, not used as 0"},
       "a",
       "traffic",
       false},
      {"memory above the card",
       [](Metrics& m) {
         m.pod_memory.push_back(
             {{"team", "b"}, 40960, 21504, "DCGM_FI_DEV_FB_USED per pod", {"n1", "0", ""}});
       },
       {"pod team/b on card n1/gpu 0, GPU type A10 with 23028 MiB: measured GPU memory peak 40960 "
        "MiB (mean "
        "21504 MiB, DCGM_FI_DEV_FB_USED per pod) is above the card's physical memory",
        "capped at 23028 MiB, weights from the mean"},
       "b",
       "gpu_memory",
       true},
      {"a pod's series on another node",
       [](Metrics& m) {
         CardUtilization cu = Card("n1", "0");
         cu.pods = {{"team", "a"}, {"team", "b"}};
         m.cards.push_back(cu);
         m.rates.push_back(Rate("a", "n1", {1}));
       },
       {"pod team/a runs on node n0 in the export, but its series of DCGM_FI_DEV_GPU_UTIL (card "
        "n1/gpu 0), the request rate name node n1",
        "those series are not used for this pod"},
       "a",
       "pods",
       true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    Cluster cl;
    Metrics m;
    c.make(m);
    const std::optional<Metrics> fixed = cl.Check(m);
    CHECK(fixed.has_value() == c.corrected);
    REQUIRE(cl.model.warnings.size() == 1);
    const std::string& line = cl.model.warnings[0];
    for (const std::string& part : c.says) CHECK(line.find(part) != std::string::npos);
    if (c.pod) {
      CHECK(cl.model.workloads[cl.WorkloadOf(c.pod)].evidence.at(c.key) ==
            std::vector<std::string>{line});
    } else {
      const int pool = cl.nodes.pool_of_node.at(m.cards[0].card.node);
      CHECK(cl.model.pools[pool].evidence == std::vector<std::string>{line});
    }
  }
}

TEST_CASE("clean metrics are handed on as they are, without a warning") {
  Cluster cl;
  Metrics m;
  CardUtilization cu = Card("n0", "0");
  cu.pods = {{"team", "a"}};
  m.cards.push_back(cu);
  m.rates.push_back(Rate("a", "n0", {1, 2}));
  m.pod_memory.push_back({{"team", "a"}, 46068, 30000, "DCGM", {"n0", "0", ""}});  // the card
  CHECK_FALSE(cl.Check(m).has_value());
  CHECK(cl.model.warnings.empty());
}

TEST_CASE(
    "a memory peak above its card is capped at it, the weights kept from the mean if they fit") {
  struct Case {
    double peak, mean;
    int64_t weights, activation;  // FitGpuMemory of the capped numbers (A10 context 400 MiB)
    const char* done;
  };
  const Case cases[] = {
      {40960, 21504, 21504 - 400, 23028 - 21504, "weights from the mean"},
      {40960, 30000, 23028 - 400, 0, "the mean is above the card too: weights fill the card"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.mean);
    Cluster cl;
    Metrics m;
    m.pod_memory.push_back({{"team", "b"}, c.peak, c.mean, "FB", {"n1", "0", ""}});
    const std::optional<Metrics> fixed = cl.Check(m);
    REQUIRE(fixed);
    const PodMemoryPeak& p = fixed->pod_memory.at(0);
    CHECK(p.peak_mib == 23028);
    CHECK(p.measured_peak_mib == c.peak);
    const GpuMemoryFit fit = FitGpuMemory(p.peak_mib, p.mean_mib, 400, 1);
    CHECK(fit.weights_mib == c.weights);
    CHECK(fit.activation_mib == c.activation);
    CHECK(400 + fit.weights_mib + fit.activation_mib == 23028);  // the simulated peak fits
    CHECK(Has(cl.model.warnings, c.done));
  }
}

TEST_CASE("a capped peak is no evidence that the cGPU module does not enforce quotas") {
  Cluster cl;
  Metrics m;
  // Pod a on an L20 under cGPU (quota 4 of 44 units): 60000 MiB cannot be, whatever the module.
  m.pod_memory.push_back({{"team", "a"}, 60000, 3000, "FB", {"n0", "0", ""}});
  const std::optional<Metrics> fixed = cl.Check(m);
  REQUIRE(fixed);
  OverQuotaEvidence(cl.objects, *fixed, cl.nodes, cl.pods, cl.catalog, {}, cl.model);
  CHECK(cl.model.pools[cl.nodes.pool_of_node.at("n0")].over_quota.empty());
  // Measured above its quota but within the card: evidence, as before.
  m.pod_memory[0].peak_mib = 6000;
  Cluster plain;
  CHECK_FALSE(plain.Check(m));
  OverQuotaEvidence(plain.objects, m, plain.nodes, plain.pods, plain.catalog, {}, plain.model);
  CHECK(plain.model.pools[plain.nodes.pool_of_node.at("n0")].over_quota.size() == 1);
}

TEST_CASE("series naming another exported node are left out for that pod, and only for it") {
  Cluster cl;
  Metrics m;
  CardUtilization cu = Card("n1", "0");
  cu.pods = {{"team", "a"}, {"team", "b"}};
  m.cards.push_back(cu);
  m.pod_memory.push_back({{"team", "a"}, 5000, 4000, "FB", {"n1", "0", ""}});
  m.pod_memory.push_back({{"team", "a"}, 3000, 2000, "FB", {"n0", "0", ""}});
  m.pod_memory.push_back({{"team", "a"}, 3000, 2000, "FB", {"n-gone", "0", ""}});  // not compared
  CardTotalMemory total;
  total.card = {"n1", "0", ""};
  total.pods = {{"team", "a"}};
  m.card_totals.push_back(total);
  m.rates.push_back(Rate("a", "", {1, 2}));
  m.rates.push_back(Rate("a", "n0", {10, 20}));
  m.rates.push_back(Rate("a", "n1", {100, 200}));
  const std::optional<Metrics> fixed = cl.Check(m);
  REQUIRE(fixed);
  CHECK(fixed->cards[0].pods == std::vector<PodKey>{{"team", "b"}});
  REQUIRE(fixed->pod_memory.size() == 2);
  CHECK(fixed->pod_memory[0].card.node == "n0");
  CHECK(fixed->pod_memory[1].card.node == "n-gone");
  CHECK(fixed->card_totals.empty());
  // What is left of the pod's rate, one series: the unlabelled one and n0's, summed.
  REQUIRE(fixed->rates.size() == 1);
  CHECK(fixed->rates[0].rate == std::vector<double>{11, 22});
  REQUIRE(cl.model.warnings.size() == 1);
  CHECK(Has(cl.model.warnings, "GPU memory (FB, card n1/gpu 0), a card's total GPU memory"));
}

TEST_CASE("RunLength: the first hour of the window by default, the window on request") {
  struct Case {
    bool metrics;
    double window_s, asked_s;
    double duration_s;
    const char* note;
  };
  const Case cases[] = {
      {true, 7 * 86400, 3600, 3600, "run: the first 1h of the 168h metrics window"},
      {true, 7 * 86400, 0, 7 * 86400, "run: the whole 168h metrics window (--duration window)"},
      {true, 1800, 3600, 1800, "run: the whole 30m metrics window (--duration 1h covers it)"},
      {false, 0, 3600, 3600, "run: 1h (no metrics window"},
      {false, 0, 600, 600, "run: 10m (no metrics window"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.note);
    ImportOptions o;
    o.window_start = 1000;
    o.window_end = 1000 + c.window_s;
    o.run_duration_s = c.asked_s;
    ImportModel m;
    m.header = {"metrics: something"};
    RunLength(o, c.metrics, m);
    CHECK(m.duration_s == c.duration_s);
    CHECK(m.run_note.find(c.note) == 0);
    CHECK(m.header.front() == m.run_note);
  }
}

}  // namespace
}  // namespace knobsim
