#include "sim/random_stream.h"

#include <doctest/doctest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace knobsim {
namespace {

constexpr int kDraws = 1'000'000;
constexpr uint64_t kSeed = 42;

struct Moments {
  double mean = 0;
  double cv = 0;
};

// Two-pass mean and coefficient of variation, so the check itself adds no rounding worth noting.
template <typename Draw>
Moments SampleMoments(Draw draw, int n = kDraws) {
  std::vector<double> x(n);
  for (double& v : x) v = draw();
  double sum = 0;
  for (double v : x) sum += v;
  const double mean = sum / n;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return {mean, std::sqrt(ss / (n - 1)) / mean};
}

TEST_CASE("the same seed and name give the same sequence") {
  RandomStream a(kSeed, "workload/ocr/work");
  RandomStream b(kSeed, "workload/ocr/work");
  for (int i = 0; i < 1000; ++i) REQUIRE(a.NextU64() == b.NextU64());
  for (int i = 0; i < 100; ++i) {
    REQUIRE(a.Exponential(3.0) == b.Exponential(3.0));
    REQUIRE(a.LogNormal(2.0, 0.7) == b.LogNormal(2.0, 0.7));
    REQUIRE(a.Gamma(0.4, 2.0) == b.Gamma(0.4, 2.0));
    REQUIRE(a.Below(17) == b.Below(17));
  }
}

TEST_CASE("the default stream is the stream of seed 0 and the empty name") {
  RandomStream a;
  RandomStream b(0, "");
  for (int i = 0; i < 10; ++i) CHECK(a.NextU64() == b.NextU64());
}

TEST_CASE("HashName is 64-bit FNV-1a") {
  CHECK(HashName("") == 0xcbf29ce484222325ULL);
  CHECK(HashName("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(HashName("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("nearby seeds and names give unrelated streams") {
  // Names that differ in one character and seeds that differ by one are the common case (pods
  // "ocr-0", "ocr-1"; replications 1, 2, 3); their first words must share no more bits than
  // chance, and no two streams may start alike.
  std::vector<uint64_t> firsts;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    for (int pod = 0; pod < 16; ++pod) {
      RandomStream s(seed, "pod/ocr-" + std::to_string(pod));
      firsts.push_back(s.NextU64());
    }
  }
  double agreeing_bits = 0;
  int pairs = 0;
  for (size_t i = 0; i < firsts.size(); ++i) {
    for (size_t j = i + 1; j < firsts.size(); ++j) {
      REQUIRE(firsts[i] != firsts[j]);
      agreeing_bits += 64 - std::popcount(firsts[i] ^ firsts[j]);
      ++pairs;
    }
  }
  // 32640 pairs of 64 bits: the mean agreement is 32 with a standard error near 0.03.
  CHECK(agreeing_bits / pairs == doctest::Approx(32.0).epsilon(0.005));
}

TEST_CASE("streams of neighbouring names and seeds are uncorrelated") {
  auto correlation = [](RandomStream a, RandomStream b) {
    constexpr int n = 200'000;
    double sab = 0, sa = 0, sb = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; ++i) {
      double x = a.Uniform01(), y = b.Uniform01();
      sa += x, sb += y, sab += x * y, saa += x * x, sbb += y * y;
    }
    double cov = sab / n - (sa / n) * (sb / n);
    return cov / std::sqrt((saa / n - (sa / n) * (sa / n)) * (sbb / n - (sb / n) * (sb / n)));
  };
  // The standard error of a null correlation here is about 0.0022.
  CHECK(std::abs(correlation(RandomStream(kSeed, "pod/a-0"), RandomStream(kSeed, "pod/a-1"))) <
        0.01);
  CHECK(std::abs(correlation(RandomStream(1, "pod/a-0"), RandomStream(2, "pod/a-0"))) < 0.01);
  CHECK(std::abs(correlation(RandomStream(0, "x"), RandomStream(1, "x"))) < 0.01);
}

TEST_CASE("different names and different seeds give different sequences") {
  RandomStream work(kSeed, "workload/ocr/work");
  RandomStream route(kSeed, "workload/ocr/route");
  RandomStream other_seed(kSeed + 1, "workload/ocr/work");
  int same_name = 0, same_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    uint64_t w = work.NextU64();
    same_name += w == route.NextU64();
    same_seed += w == other_seed.NextU64();
  }
  CHECK(same_name == 0);
  CHECK(same_seed == 0);
}

TEST_CASE("Uniform01 is in [0, 1) with the moments of a uniform") {
  RandomStream s(kSeed, "uniform");
  double lo = 1, hi = 0;
  Moments m = SampleMoments([&] {
    double u = s.Uniform01();
    lo = std::min(lo, u), hi = std::max(hi, u);
    return u;
  });
  CHECK(lo >= 0.0);
  CHECK(hi < 1.0);
  CHECK(m.mean == doctest::Approx(0.5).epsilon(0.005));
  CHECK(m.cv == doctest::Approx(1.0 / std::sqrt(3.0)).epsilon(0.01));
}

TEST_CASE("UniformOpen01 is never 0 and never 1") {
  RandomStream s(kSeed, "open");
  double lo = 1, hi = 0;
  for (int i = 0; i < kDraws; ++i) {
    double u = s.UniformOpen01();
    lo = std::min(lo, u), hi = std::max(hi, u);
  }
  CHECK(lo > 0.0);
  CHECK(hi < 1.0);
  // Its logarithm is what Exponential takes, and must stay finite.
  CHECK(std::isfinite(std::log(lo)));
}

TEST_CASE("Below is uniform over small ranges") {
  RandomStream s(kSeed, "below");
  for (uint64_t n : {uint64_t{2}, uint64_t{3}, uint64_t{10}, uint64_t{37}}) {
    std::vector<uint64_t> counts(n, 0);
    const int draws = 100'000 * static_cast<int>(n);
    for (int i = 0; i < draws; ++i) {
      uint64_t k = s.Below(n);
      REQUIRE(k < n);
      ++counts[k];
    }
    double chi2 = 0;
    for (uint64_t c : counts) chi2 += (c - 100'000.0) * (c - 100'000.0) / 100'000.0;
    // The 0.999 quantile of chi-square with n - 1 degrees of freedom is below 3(n - 1) + 11 for
    // these n (10.8, 13.8, 27.9, 67.0).
    CHECK(chi2 < 3.0 * static_cast<double>(n - 1) + 11.0);
  }
  for (int i = 0; i < 100; ++i) CHECK(s.Below(1) == 0);
}

TEST_CASE("Below is unbiased when the range does not divide 2^64") {
  // With n = 3 * 2^62, a plain modulo (or a multiply without rejection) lands in the lowest third
  // half the time instead of a third: 2^64 mod n is as large as a remainder can usefully get.
  RandomStream s(kSeed, "below-large");
  const uint64_t n = uint64_t{3} << 62;
  int low_third = 0;
  constexpr int draws = 300'000;
  for (int i = 0; i < draws; ++i) {
    uint64_t k = s.Below(n);
    REQUIRE(k < n);
    low_third += k < (uint64_t{1} << 62);
  }
  CHECK(static_cast<double>(low_third) / draws == doctest::Approx(1.0 / 3.0).epsilon(0.01));
}

TEST_CASE("Exponential has the requested mean and a cv of 1") {
  RandomStream s(kSeed, "exponential");
  Moments m = SampleMoments([&] { return s.Exponential(250.0); });
  CHECK(m.mean == doctest::Approx(250.0).epsilon(0.005));
  CHECK(m.cv == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE("Normal is standard") {
  RandomStream s(kSeed, "normal");
  double sum = 0, sum2 = 0;
  int inside = 0;
  for (int i = 0; i < kDraws; ++i) {
    double z = s.Normal();
    sum += z, sum2 += z * z;
    inside += std::abs(z) < 1.959963984540054;
  }
  CHECK(std::abs(sum / kDraws) < 0.005);
  CHECK(sum2 / kDraws == doctest::Approx(1.0).epsilon(0.01));
  CHECK(static_cast<double>(inside) / kDraws == doctest::Approx(0.95).epsilon(0.002));
}

TEST_CASE("LogNormal has the requested mean and coefficient of variation") {
  RandomStream s(kSeed, "lognormal");
  for (double cv : {0.25, 0.5, 1.0}) {
    CAPTURE(cv);
    Moments m = SampleMoments([&] { return s.LogNormal(40.0, cv); });
    CHECK(m.mean == doctest::Approx(40.0).epsilon(0.005));
    CHECK(m.cv == doctest::Approx(cv).epsilon(0.01));
  }
}

TEST_CASE("LogNormal with cv 0 is the mean itself") {
  RandomStream s(kSeed, "lognormal-0");
  for (int i = 0; i < 10; ++i) CHECK(s.LogNormal(12.5, 0.0) == 12.5);
}

TEST_CASE("Gamma has mean shape * scale and cv 1 / sqrt(shape)") {
  RandomStream s(kSeed, "gamma");
  // Shapes below 1 take the boost path, 1 the exponential edge, the others the main path.
  for (double shape : {0.5, 0.8, 1.0, 2.5, 9.0}) {
    CAPTURE(shape);
    Moments m = SampleMoments([&] { return s.Gamma(shape, 3.0); });
    CHECK(m.mean == doctest::Approx(shape * 3.0).epsilon(0.005));
    CHECK(m.cv == doctest::Approx(1.0 / std::sqrt(shape)).epsilon(0.01));
  }
}

}  // namespace
}  // namespace knobsim
