#include "sim/backtest/accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/text.h"

namespace knobsim::backtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool Pair(double a, double b) {
  return std::isfinite(a) && std::isfinite(b);
}

}  // namespace

double RSquared(std::span<const double> measured, std::span<const double> predicted) {
  const size_t n = std::min(measured.size(), predicted.size());
  double sum = 0;
  int pairs = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!Pair(measured[i], predicted[i])) continue;
    sum += measured[i];
    ++pairs;
  }
  if (pairs < 2) return kNaN;
  const double mean = sum / pairs;
  double residual = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!Pair(measured[i], predicted[i])) continue;
    residual += (measured[i] - predicted[i]) * (measured[i] - predicted[i]);
    total += (measured[i] - mean) * (measured[i] - mean);
  }
  // A measured series flat to rounding has no variance to explain.
  if (total <= 1e-12 * std::max(1.0, mean * mean) * pairs) return kNaN;
  return 1 - residual / total;
}

double MeanAbsoluteError(std::span<const double> measured, std::span<const double> predicted) {
  const size_t n = std::min(measured.size(), predicted.size());
  double sum = 0;
  int pairs = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!Pair(measured[i], predicted[i])) continue;
    sum += std::abs(measured[i] - predicted[i]);
    ++pairs;
  }
  return pairs > 0 ? sum / pairs : kNaN;
}

std::vector<double> AbsolutePercentageErrors(std::span<const double> measured,
                                             std::span<const double> predicted) {
  std::vector<double> errors;
  const size_t n = std::min(measured.size(), predicted.size());
  for (size_t i = 0; i < n; ++i)
    if (Pair(measured[i], predicted[i]) && measured[i] > 0)
      errors.push_back(std::abs(predicted[i] - measured[i]) / measured[i]);
  return errors;
}

double MedianAbsolutePercentageError(std::span<const double> measured,
                                     std::span<const double> predicted) {
  return FiniteMedian(AbsolutePercentageErrors(measured, predicted));
}

double FiniteMedian(std::span<const double> values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  return Median(std::move(finite)).value_or(kNaN);
}

}  // namespace knobsim::backtest
