#include "sim/io/results_table.h"

#include <doctest/doctest.h>

#include <sstream>

namespace knobsim {
namespace {

// Display columns (every non-ASCII character the table uses is one column wide).
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

RunResult Healthy() {
  RunResult r;
  for (const char* name : {"chat", "embed"}) {
    WorkloadResult w;
    w.name = name;
    w.requests = 1000;
    w.completed = 1000;
    w.latency_ms = {20, 18, 30, 45, 60};
    w.throughput_rps = 10;
    w.slo_met = true;
    r.workloads.push_back(w);
  }
  CardResult c;
  c.node = "gpu-0";
  c.index = 0;
  c.gpu = "A100-40G";
  c.busy = 0.6;
  c.effective = 0.5;
  c.waste = 0.1;
  c.memory_physical_mib = 40960;
  c.memory_quota_mib = 8192;
  c.memory_used_mib = 20000;
  c.memory_peak_mib = 23552;
  c.pods = {"default/chat-0", "default/embed-0"};
  r.cards.push_back(c);
  CardResult idle = c;
  idle.index = 1;
  idle.busy = idle.effective = idle.waste = 0;
  idle.memory_quota_mib = 0;
  idle.memory_used_mib = 0;
  idle.memory_peak_mib = 0;
  idle.pods.clear();
  r.cards.push_back(idle);
  r.pods = {{"default", "chat-0", "chat", "gpu-0", {0}, "Running", 0, ""},
            {"default", "embed-0", "embed", "gpu-0", {0}, "Running", 0, ""}};
  r.cluster.gpu_mem_allocated_units = 8;
  r.cluster.gpu_mem_total_units = 80;
  r.cluster.allocation_ratio = 0.1;
  return r;
}

// Hard isolation with the old quotas: chat loads no model but stays Ready.
RunResult Upgraded() {
  RunResult r = Healthy();
  WorkloadResult& chat = r.workloads[0];
  chat.completed = 0;
  chat.errors.fake_ready = 1000;
  chat.error_ratio = 1;
  chat.slo_met = false;
  r.workloads[1].latency_ms.p99 = 90;
  r.pods[0].state = "FakeReady";
  r.pods[0].message =
      "model load failed: CUDA out of memory allocating 19456 MiB with a visible quota of 4096 "
      "MiB; "
      "the port-only readiness probe keeps the pod Ready";
  r.pods.push_back({"default",
                    "chat-1",
                    "chat",
                    "",
                    {},
                    "Pending",
                    0,
                    "0/4 nodes are available: 4 Insufficient aliyun.com/gpu-mem."});
  r.cluster.fake_ready_pods = 1;
  r.cluster.pending_pods = 1;
  r.cluster.preempted_pods = 2;
  r.cards[0].busy = 0.3;
  r.cards[0].effective = 0.25;
  r.cards[0].waste = 0.05;
  return r;
}

RunSetResult Set(int replications, int extra_variants = 0) {
  Scenario s;
  Workload chat;
  chat.name = "chat";
  chat.slo.latency = 200 * kNanosPerMilli;
  s.workloads = {chat};
  RunSetResult r;
  r.scenario = "quickstart";
  r.seed = 1;
  r.replications = replications;
  r.duration = 3600 * kNanosPerSecond;
  r.warmup = 300 * kNanosPerSecond;
  r.variants.push_back(SummarizeVariant("base", "the scenario as written", s,
                                        std::vector<RunResult>(replications, Healthy())));
  r.variants.push_back(SummarizeVariant("upgrade-first", "hard isolation, quotas unchanged", s,
                                        std::vector<RunResult>(replications, Upgraded())));
  for (int i = 0; i < extra_variants; ++i) {
    r.variants.push_back(SummarizeVariant("fix-quotas-then-upgrade-" + std::to_string(i), "", s,
                                          std::vector<RunResult>(replications, Healthy())));
  }
  return r;
}

TEST_CASE("results table: side by side, base first, with the story in words") {
  const std::string t = ResultsTable(Set(1));
  CHECK(t.find("Scenario quickstart: seed 1, 1 replication, 3600 s simulated (300 s warm-up)") !=
        std::string::npos);
  CHECK(t.find("base") < t.find("upgrade-first"));
  CHECK(t.find("errors: fake-Ready") != std::string::npos);
  CHECK(t.find("errors: timeout") == std::string::npos);  // causes that never occur stay out
  CHECK(t.find("chat  (SLO p99 ≤ 200 ms, errors ≤ 0.1%)") != std::string::npos);
  CHECK(t.find("embed  (SLO errors ≤ 0.1%)") != std::string::npos);
  CHECK(t.find("✓") != std::string::npos);
  CHECK(t.find("✗") != std::string::npos);
  CHECK(t.find("gpu-0/0 A100-40G") != std::string::npos);
  CHECK(t.find("gpu-0/1") == std::string::npos);
  CHECK(t.find("(1 idle card without pods not shown)") != std::string::npos);
  CHECK(t.find("8192 / 20000 / 23552 !") != std::string::npos);
  CHECK(t.find("60 / 50 / 10") != std::string::npos);
  CHECK(t.find("default/chat-0  FakeReady") != std::string::npos);
  CHECK(t.find("0/4 nodes are available") != std::string::npos);
  CHECK(t.find("base: all 2 pods Running") != std::string::npos);
  CHECK(t.find("WHAT CHANGED VS BASE\n  upgrade-first: 1 FakeReady pod, 1 Pending pod") !=
        std::string::npos);
  CHECK(t.find("  preempted pods") != std::string::npos);
  RunSetResult r = Set(1);
  CHECK(ChangeSummary(r.variants[0], r.variants[1]) ==
        "1 FakeReady pod, 1 Pending pod, 2 preempted pods (base 0), errors 0.0% → 50.0%, "
        "SLO met 2/2 → 1/2, "
        "p99 embed 45.0 → 90.0 ms, GPU effective use 25.0% → 12.5%, capped waste 5.0% → 2.5%");
}

TEST_CASE("results table: no latency is shown as a dash, not 0 ms") {
  const std::string t = ResultsTable(Set(1));
  std::istringstream in(t);
  std::string line;
  bool seen = false;
  while (std::getline(in, line)) {
    if (line.find("latency p99 ms") != std::string::npos && line.find("—") != std::string::npos) {
      seen = true;
    }
  }
  CHECK(seen);
}

TEST_CASE("results table: fits the width, continuing columns in a block that repeats base") {
  TableOptions o;
  o.width = 100;
  const std::string t = ResultsTable(Set(3, 4), o);
  std::istringstream in(t);
  std::string line;
  int headers = 0;
  while (std::getline(in, line)) {
    CHECK_MESSAGE(Columns(line) <= 100, line);
    if (line.rfind("WORKLOADS", 0) == 0) ++headers;
  }
  CHECK(headers >= 2);
  CHECK(t.find("±") != std::string::npos);
  CHECK(t.find("means over 3 replications") != std::string::npos);
  CHECK(t.find("PODS NOT RUNNING (replication 0)") != std::string::npos);
  CHECK(t.find("fix-quotas-then-upgrade-3: no material change from base") != std::string::npos);
}

TEST_CASE("ChangeSummary: a pod state that disappears is named with the base count") {
  RunSetResult r = Set(1);
  CHECK(ChangeSummary(r.variants[1], r.variants[0]).rfind("no FakeReady pods (base 1)", 0) == 0);
  CHECK(ChangeSummary(r.variants[0], r.variants[0]) == "no material change from base");
}

TEST_CASE("results table: spot interruptions have their own errors line and count in the error %") {
  Scenario s;
  Workload chat;
  chat.name = "chat";
  s.workloads = {chat};
  RunResult spot = Healthy();
  spot.workloads[0].completed = 900;
  spot.workloads[0].errors.interrupted = 100;
  spot.workloads[0].error_ratio = 0.1;
  RunSetResult r = Set(1);
  CHECK(ResultsTable(r).find("errors: interrupted") == std::string::npos);
  r.variants.push_back(SummarizeVariant("spot", "reclaimed nodes", s, {spot}));
  const std::string t = ResultsTable(r);
  CHECK(t.find("errors: interrupted") != std::string::npos);
  // 100 interrupted of 2000 requests over both workloads.
  CHECK(ChangeSummary(r.variants[0], r.variants[2]).find("errors 0.0% → 5.0%") !=
        std::string::npos);
}

}  // namespace
}  // namespace knobsim
