#include "sim/whatif/verdict.h"

#include <doctest/doctest.h>

#include <string>

namespace knobsim {
namespace {

// One replication's summary; each rule's count says whether the numbers meet it (a workload with
// p99_ms 0 has no success).
WorkloadStats Workload(std::string name, bool met, double p99_ms, double errors, double oom = 0) {
  WorkloadStats w;
  w.slo_met_replications = met ? 1 : 0;
  w.latency_met_replications = p99_ms > 0 && p99_ms <= 300 ? 1 : 0;
  w.errors_met_replications = errors <= 0.01 ? 1 : 0;
  w.backlog_met_replications = 1;
  w.name = std::move(name);
  w.slo_met = met;
  w.requests.mean = 1000;
  w.latency_replications = 1;
  w.slo_latency_ms.mean = p99_ms;
  w.error_ratio.mean = errors;
  w.errors.oom.mean = oom;
  w.slo.percentile = 99;
  w.slo.latency = 300 * kNanosPerMilli;
  w.slo.error_budget = 0.01;
  return w;
}

PodResult Pod(std::string name, std::string workload, std::string state, std::string message = "") {
  PodResult p;
  p.namespace_ = "prod";
  p.name = std::move(name);
  p.workload = std::move(workload);
  p.state = std::move(state);
  p.message = std::move(message);
  return p;
}

// Base: asr and ocr meet their SLO, tts already misses it on latency.
VariantSummary Base() {
  VariantSummary v;
  v.name = "base";
  v.replications = 1;
  v.workloads = {Workload("asr", true, 120, 0), Workload("ocr", true, 80, 0),
                 Workload("tts", false, 450, 0)};
  v.pods = {Pod("asr-0", "asr", "Running"), Pod("ocr-0", "ocr", "Running"),
            Pod("tts-0", "tts", "Running")};
  return v;
}

// isolation=hard: asr cannot load its model (fake Ready, every request fails), ocr's second
// replica does not fit, tts still misses.
VariantSummary Hard() {
  VariantSummary v;
  v.name = "isolation=hard";
  v.replications = 1;
  v.workloads = {Workload("asr", false, 0, 1.0), Workload("ocr", false, 90, 0.2, 30),
                 Workload("tts", false, 460, 0)};
  v.workloads[0].latency_replications = 0;
  v.workloads[0].errors.fake_ready.mean = 1000;
  const std::string oom =
      "CUDA out of memory loading the model: needs 9616 MiB per card, quota 5233 MiB";
  v.pods = {
      Pod("asr-0", "asr", "FakeReady", oom), Pod("ocr-0", "ocr", "Running"),
      Pod("ocr-1", "ocr", "Pending", "0/4 nodes are available: 4 Insufficient aliyun.com/gpu-mem."),
      Pod("tts-0", "tts", "Running")};
  v.cluster.events = {
      {0, "FakeReady", "prod/asr-0", oom + "; the port-only readiness probe passes"}};
  return v;
}

TEST_CASE("the verdict lists SLO misses with the numbers, new or already missing") {
  const Verdict v = JudgeVariant(Base(), Hard());
  REQUIRE(v.slo_misses.size() == 3);
  CHECK(v.slo_misses[0].workload == "prod/asr");
  CHECK(v.slo_misses[0].change == Change::kNew);
  CHECK(v.slo_misses[0].no_success);
  CHECK(v.slo_misses[0].errors_missed);
  CHECK(v.slo_misses[1].latency_missed == false);  // 90 ms within 300 ms
  CHECK(v.slo_misses[1].error_ratio == doctest::Approx(0.2));
  CHECK(v.slo_misses[2].change == Change::kAlready);
  CHECK(v.NewSloMiss());
}

TEST_CASE("the verdict sorts pods into Pending and FakeReady and counts OOMs per workload") {
  const Verdict v = JudgeVariant(Base(), Hard());
  REQUIRE(v.pending.size() == 1);
  CHECK(v.pending[0].pod == "prod/ocr-1");
  CHECK(v.pending[0].message.find("Insufficient aliyun.com/gpu-mem") != std::string::npos);
  CHECK(v.pending[0].change == Change::kNew);  // the base has no such pod
  REQUIRE(v.fake_ready.size() == 1);
  CHECK(v.fake_ready[0].pod == "prod/asr-0");
  REQUIRE(v.ooms.size() == 2);
  CHECK(v.ooms[0].workload == "prod/asr");
  CHECK(v.ooms[0].load_ooms == 1);
  CHECK(v.ooms[1].workload == "prod/ocr");
  CHECK(v.ooms[1].request_ooms == doctest::Approx(30));
  CHECK(v.ooms[1].load_ooms == 0);
}

TEST_CASE("the verdict text reads as the golden text") {
  const std::string text = VerdictText(JudgeVariant(Base(), Hard()));
  const std::string golden =
      "VERDICT isolation=hard: 3 of 3 workloads miss their SLO (2 newly)\n"
      "  SLO        prod/asr: no request completed (p99 target 300 ms), errors 100.0% > budget "
      "1.0% "
      "(newly missing; base meets it)\n"
      "  SLO        prod/ocr: errors 20.0% > budget 1.0% (newly missing; base meets it)\n"
      "  SLO        prod/tts: p99 460.0 ms > target 300 ms (was already missing)\n"
      "  Pending    prod/ocr-1: 0/4 nodes are available: 4 Insufficient aliyun.com/gpu-mem. (new)\n"
      "  FakeReady  prod/asr-0: CUDA out of memory loading the model: needs 9616 MiB per card, "
      "quota "
      "5233 MiB (new)\n"
      "  OOM        prod/asr: 1 pod failed to load the model (new)\n"
      "  OOM        prod/ocr: 30 requests failed with CUDA OOM (new)\n";
  CHECK(text == golden);
}

TEST_CASE("the base's own verdict says what already fails, without comparisons") {
  const std::string text = VerdictText(JudgeVariant(Base(), Base()));
  CHECK(text ==
        "VERDICT base: 1 of 3 workloads miss their SLO\n"
        "  SLO        prod/tts: p99 450.0 ms > target 300 ms\n");
}

TEST_CASE("a clean variant says so in one line") {
  VariantSummary clean = Base();
  clean.name = "fixed";
  clean.workloads[2] = Workload("tts", true, 200, 0);
  const Verdict v = JudgeVariant(Base(), clean);
  CHECK_FALSE(v.NewSloMiss());
  CHECK(VerdictText(v) ==
        "VERDICT fixed: every SLO met (3 workloads); no Pending, fake-Ready or OOM pods\n");
}

TEST_CASE("a pod already Pending in the base is marked as such") {
  VariantSummary base = Hard();
  base.name = "base";
  VariantSummary same = Hard();
  const Verdict v = JudgeVariant(base, same);
  REQUIRE(v.pending.size() == 1);
  CHECK(v.pending[0].change == Change::kAlready);
  CHECK(v.ooms[0].change == Change::kAlready);
  CHECK_FALSE(v.NewSloMiss());
}

TEST_CASE("long pod lists end with the count left out") {
  VariantSummary many = Base();
  many.name = "v";
  for (int i = 0; i < 5; ++i)
    many.pods.push_back(Pod("x-" + std::to_string(i), "asr", "Pending", "no"));
  const std::string text = VerdictText(JudgeVariant(Base(), many), 2);
  CHECK(text.find("prod/x-1: no (new)\n  Pending    … and 3 more\n") != std::string::npos);
  CHECK(text.find("x-2") == std::string::npos);
}

// Nine replications of embed under policy=0,max_inst=4 (the quickstart): the mean p99 is within
// the target, one replication is above it. The reason says so, not "none finished".
TEST_CASE("with replications, a reason says in how many the rule was met, and the bound") {
  VariantSummary base = Base();
  base.replications = 9;
  VariantSummary v = base;
  v.name = "policy=0";
  WorkloadStats& embed = v.workloads[0];
  embed.slo_met = false;
  embed.slo_met_replications = 8;
  embed.latency_replications = 9;
  embed.latency_met_replications = 8;
  embed.errors_met_replications = 9;
  embed.backlog_met_replications = 9;
  embed.slo_latency_ms.mean = 292;
  base.workloads[0].slo_met_replications = 9;
  const std::string text = VerdictText(JudgeVariant(base, v));
  CHECK(text.find("SLO        prod/asr: p99 292.0 ms (mean of 9), target 300 ms met in 8 of 9 "
                  "replications (newly missing; base meets it)\n") != std::string::npos);
  CHECK(text.find("none finished") == std::string::npos);

  embed.errors_met_replications = 6;
  embed.error_ratio.mean = 0.004;
  const std::string both = VerdictText(JudgeVariant(base, v));
  CHECK(both.find("errors 0.4% (mean of 9), budget 1.0% met in 6 of 9 replications") !=
        std::string::npos);
}

// llm-chat on the imported cluster (issue 16): errors 0.0 %, thousands of requests unanswered
// for hours. The backlog rule misses and says how many, how old, and how many it allows.
TEST_CASE("backlog rule: the verdict names the requests unanswered at the end and the oldest") {
  VariantSummary v = Base();
  v.name = "quota";
  WorkloadStats& chat = v.workloads[1];
  chat.slo.latency = 0;
  chat.slo.error_budget = 0.001;
  chat.slo_met = false;
  chat.slo_met_replications = 0;
  chat.backlog_met_replications = 0;
  chat.requests.mean = 22064;
  chat.in_system_end.mean = 5251;
  chat.in_system_overdue.mean = 5190;
  chat.in_system_oldest_ms.mean = 3.1 * 3600 * 1000;
  const Verdict verdict = JudgeVariant(Base(), v);
  REQUIRE(verdict.slo_misses.size() == 2);
  CHECK(verdict.slo_misses[0].workload == "prod/ocr");
  CHECK(verdict.slo_misses[0].backlog_missed);
  CHECK(verdict.NewSloMiss());
  CHECK(VerdictText(verdict).find(
            "SLO        prod/ocr: backlog grows: 5251 requests unanswered at the end, 5190 older "
            "than 1 min (allowed 22), oldest 3.1 h (newly missing; base meets it)\n") !=
        std::string::npos);
}

}  // namespace
}  // namespace knobsim
