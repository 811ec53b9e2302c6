// End-to-end tests of sharded sweeps on the real binary: `knobsim run --shard i/N` and
// `knobsim replay --shard i/N` in separate processes, `knobsim merge` putting the pieces back
// together byte for byte, and every way a set of shards can fail to be one sweep.
// The replay tests use a tiny trace in testdata/shard-trace (10 nodes, 90 pods with times).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

// A fresh directory under the test's temporary prefix, removed on scope exit.
struct TempDir {
  explicit TempDir(const std::string& name) : path(TempPath(name)) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string q(const std::string& name) const { return Quoted(file(name)); }
  std::string path;
};

// Two variants (base, upgrade-first) × 3 replications = 6 jobs, short runs.
const std::string kSweep =
    " --variant upgrade-first --replications 3 --duration 3m --warmup 1m --quiet";

std::string RunShard(const std::string& scenario, const std::string& shard, const std::string& out,
                     const std::string& extra = "") {
  const std::string seed = extra.find("--seed") == std::string::npos ? " --seed 7" : "";
  return "run " + QuotedSourcePath(scenario) + kSweep + seed + extra + " --shard " + shard +
         " --json " + out;
}

TEST_CASE("three run shards merged equal the unsharded --json byte for byte") {
  const TempDir dir("shard-run");
  const Outcome whole = Run("run " + QuotedSourcePath("scenarios/quickstart.yaml") + kSweep +
                            " --seed 7 --json " + dir.q("whole.json"));
  REQUIRE_MESSAGE(whole.exit_code == 0, whole.err);
  // Each shard in its own process, with a different thread count: it must not matter.
  for (int i = 0; i < 3; ++i) {
    const Outcome s = Run(RunShard("scenarios/quickstart.yaml", std::to_string(i) + "/3",
                                   dir.q("s" + std::to_string(i) + ".json"),
                                   " --threads " + std::to_string(i + 1)));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
    CHECK(s.out.empty());  // a shard prints no table
  }
  const nlohmann::json s1 = nlohmann::json::parse(ReadFile(dir.file("s1.json")));
  CHECK(s1["schema"] == "knobsim.shard/v1");
  CHECK(s1["shard"]["index"] == 1);
  CHECK(s1["shard"]["count"] == 3);
  REQUIRE(s1["jobs"].size() == 2);  // jobs 1 and 4
  CHECK(s1["jobs"][0]["job"] == 1);
  CHECK(s1["jobs"][0]["variant"] == "base");
  CHECK(s1["jobs"][0]["replication"] == 1);
  CHECK(s1["jobs"][1]["job"] == 4);
  CHECK(s1["jobs"][1]["variant"] == "upgrade-first");
  CHECK(s1["jobs"][1]["replication"] == 1);
  CHECK(s1["jobs"][0]["result"]["workloads"][0]["histogram"]["count"].get<int64_t>() > 0);

  // Given in any order.
  const Outcome merged = Run("merge " + dir.q("s2.json") + " " + dir.q("s0.json") + " " +
                             dir.q("s1.json") + " -o " + dir.q("merged.json"));
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  const std::string expected = ReadFile(dir.file("whole.json"));
  REQUIRE(!expected.empty());
  CHECK(ReadFile(dir.file("merged.json")) == expected);
  CHECK(merged.err.find("merged 3 shards (6 runs)") != std::string::npos);

  // -o - writes the document to stdout alone.
  const Outcome to_stdout =
      Run("merge " + dir.q("s0.json") + " " + dir.q("s1.json") + " " + dir.q("s2.json") + " -o -");
  CHECK(to_stdout.exit_code == 0);
  CHECK(to_stdout.out == expected);
  CHECK(to_stdout.err.empty());

  // One shard of one is the whole sweep.
  REQUIRE(Run(RunShard("scenarios/quickstart.yaml", "0/1", dir.q("only.json"))).exit_code == 0);
  const Outcome one = Run("merge " + dir.q("only.json") + " -o -");
  CHECK(one.exit_code == 0);
  CHECK(one.out == expected);
}

TEST_CASE("merge refuses shards that are not one complete sweep, naming file and difference") {
  const TempDir dir("shard-bad");
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    REQUIRE(
        Run(RunShard("scenarios/quickstart.yaml", n + "/3", dir.q("s" + n + ".json"))).exit_code ==
        0);
  }
  const std::string s0 = dir.q("s0.json"), s1 = dir.q("s1.json"), s2 = dir.q("s2.json");
  const std::string out = dir.q("merged.json");
  auto merge = [&](const std::string& inputs) { return Run("merge " + inputs + " -o " + out); };

  SUBCASE("a missing shard") {
    const Outcome o = merge(s0 + " " + s2);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("missing: shard index 1 (of 0..2)") != std::string::npos);
  }
  SUBCASE("a shard twice") {
    const Outcome o = merge(s0 + " " + s1 + " " + s1 + " " + s2);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(dir.file("s1.json") + ": shard: shard 1/3 is given twice (also " +
                     dir.file("s1.json") + ")") != std::string::npos);
  }
  SUBCASE("a shard of another seed") {
    REQUIRE(Run(RunShard("scenarios/quickstart.yaml", "1/3", dir.q("seed8.json"), " --seed 8"))
                .exit_code == 0);
    const Outcome o = merge(s0 + " " + dir.q("seed8.json") + " " + s2);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(dir.file("seed8.json") + ": seed: 8 differs from 7 in " +
                     dir.file("s0.json")) != std::string::npos);
  }
  SUBCASE("a shard of another scenario") {
    // The same name and sweep, but a different file: the hash of its bytes tells them apart.
    const std::string copy = dir.file("quickstart-edited.yaml");
    std::filesystem::copy_file(SourcePath("scenarios/quickstart.yaml"), copy);
    {
      std::ofstream append(copy, std::ios::app);
      append << "# edited\n";
    }
    const Outcome s =
        Run("run " + Quoted(copy) + kSweep + " --seed 7 --shard 2/3 --json " + dir.q("other.json"));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
    const Outcome o = merge(s0 + " " + s1 + " " + dir.q("other.json"));
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(dir.file("other.json") + ": scenario_hash: \"fnv1a64:") != std::string::npos);
  }
  SUBCASE("shards of another count") {
    REQUIRE(Run(RunShard("scenarios/quickstart.yaml", "1/2", dir.q("half.json"))).exit_code == 0);
    const Outcome o = merge(s0 + " " + dir.q("half.json"));
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("shard 1/2 is one of 2, but") != std::string::npos);
  }
  SUBCASE("a truncated shard") {
    const std::string text = ReadFile(dir.file("s1.json"));
    {
      std::ofstream cut(dir.file("cut.json"), std::ios::binary);
      cut << text.substr(0, text.size() / 2);
    }
    const Outcome o = merge(s0 + " " + dir.q("cut.json") + " " + s2);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(dir.file("cut.json") + ":") != std::string::npos);
    CHECK(o.err.find("invalid JSON at byte") != std::string::npos);
  }
  SUBCASE("a shard with a job taken out") {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(ReadFile(dir.file("s1.json")));
    doc["jobs"].erase(1);
    {
      std::ofstream cut(dir.file("short.json"), std::ios::binary);
      cut << doc.dump(2);
    }
    const Outcome o = merge(s0 + " " + dir.q("short.json") + " " + s2);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(dir.file("short.json") + ":") != std::string::npos);
    CHECK(o.err.find(": jobs: job 4 of shard 1/3 is missing") != std::string::npos);
  }
  SUBCASE("not a shard at all") {
    REQUIRE(Run("run " + QuotedSourcePath("scenarios/quickstart.yaml") + kSweep + " --json " +
                dir.q("whole.json"))
                .exit_code == 0);
    const Outcome o = merge(dir.q("whole.json"));
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("\"knobsim.results/v1\" is not a shard") != std::string::npos);
  }
  // Nothing was written by any failed merge.
  CHECK(!std::filesystem::exists(dir.file("merged.json")));
}

TEST_CASE("run --shard is checked before anything runs") {
  const TempDir dir("shard-args");
  const std::string scenario = QuotedSourcePath("scenarios/quickstart.yaml");
  const Outcome bad = Run("run " + scenario + " --shard 3/3 --json " + dir.q("x.json"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--shard: shard 3/3: i must be in 0..N-1") != std::string::npos);
  const Outcome text = Run("run " + scenario + " --shard one --json " + dir.q("x.json"));
  CHECK(text.exit_code == 2);
  CHECK(text.err.find("is not a shard: write i/N") != std::string::npos);
  const Outcome no_json = Run("run " + scenario + " --shard 0/2");
  CHECK(no_json.exit_code == 2);
  CHECK(no_json.err.find("needs --json FILE") != std::string::npos);
  const Outcome slo =
      Run("run " + scenario + " --shard 0/2 --fail-on-slo --json " + dir.q("x.json"));
  CHECK(slo.exit_code == 2);
  CHECK(!std::filesystem::exists(dir.file("x.json")));
}

TEST_CASE("three plan shards merged equal the unsharded plan document byte for byte") {
  const TempDir dir("shard-plan");
  const std::string plan = "plan " + QuotedSourcePath("scenarios/validation/mm1-rho05.yaml") +
                           " --traffic 1,2 --policies 1,5 --replications 2 --duration 2m "
                           "--warmup 20s --quiet";
  const Outcome whole = Run(plan + " --json " + dir.q("whole.json"));
  REQUIRE_MESSAGE(whole.exit_code == 0, whole.err);
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    const Outcome s = Run(plan + " --shard " + n + "/3 --json " + dir.q("p" + n + ".json"));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  }
  const Outcome merged = Run("merge " + dir.q("p2.json") + " " + dir.q("p0.json") + " " +
                             dir.q("p1.json") + " -o " + dir.q("merged.json"));
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  const std::string expected = ReadFile(dir.file("whole.json"));
  REQUIRE(expected.find("\"schema\": \"knobsim.plan/v1\"") != std::string::npos);
  CHECK(ReadFile(dir.file("merged.json")) == expected);
  const Outcome missing =
      Run("merge " + dir.q("p0.json") + " " + dir.q("p1.json") + " -o " + dir.q("m2.json"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("shard 2/3 is missing") != std::string::npos);
  // A run shard and a plan shard are not one sweep.
  REQUIRE(Run(RunShard("scenarios/quickstart.yaml", "1/3", dir.q("run.json"))).exit_code == 0);
  const Outcome mixed = Run("merge " + dir.q("p0.json") + " " + dir.q("run.json") + " " +
                            dir.q("p2.json") + " -o " + dir.q("m2.json"));
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("schema: \"knobsim.shard/v1\" differs from \"knobsim.plan/v1\"") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(dir.file("m2.json")));
}

TEST_CASE("plan shards compare their input files by content, not by the paths they were given") {
  const TempDir dir("shard-plan-paths");
  std::filesystem::create_directories(dir.file("copy"));
  const std::string scenario = ReadFile(SourcePath("scenarios/validation/mm1-rho05.yaml"));
  std::ofstream(dir.file("s.yaml")) << scenario;
  std::ofstream(dir.file("copy/s.yaml")) << scenario;
  std::ofstream(dir.file("changed.yaml")) << scenario << "# one more line\n";
  const auto plan = [&](const std::string& path) {
    return "plan " + Quoted(path) +
           " --traffic 1,2 --policies 1,5 --replications 2 --duration 2m --warmup 20s --quiet";
  };
  REQUIRE(Run(plan(dir.file("s.yaml")) + " --json " + dir.q("whole.json")).exit_code == 0);
  // The same bytes by three paths: one plan.
  const std::string paths[] = {dir.file("s.yaml"), dir.path + "/./s.yaml", dir.file("copy/s.yaml")};
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    const Outcome s =
        Run(plan(paths[i]) + " --shard " + n + "/3 --json " + dir.q("p" + n + ".json"));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  }
  const Outcome merged = Run("merge " + dir.q("p0.json") + " " + dir.q("p1.json") + " " +
                             dir.q("p2.json") + " -o " + dir.q("merged.json"));
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  CHECK(ReadFile(dir.file("merged.json")) == ReadFile(dir.file("whole.json")));
  // Other bytes: another plan, whatever the path says.
  REQUIRE(
      Run(plan(dir.file("changed.yaml")) + " --shard 2/3 --json " + dir.q("c2.json")).exit_code ==
      0);
  const Outcome changed = Run("merge " + dir.q("p0.json") + " " + dir.q("p1.json") + " " +
                              dir.q("c2.json") + " -o " + dir.q("m.json"));
  CHECK(changed.exit_code == 2);
  CHECK(changed.err.find("commands differ") != std::string::npos);
  // A shard edited by hand is refused by the document rule, naming file, line and field.
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(ReadFile(dir.file("p1.json")));
  doc["options"][0]["traffic"] = "x";
  std::ofstream(dir.file("bad.json")) << doc.dump(2);
  const Outcome bad = Run("merge " + dir.q("p0.json") + " " + dir.q("bad.json") + " " +
                          dir.q("p2.json") + " -o " + dir.q("m.json"));
  CHECK(bad.exit_code == 2);
  CHECK_MESSAGE(bad.err.find(dir.file("bad.json") + ":") != std::string::npos, bad.err);
  CHECK(bad.err.find(": options[0].traffic: \"x\" is not a number") != std::string::npos);
  CHECK(bad.err.find("json.exception") == std::string::npos);
  CHECK(!std::filesystem::exists(dir.file("m.json")));
}

// The tiny trace: 10 nodes (V100M32 × 8 and T4 × 2 cards), 90 pods with creation and deletion
// times.
std::string TinyReplay(const std::string& rest, const std::string& seeds = "42-43") {
  return "replay --nodes " + QuotedSourcePath("tools/knobsim/testdata/shard-trace/nodes.csv") +
         " --pods " + QuotedSourcePath("tools/knobsim/testdata/shard-trace/pods.csv") +
         " --policy fgd,ack-binpack,random --seeds " + seeds + " --quiet " + rest;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("three replay shards merged equal the unsharded replay's files byte for byte") {
  const TempDir dir("shard-replay");
  REQUIRE(Run(TinyReplay("--out " + dir.q("whole"))).exit_code == 0);
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    const Outcome s = Run(TinyReplay("--shard " + n + "/3 --out " + dir.q("s" + n)));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  }
  // Shard 1 of 3 owns runs 1 and 4 of the 6 (policy-major): fgd/43 and random/42.
  const std::string allo1 = ReadFile(dir.file("s1/analysis_allo_discrete.csv"));
  CHECK(std::count(allo1.begin(), allo1.end(), '\n') == 3);
  CHECK(allo1.find("\npods,06-FGD,1.3,43,50,") != std::string::npos);
  CHECK(allo1.find("\npods,01-Random,1.3,42,50,") != std::string::npos);
  const nlohmann::json manifest =
      nlohmann::json::parse(ReadFile(dir.file("s1/knobsim-shard.json")));
  CHECK(manifest["schema"] == "knobsim.replay-shard/v1");
  CHECK(manifest["runs"] == 2);

  const Outcome merged = Run("merge " + dir.q("s1") + " " + dir.q("s0") + " " + dir.q("s2") +
                             " -o " + dir.q("merged"));
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  CHECK(Files(dir.file("merged")) == Files(dir.file("whole")));
  CHECK(Files(dir.file("whole")).size() == 3);
  for (const std::string& name : Files(dir.file("whole"))) {
    INFO(name);
    const std::string whole = ReadFile(dir.file("whole/" + name));
    CHECK(std::count(whole.begin(), whole.end(), '\n') == 7);  // header + 6 runs
    CHECK(ReadFile(dir.file("merged/" + name)) == whole);
  }

  SUBCASE("a missing shard, a shard twice, another seed list") {
    const Outcome missing = Run("merge " + dir.q("s0") + " " + dir.q("s1") + " -o " + dir.q("m2"));
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("missing: shard index 2 (of 0..2)") != std::string::npos);
    const Outcome twice = Run("merge " + dir.q("s0") + " " + dir.q("s1") + " " + dir.q("s1") + " " +
                              dir.q("s2") + " -o " + dir.q("m2"));
    CHECK(twice.exit_code == 2);
    CHECK(twice.err.find("shard 1/3 is given twice") != std::string::npos);
    REQUIRE(Run(TinyReplay("--shard 2/3 --out " + dir.q("seeds"), "42-44")).exit_code == 0);
    const Outcome seeds = Run("merge " + dir.q("s0") + " " + dir.q("s1") + " " + dir.q("seeds") +
                              " -o " + dir.q("m2"));
    CHECK(seeds.exit_code == 2);
    CHECK(seeds.err.find("seeds: [42,43,44] differs from [42,43]") != std::string::npos);
    const Outcome plain = Run("merge " + dir.q("s0") + " " + dir.q("whole") + " -o " + dir.q("m2"));
    CHECK(plain.exit_code == 2);
    CHECK(plain.err.find("holds no knobsim-shard.json: not a replay shard") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("m2")));
  }
  SUBCASE("a shard whose result file lost a row") {
    const std::string path = dir.file("s2/analysis_frag_discrete.csv");
    const std::string text = ReadFile(path);
    {
      std::ofstream cut(path, std::ios::binary);
      cut << text.substr(0, text.rfind('\n', text.size() - 2) + 1);
    }
    const Outcome o =
        Run("merge " + dir.q("s0") + " " + dir.q("s1") + " " + dir.q("s2") + " -o " + dir.q("m3"));
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(path + ": has no row for") != std::string::npos);
  }
  SUBCASE("an unsharded replay into a shard's directory removes its manifest") {
    REQUIRE(Run(TinyReplay("--out " + dir.q("s0"))).exit_code == 0);
    CHECK(!std::filesystem::exists(dir.file("s0/knobsim-shard.json")));
  }
}

TEST_CASE("timed replay shards merge into the unsharded run files") {
  const TempDir dir("shard-timed");
  const std::string timed = "--timed --interval 10m ";
  REQUIRE(Run(TinyReplay(timed + "--out " + dir.q("whole"))).exit_code == 0);
  for (int i = 0; i < 4; ++i) {  // 6 runs over 4 shards: two shards get one run
    const std::string n = std::to_string(i);
    const Outcome s = Run(TinyReplay(timed + "--shard " + n + "/4 --out " + dir.q("s" + n)));
    REQUIRE_MESSAGE(s.exit_code == 0, s.err);
  }
  CHECK(Files(dir.file("s3")) ==
        std::vector<std::string>{"knobsim-shard.json", "timed_pods_ack-binpack_43.csv"});
  const Outcome merged = Run("merge " + dir.q("s0") + " " + dir.q("s1") + " " + dir.q("s2") + " " +
                             dir.q("s3") + " -o " + dir.q("merged"));
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  const std::vector<std::string> names = Files(dir.file("whole"));
  CHECK(names.size() == 6);
  CHECK(Files(dir.file("merged")) == names);
  for (const std::string& name : names) {
    INFO(name);
    CHECK(ReadFile(dir.file("merged/" + name)) == ReadFile(dir.file("whole/" + name)));
  }
  // A shard of the discrete replay does not belong with timed ones.
  REQUIRE(Run(TinyReplay("--shard 3/4 --out " + dir.q("discrete"))).exit_code == 0);
  const Outcome mixed = Run("merge " + dir.q("s0") + " " + dir.q("s1") + " " + dir.q("s2") + " " +
                            dir.q("discrete") + " -o " + dir.q("m2"));
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find("mode: \"discrete\" differs from \"timed\"") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
