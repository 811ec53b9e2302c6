// Backtest: how far knobsim's predictions for an exported cluster are from what that cluster
// did next, measured on the user's own history (docs/backtest.md).
//
//   1. The train window of the metrics imports the cluster (ImportCluster: memory, work per
//      request and its distribution, idle utilization per card), as `knobsim import` would.
//   2. The test window's recorded requests (the rate metric as counts per sample step,
//      `traffic: {counts}`) replace the imported traffic; every pod the export shows running
//      starts Ready at t = 0 (it was serving when the window began: no pull, no load), and the
//      run lasts the whole windows of the test window, with no warm-up.
//   3. R replications (common random numbers, sim/run_set.h) with a timeline of one step per
//      comparison window give the predicted series: each card's busy fraction plus the card's
//      fitted idle utilization (the import keeps it out of the work, DCGM counts it), and each
//      workload's latency mean and p99.
//   4. Each is compared with the test window's measured series per window (accuracy.h), and
//      beside it the naive predictors on the same windows: the card's train-window mean
//      utilization, the workload's train-window median latency, and per pod an M/M/1 queue with
//      the fitted work and the window's measured rate.
// Memory: each pod's test-window peak against its train-window peak (what a quota sized from
// the train window would have held) and against its visible quota.
//
// Measured samples stand for the interval that ends at their timestamp (Prometheus' rate and
// increase look back; DCGM averages over its sampling period), so a sample counts in the window
// holding the start of that interval: sample time minus the series' own step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/import/cluster_import.h"
#include "sim/input_error.h"
#include "sim/io/kube_reader.h"
#include "sim/io/prom_metrics.h"
#include "sim/io/prom_reader.h"
#include "sim/run_set.h"

namespace knobsim::backtest {

// [from, to) in Unix seconds.
struct TimeRange {
  double from = 0;
  double to = 0;
  double length() const { return to - from; }
};

// Thresholds of the verdict (docs/backtest.md "Verdict"), named so a team can tighten them.
struct TrustRules {
  double min_r2 = 0.9;             // median R² of card utilization per window
  double max_mae_pp = 1.2;         // median MAE of card utilization, percentage points
  double max_latency_mdape = 0.1;  // pooled MdAPE of the windows' mean latency
  double memory_margin = 0.02;     // a test peak above the train peak by more than this
  // A card's R² is scored only when its measured windows vary by at least this much (standard
  // deviation, busy fraction): below it the variation is the metric's own noise (DCGM's sampling,
  // an idle card's floor) and R² measures the noise, not the model; MAE still scores the card.
  double min_r2_spread = 0.01;
};

struct BacktestOptions {
  ImportOptions import;  // as `knobsim import` takes them; the windows are set here
  MetricNames names;
  TimeRange train, test;
  double window_s = 600;  // comparison window
  int replications = 5;
  uint64_t seed = 1;
  int threads = 0;
  TrustRules rules;
  // After each run: a replication, or a part of one when the replay is split.
  ProgressFn progress;
  RunLimits limits;  // of the replay (sim/run_limits.h); over them: std::invalid_argument
  // The replay runs as at most this many independent parts where the cluster allows it
  // (independent_parts.h; the same numbers as one run of the whole, on more cores); 1: never.
  int max_parts = 8;
};

// One card: per window, measured and predicted busy fractions (0..1; NaN: no measured sample).
struct CardBacktest {
  std::string node;
  int index = 0;
  std::string gpu;
  std::string metric;             // the utilization metric measured
  double idle_busy = 0;           // the fitted idle utilization added to the prediction
  std::vector<std::string> pods;  // namespace/name placed on it in the run
  std::vector<double> measured, predicted, predicted_ci95, train_mean;
  double r2 = 0, mae = 0;                        // predicted vs measured (NaN: unknown)
  double train_mean_r2 = 0, train_mean_mae = 0;  // the train-mean baseline
};

// One workload with measured latency: per window, milliseconds (NaN: no measured request).
struct WorkloadBacktest {
  std::string id;              // namespace/name
  std::string latency_source;  // histogram, summary, mean
  double work_s = 0;           // fitted work per request (reference-GPU seconds)
  std::vector<double> measured_requests, predicted_requests;
  std::vector<double> measured_mean_ms, measured_p99_ms;
  // The predicted p99 as the measured one is read: when the measured p99 comes from histogram
  // buckets (p99_through_buckets), the simulated successes counted into the same buckets per
  // window (added over the replications) and read by Prometheus' histogram_quantile; else the
  // requests' own p99 (predicted_p99_requests_ms, the mean over the replications).
  bool p99_through_buckets = false;
  std::vector<double> predicted_mean_ms, predicted_p99_ms, predicted_p99_requests_ms;
  std::vector<double> train_median_mean_ms, train_median_p99_ms;  // constant per window
  std::vector<double> mm1_mean_ms, mm1_p99_ms;
  double mdape_mean = 0, mdape_p99 = 0;
  double train_median_mdape_mean = 0, train_median_mdape_p99 = 0;
  double mm1_mdape_mean = 0, mm1_mdape_p99 = 0;
};

struct MemoryBacktest {
  std::string pod;   // namespace/name
  std::string card;  // node/gpu as DCGM labels it
  double train_peak_mib = 0, test_peak_mib = 0;
  double quota_mib =
      0;  // visible quota on the card (cGPU gpu-mem share, or the whole card); 0 unknown
  bool over_train_peak = false;
  bool over_quota = false;
};

struct Verdict {
  std::string what;  // "utilization", "latency", "memory"
  bool trust = false;
  std::string why;
};

struct BacktestSummary {
  int cards = 0, cards_with_r2 = 0;
  double r2_median = 0, mae_pp_median = 0;
  double train_mean_r2_median = 0, train_mean_mae_pp_median = 0;
  int workloads = 0;
  double mdape_mean = 0, mdape_p99 = 0;  // pooled over every workload's windows
  double train_median_mdape_mean = 0, train_median_mdape_p99 = 0;
  double mm1_mdape_mean = 0, mm1_mdape_p99 = 0;
  int memory_pods = 0, over_train_peak = 0, over_quota = 0;
};

struct BacktestReport {
  std::string evidence;  // EvidenceFingerprint of the export and every metric given
  TimeRange train, test;
  double window_s = 0;
  int windows = 0;
  int replications = 0;
  uint64_t seed = 0;
  std::vector<CardBacktest> cards;
  std::vector<WorkloadBacktest> workloads;
  std::vector<MemoryBacktest> memory;
  BacktestSummary summary;
  std::vector<Verdict> verdicts;
  std::vector<std::string> notes;     // what was left out of the comparison, and why
  std::vector<std::string> warnings;  // the two imports' warnings
  std::vector<std::string> fit_report;
};

// The test window must start after the train window ends, and at least one comparison window
// must fit in it. Failures name the option (`--train`, `--test`, `--window`, `--replications`).
Status CheckBacktestOptions(const BacktestOptions& options);

// CheckBacktestOptions first, then the steps above.
Expected<BacktestReport> RunBacktest(const KubeObjects& objects,
                                     std::span<const PromResult> results,
                                     const BacktestOptions& options);

}  // namespace knobsim::backtest
