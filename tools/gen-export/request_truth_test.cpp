// The backtest profile's request-level truth (tools/gen-export/README.md "Request-level truth"):
// the Lindley simulation's own accounting, the gamma draws, the bursty counts, the latency
// histogram as Prometheus would return rate() of it, the train/test windows, the CPU-only router,
// and the same bytes for the same seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "tools/gen-export/export_generator.h"
#include "tools/gen-export/plan.h"
#include "tools/gen-export/random.h"
#include "tools/gen-export/request_truth.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

// The profile the backtest example ships with: 8 nodes, 24 pods, one day at 60 s.
GeneratorOptions Backtest(uint64_t seed = 1) {
  GeneratorOptions o;
  o.seed = seed;
  o.nodes = 8;
  o.pods = 24;
  o.days = 1;
  o.request_truth = true;
  o.cpu_router = true;
  o.idle_floor = 0.03;
  o.backtest_split = 0.25;
  return o;
}

const GeneratedCluster& Profile() {
  static const GeneratedCluster cluster = [] {
    Expected<GeneratedCluster> c = Generate(Backtest());
    REQUIRE(c.ok());
    return std::move(c.value());
  }();
  return cluster;
}

json Prom(const GeneratedCluster& cluster, std::string_view metric) {
  std::ostringstream out;
  WritePromJson(cluster, metric, out);
  return json::parse(out.str());
}

std::vector<int> RequestPods(const GroundTruth& t) {
  std::vector<int> pods;
  for (size_t p = 0; p < t.pods.size(); ++p)
    if (t.pods[p].requests) pods.push_back(static_cast<int>(p));
  return pods;
}

double Value(const json& sample) {
  return std::stod(sample[1].get<std::string>());
}

TEST_CASE("the backtest profile has whole-GPU LLM pods, pods alone on shared cards and a router") {
  const GroundTruth& t = Profile().truth;
  int whole = 0, shared_alone = 0, router = 0;
  for (int p : RequestPods(t)) {
    const TruthWorkload& w = t.workloads[t.pods[p].workload];
    CHECK(w.request_truth);
    for (int c : t.pods[p].cards) CHECK(t.cards[c].pods.size() == 1);
    (w.whole_gpus > 0 ? whole : shared_alone) += 1;
  }
  for (const TruthWorkload& w : t.workloads) {
    if (!w.cpu_only) continue;
    ++router;
    CHECK(!w.gpu);
    CHECK(w.has_traffic);
    CHECK(w.running == 2);
  }
  CHECK(whole >= 2);
  CHECK(shared_alone >= 1);
  CHECK(router == 1);
  // Pods sharing a card keep the fluid truth.
  for (const TruthCard& c : t.cards) {
    if (c.pods.size() > 1) CHECK(!c.request_truth);
  }
}

TEST_CASE("a request-truth pod's busy fraction is its arrival rate times its mean service time") {
  const GroundTruth& t = Profile().truth;
  for (int p : RequestPods(t)) {
    const RequestSeries& r = *t.pods[p].requests;
    const TruthWorkload& w = t.workloads[t.pods[p].workload];
    const double speed = t.cards[t.pods[p].cards.front()].speed;
    const double window_s = static_cast<double>(t.end_unix - t.start_unix);
    CAPTURE(t.pods[p].name);
    // The busy time is the work served (FIFO, one at a time): exact up to the requests that
    // straddle the window's ends.
    const double expected = static_cast<double>(r.all.arrivals) / window_s * r.all.mean_service_s;
    CHECK(r.all.mean_busy == doctest::Approx(expected).epsilon(0.005));
    // And the drawn services average work / speed.
    CHECK(r.all.mean_service_s == doctest::Approx(w.work_s / speed).epsilon(0.02));
    // Latency = wait + service, the wait from the queue.
    CHECK(r.all.mean_latency_s == doctest::Approx(r.all.mean_wait_s + r.all.mean_service_s));
    CHECK(r.all.mean_wait_s >= 0);
    CHECK(r.all.p99_latency_s > r.all.mean_latency_s);
    CHECK(t.cards[t.pods[p].cards.front()].mean_busy == r.all.mean_busy);
  }
}

TEST_CASE("service times are gamma with the workload's cv2") {
  // The generator's own sampler, shape by shape, and the draws each pod was served with.
  for (double shape : {0.5, 2.0, 4.0, 10.0}) {
    Rng rng(42);
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double x = rng.Gamma(shape);
      sum += x;
      sq += x * x;
    }
    const double mean = sum / n, var = sq / n - mean * mean;
    CAPTURE(shape);
    CHECK(mean == doctest::Approx(shape).epsilon(0.01));
    CHECK(var == doctest::Approx(shape).epsilon(0.03));
  }
  const GroundTruth& t = Profile().truth;
  for (int p : RequestPods(t)) {
    const TruthWorkload& w = t.workloads[t.pods[p].workload];
    CAPTURE(t.pods[p].name);
    CHECK(w.service_cv2 >= kServiceCv2Min);
    CHECK(w.service_cv2 <= kServiceCv2Max);
    CHECK(t.pods[p].requests->all.service_cv2 == doctest::Approx(w.service_cv2).epsilon(0.06));
  }
}

TEST_CASE("arrivals per step are bursty: their variance exceeds a Poisson count's") {
  const GroundTruth& t = Profile().truth;
  for (int p : RequestPods(t)) {
    const RequestSeries& r = *t.pods[p].requests;
    const TruthWorkload& w = t.workloads[t.pods[p].workload];
    // Against the diurnal mean per step (bursts left out), a Poisson count's squared deviations
    // sum to about the means' sum; the bursts add (multiplier - 1)² × share × mean² per step.
    double dev = 0, mean = 0;
    for (size_t i = 0; i < r.arrivals.size(); ++i) {
      const int64_t mid = r.start_unix + static_cast<int64_t>(i) * r.step_s + r.step_s / 2;
      const double mu = w.pod_mean_rate * DiurnalFactor(w, mid) * r.step_s;
      dev += (r.arrivals[i] - mu) * (r.arrivals[i] - mu);
      mean += mu;
    }
    CAPTURE(t.pods[p].name);
    CHECK(dev / mean > 1.5);
  }
}

TEST_CASE("the rate series of a request-truth pod is its arrivals per step, whole when x step") {
  const GeneratedCluster& cluster = Profile();
  const GroundTruth& t = cluster.truth;
  const json rates = Prom(cluster, kRequestRateMetric);
  int checked = 0;
  for (const json& s : rates["data"]["result"]) {
    for (int p : RequestPods(t)) {
      if (s["metric"]["pod"] != t.pods[p].name) continue;
      const RequestSeries& r = *t.pods[p].requests;
      int64_t sum = 0;
      for (const json& v : s["values"]) {
        const double count = Value(v) * 60;
        CHECK(std::abs(count - std::round(count)) < 1e-6);
        sum += std::llround(count);
      }
      CHECK(sum == r.all.arrivals);
      ++checked;
    }
  }
  CHECK(checked == static_cast<int>(RequestPods(t).size()));
}

TEST_CASE("the latency histogram is rate() of a classic histogram whose mean is sum / count") {
  const GeneratedCluster& cluster = Profile();
  const GroundTruth& t = cluster.truth;
  const json buckets = Prom(cluster, kLatencyBucketMetric);
  const json sums = Prom(cluster, kLatencySumMetric);
  const json counts = Prom(cluster, kLatencyCountMetric);
  for (int p : RequestPods(t)) {
    const TruthPod& pod = t.pods[p];
    CAPTURE(pod.name);
    auto series_of = [&](const json& doc) {
      std::vector<json> out;
      for (const json& s : doc["data"]["result"])
        if (s["metric"]["pod"] == pod.name) out.push_back(s);
      return out;
    };
    const std::vector<json> b = series_of(buckets), s = series_of(sums), c = series_of(counts);
    REQUIRE(s.size() == 1);
    REQUIRE(c.size() == 1);
    REQUIRE(b.size() == static_cast<size_t>(kLatencyBucketCount));
    CHECK(b.back()["metric"]["le"] == "+Inf");
    CHECK(b.front()["metric"]["le"] == "0.005");
    CHECK(s[0]["metric"]["__name__"] == kLatencySumMetric);
    double sum = 0, count = 0;
    for (size_t i = 0; i < s[0]["values"].size(); ++i) {
      sum += Value(s[0]["values"][i]);
      count += Value(c[0]["values"][i]);
      // Cumulative buckets, +Inf = _count, at every sample.
      for (size_t k = 1; k < b.size(); ++k)
        CHECK(Value(b[k]["values"][i]) >= Value(b[k - 1]["values"][i]));
      CHECK(Value(b.back()["values"][i]) == Value(c[0]["values"][i]));
    }
    const RequestWindowTruth& all = pod.requests->all;
    CHECK(std::llround(count * 60) == all.completions);
    CHECK(sum / count == doctest::Approx(all.mean_latency_s).epsilon(1e-6));
    // The p99 lies in the bucket where the cumulative share crosses 0.99.
    double below = 0;
    for (size_t k = 0; k + 1 < b.size(); ++k) {
      double in = 0;
      for (const json& v : b[k]["values"]) in += Value(v);
      if (kLatencyBuckets[k] < all.p99_latency_s) below = std::max(below, in / count);
    }
    CHECK(below <= 0.99 + 1e-9);
  }
}

TEST_CASE("utilization of a request-truth card is its busy plus its idle floor within the noise") {
  const GeneratedCluster& cluster = Profile();
  const GroundTruth& t = cluster.truth;
  const json util = Prom(cluster, kGpuUtilMetric);
  int checked = 0;
  for (size_t c = 0; c < t.cards.size(); ++c) {
    const TruthCard& card = t.cards[c];
    if (!card.request_truth) continue;
    CHECK(card.idle_floor >= 0.03 * kIdleFloorLow);
    CHECK(card.idle_floor <= 0.03);
    for (const json& s : util["data"]["result"]) {
      if (s["metric"]["UUID"] != card.uuid) continue;
      double sum = 0;
      for (const json& v : s["values"]) sum += Value(v) / 100;
      const double mean = sum / static_cast<double>(s["values"].size());
      CAPTURE(card.node);
      CHECK(std::abs(mean - (card.mean_busy + card.idle_floor)) < 0.006);
      ++checked;
    }
  }
  CHECK(checked >= 3);
}

TEST_CASE("the train and test windows split the metrics window at its last quarter") {
  const GroundTruth& t = Profile().truth;
  CHECK(t.train_from == t.start_unix);
  CHECK(t.train_to == t.test_from);
  CHECK(t.test_to == t.end_unix);
  CHECK(t.test_from == t.start_unix + 18 * 3600);
  const json truth = TruthJson(Profile());
  CHECK(truth["backtest"]["test"]["arg"] == "2024-06-01T18:00:00Z/2024-06-02T00:00:00Z");
  for (int p : RequestPods(t)) {
    const RequestSeries& r = *t.pods[p].requests;
    CHECK(r.train.arrivals + r.test.arrivals == r.all.arrivals);
    CHECK(r.train.completions + r.test.completions == r.all.completions);
  }
}

TEST_CASE("stratified in-step times keep the counts and cut the queueing") {
  GeneratorOptions o = Backtest();
  o.arrivals_in_step = ArrivalsInStep::kStratified;
  Expected<GeneratedCluster> stratified = Generate(o);
  REQUIRE(stratified.ok());
  const GroundTruth& a = Profile().truth;
  const GroundTruth& b = stratified->truth;
  for (int p : RequestPods(a)) {
    REQUIRE(b.pods[p].requests);
    CHECK(b.pods[p].requests->arrivals == a.pods[p].requests->arrivals);
    CHECK(b.pods[p].requests->all.mean_wait_s <= a.pods[p].requests->all.mean_wait_s);
  }
}

TEST_CASE("the backtest profile gives the same bytes for the same seed") {
  Expected<GeneratedCluster> again = Generate(Backtest());
  Expected<GeneratedCluster> other = Generate(Backtest(2));
  REQUIRE(again.ok());
  REQUIRE(other.ok());
  CHECK(ExportJson(*again) == ExportJson(Profile()));
  CHECK(TruthJson(*again).dump() == TruthJson(Profile()).dump());
  for (const std::string& metric : MetricNames(Profile())) {
    std::ostringstream x, y;
    WritePromJson(Profile(), metric, x);
    WritePromJson(*again, metric, y);
    CAPTURE(metric);
    CHECK(x.str() == y.str());
  }
  CHECK(TruthJson(*other).dump() != TruthJson(Profile()).dump());
}

TEST_CASE("backtest options out of range are refused, naming the flag") {
  struct Case {
    void (*edit)(GeneratorOptions&);
    const char* flag;
  };
  const Case cases[] = {
      {[](GeneratorOptions& o) { o.idle_floor = 0.5; }, "--idle-floor"},
      {[](GeneratorOptions& o) { o.idle_floor = -0.01; }, "--idle-floor"},
      {[](GeneratorOptions& o) { o.backtest_split = 1; }, "--backtest-split"},
      {[](GeneratorOptions& o) { o.backtest_split = -0.1; }, "--backtest-split"},
  };
  for (const Case& c : cases) {
    GeneratorOptions o = Backtest();
    c.edit(o);
    const Status e = CheckOptions(o);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().path == c.flag);
  }
}

}  // namespace
}  // namespace knobsim::gen_export
