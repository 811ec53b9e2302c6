#include "models/service_time_fit.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace knobsim {
namespace {

const ShapeFamily kFamilies[] = {ShapeFamily::kGamma, ShapeFamily::kLognormal};

// Expected counts of `total` observations of the family in buckets `le` (+Inf last).
std::vector<double> ExpectedCounts(ShapeFamily f, double mean, double cv2,
                                   const std::vector<double>& le, double total) {
  std::vector<double> counts;
  double below = 0;
  for (double b : le) {
    const double cdf = ShapeCdf(f, mean, cv2, b);
    counts.push_back(total * (cdf - below));
    below = cdf;
  }
  return counts;
}

}  // namespace

TEST_CASE("shape CDF and quantile: known values and each other's inverse") {
  // cv² 1 gamma is the exponential; a lognormal's median is mean / sqrt(1 + cv²).
  CHECK(ShapeCdf(ShapeFamily::kGamma, 2.0, 1.0, 1.0) == doctest::Approx(1 - std::exp(-0.5)));
  CHECK(ShapeQuantile(ShapeFamily::kLognormal, 2.0, 0.44, 0.5) ==
        doctest::Approx(2.0 / std::sqrt(1.44)));
  for (ShapeFamily f : kFamilies) {
    CAPTURE(std::string(ShapeFamilyName(f)));
    for (double cv2 : {0.01, 0.1, 1.0, 4.0}) {
      CAPTURE(cv2);
      for (double p : {0.01, 0.5, 0.99}) {
        const double x = ShapeQuantile(f, 15.0, cv2, p);
        CHECK(ShapeCdf(f, 15.0, cv2, x) == doctest::Approx(p).epsilon(1e-9));
      }
    }
    CHECK(ShapeCdf(f, 1, 0.1, 0) == 0);
    CHECK(ShapeCdf(f, 1, 0.1, INFINITY) == 1);
    CHECK(std::isnan(ShapeCdf(f, 1, 0, 1)));
  }
}

TEST_CASE("grouped counts: the cv² is recovered and the true family scores higher") {
  // Stable-Diffusion-like latency: mean 15 s, Prometheus buckets of seconds.
  const std::vector<double> le = {1, 2.5, 5, 7.5, 10, 12.5, 15, 17.5, 20, 25, 30, 60, INFINITY};
  for (ShapeFamily truth : kFamilies) {
    for (double cv2 : {0.05, 0.1, 0.5}) {
      CAPTURE(std::string(ShapeFamilyName(truth)));
      CAPTURE(cv2);
      const std::vector<double> counts = ExpectedCounts(truth, 15, cv2, le, 10000);
      const ShapeFit same = FitGroupedCounts(truth, le, counts, 15);
      CHECK(same.cv2 == doctest::Approx(cv2).epsilon(0.01));
      const ShapeFamily other =
          truth == ShapeFamily::kGamma ? ShapeFamily::kLognormal : ShapeFamily::kGamma;
      CHECK(same.score > FitGroupedCounts(other, le, counts, 15).score);
    }
  }
}

TEST_CASE("quantile ratios: exact ratios give the cv² back, either ratio alone too") {
  for (ShapeFamily f : kFamilies) {
    for (double cv2 : {0.02, 0.1, 1.0}) {
      CAPTURE(std::string(ShapeFamilyName(f)));
      CAPTURE(cv2);
      const double r50 = ShapeQuantile(f, 1, cv2, 0.5), r99 = ShapeQuantile(f, 1, cv2, 0.99);
      CHECK(FitQuantileRatios(f, r50, r99).cv2 == doctest::Approx(cv2).epsilon(0.01));
      CHECK(FitQuantileRatios(f, NAN, r99).cv2 == doctest::Approx(cv2).epsilon(0.01));
      CHECK(FitQuantileRatios(f, r50, r99).score == doctest::Approx(0).epsilon(1e-6));
    }
  }
}

TEST_CASE("M/G/1 wait removed: no load keeps the latency's cv², load lowers it") {
  const LoadSample idle[] = {{0.0, 1}};
  const ServiceShape same = ServiceCv2FromLatency(ShapeFamily::kGamma, 15, 0.1, idle);
  CHECK(same.service_cv2 == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(same.service_mean == doctest::Approx(15));
  // Hand-computed at rho 0.1, gamma cv² 0.1, E[S] 1: E[T] = 1.0611, cv²(T) = 0.1355.
  const LoadSample loaded[] = {{0.1, 1}};
  const double et = 1 + 0.1 * 1.1 / 1.8;
  const double ew2 = 2 * (et - 1) * (et - 1) + 0.1 * 1.1 * 1.2 / 2.7;
  const double et2 = 1.1 + 2 * (et - 1) + ew2;
  const ServiceShape back =
      ServiceCv2FromLatency(ShapeFamily::kGamma, et, et2 / (et * et) - 1, loaded);
  CHECK(back.service_cv2 == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(back.service_mean == doctest::Approx(1.0).epsilon(1e-9));
  // Less variable than the wait alone allows: the lower bound, said.
  CHECK(ServiceCv2FromLatency(ShapeFamily::kGamma, et, 0.0, loaded).at_lower_bound);
}

TEST_CASE("M/G/1 wait removed: a simulated single-server queue gives its service cv² back") {
  // Lindley's recursion with Poisson arrivals and gamma service (mean 2 s, cv² 0.1) at load 0.25.
  std::mt19937_64 rng(42);
  const double mean = 2, cv2 = 0.1, rho = 0.25;
  std::gamma_distribution<double> service(1 / cv2, mean * cv2);
  std::exponential_distribution<double> gap(rho / mean);
  double wait = 0, prev_service = 0, sum = 0, sum2 = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    wait = std::max(0.0, wait + prev_service - gap(rng));
    prev_service = service(rng);
    const double t = wait + prev_service;
    sum += t;
    sum2 += t * t;
  }
  const double mt = sum / n, cv2t = sum2 / n / (mt * mt) - 1;
  CHECK(cv2t > 0.12);  // the wait alone adds a fifth or more
  const LoadSample at[] = {{rho, 1}};
  const ServiceShape s = ServiceCv2FromLatency(ShapeFamily::kGamma, mt, cv2t, at);
  CHECK(s.service_cv2 == doctest::Approx(cv2).epsilon(0.06));
  CHECK(s.service_mean == doctest::Approx(mean).epsilon(0.01));
}

}  // namespace knobsim
