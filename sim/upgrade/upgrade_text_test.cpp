#include "sim/upgrade/upgrade_text.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/upgrade/upgrade_sample_test.h"

namespace knobsim {
namespace {

using upgrade_sample::S;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of `text` that starts (after its indent) with `start`; "" when none does.
std::string LineStarting(const std::string& text, const std::string& start) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, start.size(), start) == 0) return line;
    pos = end + 1;
  }
  return "";
}

TEST_CASE("run times read t+MM:SS from the start of the run, t+H:MM:SS past an hour") {
  CHECK(RunTimeText(0) == "t+00:00");
  CHECK(RunTimeText(130 * S) == "t+02:10");
  CHECK(RunTimeText(130 * S + S / 2) == "t+02:10");  // seconds are truncated, never rounded up
  CHECK(RunTimeText(3725 * S) == "t+1:02:05");
  CHECK(RunTimeText(-1) == "\xE2\x80\x94");
  CHECK(SpanText(420 * S) == "0:07:00");
  CHECK(SpanText(12 * 3600 * S) == "12:00:00");
}

TEST_CASE(
    "a rehearsal breaks on OOM or fake-Ready errors, a broken pod, or an unfinished upgrade") {
  const UpgradeBreakage bad = JudgeUpgrade(upgrade_sample::Variant(false));
  CHECK(bad.finished);
  CHECK(bad.oom == 7);
  CHECK(bad.fake_ready == 50 + 4 * 120);
  CHECK(bad.first_error == 300 * S);  // the fake-Ready step comes before the OOM one
  CHECK(bad.broken_pods ==
        std::vector<std::string>{"ai/ocr-0 FakeReady", "ai/asr-0 ImagePullBackOff"});
  // asr has no available pod in its last three steps (its image tag is gone).
  CHECK(bad.outages == std::vector<std::string>{
                           "ai/asr none available for 0:03:00 (720 requests found no replica)"});
  CHECK(bad.broken());

  const UpgradeBreakage good = JudgeUpgrade(upgrade_sample::Variant(true));
  CHECK(good.oom == 0);
  CHECK(good.fake_ready == 0);
  CHECK(good.first_error == -1);
  CHECK(good.broken_pods.empty());
  CHECK(good.outages.empty());
  CHECK_FALSE(good.broken());

  // Every node back and no error the upgrade is about, but a service down on the way: broken.
  UpgradeRun down = upgrade_sample::Variant(true);
  for (TimelinePoint& p : down.run.timeline.workloads[1].points) {
    if (p.start >= 240 * S && p.start < 360 * S) {
      p.available_mean = 0;
      p.errors.no_replica = 10;
    }
  }
  down.run.timeline.workloads[1].points.back().available_mean = 0;  // the last step, too
  down.run.timeline.end = 570 * S;                                  // which the run cut short
  const UpgradeBreakage outage = JudgeUpgrade(down);
  CHECK(outage.finished);
  CHECK(outage.outages == std::vector<std::string>{
                              "ai/asr none available for 0:02:30 (20 requests found no replica)"});
  CHECK(outage.broken());
  // Before the step the upgrade started in, no available pod is start-up, not an outage.
  UpgradeRun start_up = upgrade_sample::Variant(true);
  start_up.run.timeline.workloads[0].points[0].available_mean = 0;
  REQUIRE(start_up.upgrade.started >= 60 * S);
  CHECK(JudgeUpgrade(start_up).outages.empty());

  UpgradeRun stuck = upgrade_sample::Variant(true);
  stuck.upgrade.finished = -1;
  stuck.upgrade.nodes[1].outcome = "blocked";
  stuck.upgrade.blocked[0].until = -1;
  stuck.upgrade.blocked[0].gave_up = true;
  const UpgradeBreakage s = JudgeUpgrade(stuck);
  CHECK(s.broken());
  CHECK(s.not_finished == "cpu-1 blocked (eviction of infra/etcd-0 by infra/etcd refused)");

  UpgradeRun crash = upgrade_sample::Variant(true);
  crash.run.pods[1].state = "CrashLoopBackOff";
  CHECK(JudgeUpgrade(crash).broken());
  crash.run.pods[1].state = "Pending";  // not on the list: a capacity question, not breakage
  CHECK_FALSE(JudgeUpgrade(crash).broken());
}

TEST_CASE(
    "the headline says how long the upgrade took after the first cordon, or why it did not "
    "finish") {
  const std::string text = UpgradeRunText(upgrade_sample::Variant(true), upgrade_sample::Options());
  CHECK(text.rfind(
            "fix-quotas-first: finished in 0:07:00 after the first cordon (t+01:00 to t+08:00)\n",
            0) == 0);
  CHECK(Has(text, "  broke: nothing\n"));
  CHECK(Has(text, "back with isolation=hard,cgpu_version=1.5.10"));

  UpgradeRun stuck = upgrade_sample::Variant(true);
  stuck.upgrade.finished = -1;
  stuck.upgrade.nodes[1].outcome = "in-progress";
  CHECK(UpgradeRunText(stuck, upgrade_sample::Options())
            .rfind("fix-quotas-first: not finished: cpu-1 in-progress\n", 0) == 0);
}

TEST_CASE("the node table shows each node's cordon, drain and return as run times, with 429s") {
  const std::string text =
      UpgradeRunText(upgrade_sample::Variant(false), upgrade_sample::Options());
  const std::string cpu = LineStarting(text, "cpu-1  cpu");
  REQUIRE_FALSE(cpu.empty());
  CHECK(Has(cpu, "t+04:00   t+05:01  t+08:00"));
  CHECK(Has(cpu, "12  upgraded"));
  const std::string blocked = LineStarting(text, "cpu-1  infra/etcd-0");
  CHECK(Has(blocked, "infra/etcd  t+04:00  t+05:00"));
  CHECK(Has(text, "429 (infra/etcd): " + std::string(upgrade_sample::kEtcdCause)));
}

TEST_CASE("availability never counts a fake-Ready pod: ocr is Ready twice but available once") {
  const std::string text =
      UpgradeRunText(upgrade_sample::Variant(false), upgrade_sample::Options());
  const std::string ocr = LineStarting(text, "ai/ocr          2");
  REQUIRE_FALSE(ocr.empty());
  CHECK(Has(ocr, "75.0 %"));
  CHECK(Has(ocr, "0:05:00"));
  CHECK(Has(ocr, "up to 1.0"));
  const std::string asr = LineStarting(text, "ai/asr          1");
  CHECK(Has(asr, "70.0 %        0:03:00         0:03:00              0"));
}

TEST_CASE("errors by cause give the first error's step and the node being upgraded then") {
  const std::string text =
      UpgradeRunText(upgrade_sample::Variant(false), upgrade_sample::Options());
  const std::string fake = LineStarting(text, "fake_ready");
  CHECK(Has(fake,
            "ai/ocr         530       0  t+05:00  cpu-1 being upgraded, after gpu-1 came back"));
  const std::string oom = LineStarting(text, "oom ");
  CHECK(Has(oom, "ai/asr           7       0  t+06:00"));
  CHECK(LineStarting(text, "timeout").empty());  // causes without errors are left out
  CHECK(Has(UpgradeRunText(upgrade_sample::Variant(true), upgrade_sample::Options()),
            "Errors by cause and workload (from t+01:00, the step the upgrade started in; before = "
            "start-up and warm-up):\n  none\n"));
}

TEST_CASE("p99 over time is one compact line per workload; a step without a success is a dot") {
  const std::string text =
      UpgradeRunText(upgrade_sample::Variant(false), upgrade_sample::Options());
  CHECK(Has(text, "p99 latency per 1 min step"));
  // asr: 100..160 ms over steps 0..6, nothing from step 7 on.
  CHECK(Has(text,
            "ai/asr  \xE2\x96\x85\xE2\x96\x86\xE2\x96\x86\xE2\x96\x87\xE2\x96\x87\xE2\x96\x88"
            "\xE2\x96\x88\xC2\xB7\xC2\xB7\xC2\xB7  max 160 at t+06:00"));

  // A long run folds steps into at most 72 columns, each the worst of its steps.
  UpgradeRun run = upgrade_sample::Variant(true);
  WorkloadTimeline& w = run.run.timeline.workloads[0];
  w.points.clear();
  for (int i = 0; i < 720; ++i) {
    TimelinePoint p;
    p.start = i * 60 * S;
    p.arrivals = 1;
    p.completed = 1;
    p.latency_p99_ms = i == 400 ? 900 : 50;
    w.points.push_back(p);
  }
  const std::string line =
      LineStarting(UpgradeRunText(run, upgrade_sample::Options()), "ai/ocr  \xE2\x96");
  CHECK(Has(line, "max 900 at t+6:40:00"));
  size_t blocks = 0;
  for (size_t i = 0; i + 2 < line.size(); ++i) blocks += line.compare(i, 2, "\xE2\x96") == 0;
  CHECK(blocks == 72);
}

TEST_CASE("pods ending not Running are listed with their message; quota fixes with the new size") {
  const std::string bad = UpgradeRunText(upgrade_sample::Variant(false), upgrade_sample::Options());
  CHECK(Has(LineStarting(bad, "ai/asr-0"), "ImagePullBackOff  gpu-1  Back-off pulling image"));
  CHECK_FALSE(Has(bad, "Quota fixes"));
  const std::string good = UpgradeRunText(upgrade_sample::Variant(true), upgrade_sample::Options());
  CHECK(Has(good, "Pods not Running at the end:\n  none\n"));
  CHECK(Has(LineStarting(good, "ai/ocr    4"), "4 \xE2\x86\x92 10 GiB  8848 MiB  7-day peak"));
}

TEST_CASE("with two variants the verdict sets them side by side") {
  const std::vector<UpgradeRun> runs = upgrade_sample::Comparison();
  const std::string verdict = UpgradeVerdictText(runs);
  CHECK(verdict ==
        "Verdict: upgrade-first: 7 OOM and 530 fake-Ready errors from t+05:00 (cpu-1 being "
        "upgraded, after\n"
        "gpu-1 came back); outage: ai/asr none available for 0:03:00 (720 requests found no "
        "replica);\n"
        "ai/ocr-0 FakeReady, ai/asr-0 ImagePullBackOff at the end; done in 0:07:00. "
        "fix-quotas-first: none;\n"
        "done in 0:07:00.\n");
  const std::string all = UpgradeText(runs, upgrade_sample::Options());
  CHECK(Has(all, "\nfix-quotas-first: finished in"));
  CHECK(all.size() > verdict.size());
  CHECK(all.compare(all.size() - verdict.size(), verdict.size(), verdict) == 0);
  CHECK_FALSE(Has(UpgradeText({runs[0]}, upgrade_sample::Options()), "Verdict:"));
  CHECK(UpgradeText(runs, upgrade_sample::Options()) == all);  // deterministic
}

}  // namespace
}  // namespace knobsim
