// Traffic: when a workload's requests arrive and how much GPU work each carries.
//
// Arrivals are a Poisson process with a constant, piecewise-constant or diurnal (cosine) rate.
// Piecewise rates use time rescaling (exact, one exponential draw per arrival); the diurnal curve
// uses thinning against its peak rate. Work per request is in seconds of reference-GPU time.
// Both draw from the workload's own streams (DESIGN.md §3.1), so variants share them.
#pragma once

#include <cstdint>

#include "sim/random_stream.h"
#include "sim/scenario.h"

namespace knobsim {

class ArrivalProcess {
 public:
  ArrivalProcess(const Traffic& traffic, RandomStream stream);

  // The first arrival after `now` (the previous arrival, or 0); kNever when none will come.
  SimTime Next(SimTime now);

  static constexpr SimTime kNever = INT64_MAX;

 private:
  double RateAt(SimTime t) const;  // requests per second, scale applied

  Traffic traffic_;
  RandomStream stream_;
};

// One request's work, in seconds of reference-GPU time.
double DrawWorkSeconds(const WorkModel& model, RandomStream& stream);

}  // namespace knobsim
