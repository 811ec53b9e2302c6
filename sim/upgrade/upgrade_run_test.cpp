#include "sim/upgrade/upgrade_run.h"

#include <doctest/doctest.h>

#include "sim/io/scenario_reader.h"

namespace knobsim {
namespace {

// The error's text, or "" when there is none: doctest evaluates a message even on success
// (with -s), where error() would throw.
template <class T>
std::string Why(const Expected<T>& e) {
  return e.ok() ? std::string() : e.error().ToString();
}

constexpr SimTime kS = kNanosPerSecond;

// Two A10 nodes with broken isolation (soft) and one service whose 4 GiB quota is far below
// its 8 GiB model behind a port-only probe: the cGPU upgrade story in miniature.
constexpr const char* kOverQuota = R"(
name: mini-upgrade
node_pools:
  - name: gpu
    nodes: [gpu-0, gpu-1]
    gpu: A10
    gpus_per_node: 1
    cpu: 16
    memory: 64Gi
    zones: [z-a, z-b]
    labels: {ack.node.gpu.schedule: cgpu}
    memory_isolation: soft
    cgpu_version: "1.5.2"
workloads:
  - name: ocr
    namespace: ai
    replicas: 2
    cpu: 1
    memory: 2Gi
    gpu_mem: 4
    gpu_memory: {weights: 8Gi, activation: 256Mi}
    startup: {image_pull: 5s, model_load: 10s}
    probe: tcp
    traffic: {rate: 5/s}
    work: {dist: exponential, mean: 20ms}
    pods:
      - {name: ocr-0, node: gpu-0}
      - {name: ocr-1, node: gpu-1}
run: {duration: 10m, warmup: 1m, seed: 3}
)";

Scenario Mini() {
  Expected<Scenario> s = ReadScenarioString(kOverQuota, "mini.yaml");
  REQUIRE_MESSAGE(s.ok(), Why(s));
  return *s;
}

UpgradeOptions Options() {
  UpgradeOptions o;
  o.reset_time = 120 * kS;
  o.tail = 120 * kS;
  o.after.isolation = MemoryIsolation::kHard;
  o.after.cgpu_version = "1.5.10";
  return o;
}

const WorkloadResult& Ocr(const RunResult& r) {
  REQUIRE(r.workloads.size() == 1);
  return r.workloads[0];
}

}  // namespace

TEST_CASE("an upgrade run upgrades every node and ends the tail after the last one is back") {
  Expected<UpgradeRun> r = RunUpgrade(Mini(), Options(), RunOptions{}, 7, false);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  CHECK(r->name == "upgrade-first");
  CHECK(r->quota_fixes.empty());
  const UpgradeTimeline& t = r->upgrade;
  REQUIRE(t.nodes.size() == 2);
  CHECK(t.started == 60 * kS);
  for (const NodeUpgrade& n : t.nodes) {
    CAPTURE(n.node);
    CHECK(n.outcome == "upgraded");
    CHECK(n.drained >= n.cordoned);
    CHECK(n.back == n.drained + 120 * kS);
  }
  CHECK(t.nodes[0].node == "gpu-0");
  CHECK(t.nodes[1].cordoned == t.nodes[0].back);  // one node at a time
  REQUIRE(t.finished > 0);
  CHECK(r->run.end == t.finished + 120 * kS);
  CHECK(r->run.timeline.step == 60 * kS);
}

TEST_CASE(
    "by default the upgrade starts once the cluster is up: the warm-up, or the longest start-up") {
  Scenario s = Mini();
  s.run.warmup = 0;
  s.workloads[0].image_pull = 30 * kS;
  s.workloads[0].model_load = 45 * kS;
  Expected<UpgradeRun> r = RunUpgrade(s, Options(), RunOptions{}, 7, false);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  CHECK(r->upgrade.started == 75 * kS);
  UpgradeOptions at = Options();
  at.start = 10 * kS;  // an explicit --start is taken as given
  r = RunUpgrade(s, at, RunOptions{}, 7, false);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  CHECK(r->upgrade.started == 10 * kS);
}

TEST_CASE(
    "upgrade-first turns the over-quota service fake Ready once isolation is on; "
    "fix-quotas-first does not") {
  Expected<std::vector<UpgradeRun>> runs = RunUpgradeComparison(Mini(), Options(), RunOptions{}, 7);
  REQUIRE_MESSAGE(runs.ok(), Why(runs));
  REQUIRE(runs->size() == 2);
  const UpgradeRun& first = (*runs)[0];
  const UpgradeRun& fixed = (*runs)[1];
  CHECK(first.name == "upgrade-first");
  CHECK(fixed.name == "fix-quotas-first");
  REQUIRE(fixed.quota_fixes.size() == 1);
  CHECK(fixed.quota_fixes[0].to_units == 10);
  const ErrorCounts& e1 = Ocr(first.run).errors;
  const ErrorCounts& e2 = Ocr(fixed.run).errors;
  INFO("upgrade-first oom " << e1.oom << " fake_ready " << e1.fake_ready
                            << "; fix-quotas-first oom " << e2.oom << " fake_ready "
                            << e2.fake_ready);
  CHECK(e1.oom + e1.fake_ready > 0);
  CHECK(e2.oom == 0);
  CHECK(e2.fake_ready == 0);
  for (const UpgradeRun* u : {&first, &fixed})
    for (const NodeUpgrade& n : u->upgrade.nodes) CHECK(n.outcome == "upgraded");
  // The first fake-Ready error comes after the first node is back with isolation on.
  const WorkloadTimeline& wt = first.run.timeline.workloads.at(0);
  SimTime first_error = -1;
  for (const TimelinePoint& p : wt.points)
    if (first_error < 0 && p.errors.oom + p.errors.fake_ready > 0) first_error = p.start;
  REQUIRE(first_error >= 0);
  CHECK(first_error + first.run.timeline.step > first.upgrade.nodes[0].back);
}

TEST_CASE("the comparison is the two single runs, whatever runs in parallel") {
  const Scenario s = Mini();
  Expected<std::vector<UpgradeRun>> both = RunUpgradeComparison(s, Options(), RunOptions{}, 11);
  Expected<UpgradeRun> alone = RunUpgrade(s, Options(), RunOptions{}, 11, true);
  REQUIRE(both.ok());
  REQUIRE(alone.ok());
  const UpgradeRun& a = (*both)[1];
  const UpgradeRun& b = *alone;
  CHECK(a.run.end == b.run.end);
  CHECK(a.run.events_processed == b.run.events_processed);
  CHECK(Ocr(a.run).completed == Ocr(b.run).completed);
  CHECK(Ocr(a.run).errors.total() == Ocr(b.run).errors.total());
  REQUIRE(a.upgrade.nodes.size() == b.upgrade.nodes.size());
  for (size_t i = 0; i < a.upgrade.nodes.size(); ++i) {
    CHECK(a.upgrade.nodes[i].steps.size() == b.upgrade.nodes[i].steps.size());
    CHECK(a.upgrade.nodes[i].back == b.upgrade.nodes[i].back);
  }
}

TEST_CASE("an upgrade run passes the plan's input errors through") {
  UpgradeOptions o = Options();
  o.order = UpgradeOrder::kNodeList;
  o.nodes = {"gpu-9"};
  Expected<UpgradeRun> r = RunUpgrade(Mini(), o, RunOptions{}, 7, false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().path == "--nodes");
  Expected<std::vector<UpgradeRun>> c = RunUpgradeComparison(Mini(), o, RunOptions{}, 7);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "unknown node \"gpu-9\"");
}

}  // namespace knobsim

namespace knobsim {
namespace {

std::string RepositoryRoot() {
  const std::string here = __FILE__;
  const size_t at = here.rfind("sim/upgrade/");
  return at == std::string::npos ? std::string() : here.substr(0, at);
}

}  // namespace

const NodeUpgrade& NodeNamed(const UpgradeTimeline& t, const std::string& name) {
  for (const NodeUpgrade& n : t.nodes)
    if (n.node == name) return n;
  FAIL("no node " << name);
  return t.nodes.front();
}

const NodeStep* StepFor(const NodeUpgrade& n, const std::string& what, const std::string& pod) {
  for (const NodeStep& s : n.steps)
    if (s.what == what && s.pod == pod) return &s;
  return nullptr;
}

TEST_CASE(
    "cgpu-upgrade: with etcd-1 unready, the Ready member's node waits on 429 and etcd-1's "
    "node drains at once; drains go on once every member is Ready; fix-quotas-first has no "
    "OOM or fake-Ready error and upgrade-first has") {
  Expected<Scenario> s = ReadScenarioFile(RepositoryRoot() + "scenarios/cgpu-upgrade.yaml");
  REQUIRE_MESSAGE(s.ok(), Why(s));
  UpgradeOptions o;
  o.after.isolation = MemoryIsolation::kHard;
  Expected<std::vector<UpgradeRun>> runs = RunUpgradeComparison(*s, o, RunOptions{}, 8);
  REQUIRE_MESSAGE(runs.ok(), Why(runs));
  for (const UpgradeRun& r : *runs) {
    CAPTURE(r.name);
    const UpgradeTimeline& t = r.upgrade;
    std::string log;  // the node timeline, shown when a check fails
    for (const NodeUpgrade& n : t.nodes) {
      log += "\n" + n.node + " " + n.outcome + " attempts " + std::to_string(n.attempts);
      for (const NodeStep& st : n.steps)
        log +=
            "\n  " + std::to_string(st.at / kS) + "s " + st.what + " " + st.pod + " " + st.detail;
    }
    INFO(log);
    // The first node hosts Ready etcd-0 while etcd-1 is unready: 2 healthy of 2 needed.
    const NodeUpgrade& a = NodeNamed(t, "cn-hangzhou.10.0.1.11");
    const NodeStep* refused = StepFor(a, "eviction-refused", "infra/etcd-0");
    REQUIRE(refused != nullptr);
    CHECK(refused->at == t.started);
    CHECK(refused->detail == "The disruption budget etcd needs 2 healthy pods and has 2 currently");
    // Its drain times out (10 min) and the node goes to the end of the queue.
    CHECK(a.attempts == 2);
    CHECK(StepFor(a, "drain-timeout", "")->at == t.started + o.drain_timeout);
    // The node hosting unready etcd-1 drains at once, without a refusal.
    const NodeUpgrade& c = NodeNamed(t, "cn-hangzhou.10.0.2.21");
    const NodeStep* deleted = StepFor(c, "deleted", "infra/etcd-1");
    REQUIRE(deleted != nullptr);
    CHECK(deleted->at == c.cordoned);
    CHECK(deleted->detail.find("IfHealthyBudget") != std::string::npos);
    CHECK(c.refusals == 0);
    // With etcd-1's replacement Ready, etcd-2 and then etcd-0 are evicted on the first try.
    const NodeUpgrade& d = NodeNamed(t, "cn-hangzhou.10.0.2.22");
    CHECK(StepFor(d, "evicted", "infra/etcd-2") != nullptr);
    CHECK(d.refusals == 0);
    const NodeStep* evicted = StepFor(a, "evicted", "infra/etcd-0");
    REQUIRE(evicted != nullptr);
    CHECK(evicted->detail == "evicted: budget etcd allowed 1 disruption");
    for (const NodeUpgrade& n : t.nodes) CHECK(n.outcome == "upgraded");
    REQUIRE(t.finished > 0);
    CHECK(r.run.end == t.finished + o.tail);
  }
  const ErrorCounts& first = (*runs)[0].run.workloads.at(0).errors;  // ocr
  const ErrorCounts& fixed = (*runs)[1].run.workloads.at(0).errors;
  CHECK((*runs)[0].run.workloads.at(0).name == "ocr");
  INFO("ocr upgrade-first oom " << first.oom << " fake_ready " << first.fake_ready
                                << "; fix-quotas-first oom " << fixed.oom << " fake_ready "
                                << fixed.fake_ready);
  CHECK(first.oom + first.fake_ready > 0);
  for (const WorkloadResult& w : (*runs)[1].run.workloads) {
    CAPTURE(w.name);
    CHECK(w.errors.oom == 0);
    CHECK(w.errors.fake_ready == 0);
  }
}

TEST_CASE(
    "cgpu-upgrade: asr, whose tag the registry deleted, ends in ImagePullBackOff after its "
    "node's reset") {
  Expected<Scenario> s = ReadScenarioFile(RepositoryRoot() + "scenarios/cgpu-upgrade.yaml");
  REQUIRE_MESSAGE(s.ok(), Why(s));
  RunOptions run;
  run.missing_images = {"registry-vpc.cn-hangzhou.aliyuncs.com/acme-ai/asr:v2.3.1"};
  Expected<UpgradeRun> r = RunUpgrade(*s, UpgradeOptions{}, run, 8, true);
  REQUIRE_MESSAGE(r.ok(), Why(r));
  int asr_pods = 0;
  for (const PodResult& p : r->run.pods) {
    if (p.workload != "asr") continue;
    ++asr_pods;
    CHECK(p.state == "ImagePullBackOff");
  }
  CHECK(asr_pods == 1);
  for (const NodeUpgrade& n : r->upgrade.nodes) CHECK(n.outcome == "upgraded");
}

}  // namespace knobsim
