// The request-level truth's named parameters and the step arithmetic its series share
// (tools/gen-export/README.md, "Request-level truth").
//
// Contract: the constants are the model's documented defaults, written into truth.json
// (`request_model`) so a reader of the files knows them; StepRange maps a sample stamped at ts
// with step S to the truth steps it covers, [ts − S, ts), the way Prometheus' rate(x[S]) at ts
// covers the S before it. Internal to tools/gen-export.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "tools/gen-export/export_generator.h"

namespace knobsim::gen_export {

// Arrivals: a Markov-modulated Poisson process. Each truth step is in a burst or not; a burst
// ends within a step with probability 1 − exp(−step / kBurstMeanS) and one starts with
// 1 − exp(−step / kBurstGapMeanS), so bursts last several minutes and cover
// kBurstMeanS / (kBurstMeanS + kBurstGapMeanS) of the time. In a burst the rate is
// kBurstMultiplier times the rate outside; both are scaled so the mean is the diurnal curve.
inline constexpr double kBurstMultiplier = 2.0;
inline constexpr double kBurstMeanS = 300;      // 5 minutes
inline constexpr double kBurstGapMeanS = 2700;  // 45 minutes between bursts
inline constexpr double kBurstShare = kBurstMeanS / (kBurstMeanS + kBurstGapMeanS);
inline constexpr double kMeanModulation = 1 + kBurstShare * (kBurstMultiplier - 1);
// Rate in a burst over the mean: a request-truth workload's rates are divided by it, so that
// its pods' peak load (diurnal peak in a burst) is the load AddTraffic chose, below saturation.
inline constexpr double kBurstPeakFactor = kBurstMultiplier / kMeanModulation;

// Service: gamma, squared coefficient of variation drawn per workload in this range.
inline constexpr double kServiceCv2Min = 0.1;
inline constexpr double kServiceCv2Max = 0.5;

// A card's idle floor is drawn in [kIdleFloorLow, 1] × options.idle_floor.
inline constexpr double kIdleFloorLow = 0.5;

// The truth steps [first, last) of a sample stamped at ts with step S, clipped to the series.
inline std::pair<int64_t, int64_t> StepRange(const RequestSeries& r, int64_t ts, int64_t S) {
  const int64_t n = static_cast<int64_t>(r.arrivals.size());
  const int64_t first = (ts - S - r.start_unix) / r.step_s;
  const int64_t last = (ts - r.start_unix) / r.step_s;
  return {std::clamp<int64_t>(first, 0, n), std::clamp<int64_t>(last, 0, n)};
}

}  // namespace knobsim::gen_export
