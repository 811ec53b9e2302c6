// The shape of the service-time distribution from measured request latency: which of gamma and
// lognormal, and its squared coefficient of variation cv², with the mean given.
//
// The latency T of a request is its wait W plus its service S. On a card a pod holds alone the
// pod is a single-server queue; with Poisson arrivals at rate λ and load ρ = λ E[S] < 1 it is
// M/G/1, whose wait moments (Pollaczek-Khinchine, and Takács for the second) are
//
//   E[W]  = λ E[S²] / (2 (1 - ρ))
//   E[W²] = 2 E[W]² + λ E[S³] / (3 (1 - ρ))
//
// and W is independent of the request's own S, so E[T²] = E[S²] + 2 E[S] E[W] + E[W²]. Even at
// ρ = 0.1 the wait raises a service cv² of 0.1 to a latency cv² of 0.135, so the latency's cv²
// is not taken for the service's: ServiceCv2FromLatency inverts the relation over the samples
// used. With E[S] = m and cv² = c: E[S²] = m² (1 + c); E[S³] = m³ (1 + c)(1 + 2c) for gamma and
// m³ (1 + c)³ for lognormal.
//
// The latency's own cv² and family come from its histogram (FitGroupedCounts: maximum
// likelihood over the bucket counts, the mean held at the measured mean) or from a summary's
// quantiles (FitQuantileRatios: p50 / mean and p99 / mean). Deterministic; nothing throws.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace knobsim {

enum class ShapeFamily { kGamma, kLognormal };
const char* ShapeFamilyName(ShapeFamily f);  // "gamma", "lognormal"

// The cv² searched: below kMinShapeCv2 a distribution is as good as constant (cv 0.01), above
// kMaxShapeCv2 nothing served is that variable (cv 7).
inline constexpr double kMinShapeCv2 = 1e-4;
inline constexpr double kMaxShapeCv2 = 50;

// P(X <= x) and the p-quantile of the family with this mean and cv² (both > 0).
double ShapeCdf(ShapeFamily f, double mean, double cv2, double x);
double ShapeQuantile(ShapeFamily f, double mean, double cv2, double p);

struct ShapeFit {
  ShapeFamily family = ShapeFamily::kGamma;
  double cv2 = 1;
  // FitGroupedCounts: the log-likelihood of the counts at cv2 (multinomial, up to a constant).
  // FitQuantileRatios: minus the sum of squared log errors of the ratios given.
  double score = 0;
};

// Maximum likelihood cv² of `family`, the mean fixed, over grouped data: `le` the buckets'
// upper bounds (ascending, +Inf last), `counts` the observations in each bucket (not
// cumulative). The search runs over log cv² in [kMinShapeCv2, kMaxShapeCv2].
ShapeFit FitGroupedCounts(ShapeFamily family, std::span<const double> le,
                          std::span<const double> counts, double mean);

// The cv² of `family` whose p50 / mean and p99 / mean are nearest (in log) those measured; a
// ratio that is NaN is left out (at least one must be given).
ShapeFit FitQuantileRatios(ShapeFamily family, double p50_over_mean, double p99_over_mean);

// A sample the latency was measured in: its load ρ (busy from this pod's requests, 0..1) and
// its weight (requests, or any measure proportional to them).
struct LoadSample {
  double rho = 0;
  double weight = 1;
};

struct ServiceShape {
  double service_mean = 0;      // E[S] that reproduces the measured mean latency, seconds
  double service_cv2 = 1;       // the service cv² that reproduces the measured latency cv²
  bool at_lower_bound = false;  // the latency varies less than the wait alone would make it
};

// M/G/1 over the samples (a mixture weighted by `weight`): the service mean m and cv² c of
// `family` whose latency has mean `latency_mean` and cv² `latency_cv2`. m solves
// latency_mean = m + E[W](m, c) pooled; c is found by bisection, since the pooled latency cv²
// grows with c. Samples with ρ outside [0, 0.95] are left out.
ServiceShape ServiceCv2FromLatency(ShapeFamily family, double latency_mean, double latency_cv2,
                                   std::span<const LoadSample> samples);

}  // namespace knobsim
