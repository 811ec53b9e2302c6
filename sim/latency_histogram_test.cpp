#include "sim/latency_histogram.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sim/random_stream.h"

namespace knobsim {
namespace {

// The nearest-rank quantile of a sorted sample, the definition Quantile approximates.
double ExactQuantile(const std::vector<double>& sorted, double q) {
  auto n = static_cast<double>(sorted.size());
  auto rank = static_cast<size_t>(std::ceil(q * n));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void CheckAgainstExact(std::vector<double> sample) {
  LatencyHistogram h;
  for (double v : sample) h.Record(v);
  std::sort(sample.begin(), sample.end());
  REQUIRE(h.count() == sample.size());
  for (double q : {0.0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0}) {
    CAPTURE(q);
    double exact = ExactQuantile(sample, q);
    CHECK(std::abs(h.Quantile(q) - exact) <= 0.01 * exact);
  }
}

TEST_CASE("an empty histogram reads 0 at every quantile") {
  LatencyHistogram h;
  CHECK(h.count() == 0);
  CHECK(h.Quantile(0.0) == 0.0);
  CHECK(h.Quantile(0.5) == 0.0);
  CHECK(h.Quantile(1.0) == 0.0);
}

TEST_CASE("a single value reads back exactly at every quantile") {
  for (double v : {0.0, 3e-9, 1e-6, 0.7, 1.0, 12.345, 1e8, 5e12}) {
    CAPTURE(v);
    LatencyHistogram h;
    h.Record(v);
    CHECK(h.count() == 1);
    CHECK(h.Quantile(0.0) == v);
    CHECK(h.Quantile(0.5) == v);
    CHECK(h.Quantile(0.999) == v);
    CHECK(h.Quantile(1.0) == v);
  }
}

TEST_CASE("quantiles of exponential latencies are within 1 % of the exact ones") {
  RandomStream s(7, "histogram/exponential");
  std::vector<double> sample(1'000'000);
  for (double& v : sample) v = s.Exponential(35.0);
  CheckAgainstExact(std::move(sample));
}

TEST_CASE("quantiles of lognormal latencies are within 1 % of the exact ones") {
  RandomStream s(7, "histogram/lognormal");
  for (double cv : {0.3, 2.0}) {
    CAPTURE(cv);
    std::vector<double> sample(1'000'000);
    for (double& v : sample) v = s.LogNormal(120.0, cv);
    CheckAgainstExact(std::move(sample));
  }
}

TEST_CASE("quantiles stay within 1 % across the whole bucket range") {
  // Log-uniform over fourteen decades, so every power of two in range holds samples, including
  // those straddling bucket and octave edges.
  RandomStream s(7, "histogram/wide");
  std::vector<double> sample(500'000);
  for (double& v : sample) v = std::pow(10.0, -5.5 + 14.0 * s.Uniform01());
  CheckAgainstExact(std::move(sample));
}

TEST_CASE("bucket edges never cost more than 1 %") {
  // The value read back sits between a smaller and a larger one, so the clamp to [min, max]
  // cannot hide a wrong bucket or midpoint; the outer two also exercise both range ends.
  for (double v = 1.1e-6; v < 1e9; v *= 1.0037) {
    LatencyHistogram h;
    h.Record(1e-6 * 0.5);  // below the range: counted in the zero bucket
    h.Record(v);
    h.Record(2e9);  // above the range: clamped into the top bucket
    double got = h.Quantile(0.5);
    REQUIRE(std::abs(got - v) <= 0.01 * v);
  }
}

TEST_CASE("values below the smallest bucket read back as the minimum recorded") {
  LatencyHistogram h;
  h.Record(0.0);
  h.Record(1e-8);
  h.Record(5.0);
  h.Record(6.0);
  CHECK(h.count() == 4);
  CHECK(h.Quantile(0.25) == 0.0);
  CHECK(h.Quantile(0.5) == 0.0);
  CHECK(h.Quantile(0.75) == doctest::Approx(5.0).epsilon(0.01));
  CHECK(h.Quantile(1.0) == 6.0);
}

TEST_CASE("values above the largest bucket are counted and never read back above the maximum") {
  LatencyHistogram h;
  h.Record(1.0);
  h.Record(1e12);
  h.Record(1e13);
  CHECK(h.count() == 3);
  CHECK(h.Quantile(0.0) == doctest::Approx(1.0).epsilon(0.01));
  CHECK(h.Quantile(1.0) <= 1e13);
  CHECK(h.Quantile(1.0) >= 1e9);
}

TEST_CASE("negative and NaN values count as zero") {
  LatencyHistogram h;
  h.Record(-3.0);
  h.Record(std::nan(""));
  h.Record(2.0);
  CHECK(h.count() == 3);
  CHECK(h.Quantile(0.0) == 0.0);
  CHECK(h.Quantile(0.6) == 0.0);
  CHECK(h.Quantile(1.0) == 2.0);
}

TEST_CASE("merging two halves gives the histogram of the whole") {
  RandomStream s(7, "histogram/merge");
  LatencyHistogram whole, first, second;
  for (int i = 0; i < 200'000; ++i) {
    double v = i % 1000 == 0 ? 0.0 : s.LogNormal(50.0, 1.5);
    whole.Record(v);
    (i % 3 == 0 ? first : second).Record(v);
  }
  LatencyHistogram merged = first;
  merged.Merge(second);
  CHECK(merged.count() == whole.count());
  for (int i = 0; i <= 1000; ++i) {
    double q = i / 1000.0;
    REQUIRE(merged.Quantile(q) == whole.Quantile(q));
  }
}

TEST_CASE("merging with an empty histogram changes nothing, in either direction") {
  LatencyHistogram full, empty;
  for (double v : {0.5, 2.0, 8.0}) full.Record(v);
  LatencyHistogram a = full;
  a.Merge(empty);
  LatencyHistogram b = empty;
  b.Merge(full);
  for (double q : {0.0, 0.5, 1.0}) {
    CHECK(a.Quantile(q) == full.Quantile(q));
    CHECK(b.Quantile(q) == full.Quantile(q));
  }
  CHECK(a.count() == 3);
  CHECK(b.count() == 3);
}

TEST_CASE("Clear forgets every sample") {
  LatencyHistogram h;
  for (double v : {0.0, 0.5, 2.0, 8.0}) h.Record(v);
  h.Clear();
  CHECK(h.count() == 0);
  CHECK(h.Quantile(0.5) == 0.0);
  h.Record(3.0);
  CHECK(h.Quantile(0.0) == 3.0);
  CHECK(h.Quantile(1.0) == 3.0);
}

}  // namespace
}  // namespace knobsim
