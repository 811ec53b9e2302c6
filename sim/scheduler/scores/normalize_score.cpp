#include "sim/scheduler/scores/normalize_score.h"

#include <algorithm>

namespace knobsim {

void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<int64_t> scores) {
  // Upstream starts the maximum at 0, so negative raw scores (none of the callers produce
  // them) would count as 0 too.
  int64_t max_count = 0;
  for (int64_t s : scores) max_count = std::max(max_count, s);
  if (max_count == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), max_priority);
    return;
  }
  for (int64_t& s : scores) {
    s = max_priority * s / max_count;
    if (reverse) s = max_priority - s;
  }
}

}  // namespace knobsim
