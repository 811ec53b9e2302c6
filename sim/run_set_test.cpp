#include "sim/run_set.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace knobsim {
namespace {

// A scenario with two workloads and two variants that change replicas (which the fake reads).
Scenario TwoWorkloads() {
  Scenario s;
  s.name = "fake";
  s.run.duration = 100 * kNanosPerSecond;
  s.run.warmup = 10 * kNanosPerSecond;
  Workload a;
  a.name = "a";
  a.replicas = 2;
  a.slo.latency = 50 * kNanosPerMilli;
  Workload b;
  b.name = "b";
  b.replicas = 1;
  s.workloads = {a, b};
  Variant more;
  more.name = "more";
  more.description = "more replicas of a";
  more.replicas["a"] = 4;
  Variant fewer;
  fewer.name = "fewer";
  fewer.replicas["b"] = 0;
  s.variants = {more, fewer};
  return s;
}

// Deterministic stand-in for Simulate: every number is a function of the scenario and the seed,
// so any mix-up of jobs, seeds or variants shows in the summaries.
RunResult Fake(const Scenario& s, uint64_t seed) {
  RunResult r;
  for (const Workload& w : s.workloads) {
    WorkloadResult x;
    x.name = w.name;
    x.requests = 1000 + static_cast<int64_t>(seed % 97) + w.replicas;
    x.errors.timeout = static_cast<int64_t>(seed % 5);
    x.errors.interrupted = w.replicas == 0 ? 0 : static_cast<int64_t>(seed % 3);
    x.completed = w.replicas == 0 ? 0 : x.requests - x.errors.timeout - x.errors.interrupted;
    x.errors.no_replica = x.requests - x.completed - x.errors.timeout - x.errors.interrupted;
    x.latency_ms.p99 = w.replicas == 0 ? 0 : 10.0 * w.replicas + static_cast<double>(seed % 7);
    x.latency_ms.mean = x.latency_ms.p99 / 2;
    x.throughput_rps = static_cast<double>(x.completed) / 90.0;
    x.slo_met = seed % 3 != 0;
    x.measured_s = 90;
    r.workloads.push_back(x);
  }
  for (int node = 0; node < 2; ++node) {
    CardResult c;
    c.node = "node-" + std::to_string(node);
    c.index = 0;
    c.gpu = "A10";
    c.busy = static_cast<double>((seed + node) % 10) / 10.0;
    c.effective = c.busy / 2;
    c.waste = c.busy - c.effective;
    c.memory_physical_mib = 23028;
    c.memory_quota_mib = 4096;
    c.memory_peak_mib = static_cast<int64_t>(1000 + seed % 13);
    c.pods = {"default/a-" + std::to_string(seed % 11)};
    r.cards.push_back(c);
  }
  PodResult p;
  p.name = "a-" + std::to_string(seed);
  r.pods.push_back(p);
  r.cluster.pending_pods = static_cast<int>(seed % 4);
  return r;
}

RunSetOptions Options(int threads, int reps) {
  RunSetOptions o;
  o.variants = {"fewer", "more"};
  o.replications = reps;
  o.seed = 42;
  o.threads = threads;
  o.simulate = Fake;
  return o;
}

void CheckSame(const MeanCi& a, const MeanCi& b) {
  CHECK(a.mean == b.mean);
  CHECK(a.half_width == b.half_width);
}

TEST_CASE("RunSet: base first, then the requested variants in order, repeats skipped") {
  RunSetOptions o = Options(1, 1);
  o.variants = {"fewer", "base", "more", "fewer"};
  RunSetResult r = RunSet(TwoWorkloads(), o);
  REQUIRE(r.variants.size() == 3);
  CHECK(r.variants[0].name == "base");
  CHECK(r.variants[1].name == "fewer");
  CHECK(r.variants[2].name == "more");
  CHECK(r.variants[2].description == "more replicas of a");
  CHECK(r.scenario == "fake");
  CHECK(r.seed == 42);
  CHECK(r.duration == 100 * kNanosPerSecond);
  CHECK(r.warmup == 10 * kNanosPerSecond);
}

TEST_CASE("RunSet: the variant's knobs reach the simulation") {
  RunSetResult r = RunSet(TwoWorkloads(), Options(1, 1));
  // Fake latency p99 = 10 * replicas + seed % 7; base a has 2 replicas, `more` 4.
  const double base_p99 = r.variants[0].workloads[0].latency_ms.p99.mean;
  CHECK(r.variants[2].workloads[0].latency_ms.p99.mean == doctest::Approx(base_p99 + 20));
  // `fewer` leaves b with no replica: no successes, so no latency replications.
  CHECK(r.variants[1].workloads[1].completed.mean == 0);
  CHECK(r.variants[1].workloads[1].latency_replications == 0);
  CHECK(r.variants[0].workloads[1].latency_replications == 1);
}

TEST_CASE("RunSet: identical results for any thread count") {
  RunSetResult one = RunSet(TwoWorkloads(), Options(1, 5));
  RunSetResult two = RunSet(TwoWorkloads(), Options(2, 5));
  RunSetResult many = RunSet(TwoWorkloads(), Options(7, 5));
  for (const RunSetResult* other : {&two, &many}) {
    REQUIRE(other->variants.size() == one.variants.size());
    for (size_t v = 0; v < one.variants.size(); ++v) {
      const VariantSummary& a = one.variants[v];
      const VariantSummary& b = other->variants[v];
      CHECK(a.name == b.name);
      REQUIRE(a.runs.size() == b.runs.size());
      for (size_t rep = 0; rep < a.runs.size(); ++rep) {
        CHECK(a.runs[rep].pods[0].name == b.runs[rep].pods[0].name);
        CHECK(a.runs[rep].workloads[0].requests == b.runs[rep].workloads[0].requests);
      }
      for (size_t w = 0; w < a.workloads.size(); ++w) {
        CheckSame(a.workloads[w].requests, b.workloads[w].requests);
        CheckSame(a.workloads[w].latency_ms.p99, b.workloads[w].latency_ms.p99);
        CHECK(a.workloads[w].slo_met_replications == b.workloads[w].slo_met_replications);
      }
      for (size_t c = 0; c < a.cards.size(); ++c) CheckSame(a.cards[c].busy, b.cards[c].busy);
      CHECK(a.cluster.pending_pods == b.cluster.pending_pods);
    }
  }
}

TEST_CASE("RunSet: replications are seeded alike across variants and summarized") {
  const int reps = 4;
  RunSetResult r = RunSet(TwoWorkloads(), Options(2, reps));
  const VariantSummary& base = r.variants[0];
  const VariantSummary& more = r.variants[2];
  REQUIRE(base.runs.size() == reps);
  CHECK(base.replications == reps);
  std::vector<double> requests, busy, p99, interrupted;
  int met = 0;
  for (int rep = 0; rep < reps; ++rep) {
    // Common random numbers: replication rep of every variant has the same seed.
    CHECK(base.runs[rep].pods[0].name == more.runs[rep].pods[0].name);
    requests.push_back(static_cast<double>(base.runs[rep].workloads[0].requests));
    interrupted.push_back(static_cast<double>(base.runs[rep].workloads[0].errors.interrupted));
    p99.push_back(base.runs[rep].workloads[0].latency_ms.p99);
    busy.push_back(base.runs[rep].cards[1].busy);
    met += base.runs[rep].workloads[0].slo_met ? 1 : 0;
  }
  CheckSame(base.workloads[0].requests, Summarize(requests));
  CheckSame(base.workloads[0].errors.interrupted, Summarize(interrupted));
  CHECK(base.workloads[0].errors.interrupted.half_width > 0);  // the seeds differ mod 3
  CheckSame(base.workloads[0].latency_ms.p99, Summarize(p99));
  CheckSame(base.cards[1].busy, Summarize(busy));
  CHECK(base.workloads[0].slo_met_replications == met);
  CHECK(base.workloads[0].slo_met == (met == reps));
  CHECK(base.workloads[0].slo.latency == 50 * kNanosPerMilli);
  // Pods, card pod lists and cluster come from replication 0.
  CHECK(base.pods[0].name == base.runs[0].pods[0].name);
  CHECK(base.cards[0].pods == base.runs[0].cards[0].pods);
  CHECK(base.cluster.pending_pods == base.runs[0].cluster.pending_pods);
  CHECK(base.cards[0].node == "node-0");
  CHECK(base.cards[1].memory_physical_mib == 23028);
}

TEST_CASE("SummarizeVariant: latency only over replications with successes") {
  std::vector<RunResult> runs(3);
  const double p99[] = {10, 0, 20};
  for (int i = 0; i < 3; ++i) {
    WorkloadResult w;
    w.name = "w";
    w.requests = 10;
    w.completed = i == 1 ? 0 : 10;
    w.errors.timeout = 10 - w.completed;
    w.latency_ms.p99 = p99[i];
    runs[i].workloads.push_back(w);
  }
  VariantSummary v = SummarizeVariant("base", "", Scenario{}, std::move(runs));
  CHECK(v.workloads[0].latency_replications == 2);
  CHECK(v.workloads[0].latency_ms.p99.mean == doctest::Approx(15));
  CHECK(v.workloads[0].completed.mean == doctest::Approx(20.0 / 3));
}

TEST_CASE("RunSet: progress counts every job, one call at a time") {
  RunSetOptions o = Options(2, 3);
  std::vector<int> seen;
  std::atomic<int> inside{0};
  bool overlapped = false;
  o.progress = [&](int done, int total) {
    if (inside.fetch_add(1) != 0) overlapped = true;
    CHECK(total == 9);
    seen.push_back(done);
    inside.fetch_sub(1);
  };
  RunSet(TwoWorkloads(), o);
  CHECK_FALSE(overlapped);
  REQUIRE(seen.size() == 9);
  for (int i = 0; i < 9; ++i) CHECK(seen[i] == i + 1);
}

TEST_CASE("RunSet: sequential stopping cancels what has not started, never changes a replication") {
  RunSetOptions whole = Options(1, 5);
  whole.variants.clear();
  const RunSetResult all = RunSet(TwoWorkloads(), whole);
  for (int threads : {1, 2, 3, 5, 8}) {
    CAPTURE(threads);
    RunSetOptions o = whole;
    o.threads = threads;
    std::vector<int> seen;
    o.stop = [&](const std::vector<RunResult>& finished) {
      seen.push_back(static_cast<int>(finished.size()));
      return true;
    };
    const RunSetResult first = RunSet(TwoWorkloads(), o);
    // Asked once, after the first run finished; those already running then are left out.
    CHECK(seen == std::vector<int>{1});
    CHECK(first.replications == 1);
    REQUIRE(first.variants.size() == 1);
    REQUIRE(first.variants[0].runs.size() == 1);
    // Whichever replication finished first, it is that replication's run, unchanged.
    bool matches = false;
    for (const RunResult& r : all.variants[0].runs)
      matches = matches || r.pods[0].name == first.variants[0].runs[0].pods[0].name;
    CHECK(matches);
    if (threads == 1)
      CHECK(first.variants[0].runs[0].pods[0].name == all.variants[0].runs[0].pods[0].name);

    // Never stopped: every replication, in replication order, asked after each but the last.
    seen.clear();
    o.stop = [&](const std::vector<RunResult>& finished) {
      seen.push_back(static_cast<int>(finished.size()));
      return false;
    };
    const RunSetResult never = RunSet(TwoWorkloads(), o);
    CHECK(seen == std::vector<int>{1, 2, 3, 4});
    REQUIRE(never.replications == 5);
    for (int r = 0; r < 5; ++r)
      CHECK(never.variants[0].runs[r].pods[0].name == all.variants[0].runs[r].pods[0].name);
    for (size_t w = 0; w < all.variants[0].workloads.size(); ++w) {
      CheckSame(never.variants[0].workloads[w].latency_ms.p99,
                all.variants[0].workloads[w].latency_ms.p99);
    }
  }
  RunSetOptions with_variants = Options(2, 3);
  with_variants.stop = [](const std::vector<RunResult>&) { return false; };
  CHECK_THROWS_AS(RunSet(TwoWorkloads(), with_variants), std::invalid_argument);
}

TEST_CASE("RunSet: on a shared pool, the same summaries as on its own threads") {
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    JobPool pool(threads);
    RunSetOptions o = Options(1, 3);
    const RunSetResult own = RunSet(TwoWorkloads(), o);
    o.pool = &pool;
    o.pool_rank = 7;
    int calls = 0;
    o.progress = [&](int done, int total) {
      ++calls;
      CHECK(done == calls);
      CHECK(total == 9);
    };
    const RunSetResult shared = RunSet(TwoWorkloads(), o);
    CHECK(calls == 9);
    REQUIRE(shared.variants.size() == own.variants.size());
    for (size_t v = 0; v < own.variants.size(); ++v) {
      for (size_t r = 0; r < 3; ++r)
        CHECK(shared.variants[v].runs[r].pods[0].name == own.variants[v].runs[r].pods[0].name);
    }
  }
}

TEST_CASE("RunSet: unknown variant, bad replications and failing runs throw") {
  RunSetOptions o = Options(2, 2);
  o.variants = {"nope"};
  CHECK_THROWS_AS(RunSet(TwoWorkloads(), o), std::invalid_argument);
  o = Options(2, 0);
  CHECK_THROWS_AS(RunSet(TwoWorkloads(), o), std::invalid_argument);
  o = Options(2, 3);
  o.simulate = [](const Scenario& s, uint64_t seed) -> RunResult {
    if (s.workloads[0].replicas == 4) throw std::runtime_error("boom");
    return Fake(s, seed);
  };
  CHECK_THROWS_WITH_AS(RunSet(TwoWorkloads(), o), "boom", std::runtime_error);
  CHECK(FindVariant(TwoWorkloads(), "more") != nullptr);
  CHECK(FindVariant(TwoWorkloads(), "base") == nullptr);
}

}  // namespace
}  // namespace knobsim
