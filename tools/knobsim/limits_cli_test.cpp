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

TEST_CASE("readers: a directory, an endless device or an empty stdin is an input error naming it") {
  const std::string dir = TempPath("a-dir");
  REQUIRE(std::system(("mkdir -p " + Quoted(dir)).c_str()) == 0);
  const std::string kube = QuotedSourcePath("tools/knobsim/testdata/export20/export.json");
  struct Case {
    const char* name;
    std::string args;
    std::string expected;
  };
  const Case cases[] = {
      {"a scenario directory", "run " + Quoted(dir), dir + ": is a directory, not a file"},
      {"--cluster directory", "schedule --cluster " + Quoted(dir) + " --pods " + kube,
       dir + ": is a directory, not a file"},
      {"--prom directory", "import --kube " + kube + " --prom " + Quoted(dir) + " -o /dev/null",
       dir + ": is a directory, not a file"},
      {"--registry-tags directory",
       "check " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --registry-tags " +
           Quoted(dir),
       dir + ": is a directory, not a file"},
      {"--overlay directory",
       "import --kube " + kube + " --overlay " + Quoted(dir) + " -o /dev/null",
       "is a directory, not a file"},
      {"/dev/zero", "run /dev/zero", "/dev/zero: is larger than the input limit of 256 MiB"},
      {"--registry-tags - on a closed stdin",
       "check " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") + " --registry-tags - </dev/null",
       "lists no image tag (an empty file or a closed stdin)"},
      {"--overlay - on a closed stdin",
       "import --kube " + kube + " --overlay - -o /dev/null </dev/null", "the overlay is empty"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Outcome o = Run(c.args);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(c.expected) != std::string::npos);
    CHECK(o.err.find("bad_alloc") == std::string::npos);
  }
  REQUIRE(std::system(("rmdir " + Quoted(dir)).c_str()) == 0);
}

TEST_CASE("readers: --prom accepts a pipe as the other readers do") {
  const std::string kube = QuotedSourcePath("tools/knobsim/testdata/export20/export.json");
  const std::string prom =
      QuotedSourcePath("tools/knobsim/testdata/export20/prom/DCGM_FI_DEV_FB_USED.json");
  // A FIFO reads as `<(...)` does: no size, no seek (the tests' shell has no `<(...)`).
  const std::string fifo = TempPath("prom.fifo");
  REQUIRE(std::system(("mkfifo " + Quoted(fifo) + " && (cat " + prom + " > " + Quoted(fifo) + " &)")
                          .c_str()) == 0);
  const Outcome o = Run("import --kube " + kube + " --prom " + Quoted(fifo) + " -o /dev/null");
  CHECK(o.exit_code == 0);
  CHECK(o.err.find("Illegal seek") == std::string::npos);
  std::remove(fifo.c_str());
}

TEST_CASE("readers: a UTF-8 byte order mark is accepted by the registry-tags reader") {
  const std::string tags = TempPath("bom-tags");
  {
    std::ofstream out(tags, std::ios::binary);
    out << "\xEF\xBB\xBF" << ReadFile(SourcePath("scenarios/cgpu-upgrade.registry-tags"));
  }
  const std::string scenario = QuotedSourcePath("scenarios/cgpu-upgrade.yaml");
  const Outcome plain = Run("check " + scenario + " --registry-tags " +
                            QuotedSourcePath("scenarios/cgpu-upgrade.registry-tags"));
  const Outcome bom = Run("check " + scenario + " --registry-tags " + Quoted(tags));
  CHECK(bom.exit_code == plain.exit_code);
  CHECK(bom.err.find(tags + ":1") == std::string::npos);
  CHECK(bom.out.size() ==
        plain.out.size() + tags.size() - SourcePath("scenarios/cgpu-upgrade.registry-tags").size());
  std::remove(tags.c_str());
}

TEST_CASE("readers: an error quotes at most 200 bytes of a long input line") {
  const std::string tags = TempPath("long-line-tags");
  std::ofstream(tags) << "registry.example.com/ai/" << std::string(10'000'000, 'x') << " v1\n";
  const Outcome o = Run("check " + QuotedSourcePath("scenarios/cgpu-upgrade.yaml") +
                        " --registry-tags " + Quoted(tags));
  CHECK(o.exit_code == 2);
  CHECK(o.err.size() < 2000);
  std::remove(tags.c_str());
}

TEST_CASE("options: a non-finite number is refused wherever an option is range-checked") {
  const std::string kube = QuotedSourcePath("tools/knobsim/testdata/export20/export.json");
  for (const char* option : {"--switch-overhead nan", "--switch-overhead inf", "--latency-unit nan",
                             "--latency-unit inf"}) {
    CAPTURE(option);
    const Outcome o = Run("import --kube " + kube + " " + option + " -o /dev/null");
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("is not a finite number") != std::string::npos);
  }
}

}  // namespace
}  // namespace knobsim::e2e
