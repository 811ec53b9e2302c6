// How far a predicted series is from a measured one, and from the naive predictors beside it
// (docs/backtest.md "Scores"). Pairs where either side is not finite are left out of every score.
//
//  * R² = 1 - Σ(measured - predicted)² / Σ(measured - mean measured)², over the pairs: 1 is a
//    perfect prediction, 0 is no better than the measured mean, below 0 worse. NaN with fewer
//    than two pairs or a measured series without variance (SS_tot = 0: a constant card, whose
//    R² says nothing — its MAE still does).
//  * MAE = mean |measured - predicted| (the series' unit: busy fraction, ms).
//  * MdAPE = median of |predicted - measured| / measured over the pairs with measured > 0, as a
//    fraction (0.08 = 8 %). The median, not the mean: a window with a handful of requests has a
//    noisy measured mean, and one of them must not dominate the score.
#pragma once

#include <span>
#include <vector>

namespace knobsim::backtest {

double RSquared(std::span<const double> measured, std::span<const double> predicted);
double MeanAbsoluteError(std::span<const double> measured, std::span<const double> predicted);
double MedianAbsolutePercentageError(std::span<const double> measured,
                                     std::span<const double> predicted);

// |predicted - measured| / measured for each pair with measured > 0 and both finite: the
// errors that MdAPE takes the median of, for pooling over several series.
std::vector<double> AbsolutePercentageErrors(std::span<const double> measured,
                                             std::span<const double> predicted);

// The median of the finite values; NaN when there is none.
double FiniteMedian(std::span<const double> values);

}  // namespace knobsim::backtest
