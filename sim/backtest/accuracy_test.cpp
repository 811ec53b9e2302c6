#include "sim/backtest/accuracy.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace knobsim::backtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST_CASE("accuracy: R² is 1 for a perfect prediction, 0 for the measured mean, below 0 worse") {
  const std::vector<double> measured = {0.1, 0.2, 0.3, 0.4};
  CHECK(RSquared(measured, measured) == doctest::Approx(1.0));
  CHECK(RSquared(measured, std::vector<double>(4, 0.25)) == doctest::Approx(0.0));
  CHECK(RSquared(measured, std::vector<double>{0.4, 0.3, 0.2, 0.1}) < 0);
  // 1 - Σ r² / SS_tot = 1 - (4 × 0.01²) / 0.05
  CHECK(RSquared(measured, std::vector<double>{0.11, 0.21, 0.31, 0.41}) ==
        doctest::Approx(1 - 0.0004 / 0.05));
}

TEST_CASE("accuracy: R² is unknown for a flat measured series or fewer than two pairs") {
  CHECK(std::isnan(RSquared(std::vector<double>(5, 0.3), std::vector<double>(5, 0.31))));
  CHECK(std::isnan(RSquared(std::vector<double>{0.3}, std::vector<double>{0.3})));
  CHECK(std::isnan(RSquared(std::vector<double>{0.3, kNaN}, std::vector<double>{0.3, 0.5})));
}

TEST_CASE("accuracy: pairs with a missing side are left out of every score") {
  const std::vector<double> measured = {0.1, kNaN, 0.3, 0.5};
  const std::vector<double> predicted = {0.2, 0.9, kNaN, 0.3};
  CHECK(MeanAbsoluteError(measured, predicted) == doctest::Approx((0.1 + 0.2) / 2));
  CHECK(std::isnan(MeanAbsoluteError(std::vector<double>{kNaN}, std::vector<double>{1})));
}

TEST_CASE("accuracy: MdAPE is the median relative error over windows with a measured value") {
  const std::vector<double> measured = {100, 200, 0, 400, 50};
  const std::vector<double> predicted = {110, 180, 5, 400, 100};
  // 0.10, 0.10, (0 left out), 0, 1.0 → median of {0, 0.1, 0.1, 1.0} = 0.1
  CHECK(MedianAbsolutePercentageError(measured, predicted) == doctest::Approx(0.1));
  CHECK(AbsolutePercentageErrors(measured, predicted).size() == 4);
  CHECK(std::isnan(MedianAbsolutePercentageError(std::vector<double>{0}, std::vector<double>{1})));
}

TEST_CASE("accuracy: the finite median skips NaN and is NaN for nothing") {
  CHECK(FiniteMedian(std::vector<double>{3, kNaN, 1, 2}) == doctest::Approx(2));
  CHECK(std::isnan(FiniteMedian(std::vector<double>{kNaN})));
}

}  // namespace
}  // namespace knobsim::backtest
