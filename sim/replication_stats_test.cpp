#include "sim/replication_stats.h"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace knobsim {
namespace {

TEST_CASE("StudentT matches the printed table to its three decimals") {
  CHECK(std::abs(StudentT(0.975, 1) - 12.706) < 0.0005);
  CHECK(std::abs(StudentT(0.975, 9) - 2.262) < 0.0005);
  CHECK(std::abs(StudentT(0.975, 30) - 2.042) < 0.0005);
  CHECK(std::abs(StudentT(0.995, 9) - 3.250) < 0.0005);
  CHECK(std::abs(StudentT(0.975, 1'000'000) - 1.960) < 0.0005);
}

TEST_CASE("StudentT matches reference quantiles to seven digits") {
  // Reference values from the exact quantile function (R's qt).
  CHECK(StudentT(0.975, 1) == doctest::Approx(12.7062047362).epsilon(1e-7));
  CHECK(StudentT(0.975, 4) == doctest::Approx(2.7764451052).epsilon(1e-7));
  CHECK(StudentT(0.975, 9) == doctest::Approx(2.2621571628).epsilon(1e-7));
  CHECK(StudentT(0.975, 30) == doctest::Approx(2.0422724563).epsilon(1e-7));
  CHECK(StudentT(0.995, 9) == doctest::Approx(3.2498355416).epsilon(1e-7));
  CHECK(StudentT(0.95, 19) == doctest::Approx(1.7291328115).epsilon(1e-7));
  CHECK(StudentT(0.9995, 3) == doctest::Approx(12.9239786367).epsilon(1e-7));
}

TEST_CASE("StudentT has the closed forms of one and two degrees of freedom") {
  for (double p : {0.55, 0.75, 0.9, 0.975, 0.995, 0.9999}) {
    CAPTURE(p);
    CHECK(StudentT(p, 1) == doctest::Approx(std::tan(std::numbers::pi * (p - 0.5))).epsilon(1e-10));
    CHECK(StudentT(p, 2) ==
          doctest::Approx((2 * p - 1) / std::sqrt(2 * p * (1 - p))).epsilon(1e-10));
  }
}

TEST_CASE("StudentT tends to the normal quantile as the degrees of freedom grow") {
  CHECK(StudentT(0.975, 10'000'000) == doctest::Approx(1.9599639845).epsilon(1e-6));
  CHECK(StudentT(0.995, 10'000'000) == doctest::Approx(2.5758293035).epsilon(1e-6));
  double previous = StudentT(0.975, 1);
  for (int dof : {2, 3, 5, 10, 30, 100, 1000, 100'000}) {
    double t = StudentT(0.975, dof);
    CHECK(t < previous);
    CHECK(t > 1.959963984);
    previous = t;
  }
}

TEST_CASE("StudentT is antisymmetric about one half") {
  CHECK(StudentT(0.5, 7) == 0.0);
  CHECK(StudentT(0.025, 9) == doctest::Approx(-StudentT(0.975, 9)).epsilon(1e-12));
}

TEST_CASE("Summarize gives the mean and the Student t half-width") {
  std::vector<double> v = {1, 2, 3, 4, 5};
  MeanCi ci = Summarize(v);
  CHECK(ci.mean == doctest::Approx(3.0));
  // s = sqrt(2.5), n = 5, t(0.975, 4) = 2.7764451052.
  CHECK(ci.half_width ==
        doctest::Approx(2.7764451052 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-7));
}

TEST_CASE("Summarize at 99 % uses the 0.995 quantile") {
  std::vector<double> v = {10.0, 12.0, 11.0, 9.0, 13.0, 10.5, 11.5, 12.5, 9.5, 10.0};
  double mean = 0;
  for (double x : v) mean += x;
  mean /= v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  double s = std::sqrt(ss / (v.size() - 1));
  MeanCi ci = Summarize(v, 0.99);
  CHECK(ci.mean == doctest::Approx(mean));
  CHECK(ci.half_width == doctest::Approx(3.2498355416 * s / std::sqrt(10.0)).epsilon(1e-7));
}

TEST_CASE("Summarize has no half-width with fewer than two values") {
  MeanCi none = Summarize({});
  CHECK(none.mean == 0.0);
  CHECK(none.half_width == 0.0);
  std::vector<double> one = {4.25};
  MeanCi single = Summarize(one);
  CHECK(single.mean == 4.25);
  CHECK(single.half_width == 0.0);
}

TEST_CASE("Summarize of identical replications has zero half-width") {
  // Large equal values: a one-pass variance would come out slightly non-zero or negative.
  std::vector<double> v(8, 123456789.123);
  MeanCi ci = Summarize(v);
  CHECK(ci.mean == 123456789.123);
  CHECK(ci.half_width == 0.0);
}

}  // namespace
}  // namespace knobsim
