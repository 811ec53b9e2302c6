#include "sim/traffic.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace knobsim {
namespace {

constexpr SimTime kSecond = kNanosPerSecond;

std::vector<SimTime> Drain(ArrivalProcess& p, std::vector<double>* work = nullptr) {
  std::vector<SimTime> out;
  for (SimTime t = p.Next(0); t != ArrivalProcess::kNever; t = p.Next(t)) {
    out.push_back(t);
    if (work) work->push_back(p.RecordedWork().value_or(-1));
    REQUIRE(out.size() < 1'000'000);
  }
  return out;
}

Traffic Replay(std::vector<SimTime> at, std::vector<double> work = {}, double scale = 1) {
  auto rec = std::make_shared<RecordedArrivals>();
  rec->at = std::move(at);
  rec->work_s = std::move(work);
  Traffic t;
  t.kind = ArrivalKind::kReplay;
  t.replay = rec;
  t.scale = scale;
  return t;
}

Traffic Counts(SimTime step, std::vector<int64_t> values, double scale = 1,
               CountSpread spread = CountSpread::kUniform) {
  Traffic t;
  t.kind = ArrivalKind::kCounts;
  t.counts.step = step;
  t.counts.spread = spread;
  t.counts.values = std::move(values);
  t.scale = scale;
  return t;
}

TEST_CASE("a replay plays the recorded times exactly, equal times included, with their work") {
  ArrivalProcess p(Replay({0, kSecond, kSecond, 5 * kSecond}, {0.1, 0.2, 0.3, 0.4}),
                   RandomStream(1, "a"));
  std::vector<double> work;
  CHECK(Drain(p, &work) == std::vector<SimTime>{0, kSecond, kSecond, 5 * kSecond});
  CHECK(work == std::vector<double>{0.1, 0.2, 0.3, 0.4});
}

TEST_CASE("a replay without a work column leaves the work to the workload's distribution") {
  ArrivalProcess p(Replay({kSecond, 2 * kSecond}), RandomStream(1, "a"));
  CHECK(p.Next(0) == kSecond);
  CHECK_FALSE(p.RecordedWork().has_value());
}

TEST_CASE("a replay's scale plays each arrival floor(s) times plus once with probability frac(s)") {
  std::vector<SimTime> at;
  for (int i = 0; i < 20000; ++i) at.push_back(i * kSecond);
  struct Case {
    double scale;
    double expected;
  };
  for (const Case c : {Case{2.0, 40000}, Case{0.5, 10000}, Case{1.25, 25000}, Case{0.0, 0}}) {
    CAPTURE(c.scale);
    ArrivalProcess p(Replay(at, {}, c.scale), RandomStream(7, "scale"));
    const std::vector<SimTime> out = Drain(p);
    CHECK(static_cast<double>(out.size()) == doctest::Approx(c.expected).epsilon(0.02));
    CHECK(std::is_sorted(out.begin(), out.end()));
  }
  ArrivalProcess twice(Replay({3 * kSecond}, {0.5}, 2.0), RandomStream(7, "x"));
  std::vector<double> work;
  CHECK(Drain(twice, &work) == std::vector<SimTime>{3 * kSecond, 3 * kSecond});
  CHECK(work == std::vector<double>{0.5, 0.5});
}

TEST_CASE("counts spread uniform: exactly n arrivals per interval, as n independent uniforms") {
  const SimTime step = 60 * kSecond;
  // Many intervals of 2: both fall in the first half a quarter of the time (never when even).
  std::vector<int64_t> values(4000, 2);
  values[7] = 0;
  values[9] = 5;
  ArrivalProcess p(Counts(step, values), RandomStream(3, "uniform"));
  const std::vector<SimTime> out = Drain(p);
  REQUIRE(out.size() == 2 * 3998 + 5);
  CHECK(std::is_sorted(out.begin(), out.end()));
  std::vector<int64_t> per(values.size(), 0);
  for (SimTime t : out) ++per[t / step];
  CHECK(per == values);
  int both_early = 0, pairs = 0;
  double sum_place = 0;
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    const SimTime interval = out[i] / step;
    sum_place += static_cast<double>(out[i] % step) / static_cast<double>(step);
    if (values[interval] != 2 || out[i + 1] / step != interval ||
        (i > 0 && out[i - 1] / step == interval))
      continue;
    ++pairs;
    if (out[i + 1] % step < step / 2) ++both_early;
  }
  CHECK(sum_place / static_cast<double>(out.size() - 1) == doctest::Approx(0.5).epsilon(0.02));
  CHECK(static_cast<double>(both_early) / pairs == doctest::Approx(0.25).epsilon(0.08));
}

TEST_CASE("counts spread even: exactly n arrivals inside each interval, one in each of n strata") {
  const SimTime step = 60 * kSecond;
  const std::vector<int64_t> values = {3, 0, 1, 7};
  ArrivalProcess p(Counts(step, values, 1, CountSpread::kEven), RandomStream(3, "counts"));
  const std::vector<SimTime> out = Drain(p);
  REQUIRE(out.size() == 11);
  std::vector<int64_t> per(values.size(), 0);
  for (SimTime t : out) ++per[t / step];
  CHECK(per == values);
  CHECK(std::is_sorted(out.begin(), out.end()));
  // The k-th of n arrivals of interval i lies in [i·step + k/n·step, i·step + (k+1)/n·step).
  size_t next = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    for (int64_t k = 0; k < values[i]; ++k, ++next) {
      const SimTime lo = static_cast<SimTime>(i) * step + k * step / values[i];
      const SimTime hi = static_cast<SimTime>(i) * step + (k + 1) * step / values[i];
      CHECK(out[next] >= lo);
      CHECK(out[next] < hi + 1);
    }
  }
}

TEST_CASE("scaled counts round n·s stochastically, so the expected total is s times the count") {
  std::vector<int64_t> values(5000, 3);
  ArrivalProcess p(Counts(kSecond, values, 0.5), RandomStream(5, "c"));
  CHECK(static_cast<double>(Drain(p).size()) == doctest::Approx(7500).epsilon(0.02));
}

TEST_CASE("a recording ends: no arrival after its last time or interval") {
  ArrivalProcess replay(Replay({kSecond}), RandomStream(1, "r"));
  CHECK(replay.Next(0) == kSecond);
  CHECK(replay.Next(kSecond) == ArrivalProcess::kNever);
  ArrivalProcess counts(Counts(kSecond, {0, 0}), RandomStream(1, "r"));
  CHECK(counts.Next(0) == ArrivalProcess::kNever);
}

TEST_CASE("the same seed and stream name give the same spread inside the intervals") {
  ArrivalProcess a(Counts(kSecond, {4, 4, 4}), RandomStream(9, "w/arrivals"));
  ArrivalProcess b(Counts(kSecond, {4, 4, 4}), RandomStream(9, "w/arrivals"));
  CHECK(Drain(a) == Drain(b));
}

TEST_CASE("the mean rate of a diurnal curve over whole periods is its mean") {
  Traffic t;
  t.kind = ArrivalKind::kDiurnal;
  t.diurnal_mean = 10;
  t.diurnal_amplitude = 0.5;
  t.diurnal_period = 3600 * kNanosPerSecond;
  t.diurnal_peak_at = 0;
  CHECK(MeanRate(t, 7200 * kNanosPerSecond) == doctest::Approx(10));
  // Half a period from the peak: mean · (1 + A · sin(π) ... ) = the mean again; a quarter: above.
  CHECK(MeanRate(t, 900 * kNanosPerSecond) == doctest::Approx(10 * (1 + 0.5 * 2 / M_PI)));
  t.scale = 2;
  CHECK(MeanRate(t, 7200 * kNanosPerSecond) == doctest::Approx(20));
  Traffic p;
  p.kind = ArrivalKind::kPiecewise;
  p.pieces = {{0, 10}, {50 * kNanosPerSecond, 30}};
  CHECK(MeanRate(p, 100 * kNanosPerSecond) == doctest::Approx(20));
}

TEST_CASE("the mean rate of a recording counts its arrivals, the last interval prorated") {
  CHECK(MeanRate(Replay({0, kSecond, 3 * kSecond, 20 * kSecond}), 10 * kSecond) ==
        doctest::Approx(0.3));
  CHECK(MeanRate(Counts(10 * kSecond, {20, 40}), 15 * kSecond) == doctest::Approx(40.0 / 15));
  CHECK(MeanRate(Replay({0, kSecond}, {}, 2.0), 10 * kSecond) == doctest::Approx(0.4));
}

}  // namespace
}  // namespace knobsim
