#include "sim/io/shard_json.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/io/results_json.h"
#include "sim/variant.h"

namespace knobsim {
namespace {

using Json = nlohmann::ordered_json;

// A stand-in for the simulator: every number depends on the seed and on the variant's scenario
// (its replicas), so a job put back in the wrong place changes the summary.
RunResult FakeRun(const Scenario& s, uint64_t seed) {
  RunResult r;
  for (const Workload& w : s.workloads) {
    WorkloadResult wr;
    wr.name = w.name;
    wr.namespace_ = w.namespace_;
    wr.requests = static_cast<int64_t>(1000 + seed % 97 + 10 * w.replicas);
    wr.completed = wr.requests - static_cast<int64_t>(seed % 5);
    wr.errors.timeout = wr.requests - wr.completed;
    for (int i = 0; i < 200; ++i) wr.histogram.Record(1.0 + std::fmod(seed * 0.37 + i * 1.3, 50));
    wr.latency_ms = {wr.histogram.Quantile(0.5) * 1.1, wr.histogram.Quantile(0.5),
                     wr.histogram.Quantile(0.9), wr.histogram.Quantile(0.99),
                     wr.histogram.Quantile(0.999)};
    wr.throughput_rps = static_cast<double>(wr.completed) / 120.0;
    wr.slo_met = seed % 3 != 0;
    wr.slo_latency_ms = wr.latency_ms.p99;
    wr.error_ratio = static_cast<double>(wr.errors.total()) / static_cast<double>(wr.requests);
    wr.measured_s = 120;
    r.workloads.push_back(std::move(wr));
  }
  CardResult c;
  c.node = "gpu-0";
  c.gpu = "A10";
  c.busy = 0.1 * static_cast<double>(seed % 7) + 1.0 / 3;
  c.effective = c.busy / 2;
  c.memory_physical_mib = 23028;
  r.cards.push_back(c);
  r.events_processed = seed;
  return r;
}

Scenario TwoWorkloads() {
  Scenario s;
  s.name = "fake";
  s.run.seed = 11;
  s.run.replications = 3;
  s.run.duration = 180 * kNanosPerSecond;
  s.run.warmup = 60 * kNanosPerSecond;
  Workload a;
  a.name = "ocr";
  a.slo.latency = 200 * kNanosPerMilli;
  Workload b;
  b.name = "asr";
  b.slo.percentile = 99.9;
  s.workloads = {a, b};
  Variant more;
  more.name = "more";
  more.description = "twice the replicas";
  more.replicas["ocr"] = 2;
  s.variants.push_back(more);
  return s;
}

// Shard `shard` of the sweep, made the way `knobsim run --shard` makes it, through its text.
RunShardDocument MakeShard(const Scenario& s, const Shard& shard) {
  RunShardDocument doc;
  doc.sweep = MakeRunSweepIdentity(s, "scenario bytes", {"more"}, "0.1.0");
  doc.shard = shard;
  for (int64_t j = shard.index; j < doc.sweep.jobs(); j += shard.count) {
    const int reps = doc.sweep.replications;
    const Scenario resolved = j / reps == 0 ? s : ApplyVariant(s, s.variants[0]);
    doc.jobs.push_back(
        {j, FakeRun(resolved, ReplicationSeed(s.run.seed, static_cast<int>(j % reps)))});
  }
  Expected<RunShardDocument> read =
      ParseRunShard(Json::parse(RunShardJsonText(doc)), "shard" + ShardText(shard));
  REQUIRE_MESSAGE(read.ok(), read.error().ToString());
  return *read;
}

std::string Unsharded(const Scenario& s) {
  RunSetOptions o;
  o.variants = {"more"};
  o.seed = s.run.seed;
  o.replications = s.run.replications;
  o.threads = 1;
  o.simulate = FakeRun;
  return ResultsJsonText(ResultsToJson(RunSet(s, o), "0.1.0"));
}

TEST_CASE("run shards: merged shards give the unsharded results document byte for byte") {
  const Scenario s = TwoWorkloads();
  const std::string whole = Unsharded(s);
  for (int n : {1, 2, 4, 6, 7}) {  // 6 jobs: fewer, as many and more shards than jobs
    INFO("N = " << n);
    std::vector<RunShardDocument> shards;
    std::vector<std::string> files;
    for (int i = n - 1; i >= 0; --i) {  // in reverse: the order given must not matter
      shards.push_back(MakeShard(s, {i, n}));
      files.push_back("s" + std::to_string(i));
    }
    Expected<RunSetResult> merged = MergeRunShards(shards, files);
    REQUIRE_MESSAGE(merged.ok(), merged.error().ToString());
    CHECK(ResultsJsonText(ResultsToJson(*merged, "0.1.0")) == whole);
  }
}

TEST_CASE("run shards: the identity holds the SLOs and variants that summaries need") {
  const RunSweepIdentity id =
      MakeRunSweepIdentity(TwoWorkloads(), "x", {"base", "more", "more"}, "0.1.0");
  REQUIRE(id.variants.size() == 2);  // base once, repeats skipped, as RunSet does
  CHECK(id.variants[0].name == "base");
  CHECK(id.variants[1].name == "more");
  CHECK(id.variants[1].workloads[1].slo.percentile == 99.9);
  CHECK(id.jobs() == 6);
  CHECK(id.scenario_hash == ContentHash("x"));
  CHECK(ContentHash("x") != ContentHash("x "));
  CHECK(ContentHash("").size() == std::string("fnv1a64:").size() + 16);
  CHECK_THROWS(MakeRunSweepIdentity(TwoWorkloads(), "x", {"nope"}, "0.1.0"));
}

TEST_CASE("run shards: sets that are not one whole sweep are refused") {
  const Scenario s = TwoWorkloads();
  const RunShardDocument a = MakeShard(s, {0, 3}), b = MakeShard(s, {1, 3}),
                         c = MakeShard(s, {2, 3});
  const std::vector<std::string> files = {"a.json", "b.json", "c.json"};
  SUBCASE("missing") {
    const Expected<RunSetResult> r = MergeRunShards({a, c}, {"a.json", "c.json"});
    REQUIRE(!r.ok());
    CHECK(r.error().message.find("missing: shard index 1 (of 0..2)") != std::string::npos);
  }
  SUBCASE("twice") {
    const Expected<RunSetResult> r = MergeRunShards({a, b, b, c}, {"a", "b1", "b2", "c"});
    REQUIRE(!r.ok());
    CHECK(r.error().file == "b2");
    CHECK(r.error().message == "shard 1/3 is given twice (also b1)");
  }
  SUBCASE("another duration") {
    RunShardDocument other = b;
    other.sweep.duration += 1;
    const Expected<RunSetResult> r = MergeRunShards({a, other, c}, files);
    REQUIRE(!r.ok());
    CHECK(r.error().file == "b.json");
    CHECK(r.error().path == "duration_ns");
    CHECK(r.error().message == "180000000001 differs from 180000000000 in a.json");
  }
  SUBCASE("other variants") {
    RunShardDocument other = b;
    other.sweep.variants[1].name = "less";
    const Expected<RunSetResult> r = MergeRunShards({a, other, c}, files);
    REQUIRE(!r.ok());
    CHECK(r.error().message == "[base,less] differs from [base,more] in a.json");
  }
  SUBCASE("another count") {
    const RunShardDocument half = MakeShard(s, {1, 2});
    const Expected<RunSetResult> r = MergeRunShards({a, half}, {"a", "half"});
    REQUIRE(!r.ok());
    CHECK(r.error().message == "shard 1/2 is one of 2, but a is shard 0/3 of 3");
  }
}

TEST_CASE("run shards: a document whose jobs are not its shard's is refused when read") {
  const Scenario s = TwoWorkloads();
  Json doc = Json::parse(RunShardJsonText(MakeShard(s, {1, 3})));
  SUBCASE("a job of another shard") {
    doc["jobs"][1]["job"] = 5;
    const Expected<RunShardDocument> r = ParseRunShard(doc, "x.json");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "jobs[1].job");
    CHECK(r.error().message == "is 5, expected 4 (shard 1/3 of a sweep of 6 jobs)");
  }
  SUBCASE("an extra job") {
    doc["jobs"].push_back(doc["jobs"][0]);
    doc["jobs"][2]["job"] = 7;
    const Expected<RunShardDocument> r = ParseRunShard(doc, "x.json");
    REQUIRE(!r.ok());
    CHECK(r.error().message == "is 7, but shard 1/3 of 6 jobs has no more");
  }
  SUBCASE("a job labelled with the wrong variant") {
    doc["jobs"][1]["variant"] = "base";
    const Expected<RunShardDocument> r = ParseRunShard(doc, "x.json");
    REQUIRE(!r.ok());
    CHECK(r.error().message == "job 4 is more replication 1, not base replication 1");
  }
  SUBCASE("another schema") {
    doc["schema"] = "knobsim.results/v1";
    const Expected<RunShardDocument> r = ParseRunShard(doc, "x.json");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "schema");
  }
  SUBCASE("a bad run inside") {
    doc["jobs"][0]["result"]["cards"][0].erase("busy");
    const Expected<RunShardDocument> r = ParseRunShard(doc, "x.json");
    REQUIRE(!r.ok());
    CHECK(r.error().path == "jobs[0].result.cards[0].busy");
  }
}

}  // namespace
}  // namespace knobsim
