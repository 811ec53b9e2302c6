#include "models/service_time_fit.h"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <functional>
#include <limits>

namespace knobsim {
namespace {

// Boost.Math reports bad arguments by returning NaN / ±Inf instead of throwing.
using Quiet = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::pole_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Lognormal {
  double mu, sigma;
};
Lognormal LognormalOf(double mean, double cv2) {
  const double s2 = std::log1p(cv2);
  return {std::log(mean) - s2 / 2, std::sqrt(s2)};
}

// The maximum of score(log cv²) over [kMinShapeCv2, kMaxShapeCv2]: a grid of 121 points, then
// golden-section search between the best point's neighbours (the scores here are smooth and
// have one peak on the grid's scale).
double Maximise(const std::function<double(double)>& score, double* best_score) {
  const double lo = std::log(kMinShapeCv2), hi = std::log(kMaxShapeCv2);
  constexpr int kGrid = 120;
  int best = 0;
  double best_value = -INFINITY;
  for (int i = 0; i <= kGrid; ++i) {
    const double v = score(lo + (hi - lo) * i / kGrid);
    if (v > best_value) {
      best_value = v;
      best = i;
    }
  }
  double a = lo + (hi - lo) * std::max(0, best - 1) / kGrid;
  double b = lo + (hi - lo) * std::min(kGrid, best + 1) / kGrid;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = score(x1), f2 = score(x2);
  for (int it = 0; it < 60; ++it) {
    if (f1 >= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = score(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = score(x2);
    }
  }
  double x = (a + b) / 2, fx = score(x);
  const double grid_x = lo + (hi - lo) * best / kGrid;
  if (best_value > fx) {  // the grid point itself (an edge of the range)
    x = grid_x;
    fx = best_value;
  }
  *best_score = fx;
  return std::exp(x);
}

}  // namespace

const char* ShapeFamilyName(ShapeFamily f) {
  return f == ShapeFamily::kGamma ? "gamma" : "lognormal";
}

double ShapeCdf(ShapeFamily f, double mean, double cv2, double x) {
  if (!(mean > 0 && cv2 > 0)) return kNaN;
  if (std::isnan(x)) return kNaN;
  if (x <= 0) return 0;
  if (std::isinf(x)) return 1;
  if (f == ShapeFamily::kGamma) {
    const double shape = 1 / cv2, scale = mean * cv2;
    return boost::math::gamma_p(shape, x / scale, Quiet());
  }
  const Lognormal l = LognormalOf(mean, cv2);
  return 0.5 * std::erfc(-(std::log(x) - l.mu) / (l.sigma * std::sqrt(2.0)));
}

double ShapeQuantile(ShapeFamily f, double mean, double cv2, double p) {
  if (!(mean > 0 && cv2 > 0 && p > 0 && p < 1)) return kNaN;
  if (f == ShapeFamily::kGamma) {
    const double shape = 1 / cv2, scale = mean * cv2;
    return boost::math::gamma_p_inv(shape, p, Quiet()) * scale;
  }
  const Lognormal l = LognormalOf(mean, cv2);
  const double z = -std::sqrt(2.0) * boost::math::erfc_inv(2 * p, Quiet());
  return std::exp(l.mu + l.sigma * z);
}

ShapeFit FitGroupedCounts(ShapeFamily family, std::span<const double> le,
                          std::span<const double> counts, double mean) {
  const size_t n = std::min(le.size(), counts.size());
  auto score = [&](double log_cv2) {
    const double cv2 = std::exp(log_cv2);
    double ll = 0, below = 0;
    for (size_t k = 0; k < n; ++k) {
      const double cdf = ShapeCdf(family, mean, cv2, le[k]);
      if (counts[k] > 0) ll += counts[k] * std::log(std::max(cdf - below, 1e-300));
      below = cdf;
    }
    return std::isfinite(ll) ? ll : -INFINITY;
  };
  ShapeFit fit;
  fit.family = family;
  fit.cv2 = Maximise(score, &fit.score);
  return fit;
}

ShapeFit FitQuantileRatios(ShapeFamily family, double p50_over_mean, double p99_over_mean) {
  auto score = [&](double log_cv2) {
    const double cv2 = std::exp(log_cv2);
    double sse = 0;
    const std::pair<double, double> ratios[] = {{0.5, p50_over_mean}, {0.99, p99_over_mean}};
    for (const auto& [p, r] : ratios) {
      if (!(r > 0 && std::isfinite(r))) continue;
      const double e = std::log(ShapeQuantile(family, 1.0, cv2, p)) - std::log(r);
      sse += e * e;
    }
    return std::isfinite(sse) ? -sse : -INFINITY;
  };
  ShapeFit fit;
  fit.family = family;
  fit.cv2 = Maximise(score, &fit.score);
  return fit;
}

ServiceShape ServiceCv2FromLatency(ShapeFamily family, double latency_mean, double latency_cv2,
                                   std::span<const LoadSample> samples) {
  std::vector<LoadSample> used;
  double total = 0;
  for (const LoadSample& s : samples) {
    if (!(s.rho >= 0 && s.rho <= 0.95 && s.weight > 0)) continue;
    used.push_back(s);
    total += s.weight;
  }
  // The pooled latency (mean m_T, cv² of T) at service cv² c, m following from the mean.
  struct Pooled {
    double m, cv2_t;
  };
  auto pooled = [&](double c) {
    const double third = family == ShapeFamily::kGamma ? (1 + c) * (1 + 2 * c) : std::pow(1 + c, 3);
    double r1 = 0;
    for (const LoadSample& s : used) r1 += s.weight * s.rho / (2 * (1 - s.rho));
    r1 = total > 0 ? r1 / total : 0;
    const double m = latency_mean / (1 + (1 + c) * r1);
    double second = 0;
    for (const LoadSample& s : used) {
      const double ew = s.rho * m * (1 + c) / (2 * (1 - s.rho));
      const double ew2 = 2 * ew * ew + s.rho * m * m * third / (3 * (1 - s.rho));
      second += s.weight * (m * m * (1 + c) + 2 * m * ew + ew2);
    }
    second = total > 0 ? second / total : m * m * (1 + c);
    return Pooled{m, second / (latency_mean * latency_mean) - 1};
  };
  ServiceShape out;
  double lo = std::log(kMinShapeCv2), hi = std::log(kMaxShapeCv2);
  if (pooled(kMinShapeCv2).cv2_t >= latency_cv2) {
    out.at_lower_bound = true;
    out.service_cv2 = kMinShapeCv2;
  } else if (pooled(kMaxShapeCv2).cv2_t <= latency_cv2) {
    out.service_cv2 = kMaxShapeCv2;
  } else {
    for (int it = 0; it < 100; ++it) {
      const double mid = (lo + hi) / 2;
      (pooled(std::exp(mid)).cv2_t < latency_cv2 ? lo : hi) = mid;
    }
    out.service_cv2 = std::exp((lo + hi) / 2);
  }
  out.service_mean = pooled(out.service_cv2).m;
  return out;
}

}  // namespace knobsim
