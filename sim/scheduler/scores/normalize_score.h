// Upstream's helper.DefaultNormalizeScore (pkg/scheduler/framework/plugins/helper/
// normalize_score.go), shared by the TaintToleration and NodeAffinity scores (docs/semantics.md
// §3.3, §3.4): scale raw scores so the largest becomes `max_priority`, optionally reversed.
#pragma once

#include <cstdint>
#include <span>

namespace knobsim {

// score = max_priority × score / max (integer division), then max_priority − score when
// `reverse`. When every score is 0 (max 0) they stay 0, or all become max_priority if `reverse`.
void DefaultNormalizeScore(int64_t max_priority, bool reverse, std::span<int64_t> scores);

}  // namespace knobsim
