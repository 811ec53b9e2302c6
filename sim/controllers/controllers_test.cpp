// The controllers on hand-made clusters: a Simulator whose pods are placed (PlacePods) and
// whose events are not run, so that each rule is seen alone.
#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/controllers/daemon_sets.h"
#include "sim/controllers/endpoints.h"
#include "sim/controllers/image_pulls.h"
#include "sim/controllers/placement.h"
#include "sim/controllers/replacement.h"
#include "sim/engine/simulator.h"
#include "sim/mig_layout.h"

namespace knobsim::engine {
namespace {

Scenario OneNode() {
  Scenario s;
  s.name = "controllers";
  NodePool pool;
  pool.name = "gpu";
  pool.count = 1;
  pool.gpu_type = "A10";
  pool.gpus_per_node = 1;
  pool.cpu_milli = 64000;
  pool.memory_mib = 256 * 1024;
  s.node_pools.push_back(pool);
  s.run.duration = 100 * kNanosPerSecond;
  return s;
}

Workload Service(const std::string& name, const std::string& kind) {
  Workload w;
  w.name = name;
  w.kind = kind;
  w.replicas = 1;
  w.gpu_mem = 4;
  w.memory.context_mib = 0;
  return w;
}

// DefaultPreemption in a run (preemption.h): a batch pod already running on the only card, an
// inference Deployment of higher priority that fits nowhere else. The batch pod is preempted at
// t = 0, drains, and its replacement waits Pending at its lower priority; the inference pod is
// nominated to the node and starts there once the victim is gone.
// The card: batch-0 (20 gpu-mem) runs on it; infer (12) at `infer_priority` wants it.
Scenario BatchAndInference(int infer_priority) {
  Scenario scenario = OneNode();
  Workload batch = Service("batch", "Deployment");
  batch.gpu_mem = 20;
  batch.pods = {{"batch-0", "gpu-0", {}, true, -1}};
  Workload infer = Service("infer", "Deployment");
  infer.gpu_mem = 12;
  infer.priority = infer_priority;
  scenario.workloads = {batch, infer};
  return scenario;
}

TEST_CASE("preemption: a higher-priority pod evicts a running lower-priority one in a run") {
  Scenario scenario = BatchAndInference(1000);
  Simulator sim(scenario, 1, RunOptions{});
  const RunResult r = sim.Run();
  CHECK(r.cluster.preempted_pods == 1);
  bool event = false;
  for (const ClusterEvent& e : r.cluster.events) {
    if (e.kind == "Preempted") {
      event = true;
      CHECK(e.pod == "default/batch-0");
      CHECK(e.message == "Preempted by pod default/infer-0 on node gpu-0");
    }
  }
  CHECK(event);
  std::map<std::string, const PodResult*> pods;
  for (const PodResult& p : r.pods) pods[p.name] = &p;
  REQUIRE(pods.count("infer-0") == 1);
  CHECK(pods["infer-0"]->node == "gpu-0");
  REQUIRE(pods.count("batch-r1") == 1);
  CHECK(pods["batch-r1"]->node.empty());  // Pending: the card is the inference pod's
  CHECK(r.cluster.pending_pods == 1);

  // The same cluster without the priority gap: nobody is preempted, inference waits.
  scenario.workloads[1].priority = 0;
  Simulator equal(scenario, 1, RunOptions{});
  const RunResult same = equal.Run();
  CHECK(same.cluster.preempted_pods == 0);
  CHECK(same.cluster.pending_pods == 1);
}

// WorkloadRun::pending (endpoints.h) is kept by every change of a pod, not recounted: at the end
// it must equal a count over the pods, and the timeline's last step must show it. The preemption
// run creates pods at the start, preempts one, replaces it and leaves the replacement waiting.
TEST_CASE("pending pods: the count kept through the run matches the pods at its end") {
  for (const int priority : {1000, 0}) {  // batch preempted and replaced; infer never placed
    CAPTURE(priority);
    const Scenario scenario = BatchAndInference(priority);
    RunOptions options;
    options.timeline_step = 50 * kNanosPerSecond;
    Simulator sim(scenario, 1, options);
    const RunResult r = sim.Run();
    int total = 0;
    for (int32_t w = 0; w < 2; ++w) {
      int pending = 0;
      for (int32_t p = 0; p < static_cast<int32_t>(sim.state.pods.size()); ++p)
        pending += sim.state.pods[p].workload == w && EndpointOf(sim.state, p).pending;
      CHECK(sim.state.workloads[w].pending == pending);
      CHECK(r.timeline.workloads[w].points.back().pending_max == pending);
      CHECK(r.timeline.workloads[w].points.back().pending_mean == doctest::Approx(pending));
      total += pending;
    }
    CHECK(total == r.cluster.pending_pods);
  }
}

// nodeShouldRunDaemonPod (pkg/controller/daemon/daemon_controller_test.go's predicates): the
// template's node selector and required affinity, NoSchedule / NoExecute taints untolerated,
// and the tolerations every daemon pod gets.
TEST_CASE("daemon sets: which nodes a DaemonSet's pod should run on") {
  Workload ds = Service("agent", "DaemonSet");
  NodeSpec node;
  node.name = "n1";
  node.labels = {{"pool", "gpu"}};
  CHECK(ShouldRunDaemonPod(ds, node));
  ds.node_selector = {{"pool", "cpu"}};
  CHECK_FALSE(ShouldRunDaemonPod(ds, node));
  ds.node_selector = {{"pool", "gpu"}};
  CHECK(ShouldRunDaemonPod(ds, node));
  node.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  CHECK_FALSE(ShouldRunDaemonPod(ds, node));
  Toleration gpu;
  gpu.key = "nvidia.com/gpu";
  gpu.op = "Exists";
  ds.tolerations = {gpu};
  CHECK(ShouldRunDaemonPod(ds, node));
  // A PreferNoSchedule taint does not keep it off; the controller's own tolerations cover a
  // cordoned, not-ready or pressured node.
  node.taints = {{"dedicated", "x", "PreferNoSchedule"},
                 {"node.kubernetes.io/unschedulable", "", "NoSchedule"},
                 {"node.kubernetes.io/not-ready", "", "NoExecute"},
                 {"node.kubernetes.io/memory-pressure", "", "NoSchedule"}};
  CHECK(ShouldRunDaemonPod(ds, node));
  node.taints.push_back({"dedicated", "x", "NoExecute"});
  CHECK_FALSE(ShouldRunDaemonPod(ds, node));
}

// A run lays a DaemonSet out over the nodes it should run on, whatever `replicas` says: a
// listed pod keeps its name on its node, the other nodes get <workload>-<node>; each is pinned.
TEST_CASE("daemon sets: one pod per eligible node, pinned, in a run") {
  Scenario scenario = OneNode();
  scenario.node_pools[0].count = 3;
  NodePool tainted = scenario.node_pools[0];
  tainted.name = "private";
  tainted.count = 1;
  tainted.taints = {{"dedicated", "private", "NoSchedule"}};
  scenario.node_pools.push_back(tainted);
  // An untainted pool without a listed pod: an export's daemon pods say where the DaemonSet
  // runs (their own node affinity is replaced by the pin), so it gets none.
  NodePool other = scenario.node_pools[0];
  other.name = "other";
  other.count = 1;
  scenario.node_pools.push_back(other);
  Workload agent = Service("agent", "DaemonSet");
  agent.gpu_mem = 0;
  agent.replicas = 7;                                     // ignored: the count follows the nodes
  agent.pods = {{"agent-abcde", "gpu-1", {}, true, -1}};  // an exported pod on its node
  scenario.workloads.push_back(agent);
  Simulator sim(scenario, 1, RunOptions{});
  PlacePods(sim);
  std::vector<std::string> placed;
  for (const PodRun& p : sim.state.pods) {
    placed.push_back(p.name + "@" + (p.node >= 0 ? sim.state.cluster.nodes[p.node].name : ""));
  }
  // The listed pod first (its order kept), then the new ones in node order.
  CHECK(placed ==
        std::vector<std::string>{"agent-abcde@gpu-1", "agent-gpu-0@gpu-0", "agent-gpu-2@gpu-2"});
  CHECK(sim.state.workloads[0].desired == 3);
  // Without listed pods the template alone decides: every untainted node, `other-0` included.
  scenario.workloads[0].pods.clear();
  Simulator fresh(scenario, 1, RunOptions{});
  PlacePods(fresh);
  CHECK(fresh.state.pods.size() == 4);
  CHECK(fresh.state.pods.back().name == "agent-other-0");
  const PodSpec spec = RunPodSpec(sim.state, 0);
  REQUIRE(spec.node_affinity.required_terms.size() == 1);
  CHECK(spec.node_affinity.required_terms[0][0].key == "metadata.name");
  CHECK(spec.node_affinity.required_terms[0][0].values == std::vector<std::string>{"gpu-1"});
}

// One node of one H100 whose card a DRA driver publishes (the NVIDIA driver's whole GPU).
Scenario OneDraCard() {
  Scenario s = OneNode();
  NodePool& pool = s.node_pools[0];
  pool.gpu_type = "H100";
  pool.gpus_per_node = 1;
  pool.dra.enabled = true;
  return s;
}

// A Deployment of `replicas` pods, each with a claim of its own for one device.
Workload DraService(const std::string& name, int replicas) {
  Workload w = Service(name, "Deployment");
  w.gpu_mem = 0;
  w.replicas = replicas;
  w.dra.gpus = 1;
  return w;
}

// DRA in a run (placement.h BindPod): a claim's devices are the pod's cards. HAMi's DRA driver
// shares a card by consumable capacity: each pod's HAMi-core limits are what its claim consumed
// (memory hard, compute capped); the NVIDIA driver's MIG instances are card slots of their own.
TEST_CASE("dra in a run: HAMi shares hold their memory and cores, MIG instances are cards") {
  Scenario scenario = OneDraCard();
  scenario.node_pools[0].dra.driver = DraDriver::kHamiCore;
  Workload share = DraService("share", 2);
  share.dra.driver = DraDriver::kHamiCore;
  share.dra.memory_mib = 6144;
  share.dra.cores = 30;
  scenario.workloads.push_back(share);
  Simulator sim(scenario, 1, RunOptions{});
  PlacePods(sim);
  REQUIRE(sim.state.pods.size() == 2);
  for (const PodRun& p : sim.state.pods) {
    CAPTURE(p.name);
    REQUIRE(p.cards.size() == 1);
    CHECK(p.cards[0] == 0);  // first fit: both on the one card
    CHECK(p.quota_mib == 6144);
    CHECK(p.percent == 30);
  }
  CHECK(sim.sharing.cards[0].params.policy == SharingPolicy::kCappedTimeSlicing);
  CHECK(sim.sharing.cards[0].isolation == MemoryIsolation::kHard);

  Scenario mig = OneDraCard();
  mig.node_pools[0].mig = {MigStrategy::kMixed, {"3g.40gb", "1g.10gb", "1g.10gb"}};
  AddMigInstanceTypes(mig);
  Workload small = DraService("small", 3);
  small.dra.mig_profile = "1g.10gb";
  mig.workloads.push_back(small);
  Simulator on_mig(mig, 1, RunOptions{});
  PlacePods(on_mig);
  std::vector<int32_t> cards;
  for (const PodRun& p : on_mig.state.pods) {
    if (p.node < 0) continue;
    REQUIRE(p.cards.size() == 1);
    cards.push_back(p.cards[0]);
    CHECK(on_mig.state.cluster.cards[p.cards[0]].gpu->name == "H100 MIG 1g.10gb");
    CHECK(p.quota_mib == on_mig.state.cluster.cards[p.cards[0]].gpu->memory_mib);
  }
  CHECK(cards == std::vector<int32_t>{1, 2});  // two instances: the third pod waits

  // DynamicMIG: the card whole (slot 0), then its placements; two 3g.40gb pods take the card's
  // two 3g placements (memory slices 0-3 and 4-7), so a whole-card pod finds it taken.
  Scenario dynamic = OneDraCard();
  dynamic.node_pools[0].dra.dynamic_mig = true;
  AddMigInstanceTypes(dynamic);
  Workload mid = DraService("mid", 2);
  mid.dra.mig_profile = "3g.40gb";
  dynamic.workloads.push_back(mid);
  Workload whole = DraService("whole", 1);
  dynamic.workloads.push_back(whole);
  Simulator on_parts(dynamic, 1, RunOptions{});
  PlacePods(on_parts);
  std::vector<std::string> placed;
  for (const PodRun& p : on_parts.state.pods) {
    placed.push_back(p.name + (p.cards.empty()
                                   ? std::string(" pending")
                                   : " on " + on_parts.state.cluster.cards[p.cards[0]].gpu->name));
  }
  CHECK(placed == std::vector<std::string>{"mid-0 on H100 MIG 3g.40gb", "mid-1 on H100 MIG 3g.40gb",
                                           "whole-0 pending"});
}

TEST_CASE("replacement: a Deployment's is a new name, a StatefulSet's keeps the old one") {
  Scenario scenario = OneNode();
  scenario.workloads.push_back(Service("web", "Deployment"));
  scenario.workloads.push_back(Service("db", "StatefulSet"));
  Simulator sim(scenario, 1, RunOptions{});
  PlacePods(sim);
  REQUIRE(sim.state.pods.size() == 2);
  CHECK(sim.state.pods[0].name == "web-0");
  CHECK(sim.state.pending.empty());
  CreateReplacement(sim, 0);
  CreateReplacement(sim, 0);
  CreateReplacement(sim, 1);
  REQUIRE(sim.state.pods.size() == 5);
  CHECK(sim.state.pods[2].name == "web-r1");
  CHECK(sim.state.pods[3].name == "web-r2");
  CHECK(sim.state.pods[4].name == "db-0");
  CHECK(sim.state.pods[4].replica == 0);
  CHECK(sim.state.pods[4].node == -1);  // Pending until the scheduler places it
  CHECK(sim.state.pending == std::vector<int32_t>{2, 3, 4});
}

TEST_CASE(
    "placement: the scheduler samples nodes as kube-scheduler, all of them for paper policies") {
  struct Case {
    const char* name;
    std::string default_placement;
    std::optional<int> setting;
    int want;
  };
  const Case cases[] = {
      {"ACK's placement: upstream's adaptive default", "binpack", std::nullopt, 0},
      {"an explicit setting wins", "binpack", 30, 30},
      {"the FGD paper's simulator scores every node", "fgd", std::nullopt, 100},
      {"a paper policy with an explicit setting takes the setting", "fgd", 50, 50},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Scenario scenario = OneNode();
    scenario.cluster.default_placement = c.default_placement;
    scenario.cluster.percentage_of_nodes_to_score = c.setting;
    scenario.workloads.push_back(Service("web", "Deployment"));
    Simulator sim(scenario, 1, RunOptions{});
    PlacePods(sim);
    CHECK(sim.state.scheduler->config().percentage_of_nodes_to_score == c.want);
  }
}

TEST_CASE(
    "placement: a StatefulSet replica goes where its zonal volume is, when kube: has claims") {
  Scenario scenario = OneNode();
  scenario.node_pools[0].count = 3;
  scenario.node_pools[0].zones = {"zone-a", "zone-b", "zone-c"};
  Workload db = Service("db", "StatefulSet");
  scenario.workloads.push_back(db);
  StatefulSetSpec set;
  set.name = "db";
  set.replicas = 1;
  set.volume_claim_templates = {"data"};
  scenario.kube.stateful_sets.push_back(set);
  PersistentVolumeClaimSpec claim;
  claim.name = "data-db-0";
  claim.volume_name = "pv-c";
  claim.phase = "Bound";
  PersistentVolumeSpec pv;
  pv.name = "pv-c";
  pv.labels = {{"topology.kubernetes.io/zone", "zone-c"}};
  pv.phase = "Bound";
  SUBCASE("with the claim: the volume's zone") {
    scenario.kube.pvcs.push_back(claim);
    scenario.kube.pvs.push_back(pv);
    Simulator sim(scenario, 1, RunOptions{});
    PlacePods(sim);
    CHECK(sim.state.pods[0].node == 2);
  }
  SUBCASE("without claims in kube: the claims are not checked") {
    Simulator sim(scenario, 1, RunOptions{});
    PlacePods(sim);
    CHECK(sim.state.pods[0].node == 0);
  }
}

TEST_CASE("image pulls: the cache spares a pull, a missing image backs off, a size sets the time") {
  Scenario scenario = OneNode();
  Workload w = Service("web", "Deployment");
  w.images = {"registry/web:1"};
  w.image_size_mib = 600;
  scenario.workloads.push_back(w);
  CHECK(ImagesOf(scenario.workloads[0]) == std::vector<std::string>{"registry/web:1"});
  CHECK(ImagesOf(Service("bare", "Pod")) == std::vector<std::string>{"(image of default/bare)"});

  SUBCASE("a scenario pod holds its image at t = 0") {
    Simulator sim(scenario, 1, RunOptions{});
    PlacePods(sim);
    CHECK(sim.state.nodes[0].images == std::vector<std::string>{"registry/web:1"});
  }
  SUBCASE("a missing image ends in ImagePullBackOff") {
    RunOptions options;
    options.missing_images = {"registry/web:1"};
    Simulator sim(scenario, 1, options);
    PlacePods(sim);
    sim.state.nodes[0].images.clear();  // the node lost its cache (a reset)
    StartOnNode(sim, 0);
    CHECK(sim.state.pods[0].phase == PodPhase::kImagePullBackOff);
    CHECK(sim.state.pods[0].message.find("manifest unknown") != std::string::npos);
  }
  SUBCASE("600 MiB at 60 MiB/s is a 10 s pull") {
    Simulator sim(scenario, 1, RunOptions{});
    PlacePods(sim);
    sim.state.queue.Clear();
    sim.state.nodes[0].images.clear();
    sim.state.now = 5 * kNanosPerSecond;
    StartOnNode(sim, 0);
    CHECK(sim.state.pods[0].phase == PodPhase::kPulling);
    REQUIRE(sim.state.queue.size() == 1);
    CHECK(sim.state.queue.top().kind == kContainerStart);
    CHECK(sim.state.queue.top().time == 15 * kNanosPerSecond);
    // Cached now: the next start on this node pulls nothing.
    MarkImagesCached(sim.state, 0);
    StartOnNode(sim, 0);
    CHECK(sim.state.queue.size() == 2);
    CHECK(sim.state.queue.top().time == 5 * kNanosPerSecond);
  }
}

}  // namespace
}  // namespace knobsim::engine
