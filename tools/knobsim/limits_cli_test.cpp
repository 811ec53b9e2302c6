// End-to-end: the run limits (docs/limits.md) refuse a sweep that would hang or exhaust memory
// before anything runs, exit 2, naming the limit and how to raise it; the readers refuse an
// input they cannot read whole.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

const std::string kQuickstart = QuotedSourcePath("scenarios/quickstart.yaml");

TEST_CASE("run limits: a sweep over a limit is refused before it runs, naming the limit") {
  struct Case {
    const char* name;
    std::string args;
    const char* expected;
  };
  const Case cases[] = {
      {"whatif traffic=1e308", "whatif " + kQuickstart + " --knob traffic=1e308 --warmup 0",
       "a traffic rate of inf/s (scaled) is over the limit of 1e+06/s"},
      {"plan --traffic 1e308",
       "plan " + QuotedSourcePath("scenarios/capacity-plan.yaml") + " --traffic 1e308",
       "is over the limit of 1e+06/s per workload"},
      {"whatif nodes:POOL=1000000", "whatif " + kQuickstart + " --knob nodes:gpu-l20=1000000",
       "1000000 nodes (all pools) are over the limit of 50000 per run"},
      {"whatif replicas=100000000",
       "whatif " + kQuickstart + " --knob replicas:caption-vlm=1000000",
       "1000000 replicas are over the limit of 100000 per workload"},
      {"the events budget", "whatif " + kQuickstart + " --knob traffic=1000 --replications 10",
       "events (expected arrivals"},
      {"run --timeline 1ns", "run " + kQuickstart + " --timeline 1ns",
       "the timeline would take about"},
      {"upgrade --step 1ns",
       "upgrade " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --step 1ns",
       "the timeline would take about"},
      {"a bad --limit", "run " + kQuickstart + " --limit events=nan",
       "--limit events: \"nan\" is not a positive finite number"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Outcome o = Run(c.args + " --quiet");
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(c.expected) != std::string::npos);
    CHECK(o.out.empty());
    if (std::string(c.name) != "a bad --limit") CHECK(o.err.find("--limit") != std::string::npos);
  }
}

TEST_CASE("run limits: --limit raises a limit for that call") {
  const Outcome refused = Run("run " + kQuickstart + " --duration 4m --timeline 1ms --quiet");
  CHECK(refused.exit_code == 2);
  const Outcome raised =
      Run("run " + kQuickstart + " --duration 4m --timeline 1s --limit timeline-memory=4e9 -q");
  CHECK(raised.exit_code == 0);
}

TEST_CASE("run limits: a scenario with 100000000 nodes is refused before the run") {
  const std::string scenario = TempPath("huge-pool.yaml");
  {
    std::ifstream in(SourcePath("scenarios/quickstart.yaml"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("    count: 4\n");
    REQUIRE(at != std::string::npos);
    text.replace(at, 13, "    count: 100000000\n");
    std::ofstream(scenario) << text;
  }
  const Outcome o = Run("run " + Quoted(scenario) + " --quiet");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("100000000 nodes (all pools) are over the limit") != std::string::npos);
  std::remove(scenario.c_str());
}

}  // namespace
}  // namespace knobsim::e2e
