// The headline statistic of the FGD experiments (docs/fgd-policies.md §8, docs/validation.md rung
// 3): per trace and policy, the median over seeds of the allocated GPU % at x = 100 and x = 130,
// beside the same statistic of the paper's own files. Medians are compared unrounded: a median of
// 2-decimal values may end in 5 at the third decimal, and the paper's printed tables rounded
// those binary doubles either way.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/replay/result_csv.h"

namespace knobsim::replay {

struct MedianRow {
  std::string workload;
  std::string sc_policy;
  int seeds = 0;
  std::optional<double> at100, at130;
  // The reference's median over the same seeds, when a reference row exists for each of them.
  std::optional<double> expected100, expected130;
};

// Medians of allocation rows per (workload, sc_policy), in row order; `expected` may be empty.
std::vector<MedianRow> AllocationMedians(std::span<const ResultRow> allo,
                                         std::span<const ResultRow> expected);

// The table `knobsim replay` prints: one line per trace and policy, medians with 3 decimals,
// and, where the reference has the runs, its medians and the difference in percentage points.
std::string FormatMediansTable(std::span<const MedianRow> rows);

}  // namespace knobsim::replay
