// From a run's event rows to the 131 columns of the reference's result files
// (docs/fgd-policies.md §2.6, `experiments/analysis/merge_*_discrete.py`), with the reference's
// Python and pandas arithmetic: half-to-even rounding of binary doubles, means over values
// already rounded to 2 decimals, numpy's pairwise summation.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>

#include "sim/replay/replay.h"

namespace knobsim::replay {

inline constexpr int kColumns = 131;  // x = 0 … 130 % of cluster GPU capacity arrived

using Curve = std::array<std::optional<double>, kColumns>;  // empty: no event near x

struct DiscreteCurves {
  Curve allo;        // analysis_allo_discrete: allocated GPU, % of capacity
  Curve frag;        // analysis_frag_discrete: fragmented GPU, % of capacity
  Curve frag_ratio;  // analysis_frag_ratio_discrete: fragmented share of idle GPU, %, unrounded
};

// For each x, the events whose arrived request rounds to x % (else those within x ± 1).
DiscreteCurves Discretize(std::span<const EventMetrics> events, int total_gpus);

// Python's round(x, ndigits) on a double: correctly rounded, exact ties to even.
double PyRound(double x, int ndigits);
// pandas' Series.mean(): numpy's pairwise sum (8-way unrolled blocks of ≤ 128), divided by n.
double PandasMean(std::span<const double> values);
// Python's repr() of a float, as pandas' to_csv writes it: shortest round-trip digits,
// "2.0" not "2", exponent form only below 1e-4 or from 1e16.
std::string PyRepr(double x);

}  // namespace knobsim::replay
