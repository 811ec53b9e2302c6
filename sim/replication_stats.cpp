#include "sim/replication_stats.h"

#include <cmath>
#include <limits>

namespace knobsim {

namespace {

// ln Γ(x) for x >= 1/2 (all the t distribution needs: dof / 2 and 1/2) by Lanczos (g = 7, nine
// terms), about 15 digits. Written out rather than std::lgamma, which may write the global
// signgam and so race when runs are summarised in parallel.
double LogGamma(double x) {
  static constexpr double kCoef[] = {
      0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
      771.32342877765313,   -176.61502916214059,   12.507343278686905,
      -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
  constexpr double kHalfLog2Pi = 0.91893853320467274178;
  x -= 1.0;
  double sum = kCoef[0];
  for (int i = 1; i < 9; ++i) sum += kCoef[i] / (x + i);
  const double t = x + 7.5;
  return kHalfLog2Pi + (x + 0.5) * std::log(t) - t + std::log(sum);
}

// The continued fraction of the regularised incomplete beta (modified Lentz), which converges
// quickly for x < (a + 1) / (a + b + 2).
double BetaContinuedFraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double f = d;
  // Convergence takes O(sqrt(max(a, b))) terms; the cap covers dof in the tens of millions.
  for (int m = 1; m <= 100'000; ++m) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    f *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1.0 + num / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    f *= delta;
    if (std::abs(delta - 1.0) < kEps) break;
  }
  return f;
}

// P(T > t) for t >= 0 with `dof` degrees of freedom: I_x(dof/2, 1/2) / 2, x = dof / (dof + t²).
// Working with the upper tail directly keeps full relative precision where p is near 1.
double UpperTail(double t, double dof) {
  if (t <= 0) return 0.5;
  const double a = 0.5 * dof;
  const double b = 0.5;
  const double r = t * t / dof;
  // ln x and ln(1 - x) without forming x, which rounds to 1 for large dof.
  const double log_x = -std::log1p(r);
  const double log_1mx = std::log(r) - std::log1p(r);
  const double x = 1.0 / (1.0 + r);
  const double log_front = a * log_x + b * log_1mx - (LogGamma(a) + LogGamma(b) - LogGamma(a + b));
  double incomplete;
  if (x < (a + 1.0) / (a + b + 2.0)) {
    incomplete = std::exp(log_front) * BetaContinuedFraction(x, a, b) / a;
  } else {
    // Symmetry I_x(a, b) = 1 - I_{1-x}(b, a); here x is small, so the subtraction is benign.
    incomplete = 1.0 - std::exp(log_front) * BetaContinuedFraction(1.0 - x, b, a) / b;
  }
  return 0.5 * incomplete;
}

}  // namespace

double StudentT(double p, int dof) {
  if (dof < 1 || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
  if (p >= 1.0) return std::numeric_limits<double>::infinity();
  if (p <= 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -StudentT(1.0 - p, dof);
  // Invert the tail by bisection: slower than Newton, but it cannot diverge, and summaries are
  // computed a handful of times per run, not per event.
  const double target = 1.0 - p;
  const double n = dof;
  double lo = 0.0;
  double hi = 2.0;
  while (UpperTail(hi, n) > target) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (UpperTail(mid, n) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

MeanCi Summarize(std::span<const double> values, double level) {
  MeanCi out;
  const size_t n = values.size();
  if (n == 0) return out;
  double sum = 0;
  for (double v : values) sum += v;
  out.mean = sum / static_cast<double>(n);
  // One refinement pass: the rounding of the plain sum otherwise leaves identical replications
  // (a deterministic scenario) with a mean an ulp off their value and a spurious half-width.
  double residual = 0;
  for (double v : values) residual += v - out.mean;
  out.mean += residual / static_cast<double>(n);
  if (n < 2) return out;
  // Deviations from the mean rather than a sum of squares: replications of a stable metric
  // agree to many digits, where the one-pass formula would cancel catastrophically.
  double ss = 0;
  for (double v : values) ss += (v - out.mean) * (v - out.mean);
  const double s = std::sqrt(ss / static_cast<double>(n - 1));
  out.half_width = StudentT(0.5 * (1.0 + level), static_cast<int>(n - 1)) * s /
                   std::sqrt(static_cast<double>(n));
  return out;
}

}  // namespace knobsim
