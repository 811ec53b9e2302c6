// The work distribution from the latency (WorkShapes), --work-dist and --fit-bin.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/service_time_fit.h"
#include "sim/import/import_steps.h"

namespace knobsim {
namespace {

constexpr double kT0 = 1700000000;

// One A10 node with one card, one workload with traffic whose pod 0 holds the card alone; the
// card's busy is `busy` at every minute; the pod's latency `latency` (times filled here).
struct OneCard {
  NodeIndex nodes;
  PodIndex pods;
  ImportModel model;
  Metrics metrics;

  OneCard(double busy, PodLatency latency, int samples) {
    nodes.pool_of_node["n1"] = 0;
    nodes.gpu_of_node["n1"] = "A10";
    const PodKey key{"ml", "sd-0"};
    pods.workload_of[key] = {0, 0};
    pods.place[0] = PodPlace{"n1", {0}};
    pods.card_pods[{"n1", 0}] = {0};
    ImportedWorkload w;
    w.spec.namespace_ = "ml";
    w.spec.name = "sd";
    w.has_traffic = true;
    w.has_work = true;
    w.spec.work.mean_s = 2.0;
    w.notes["work"] = "fitted";
    model.workloads.push_back(w);
    CardUtilization cu;
    cu.card = {"n1", "0", ""};
    latency.pod = key;
    for (int i = 0; i < samples; ++i) {
      cu.times.push_back(kT0 + 60.0 * i);
      cu.busy.push_back(busy);
      latency.times.push_back(kT0 + 60.0 * i);
    }
    metrics.cards.push_back(cu);
    metrics.latencies.push_back(latency);
  }
};

// A histogram latency sample repeated: the expected cumulative counts (per second) of `f`.
PodLatency HistogramOf(ShapeFamily f, double mean, double cv2, int samples) {
  PodLatency l;
  l.source = "histogram";
  l.bucket_le = {0.5, 1, 1.5, 2, 2.5, 3, 4, 6, INFINITY};
  std::vector<double> row;
  for (double le : l.bucket_le) row.push_back(2.0 * ShapeCdf(f, mean, cv2, le));
  for (int i = 0; i < samples; ++i) {
    l.buckets.push_back(row);
    l.count.push_back(2.0);
    l.mean_s.push_back(mean);
    l.p50_s.push_back(NAN);
    l.p99_s.push_back(NAN);
  }
  return l;
}

PodLatency SummaryOf(ShapeFamily f, double mean, double cv2, int samples) {
  PodLatency l;
  l.source = "summary";
  for (int i = 0; i < samples; ++i) {
    l.count.push_back(1.0);
    l.mean_s.push_back(mean);
    l.p50_s.push_back(ShapeQuantile(f, mean, cv2, 0.5));
    l.p99_s.push_back(ShapeQuantile(f, mean, cv2, 0.99));
  }
  return l;
}

PodLatency MeanOf(double mean, int samples) {
  PodLatency l;
  l.source = "mean";
  l.mean_s.assign(samples, mean);
  l.count.assign(samples, NAN);
  l.p50_s.assign(samples, NAN);
  l.p99_s.assign(samples, NAN);
  return l;
}

}  // namespace

TEST_CASE("work shape: the latency's form and load decide the work distribution") {
  struct Row {
    const char* rule;
    PodLatency latency;
    double busy;
    WorkDistribution dist;
    double cv2;  // expected service cv²; NaN: not checked
    const char* note;
  };
  const Row rows[] = {
      {"histogram of gamma latency, idle card: gamma, its cv²",
       HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40), 0.0, WorkDistribution::kGamma, 0.1,
       "from the latency histogram: 40 samples"},
      {"histogram of lognormal latency: lognormal",
       HistogramOf(ShapeFamily::kLognormal, 2, 0.3, 40), 0.0, WorkDistribution::kLognormal, 0.3,
       "shape lognormal"},
      {"summary quantiles: the cv² from p50/mean and p99/mean",
       SummaryOf(ShapeFamily::kGamma, 2, 0.2, 20), 0.0, WorkDistribution::kGamma, 0.2,
       "from the latency summary"},
      {"loaded card (busy 0.1): the M/G/1 wait is taken off the latency's cv²",
       HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40), 0.1, WorkDistribution::kGamma, NAN,
       "less the M/G/1 wait"},
      {"busy above 0.3: queued, no sample counts", HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40),
       0.5, WorkDistribution::kExponential, NAN, "exponential kept: 0 latency samples"},
      {"too few samples", HistogramOf(ShapeFamily::kGamma, 2, 0.1, 5), 0.0,
       WorkDistribution::kExponential, NAN, "5 latency samples alone on its card"},
      {"a mean series has no shape", MeanOf(2, 40), 0.0, WorkDistribution::kExponential, NAN,
       "exponential kept: the latency is a mean series"},
  };
  for (const Row& row : rows) {
    CAPTURE(std::string(row.rule));
    OneCard c(row.busy, row.latency, static_cast<int>(row.latency.mean_s.size()));
    WorkShapes(c.metrics, c.nodes, c.pods, GpuCatalog::BuiltIn(), ImportOptions{}, c.model);
    const ImportedWorkload& w = c.model.workloads[0];
    CHECK(w.spec.work.dist == row.dist);
    CHECK(w.spec.work.mean_s == 2.0);  // the fit's mean stays
    if (!std::isnan(row.cv2))
      CHECK(w.spec.work.cv * w.spec.work.cv == doctest::Approx(row.cv2).epsilon(0.03));
    CHECK(w.notes.at("work").find(row.note) != std::string::npos);
  }
  // The wait removed: the loaded card's service cv² is below the latency's 0.1.
  OneCard loaded(0.1, HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40), 40);
  WorkShapes(loaded.metrics, loaded.nodes, loaded.pods, GpuCatalog::BuiltIn(), {}, loaded.model);
  CHECK(loaded.model.workloads[0].spec.work.cv < std::sqrt(0.1) * 0.95);
}

TEST_CASE("work shape: the idle term is taken off busy before the load rule") {
  OneCard c(0.35, HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40), 40);
  c.model.card_idle_busy["n1/0"] = 0.1;  // 0.35 - 0.1 = 0.25 <= 0.3
  WorkShapes(c.metrics, c.nodes, c.pods, GpuCatalog::BuiltIn(), ImportOptions{}, c.model);
  CHECK(c.model.workloads[0].spec.work.dist == WorkDistribution::kGamma);
}

TEST_CASE("work shape: work the fit left unidentified takes the latency's service mean") {
  OneCard c(0.0, HistogramOf(ShapeFamily::kGamma, 2, 0.1, 40), 40);
  c.model.workloads[0].has_work = false;
  c.model.workloads[0].notes.clear();
  WorkShapes(c.metrics, c.nodes, c.pods, GpuCatalog::BuiltIn(), ImportOptions{}, c.model);
  const ImportedWorkload& w = c.model.workloads[0];
  CHECK(w.has_work);
  CHECK(w.spec.work.mean_s == doctest::Approx(2.0));  // A10: speed 1
  CHECK(w.notes.at("work").find("mean from the latency") == 0);
}

TEST_CASE("--work-dist: each form, and the errors") {
  struct Row {
    const char* text;
    bool ok;
    bool is_auto;
    WorkDistribution dist;
    double cv;
  };
  const Row rows[] = {
      {"auto", true, true, WorkDistribution::kExponential, 1},
      {"exponential", true, false, WorkDistribution::kExponential, 1},
      {"deterministic", true, false, WorkDistribution::kConstant, 0},
      {"gamma:0.09", true, false, WorkDistribution::kGamma, 0.3},
      {"lognormal:4", true, false, WorkDistribution::kLognormal, 2},
      {"gamma", false, false, WorkDistribution::kGamma, 0},
      {"gamma:0", false, false, WorkDistribution::kGamma, 0},
      {"gamma:x", false, false, WorkDistribution::kGamma, 0},
      {"weibull:1", false, false, WorkDistribution::kGamma, 0},
  };
  for (const Row& row : rows) {
    CAPTURE(std::string(row.text));
    const auto got = ParseWorkDist(row.text);
    REQUIRE(got.ok() == row.ok);
    if (!row.ok) {
      CHECK(got.error().path == "--work-dist");
      continue;
    }
    CHECK(!got->has_value() == row.is_auto);
    if (row.is_auto) continue;
    CHECK((*got)->dist == row.dist);
    CHECK((*got)->cv == doctest::Approx(row.cv));
  }
}

TEST_CASE("--fit-bin: auto takes the largest multiple of the step up to 1 h leaving 30 rows") {
  struct Row {
    const char* rule;
    double fixed;  // --fit-bin, 0 = auto
    double step;
    int samples;  // of the median card
    double want;
  };
  const Row rows[] = {
      {"7 days of 5-minute samples: 1 h", 0, 300, 2016, 3600},
      {"a day of minutes: 48 minutes, 30 rows", 0, 60, 1440, 2880},
      {"two hours of minutes: 4 minutes", 0, 60, 120, 240},
      {"fewer samples than rows: the step", 0, 60, 12, 60},
      {"a step above 1 h: the step", 0, 7200, 100, 7200},
      {"--fit-bin 5m as given", 300, 60, 1440, 300},
      {"--fit-bin finer than the samples: the step", 30, 60, 1440, 60},
  };
  for (const Row& row : rows) {
    CAPTURE(std::string(row.rule));
    ImportOptions options;
    options.fit_bin_s = row.fixed;
    std::string why;
    CHECK(ChooseFitBin(options, row.step, {row.samples, row.samples / 2, row.samples * 2}, &why) ==
          row.want);
    CHECK(!why.empty());
  }
}

}  // namespace knobsim
