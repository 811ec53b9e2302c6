#include "sim/backtest/measured_windows.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace knobsim::backtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST_CASE("measured windows: a sample counts in the window holding the start of its interval") {
  // Samples every 60 s stamped at the end of the minute they cover: the one at 600 s covers
  // (540, 600] and belongs to window 0; the one at 660 s to window 1.
  const WindowGrid grid{0, 600, 2};
  std::vector<double> times, values;
  for (int k = 1; k <= 20; ++k) {
    times.push_back(60.0 * k);
    values.push_back(k <= 10 ? 0.2 : 0.6);
  }
  const std::vector<double> m = WindowMeans(times, values, grid);
  REQUIRE(m.size() == 2);
  CHECK(m[0] == doctest::Approx(0.2));
  CHECK(m[1] == doctest::Approx(0.6));
  CHECK(std::isnan(WindowMeans({60}, {0.5}, WindowGrid{1000, 600, 1})[0]));
}

PodLatency Histogram(const std::vector<double>& counts_per_bucket, double mean_s) {
  // Buckets le 0.1, 0.2, +Inf; 10 samples a minute apart, each with `counts_per_bucket`
  // requests per second in its buckets (not cumulative here: made cumulative below).
  PodLatency p;
  p.source = "histogram";
  p.bucket_le = {0.1, 0.2, std::numeric_limits<double>::infinity()};
  for (int k = 1; k <= 10; ++k) {
    p.times.push_back(60.0 * k);
    double total = 0;
    std::vector<double> cumulative;
    for (double c : counts_per_bucket) cumulative.push_back(total += c);
    p.buckets.push_back(cumulative);
    p.count.push_back(total);
    p.mean_s.push_back(mean_s);
    p.p50_s.push_back(kNaN);
    p.p99_s.push_back(kNaN);
  }
  return p;
}

TEST_CASE("measured windows: latency weighs the pods by requests and adds their buckets") {
  const WindowGrid grid{0, 600, 1};
  // Pod a: 1 request/s, all under 0.1 s, mean 50 ms; pod b: 3 requests/s, all in (0.1, 0.2],
  // mean 150 ms. Together: mean (1 × 50 + 3 × 150) / 4 = 125 ms; 99 % of 4 requests/s lies in
  // the second bucket: 0.1 + 0.1 × (0.99 × 4 - 1) / 3.
  const PodLatency a = Histogram({1, 0, 0}, 0.05), b = Histogram({0, 3, 0}, 0.15);
  const WindowLatency w = LatencyWindows({&a, &b}, grid);
  CHECK(w.source == "histogram");
  CHECK(w.p99_exact);
  CHECK(w.mean_ms[0] == doctest::Approx(125));
  CHECK(w.requests[0] == doctest::Approx(4 * 600));
  CHECK(w.p99_ms[0] == doctest::Approx((0.1 + 0.1 * (0.99 * 4 - 1) / 3) * 1e3));
}

TEST_CASE("measured windows: without common buckets p99 is the request-weighted mean") {
  const WindowGrid grid{0, 600, 1};
  PodLatency a = Histogram({1, 0, 0}, 0.05);
  PodLatency s;
  s.source = "summary";
  for (int k = 1; k <= 10; ++k) {
    s.times.push_back(60.0 * k);
    s.mean_s.push_back(0.2);
    s.p50_s.push_back(0.2);
    s.p99_s.push_back(0.4);
    s.count.push_back(1);
  }
  a.p99_s.assign(10, 0.1);
  const WindowLatency w = LatencyWindows({&a, &s}, grid);
  CHECK_FALSE(w.p99_exact);
  CHECK(w.source == "mixed");
  CHECK(w.p99_ms[0] == doctest::Approx(250));
  CHECK(w.mean_ms[0] == doctest::Approx(125));
}

}  // namespace
}  // namespace knobsim::backtest
