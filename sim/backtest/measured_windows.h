// The measured side of a backtest (backtest.h): Prometheus series cut into comparison windows.
//
// A sample stamped t stands for the interval (t - step, t] that ends at it, `step` the series'
// own median sample spacing; it counts in the window that holds the start of that interval.
#pragma once

#include <vector>

#include "sim/io/prom_metrics.h"

namespace knobsim::backtest {

// Windows [from + k·window_s, from + (k+1)·window_s), k < windows.
struct WindowGrid {
  double from = 0;
  double window_s = 600;
  int windows = 0;
};

// The mean of the samples in each window (NaN where a window has none).
std::vector<double> WindowMeans(const std::vector<double>& times, const std::vector<double>& values,
                                const WindowGrid& grid);

// The latency of a group of pods (one workload) per window, from their PodLatency series:
//  * mean: the mean of the samples' means weighted by their requests (count × step; with no
//    count, every sample weighs the same);
//  * p99: from the histograms when every pod has one with the same buckets (the buckets'
//    requests added over the window, then Prometheus' histogram_quantile), else the
//    request-weighted mean of the samples' p99 (an approximation, said in `p99_exact`);
//  * requests: Σ count × step (NaN without counts).
// Milliseconds; NaN where a window has no sample.
struct WindowLatency {
  std::vector<double> mean_ms, p99_ms, requests;
  bool p99_exact = true;
  std::string source;  // the pods' PodLatency::source, "mixed" when they differ
};
WindowLatency LatencyWindows(const std::vector<const PodLatency*>& pods, const WindowGrid& grid);

// The histogram buckets' upper bounds (seconds, +Inf last) that every pod of the group shares,
// the ones LatencyWindows adds up for the p99; empty when they have none in common.
std::vector<double> CommonBuckets(const std::vector<const PodLatency*>& pods);

}  // namespace knobsim::backtest
