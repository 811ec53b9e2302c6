// End-to-end tests of `knobsim run` on the real binary: determinism, threads, exit codes, errors,
// and the quickstart story (docs/design.md §1) reading the way the scenario promises.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

TEST_CASE("the same seed gives byte-identical JSON, whatever the thread count") {
  const std::string scenario = QuotedSourcePath("scenarios/quickstart.yaml");
  const Outcome one =
      Run("run " + scenario + " --all --replications 3 --threads 1 --quiet --json -");
  const Outcome again =
      Run("run " + scenario + " --all --replications 3 --threads 1 --quiet --json -");
  const Outcome two =
      Run("run " + scenario + " --all --replications 3 --threads 2 --quiet --json -");
  // Without --threads: the OpenMP default (every core), whatever this machine has.
  const Outcome cores = Run("run " + scenario + " --all --replications 3 --quiet --json -");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == again.out);
  CHECK(one.out == two.out);
  CHECK(one.out == cores.out);
  CHECK(json::parse(one.out).at("schema") == "knobsim.results/v1");
}

TEST_CASE("a different seed gives different numbers") {
  const std::string scenario = QuotedSourcePath("scenarios/quickstart.yaml");
  const Outcome a = Run("run " + scenario + " --seed 1 --quiet --json -");
  const Outcome b = Run("run " + scenario + " --seed 2 --quiet --json -");
  REQUIRE(a.exit_code == 0);
  CHECK(a.out != b.out);
}

TEST_CASE("replications report a mean and a ci95 half-width") {
  const json doc = RunJson("scenarios/quickstart.yaml", "--replications 4");
  const json& w = doc.at("variants").at(0).at("workloads").at(0);
  REQUIRE(w.contains("ci95"));
  CHECK(w.at("ci95").at("latency_ms").at("mean").get<double>() >= 0);
  CHECK(doc.at("replications") == 4);
}

TEST_CASE("--json writes the file atomically and leaves no temporary behind") {
  const std::string out = TempPath("results.json");
  const Outcome o =
      Run("run " + QuotedSourcePath("scenarios/quickstart.yaml") + " --quiet --json " + out);
  REQUIRE(o.exit_code == 0);
  const json doc = json::parse(ReadFile(out));
  CHECK(doc.at("variants").size() == 1);
  CHECK(doc.at("variants").at(0).at("name") == "base");
  std::remove(out.c_str());
}

TEST_CASE("bad input exits 2 with file, line and field") {
  const Outcome o =
      Run("run " + QuotedSourcePath("sim/io/testdata/bad_gpu_mem_gb.yaml") + " --quiet");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("bad_gpu_mem_gb.yaml:") != std::string::npos);
  CHECK(o.err.find("gpu_mem") != std::string::npos);
}

TEST_CASE("a missing file and an unknown variant exit 2") {
  CHECK(Run("run /nonexistent/scenario.yaml --quiet").exit_code == 2);
  const Outcome o = Run("run " + QuotedSourcePath("scenarios/quickstart.yaml") +
                        " --variant no-such-variant --quiet");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("upgrade-first") != std::string::npos);  // lists the ones that exist
}

TEST_CASE("--timeline adds each variant over time; the counts after warm-up match the totals") {
  const json doc = RunJson("scenarios/quickstart.yaml", "--all --timeline 1m");
  const double duration = doc.at("duration_s").get<double>();
  const double warmup = doc.at("warmup_s").get<double>();
  for (const json& v : doc.at("variants")) {
    INFO("variant " << v.at("name"));
    const json& t = v.at("timeline");
    CHECK(t.at("step_s") == 60.0);
    CHECK(t.at("end_s") == duration);
    REQUIRE(t.at("workloads").size() == v.at("workloads").size());
    for (size_t i = 0; i < v.at("workloads").size(); ++i) {
      const json& w = v.at("workloads")[i];
      const json& tw = t.at("workloads")[i];
      CHECK(tw.at("name") == w.at("name"));
      CHECK(tw.at("points").size() == static_cast<size_t>(duration / 60));
      // Warm-up ends on a step boundary: the steps after it hold exactly the run's requests.
      int64_t arrivals = 0, fake_ready = 0;
      for (const json& p : tw.at("points")) {
        if (p.at("t_s").get<double>() < warmup) continue;
        arrivals += p.at("arrivals").get<int64_t>();
        fake_ready += p.at("errors").at("fake_ready").get<int64_t>();
      }
      CHECK(arrivals == w.at("requests").get<int64_t>());
      CHECK(fake_ready == w.at("errors").at("fake_ready").get<int64_t>());
    }
  }
  // A fake-Ready workload of upgrade-first: Ready all along, never available.
  bool seen = false;
  for (const json& tw : Variant(doc, "upgrade-first").at("timeline").at("workloads")) {
    const json& last = tw.at("points").back();
    if (last.at("ready_mean").get<double>() > 0 && last.at("available_mean").get<double>() == 0)
      seen = true;
  }
  CHECK(seen);
  // Without the option the document has no timeline at all.
  CHECK_FALSE(RunJson("scenarios/quickstart.yaml").at("variants")[0].contains("timeline"));
}

TEST_CASE("--timeline needs a positive step and no --shard") {
  const std::string scenario = QuotedSourcePath("scenarios/quickstart.yaml");
  Outcome o = Run("run " + scenario + " --timeline 0s --quiet");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("--timeline") != std::string::npos);
  o = Run("run " + scenario + " --timeline 1x --quiet");
  CHECK(o.exit_code == 2);
  o = Run("run " + scenario + " --timeline 1m --shard 0/2 --json -");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("shard") != std::string::npos);
}

TEST_CASE("--help describes run") {
  const Outcome o = Run("run --help");
  CHECK(o.exit_code == 0);
  CHECK(o.out.find("--replications") != std::string::npos);
}

// The lesson of the incident: upgrading first turns over-quota pods into fake-Ready pods that
// fail every request; fixing quotas to peak first avoids it.
TEST_CASE(
    "quickstart: upgrade-first shows fake-Ready pods failing their requests; fixing quotas first "
    "shows none") {
  const json doc = RunJson("scenarios/quickstart.yaml", "--all");
  const json& base = Variant(doc, "base");
  const json& upgrade = Variant(doc, "upgrade-first");
  const json& fixed = Variant(doc, "fix-quotas-then-upgrade");
  CHECK(base.at("cluster").at("fake_ready_pods") == 0);
  CHECK(fixed.at("cluster").at("fake_ready_pods") == 0);
  CHECK(upgrade.at("cluster").at("fake_ready_pods").get<int>() >= 1);
  // Every workload whose pods are all fake Ready fails about every request.
  int broken = 0;
  for (const json& w : upgrade.at("workloads")) {
    bool all_fake = true, any = false;
    for (const json& p : upgrade.at("pods")) {
      if (p.at("workload") != w.at("name")) continue;
      any = true;
      all_fake = all_fake && p.at("state") == "FakeReady";
    }
    if (!any || !all_fake) continue;
    ++broken;
    CHECK(w.at("errors").at("fake_ready").get<double>() >= 0.99 * w.at("requests").get<double>());
  }
  CHECK(broken >= 1);
  for (const json& w : fixed.at("workloads")) {
    INFO("workload " << w.at("name"));
    CHECK(w.at("errors").at("fake_ready") == 0);
    CHECK(w.at("errors").at("oom") == 0);
  }
  for (const json& p : fixed.at("pods")) CHECK(p.at("state") == "Running");
}

}  // namespace
}  // namespace knobsim::e2e

namespace knobsim::e2e {
namespace {

TEST_CASE("run sets ACK binpack beside the FGD paper's placements on the same cluster") {
  // scenarios/fgd-vs-binpack.yaml: 26 pods asking 170 of 176 gpu-mem units on four 2-card A10
  // nodes. binpack places all but one whole-card vision pod; FGD keeps the free space usable by
  // the popular half-card chat pods (far less fragmentation) and leaves both vision pods out.
  const std::string scenario = QuotedSourcePath("scenarios/fgd-vs-binpack.yaml");
  const Outcome o =
      Run("run " + scenario + " --all --quiet --duration 3m --warmup 1m --replications 1 --json -");
  REQUIRE(o.exit_code == 0);
  const json doc = json::parse(o.out);
  std::map<std::string, json> variants;
  for (const json& v : doc.at("variants")) variants[v.at("name").get<std::string>()] = v;
  REQUIRE(variants.size() == 4);
  auto pending = [&](const std::string& name) {
    int n = 0;
    for (const json& p : variants.at(name).at("pods")) n += p.at("state") == "Pending" ? 1 : 0;
    return n;
  };
  auto frag = [&](const std::string& name) {
    return variants.at(name).at("fragmentation").at("frag_ratio").get<double>();
  };
  auto places = [&](const std::string& name) {
    std::vector<std::string> at;
    for (const json& p : variants.at(name).at("pods"))
      at.push_back(p.at("node").dump() + p.at("cards").dump());
    return at;
  };
  CHECK(pending("base") == 1);
  CHECK(pending("fgd") == 2);
  CHECK(frag("fgd") < 0.5 * frag("base"));
  CHECK(places("fgd") != places("base"));
  CHECK(places("bestfit") != places("fgd"));
  for (const json& p : variants.at("fgd").at("pods")) {
    if (p.at("state") == "Pending") CHECK(p.at("workload") == "vision-13b");
  }
  // The table says it too, and the same run on more threads is the same run.
  const Outcome table = Run("run " + scenario + " --all --duration 3m --warmup 1m");
  CHECK(table.out.find("GPU fragmentation (FGD)") != std::string::npos);
  const Outcome threads =
      Run("run " + scenario +
          " --all --quiet --duration 3m --warmup 1m --replications 1 --threads 2 --json -");
  CHECK(threads.out == o.out);
}

}  // namespace
}  // namespace knobsim::e2e
