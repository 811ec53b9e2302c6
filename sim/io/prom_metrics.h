// What `knobsim import` learns from Prometheus answers (prom_reader.h): each pod's GPU memory,
// each card's utilization over time and each pod's request rate, with a note on how each was
// found for the scenario's comments (docs/semantics.md §5.6, §1.9).
//
// Series are matched by their metric name (`__name__`); a query that drops it (`rate(...)`,
// `sum by (...)`) keeps it with `label_replace(<query>, "__name__", "<name>", "", "")`. Pods come
// from the first present of `pod_labels` / `namespace_labels` (`exported_pod` first: a
// ServiceMonitor scraping dcgm-exporter renames the exporter's `pod` label so, and `pod` is then
// the exporter's own pod), cards from `UUID`, else `Hostname` + `gpu`.
//
// Before anything is read: samples outside [window_start, window_end] (pass ±infinity for none)
// and NaN/±Inf samples are dropped (counted in `warnings`), and series with the same labels in
// several files (two exports of one query, overlapping or not) merge into one by timestamp, the
// first file's value winning where both have one. Series of one pod in different files merge
// through the per-pod combination below.
//
// Per-pod GPU memory, the first rule that applies (docs/semantics.md §5.6):
//  1. `mem_metric_override` set: that metric as each pod's usage, summed over the pod's series
//     on one card at each time (a recording rule gives one series per pod; a per-container
//     metric adds up).
//  2. `process_mem` present with pod labels: ACK's per-process metric, summed per pod and card
//     at each time. Its unit is unconfirmed (§1.9): read as MiB unless `process_mem_mib_per_unit`
//     says otherwise.
//  3. `fb_used` (MiB) with pod labels, grouped by card. A pod's several series on one card
//     (containers, an exporter restart) count once, by their largest value at each time: DCGM
//     repeats the card's value for each of them. Then per card:
//       - one pod: the card's total is that pod's usage;
//       - pods whose values differ at some shared time: per-pod values;
//       - pods whose values are equal at every shared time: the card's total repeated for each,
//         which says nothing about any one pod: a CardTotalMemory entry, no PodMemoryPeak;
//       - pods never on the card at the same time: each the card's only pod at its times.
//     Two pods that really use the same amount look like the repeated total; rule 1 overrides.
// Peaks and means are over the times at which the pod has a sample. A pod on several cards has
// one entry per card.
//
// Card utilization: per card, the first metric of `card_util` that has series for it (the
// others are noted, not mixed in). A metric's scale is decided once over all its series: a
// sample above 1 + 0.05 makes it a percentage (DCGM_FI_DEV_GPU_UTIL), whole numbers only (0 and
// 1) too, as an idle card's GPU_UTIL reads and a profiling ratio never does; anything else is a
// ratio (DCGM_FI_PROF_SM_ACTIVE). `util_scale` skips the detection. Once scaled, a sample above
// 1 by at most that tolerance is clamped to 1 (full load read with noise); one further above,
// or below 0, is dropped (missing): it is no reading of the card (a series summed over copies,
// a wrong scale), and a made-up 100 % would pull its bin towards saturation. Both are counted
// per card (CardUtilization) for the import to name (sim/import CheckEvidence). Copies of a
// card's value on the series of its pods then count once (largest at each time).
//
// Request rates: `rate_metric` summed per pod at each time (requests/s), one PodRate per pod
// and node label (a pod's series normally name one node, or none). Negative samples (a
// counter reset rated wrongly, a bad recording rule) are dropped before the sum, counted per
// pod for the import to name.
//
// Latency (`latency_metric` NAME, end-to-end request latency in units of `latency_unit_s`
// seconds), per pod by the pod labels, the first form a pod has:
//  1. a classic histogram: `NAME_bucket` (label `le`, `+Inf` included), `NAME_sum`, `NAME_count`,
//     each as query_range exports `rate(NAME_bucket[w])` (kept named with label_replace), or the
//     raw cumulative counters. A pod's several series (containers, handlers) add bucket by bucket
//     and sum to sum. mean = sum / count; p50, p99 by Prometheus' histogram_quantile rule
//     (cumulative counts made monotonic; linear inside the bucket that holds the rank, from 0
//     below the first bucket; the upper bound of the highest finite bucket when the rank falls
//     in +Inf; NaN without a +Inf bucket, with fewer than two buckets or no observation);
//  2. a summary: `NAME` with a `quantile` label ("0.5" gives p50, "0.99" p99), mean from
//     `NAME_sum` / `NAME_count` when present. Quantiles of several series do not combine: a pod
//     with more than one series of a quantile gets NaN for it, with a warning;
//  3. `NAME` without `le` or `quantile`: the mean latency per sample (one series per pod; several
//     cannot be weighted without their request counts: NaN, with a warning);
//  4. `NAME_sum` and `NAME_count` alone: the mean.
// Cumulative counters: a pod's `_count` series (its `+Inf` bucket without one) that has more than
// two samples, rises at least once and falls at no more than kMaxResetFraction of its steps (a
// counter falls only when its process restarts; a rate falls at about every other step) is read
// as raw counters, and every `_bucket`, `_sum`, `_count` series of that pod is differenced first:
// per step, the increase over the step's seconds, a fall read as a reset to 0 (Prometheus'
// rate() rule), the first sample giving none.
//
// GPU profiles (`profile_counters`): per card, per counter, the pods whose series have a sample
// at each time. A time where exactly one pod has one, and no series of that card without pod
// labels does, is a solo sample of that pod (a shared card repeats the card's counter on each of
// its pods' series and says nothing about any one of them); its several series there count once
// (the largest). The samples are kept for the import to take medians over a workload's pods.
//
// Nothing here fails: what cannot be used is said in `warnings`, or counted where the import
// names it. Outputs are sorted by key.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/io/prom_reader.h"

namespace knobsim {

// A utilization ratio may overshoot 1 by sampling noise up to this much: such a sample is
// clamped to 1, one further above dropped; a metric whose samples exceed it is a percentage.
inline constexpr double kUtilRatioTolerance = 0.05;

// Defaults per docs/semantics.md §5.6 and §1.9; each overridable on the command line.
struct MetricNames {
  std::string process_mem = "DCGM_CUSTOM_PROCESS_MEM_USED";
  double process_mem_mib_per_unit = 1.0;        // [UNCONFIRMED] unit: MiB; 1.0 / 1048576 for bytes
  std::string fb_used = "DCGM_FI_DEV_FB_USED";  // MiB (dcgm-exporter's counters file)
  std::vector<std::string> card_util = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_SM_ACTIVE",
                                        "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};  // in preference order
  double util_scale = 0;                 // 0: detect per metric; 0.01: percent; 1: ratio
  std::string mem_metric_override;       // --mem-metric: use this metric, per pod, as-is
  double mem_metric_mib_per_unit = 1.0;  // its unit, MiB by default
  std::string rate_metric;               // --rate-metric: per-pod request rate (requests/s)
  std::string latency_metric;            // --latency-metric NAME: end-to-end request latency
  double latency_unit_s = 1.0;  // seconds per unit of latency_metric; 0.001 for milliseconds

  // DCGM's profiling counters of a workload's gpu_profile (ratios 0..1; prom_profiles.cpp), in
  // ProfileCounter order. A dcgm-exporter collects SM_ACTIVE and SM_OCCUPANCY only where its
  // counters file enables them (etc/dcp-metrics-included.csv has them commented out).
  std::vector<std::string> profile_counters = {
      "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_OCCUPANCY", "DCGM_FI_PROF_DRAM_ACTIVE",
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};

  // Label names, the first present on a series wins.
  std::vector<std::string> pod_labels = {"exported_pod", "pod"};
  std::vector<std::string> namespace_labels = {"exported_namespace", "namespace"};
  std::vector<std::string> node_labels = {"Hostname", "node"};
  std::string gpu_label = "gpu";
  std::string uuid_label = "UUID";
};

// A card as DCGM labels it; either `uuid` or `node` + `gpu` identifies it. Ordered by node, then
// gpu (numerically when both are numbers), then uuid.
struct CardKey {
  std::string node;
  std::string gpu;
  std::string uuid;

  bool operator==(const CardKey&) const = default;
  bool operator<(const CardKey& other) const;
  std::string ToString() const;  // "node-a/gpu 0 (GPU-...)"
};

struct PodKey {
  std::string ns;
  std::string pod;

  auto operator<=>(const PodKey&) const = default;
  std::string ToString() const;  // "ns/pod"
};

struct PodMemoryPeak {
  PodKey pod;
  double peak_mib = 0;
  double mean_mib = 0;
  std::string source;  // e.g. "DCGM_FI_DEV_FB_USED per pod"
  CardKey card;        // empty when the metric has no card labels
  // Set by the import's evidence step (sim/import CheckEvidence) when the measured peak was
  // above the card's physical memory: the peak as measured, before peak_mib was capped.
  double measured_peak_mib = 0;
};

// FB_USED that is only the card's total: every pod on the card reported the same value.
struct CardTotalMemory {
  CardKey card;
  double peak_mib = 0;
  std::vector<PodKey> pods;  // sorted
};

struct CardUtilization {
  CardKey card;
  std::string metric;
  double scale = 1;  // 0.01 when the metric is a percentage, 1 when a ratio
  std::vector<double> times;
  std::vector<double> busy;  // 0..1, parallel to times
  std::vector<PodKey> pods;  // pod labels seen on the card's series of `metric`, sorted
  // Impossible samples (busy outside 0..1 once scaled), counted by time: clamped to 1 (above
  // by at most the ratio tolerance), dropped above that, dropped below 0.
  size_t clamped = 0;
  size_t dropped_high = 0;
  size_t dropped_negative = 0;
  double largest = 0;   // the largest sample once scaled, kept or not
  double smallest = 0;  // the smallest, kept or not
};

struct PodRate {
  PodKey pod;
  std::vector<double> times;
  std::vector<double> rate;  // requests/s, parallel to times
  std::string node;          // the node label of its series (MetricNames::node_labels), or ""
  size_t negative = 0;       // samples below 0, dropped before the sum
  double lowest = 0;         // the most negative of them
};

// A pod's end-to-end latency per sample (the latency form above).
struct PodLatency {
  PodKey pod;
  std::vector<double> times;
  std::vector<double> mean_s;  // mean latency of the requests in the sample's interval; NaN unknown
  std::vector<double> p50_s;   // NaN where unknown (only a mean series)
  std::vector<double> p99_s;   // NaN where unknown
  std::string source;          // how it was read: "histogram", "summary", "mean"
  // Requests per second in the sample's interval (histogram and summary with `_count`); NaN
  // where unknown.
  std::vector<double> count;
  // The histogram form only: the buckets' upper bounds in seconds, ascending, +Inf last, and per
  // sample each bucket's cumulative count (requests per second, monotonic; NaN where a bucket
  // has no sample). Empty for the other forms.
  std::vector<double> bucket_le;
  std::vector<std::vector<double>> buckets;
};

// The counters of MetricNames::profile_counters, by index.
enum ProfileCounter : int {
  kSmActive = 0,
  kSmOccupancy,
  kDramActive,
  kTensorActive,
  kGrEngineActive,
  kProfileCounters
};

// A pod's DCGM profiling samples at the times it was the only pod on its card (prom_profiles.cpp):
// per counter, the kept values (ratios, clamped to 1 within kUtilRatioTolerance).
struct PodSoloSamples {
  PodKey pod;
  std::vector<double> solo[kProfileCounters];
  size_t shared = 0;   // samples at times another pod (or an unlabelled series) was on its card
  size_t dropped = 0;  // samples outside 0..1 + tolerance: no ratio
};

// A counter may fall at this fraction of its steps (restarts) and still read as cumulative.
inline constexpr double kMaxResetFraction = 0.1;

// Prometheus' histogram_quantile over one sample: `le` ascending with +Inf last, `cumulative`
// the counts at each bound (prom_metrics.h, latency form 1). NaN where Prometheus gives NaN.
double HistogramQuantile(double q, const std::vector<double>& le, std::vector<double> cumulative);

struct Metrics {
  std::vector<PodMemoryPeak> pod_memory;  // by pod, then card
  std::vector<CardTotalMemory> card_totals;
  std::vector<CardUtilization> cards;
  std::vector<PodRate> rates;         // by pod, then node
  std::vector<PodLatency> latencies;  // by pod; empty without latency_metric
  std::vector<PodSoloSamples> profiles;  // by pod; pods with a profiling counter series
  std::vector<std::string> notes;     // how each was detected, for the scenario's comments
  std::vector<std::string> warnings;  // what was skipped, and why
};

Metrics InterpretMetrics(std::span<const PromResult> results, const MetricNames& names,
                         double window_start, double window_end);

// InterpretMetrics, then, unless `names.mem_metric_override` is set, FB_USED for the pods that
// ACK's per-process metric does not cover (pools without it): InterpretMetrics takes the process
// metric for every pod once it is present, but a pod without a series of it still has its
// card's FB_USED, by the docs/semantics.md §5.6 rule. Per pod: the process metric, else FB_USED.
// The notes say which pods FB_USED spoke for. `knobsim import` and `knobsim check` read memory so.
Metrics InterpretPodMemoryMetrics(std::span<const PromResult> results, const MetricNames& names,
                                  double window_start, double window_end);

}  // namespace knobsim
