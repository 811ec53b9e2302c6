// The cluster-autoscaler (node_autoscaling.h) on small clusters, against timelines worked out
// by hand from its rules: loops every scan interval from t = 0, new nodes Ready after the
// provisioning delay, removal after the unneeded time, the bounds of the pool.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/engine/simulator.h"

namespace knobsim::engine {
namespace {

constexpr SimTime kS = kNanosPerSecond;

// A CPU pool of 4-cpu nodes autoscaled in [min, max], a fixed 120 s provisioning delay.
Scenario Cluster(int count, int min, int max, SimTime duration) {
  Scenario s;
  s.name = "autoscaler";
  NodePool pool;
  pool.name = "cpu";
  pool.count = count;
  pool.cpu_milli = 4000;
  pool.memory_mib = 16 * 1024;
  PoolAutoscaling a;
  a.min = min;
  a.max = max;
  a.provisioning_min = a.provisioning_max = 120 * kS;
  pool.autoscaling = a;
  s.node_pools.push_back(pool);
  s.run.duration = duration;
  s.run.warmup = 0;
  return s;
}

Workload Batch(const std::string& name, int replicas, int64_t cpu_milli) {
  Workload w;
  w.name = name;
  w.replicas = replicas;
  w.cpu_milli = cpu_milli;
  w.memory_mib = 1024;
  w.gpu_mem = 0;
  w.memory.context_mib = 0;
  return w;
}

struct Seen {
  SimTime at;
  std::string kind;
  std::string what;  // pod or node
  std::string message;
};

std::vector<Seen> EventsOf(const RunResult& r, const std::string& kind) {
  std::vector<Seen> out;
  for (const ClusterEvent& e : r.cluster.events)
    if (e.kind == kind) out.push_back({e.time, e.kind, e.pod, e.message});
  return out;
}

// A DaemonSet's pod takes 1.5 cpu on every node, new ones included. Node cpu-0 holds the agent
// and one 2-cpu job (3.5 of 4); the template node likewise fits the agent and one job, so the
// two waiting jobs need two new nodes (without the DaemonSet one node would hold both). Each new
// node gets its agent when it joins.
TEST_CASE("cluster-autoscaler: the template node holds the DaemonSet pods; new nodes get theirs") {
  Scenario s = Cluster(1, 1, 5, 600 * kS);
  Workload agent = Batch("agent", 1, 1500);
  agent.kind = "DaemonSet";
  s.workloads.push_back(agent);
  s.workloads.push_back(Batch("job", 3, 2000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> up = EventsOf(r, "TriggeredScaleUp");
  REQUIRE(!up.empty());
  CHECK(up.front().message == "pod triggered scale-up: [{cpu 1->3 (max: 5)}]");
  std::vector<std::string> agents;
  int running = 0;
  for (const PodResult& p : r.pods) {
    running += p.state != "Pending";
    if (p.workload == "agent") agents.push_back(p.name + "@" + p.node);
  }
  CHECK(agents ==
        std::vector<std::string>{"agent-cpu-0@cpu-0", "agent-cpu-1@cpu-1", "agent-cpu-2@cpu-2"});
  CHECK(running == 6);
  // Without the DaemonSet both waiting jobs share one new node.
  Scenario plain = Cluster(1, 1, 5, 600 * kS);
  plain.workloads.push_back(Batch("job", 3, 2000));
  Simulator without(plain, 1, RunOptions{});
  CHECK(EventsOf(without.Run(), "TriggeredScaleUp").front().message ==
        "pod triggered scale-up: [{cpu 1->2 (max: 5)}]");
}

TEST_CASE("cluster-autoscaler: pods pending at t = 0 get nodes at the first loop, Ready 120 s on") {
  // One 4-cpu node, three 3-cpu pods: one fits, two wait. The loop at t = 0 packs them onto
  // new template nodes (one each: 3 + 3 > 4), so the pool goes 1 -> 3; both nodes are Ready at
  // 120 s and the scheduler places the pods then.
  Scenario s = Cluster(1, 1, 5, 600 * kS);
  s.workloads.push_back(Batch("job", 3, 3000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> up = EventsOf(r, "TriggeredScaleUp");
  REQUIRE(up.size() == 2);
  for (const Seen& e : up) {
    CHECK(e.at == 0);
    CHECK(e.message == "pod triggered scale-up: [{cpu 1->3 (max: 5)}]");
  }
  const std::vector<Seen> ready = EventsOf(r, "NodeReady");
  REQUIRE(ready.size() == 2);
  for (const Seen& e : ready) CHECK(e.at == 120 * kS);
  int running = 0;
  for (const PodResult& p : r.pods) running += p.state != "Pending";
  CHECK(running == 3);
  REQUIRE(r.pools.size() == 1);
  CHECK(r.pools[0].autoscaled);
  CHECK(r.pools[0].nodes_start == 1);
  CHECK(r.pools[0].nodes_end == 3);
  CHECK(r.pools[0].nodes_added == 2);
  // Billed from the scale-up: 3 nodes for the whole 600 s.
  CHECK(r.pools[0].node_hours == doctest::Approx(3 * 600.0 / 3600));
  // The empty pool never shrinks below 3 here: every node holds a 3-cpu pod (0.75 > 0.5).
  CHECK(r.pools[0].nodes_removed == 0);
}

TEST_CASE("cluster-autoscaler: the pool's max caps the scale-up, the rest hear why") {
  Scenario s = Cluster(1, 1, 3, 300 * kS);
  s.workloads.push_back(Batch("job", 5, 3000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> up = EventsOf(r, "TriggeredScaleUp");
  REQUIRE(up.size() == 2);
  CHECK(up[0].message == "pod triggered scale-up: [{cpu 1->3 (max: 3)}]");
  const std::vector<Seen> not_up = EventsOf(r, "NotTriggerScaleUp");
  REQUIRE(not_up.size() == 2);  // once each: the message does not change afterwards
  for (const Seen& e : not_up)
    CHECK(e.message == "pod didn't trigger scale-up: 1 max node group size reached");
  CHECK(r.pools[0].nodes_end == 3);
}

TEST_CASE("cluster-autoscaler: a pod no template node can hold triggers nothing, said") {
  Scenario s = Cluster(1, 1, 3, 60 * kS);
  s.workloads.push_back(Batch("huge", 1, 8000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  CHECK(EventsOf(r, "TriggeredScaleUp").empty());
  const std::vector<Seen> not_up = EventsOf(r, "NotTriggerScaleUp");
  REQUIRE(not_up.size() == 1);
  CHECK(not_up[0].message == "pod didn't trigger scale-up: 1 Insufficient cpu");
  CHECK(r.pools[0].nodes_added == 0);
}

TEST_CASE("cluster-autoscaler: empty nodes go after the unneeded time, down to the minimum") {
  // Three nodes, one 3-cpu pod: two nodes are empty from the loop at t = 0 and unneeded since
  // then; at the loop of t = 600 s they have been unneeded 10 minutes and both go (empty nodes
  // in bulk). The pod's node is 75 % requested and stays.
  Scenario s = Cluster(3, 1, 3, 1200 * kS);
  s.workloads.push_back(Batch("job", 1, 3000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  std::vector<Seen> down = EventsOf(r, "ScaleDown");
  REQUIRE(down.size() == 4);  // marked, then removed, for each node
  for (const Seen& e : down) CHECK(e.at == 600 * kS);
  CHECK(r.pools[0].nodes_end == 1);
  CHECK(r.pools[0].nodes_min == 1);
  CHECK(r.pools[0].nodes_removed == 2);
  CHECK(r.pools[0].node_hours == doctest::Approx((3 * 600.0 + 1 * 600.0) / 3600));
  CHECK(r.pools[0].nodes_mean == doctest::Approx(2.0));

  SUBCASE("the minimum holds: min 2 keeps one empty node") {
    Scenario kept = Cluster(3, 2, 3, 1200 * kS);
    kept.workloads.push_back(Batch("job", 1, 3000));
    Simulator run(kept, 1, RunOptions{});
    const RunResult k = run.Run();
    CHECK(k.pools[0].nodes_end == 2);
    CHECK(k.pools[0].nodes_removed == 1);
  }
  SUBCASE("a shorter unneeded time removes them sooner, at the first loop past it") {
    Scenario quick = Cluster(3, 1, 3, 1200 * kS);
    quick.cluster.cluster_autoscaler.unneeded_time = 95 * kS;
    quick.workloads.push_back(Batch("job", 1, 3000));
    Simulator run(quick, 1, RunOptions{});
    const RunResult q = run.Run();
    const std::vector<Seen> marks = EventsOf(q, "ScaleDown");
    REQUIRE(!marks.empty());
    CHECK(marks[0].at == 100 * kS);  // loops at 0, 10, ..., 100 s
  }
  SUBCASE("scale-down disabled keeps every node") {
    Scenario off = Cluster(3, 1, 3, 1200 * kS);
    off.cluster.cluster_autoscaler.scale_down = false;
    off.workloads.push_back(Batch("job", 1, 3000));
    Simulator run(off, 1, RunOptions{});
    CHECK(run.Run().pools[0].nodes_end == 3);
  }
}

TEST_CASE("cluster-autoscaler: a drained node's pods move, one non-empty node at a time") {
  // Two nodes with one 1.5-cpu pod each (37.5 %): both unneeded, each pod fits on the other
  // node. At 600 s the first goes: its pod is deleted and its replacement lands on the other
  // node, now 75 % requested, so it stays.
  Scenario s = Cluster(2, 1, 2, 1200 * kS);
  s.workloads.push_back(Batch("web", 2, 1500));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> down = EventsOf(r, "ScaleDown");
  REQUIRE(down.size() == 3);  // the node marked, its pod deleted, the node removed
  CHECK(down[0].at == 600 * kS);
  CHECK(down[0].message.find("marked the node as toBeDeleted/unschedulable") != std::string::npos);
  CHECK(down[1].message == "deleting pod for node scale down");
  CHECK(r.pools[0].nodes_end == 1);
  int running = 0;
  for (const PodResult& p : r.pods) running += p.state == "Running" || p.state == "Starting";
  CHECK(running == 2);

  SUBCASE("a disruption budget that allows no eviction keeps the node; one that allows it not") {
    for (const bool tight : {true, false}) {
      CAPTURE(tight);
      Scenario budgeted = Cluster(2, 1, 2, 1200 * kS);
      budgeted.workloads.push_back(Batch("web", 2, 1500));
      budgeted.workloads[0].labels = {{"app", "web"}};
      PodDisruptionBudgetSpec pdb;
      pdb.name = "web";
      pdb.selector = LabelSelector{{{"app", "web"}}, {}};
      if (tight) {
        pdb.min_available = IntOrPercent{2, false};  // 2 Ready of 2: 0 disruptions allowed
      } else {
        pdb.max_unavailable = IntOrPercent{1, false};
      }
      budgeted.kube.pdbs.push_back(pdb);
      Simulator run(budgeted, 1, RunOptions{});
      CHECK(run.Run().pools[0].nodes_end == (tight ? 2 : 1));
    }
  }
  SUBCASE("a pod without a controller blocks the removal") {
    Scenario bare = Cluster(2, 1, 2, 1200 * kS);
    bare.workloads.push_back(Batch("web", 2, 1500));
    bare.workloads[0].kind = "Pod";
    bare.workloads[0].replicas = 1;
    bare.workloads.push_back(Batch("other", 1, 1500));
    bare.workloads[1].kind = "Pod";
    Simulator run(bare, 1, RunOptions{});
    CHECK(run.Run().pools[0].nodes_end == 2);
  }
}

TEST_CASE("cluster-autoscaler: the removals of one loop are simulated together") {
  // cpu-0 holds a 1.5-cpu pod (37.5 %), cpu-1 is empty, cpu-2 holds a 3-cpu pod (75 %). Checked
  // alone, cpu-0 is unneeded: its pod would fit on the empty cpu-1. But cpu-1 goes in the same
  // loop (at 600 s, empty nodes first), and then the pod fits nowhere (3 + 1.5 > 4 on cpu-2): so
  // only cpu-1 goes, and no pod is left Pending for a new scale-up.
  Scenario s = Cluster(3, 1, 3, 1800 * kS);
  Workload small = Batch("small", 1, 1500);
  small.pods = {CurrentPod{"small-0", "cpu-0", {}, true, -1}};
  Workload big = Batch("big", 1, 3000);
  big.pods = {CurrentPod{"big-0", "cpu-2", {}, true, -1}};
  s.workloads = {small, big};
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> down = EventsOf(r, "ScaleDown");
  REQUIRE(down.size() == 2);  // cpu-1 marked, then removed
  for (const Seen& e : down) {
    CHECK(e.at == 600 * kS);
    CHECK(e.message.rfind("node cpu-1 ", 0) == 0);
  }
  CHECK(EventsOf(r, "TriggeredScaleUp").empty());
  CHECK(r.pools[0].nodes_end == 2);
  CHECK(r.pools[0].nodes_removed == 1);
  CHECK(r.cluster.pending_pods == 0);
  for (const PodResult& p : r.pods) CHECK(p.node == (p.workload == "small" ? "cpu-0" : "cpu-2"));
}

// A spot pool in the autoscaler: a second pool `name`, autoscaled in [min, max] from `count`.
NodePool SpotPool(const std::string& name, int count, int min, int max, double per_node_hour) {
  NodePool pool = Cluster(count, min, max, 0).node_pools[0];
  pool.name = name;
  pool.spot.per_node_hour = per_node_hour;
  return pool;
}

TEST_CASE(
    "spot, autoscaled: the notice drains the node, the autoscaler replaces it, the release "
    "takes it") {
  // One spot node (no protection: it was there at t = 0) holding a 3-cpu job. At the notice t
  // the node is cordoned and the job deleted; its replacement fits nowhere, so the first loop
  // after t scales the pool 1 -> 2 and the new node is Ready 120 s later. At t + 300 s the
  // provider releases the old node, empty by then: the pool is back to 1 node. The new node is
  // in its one-hour protection until the run ends, so nothing else is reclaimed.
  Scenario s = Cluster(1, 1, 2, 3600 * kS);
  s.node_pools[0] = SpotPool("cpu", 1, 1, 2, 6.0);  // a reclaim every 10 minutes on average
  s.workloads.push_back(Batch("job", 1, 3000));
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> notice = EventsOf(r, "SpotInterruption");
  REQUIRE(notice.size() == 1);
  const SimTime t = notice[0].at;
  REQUIRE(t < 3000 * kS);
  CHECK(notice[0].message.find("cordoned and drained (1 pod(s) deleted)") != std::string::npos);
  const std::vector<Seen> up = EventsOf(r, "TriggeredScaleUp");
  REQUIRE(up.size() == 1);
  const SimTime loop = (t / (10 * kS) + 1) * 10 * kS;  // the first loop after t
  CHECK(up[0].at == loop);
  CHECK(up[0].message == "pod triggered scale-up: [{cpu 1->2 (max: 2)}]");
  const std::vector<Seen> ready = EventsOf(r, "NodeReady");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].at == loop + 120 * kS);
  const std::vector<Seen> gone = EventsOf(r, "SpotReclaim");
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].at == t + 300 * kS);
  CHECK(gone[0].message == "node cpu-0 released by the provider; it held no pods");
  const PoolResult& pool = r.pools[0];
  CHECK(pool.spot);
  CHECK(pool.nodes_reclaimed == 1);
  CHECK(pool.nodes_end == 1);
  CHECK(pool.nodes_max == 2);
  // Billed: one node all along, a second from the scale-up to the release.
  CHECK(pool.node_hours ==
        doctest::Approx((3600.0 + static_cast<double>(t + 300 * kS - loop) / kS) / 3600));
  int running = 0;
  for (const PodResult& p : r.pods) running += p.state == "Running" && p.node == "cpu-1";
  CHECK(running == 1);
}

// Two autoscaled pools from empty: `spot` (priority 20) always out of stock, `od` (priority 10).
Scenario Fallback(bool compensate) {
  Scenario s = Cluster(0, 0, 2, 1800 * kS);
  s.node_pools[0] = SpotPool("spot", 0, 0, 2, 1e-9);
  s.node_pools[0].autoscaling->priority = 20;
  s.node_pools[0].spot.stockout = 1;
  s.node_pools[0].spot.compensate_with_on_demand = compensate;
  NodePool od = Cluster(0, 0, 2, 0).node_pools[0];
  od.name = "od";
  od.autoscaling->priority = 10;
  s.node_pools.push_back(od);
  s.cluster.cluster_autoscaler.expander = "priority";
  s.workloads.push_back(Batch("job", 1, 3000));
  return s;
}

TEST_CASE(
    "spot stock-out: the scale-up times out after 15 minutes, the pool backs off, the "
    "expander falls back to the on-demand pool") {
  // t = 0: the priority expander picks `spot`; no instance can be created, so the node never
  // registers and the pod waits for it (upstream counts it upcoming). At 900 s the autoscaler
  // gives up on it (ScaleUpTimedOut) and backs `spot` off for 5 minutes; the loop at 900 s then
  // takes `od`, whose node is Ready at 1020 s.
  const Scenario s = Fallback(false);
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> stockout = EventsOf(r, "SpotStockout");
  REQUIRE(stockout.size() == 1);
  CHECK(stockout[0].at == 0);
  const std::vector<Seen> timed_out = EventsOf(r, "ScaleUpTimedOut");
  REQUIRE(timed_out.size() == 1);
  CHECK(timed_out[0].at == 900 * kS);
  CHECK(timed_out[0].message ==
        "node spot-0 did not register within 900 s (nodes added to group spot failed to "
        "register); the group is backed off for 300 s");
  const std::vector<Seen> up = EventsOf(r, "TriggeredScaleUp");
  REQUIRE(up.size() == 2);
  CHECK(up[0].at == 0);
  CHECK(up[0].message == "pod triggered scale-up: [{spot 0->1 (max: 2)}]");
  CHECK(up[1].at == 900 * kS);
  CHECK(up[1].message == "pod triggered scale-up: [{od 0->1 (max: 2)}]");
  const std::vector<Seen> ready = EventsOf(r, "NodeReady");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].at == 1020 * kS);
  CHECK(r.pools[0].failed_scale_ups == 1);
  CHECK(r.pools[0].node_hours == 0);  // no instance, no bill
  CHECK(r.pools[0].nodes_end == 0);
  CHECK(r.pools[1].node_hours == doctest::Approx(900.0 / 3600));
  CHECK(r.pods[0].node == "od-0");
}

TEST_CASE(
    "spot stock-out with compensate_with_on_demand: a pay-as-you-go node, billed on-demand, "
    "never reclaimed") {
  Scenario s = Fallback(true);
  s.node_pools[0].spot.per_node_hour = 60;  // a reclaim a minute, were it a spot instance
  s.node_pools[0].spot.protection = 0;
  Simulator sim(s, 1, RunOptions{});
  const RunResult r = sim.Run();
  const std::vector<Seen> stockout = EventsOf(r, "SpotStockout");
  REQUIRE(stockout.size() == 1);
  CHECK(stockout[0].message.find("a pay-as-you-go instance is created instead") !=
        std::string::npos);
  CHECK(EventsOf(r, "SpotInterruption").empty());
  CHECK(EventsOf(r, "ScaleUpTimedOut").empty());
  REQUIRE(EventsOf(r, "NodeReady").size() == 1);
  CHECK(EventsOf(r, "NodeReady")[0].at == 120 * kS);
  CHECK(r.pods[0].node == "spot-0");
  CHECK(r.pools[0].node_hours == doctest::Approx(0.5));
  CHECK(r.pools[0].on_demand_node_hours == doctest::Approx(0.5));
  CHECK(r.pools[1].node_hours == 0);
}

}  // namespace
}  // namespace knobsim::engine
