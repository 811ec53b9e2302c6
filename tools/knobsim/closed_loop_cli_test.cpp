// End-to-end tests of closed-loop jobs (docs/scenario.md "closed_loop") on the bundled
// scenarios/training-beside-inference.yaml: the job's figures in the results document and the
// table, what it costs the chat service beside it, and sharded runs merging to the same bytes.
#include <doctest/doctest.h>

#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kScenario = "scenarios/training-beside-inference.yaml";

TEST_CASE("closed_loop: the job's steps, step time against alone, slowdown and completion") {
  const nlohmann::json doc = RunJson(kScenario, "--all");
  const nlohmann::json& base = Workload(Variant(doc, "base"), "finetune");
  REQUIRE(base.contains("closed_loop"));
  const nlohmann::json& loop = base.at("closed_loop");
  CHECK(loop.at("steps_done").get<int>() == 20000);
  // Alone a step is 120 ms of work + 30 ms of think on an A10 (speed 1).
  CHECK(loop.at("solo_step_ms").get<double>() == doctest::Approx(150).epsilon(0.01));
  // Sharing with the chat service (a 40 % busy card) slows it, but by far less than half.
  const double slowdown = loop.at("slowdown").get<double>();
  CHECK(slowdown > 1.05);
  CHECK(slowdown < 1.5);
  CHECK(loop.at("step_ms_mean").get<double>() ==
        doctest::Approx(slowdown * loop.at("solo_step_ms").get<double>()));
  // Two workers at 1000 / step ms each; the 20 000 steps end within the hour.
  CHECK(loop.at("steps_per_s").get<double>() ==
        doctest::Approx(2000 / loop.at("step_ms_mean").get<double>()).epsilon(0.02));
  const double done_s = loop.at("completion_s").get<double>();
  CHECK(done_s > 120 + 20000 / loop.at("steps_per_s").get<double>() - 60);
  CHECK(done_s < 3600);
  CHECK_FALSE(Workload(Variant(doc, "base"), "chat").contains("closed_loop"));

  // POLICY 3 holds the job to half its card even when the chat pod is idle: slower, later.
  const nlohmann::json& capped = Workload(Variant(doc, "policy-3"), "finetune").at("closed_loop");
  CHECK(capped.at("slowdown").get<double>() > slowdown + 0.3);
  CHECK(capped.at("completion_s").get<double>() > done_s);

  // Without the job the chat service's tail is shorter.
  const auto p99 = [&](const char* variant) {
    return Workload(Variant(doc, variant), "chat").at("latency_ms").at("p99").get<double>();
  };
  CHECK(p99("no-training") < p99("base"));
  const nlohmann::json& none = Workload(Variant(doc, "no-training"), "finetune").at("closed_loop");
  CHECK(none.at("steps_done").get<int>() == 0);
  CHECK(none.at("completion_s").is_null());
  CHECK(none.at("slowdown").is_null());
}

TEST_CASE("closed_loop: the table shows the job's rows, and a short run says it did not finish") {
  const Outcome o = Run("run " + QuotedSourcePath(kScenario) + " --duration 10m");
  REQUIRE_MESSAGE(o.exit_code == 0, o.err);
  for (const char* row : {"steps/s", "step ms alone", "slowdown ×", "completed at"})
    CHECK_MESSAGE(o.out.find(row) != std::string::npos, row);
  CHECK(o.out.find("not within the run") != std::string::npos);
}

TEST_CASE("closed_loop: sharded replications merge to the unsharded document") {
  const std::string args =
      "run " + QuotedSourcePath(kScenario) + " --duration 15m --replications 2";
  const std::string whole = TempPath("closed-loop-whole.json");
  REQUIRE(Run(args + " --quiet --json " + Quoted(whole)).exit_code == 0);
  std::string shards;
  for (int i = 0; i < 2; ++i) {
    const std::string shard = TempPath("closed-loop-shard-" + std::to_string(i) + ".json");
    REQUIRE(Run(args + " --quiet --shard " + std::to_string(i) + "/2 --json " + Quoted(shard))
                .exit_code == 0);
    shards += " " + Quoted(shard);
  }
  const std::string merged = TempPath("closed-loop-merged.json");
  REQUIRE(Run("merge" + shards + " -o " + Quoted(merged)).exit_code == 0);
  CHECK(ReadFile(merged) == ReadFile(whole));
}

TEST_CASE("closed_loop: a traffic knob naming the job is refused, `*` leaves it alone") {
  const Outcome named =
      Run("whatif " + QuotedSourcePath(kScenario) + " --duration 5m --knob traffic:finetune=2");
  CHECK(named.exit_code == 2);
  CHECK(named.err.find("workload \"finetune\" is a closed_loop job: it has no traffic; change "
                       "its replicas, e.g. replicas:finetune=N") != std::string::npos);
  const Outcome all =
      Run("whatif " + QuotedSourcePath(kScenario) + " --duration 5m --knob traffic=2 --quiet");
  CHECK_MESSAGE(all.exit_code <= 1, all.err);
}

}  // namespace
}  // namespace knobsim::e2e
