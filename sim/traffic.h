// Traffic: when a workload's requests arrive and how much GPU work each carries.
//
// Arrivals are a Poisson process with a constant, piecewise-constant or diurnal (cosine) rate,
// or recorded traffic played back. Piecewise rates use time rescaling (exact, one exponential
// draw per arrival); the diurnal curve uses thinning against its peak rate. Work per request is
// in seconds of reference-GPU time. Both draw from the workload's own streams (docs/design.md
// §3.1), so variants share them.
//
// Recorded traffic (docs/scenario.md "Recorded traffic"):
// - replay: the recorded times exactly. A scale s (a variant's traffic_scale) plays each
//   recorded arrival floor(s) times, plus once more with probability frac(s) (one uniform draw
//   per recorded arrival, only when frac(s) > 0): s = 0.5 keeps about every other request,
//   s = 2 sends each one twice at the same instant.
// - counts: interval i holds exactly n = values[i] arrivals (scaled: floor(n·s) plus one with
//   probability frac(n·s)), placed by the counts' spread: uniform — the order statistics of n
//   independent uniforms on the interval, drawn in increasing order (the next of m remaining
//   after x is x + (1 - x)(1 - U^(1/m)), one draw per arrival) — or even, the k-th at
//   i·step + (k + U_k)/n · step (stratified). Either way the count per interval is exact.
// Per-pod counts (IntervalCounts::per_pod) are one such process per pod, over that pod's values
// (PodCountsTraffic), each on its own random stream; the engine routes each to its pod.
// After the recording ends no request arrives.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/random_stream.h"
#include "sim/scenario.h"

namespace knobsim {

class ArrivalProcess {
 public:
  ArrivalProcess(const Traffic& traffic, RandomStream stream);

  // The first arrival after `now` (the previous arrival, or 0); kNever when none will come.
  // A recording may return `now` itself (equal timestamps, or copies under a scale above 1).
  SimTime Next(SimTime now);

  // The recorded work of the arrival Next returned last, when the recording carries one.
  std::optional<double> RecordedWork() const { return recorded_work_; }

  static constexpr SimTime kNever = INT64_MAX;

 private:
  double RateAt(SimTime t) const;  // requests per second, scale applied
  SimTime NextRecorded();
  SimTime NextCounted();
  int64_t ScaledCount(double n);  // floor(n·scale) + Bernoulli(frac(n·scale))

  Traffic traffic_;
  RandomStream stream_;
  // Playback position: the next recorded arrival, and copies of the current one still to send;
  // for counts, the current interval, its arrival count and how many were sent.
  size_t index_ = 0;
  int64_t copies_left_ = 0;
  SimTime current_at_ = 0;
  std::optional<double> recorded_work_;
  int64_t interval_ = -1;
  int64_t interval_count_ = 0;
  int64_t interval_sent_ = 0;
  double interval_at_ = 0;  // uniform spread: the last arrival's place in the interval, 0..1
};

// The mean arrival rate (per second, scale applied) over [0, duration]: the expectation for the
// Poisson kinds, the recorded arrivals (or counts, the last interval prorated) for recordings.
double MeanRate(const Traffic& traffic, SimTime duration);

// Pod k's recorded counts (traffic.counts.per_pod[k]) as counts of their own: the same step,
// spread and scale, the pod's values, no per_pod lists.
Traffic PodCountsTraffic(const Traffic& traffic, size_t k);

// One request's work, in seconds of reference-GPU time.
double DrawWorkSeconds(const WorkModel& model, RandomStream& stream);

}  // namespace knobsim
