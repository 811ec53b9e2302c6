// Summaries over independent replications: mean and the 95 % confidence half-width
// (Student t with R - 1 degrees of freedom), and paired differences between variants.
#pragma once

#include <span>

namespace knobsim {

struct MeanCi {
  double mean = 0;
  double half_width = 0;  // 0 with fewer than two values
};

// Two-sided Student t quantile t(p, dof) for p in (0.5, 1), dof >= 1.
double StudentT(double p, int dof);

// Mean of `values` and the half-width of its `level` confidence interval (default 95 %).
MeanCi Summarize(std::span<const double> values, double level = 0.95);

}  // namespace knobsim
