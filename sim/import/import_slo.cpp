// Each imported workload's objective from its measured latency (import_steps.h,
// LatencyObjectives; docs/import.md "Objectives").
#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "sim/import/import_steps.h"

namespace knobsim {
namespace {

// The p99 (seconds) of a group of pods' latency over the whole window: pooled when every pod
// has the histogram form with the same bounds (each sample's bucket rates × the pod's sample
// step, added, then Prometheus' histogram_quantile); else the mean of the samples' p99 weighted
// by their requests where every such sample has a count, equally otherwise (an approximation:
// `pooled` false). NaN when no sample gives a p99.
struct WindowP99 {
  double seconds = NAN;
  bool pooled = false;
};

WindowP99 PooledHistogramP99(const std::vector<const PodLatency*>& pods) {
  const std::vector<double>& le = pods.front()->bucket_le;
  std::vector<double> total(le.size(), 0.0);
  for (const PodLatency* p : pods) {
    const double step = import_text::MedianStep(p->times);
    for (const std::vector<double>& sample : p->buckets) {
      if (sample.size() != le.size() ||
          std::any_of(sample.begin(), sample.end(), [](double v) { return !std::isfinite(v); }))
        continue;
      for (size_t b = 0; b < le.size(); ++b) total[b] += sample[b] * (step > 0 ? step : 1.0);
    }
  }
  return {HistogramQuantile(0.99, le, total), true};
}

WindowP99 MeasuredP99(const std::vector<const PodLatency*>& pods) {
  if (pods.empty()) return {};
  const bool same_histograms = std::all_of(pods.begin(), pods.end(), [&](const PodLatency* p) {
    return p->source == "histogram" && !p->bucket_le.empty() &&
           p->bucket_le == pods.front()->bucket_le;
  });
  if (same_histograms) {
    const WindowP99 pooled = PooledHistogramP99(pods);
    if (std::isfinite(pooled.seconds)) return pooled;
  }
  bool counted = true;
  for (const PodLatency* p : pods) {
    for (size_t i = 0; i < p->p99_s.size(); ++i) {
      if (std::isfinite(p->p99_s[i]) && !(i < p->count.size() && std::isfinite(p->count[i])))
        counted = false;
    }
  }
  double sum = 0, weight = 0;
  for (const PodLatency* p : pods) {
    for (size_t i = 0; i < p->p99_s.size(); ++i) {
      if (!std::isfinite(p->p99_s[i])) continue;
      const double w = counted ? p->count[i] : 1.0;
      sum += w * p->p99_s[i];
      weight += w;
    }
  }
  return {weight > 0 ? sum / weight : NAN, false};
}

}  // namespace

void LatencyObjectives(const Metrics& metrics, const PodIndex& pods, const ImportOptions& options,
                       ImportModel& model) {
  std::map<int, std::vector<const PodLatency*>> by_workload;
  for (const PodLatency& l : metrics.latencies) {
    const auto at = pods.workload_of.find(l.pod);
    if (at != pods.workload_of.end()) by_workload[at->second.first].push_back(&l);
  }
  for (int wi = 0; wi < static_cast<int>(model.workloads.size()); ++wi) {
    ImportedWorkload& iw = model.workloads[static_cast<size_t>(wi)];
    if (!iw.has_traffic) continue;
    iw.has_slo = true;
    Slo& slo = iw.spec.slo;
    const auto it = by_workload.find(wi);
    const WindowP99 p99 = it == by_workload.end() ? WindowP99{} : MeasuredP99(it->second);
    if (!(p99.seconds > 0)) {
      iw.notes["slo"] =
          metrics.latencies.empty()
              ? "errors only: no latency metric (--latency-metric); the verdict judges errors "
                "and the requests left unanswered"
              : "errors only: the latency metric gives this workload no p99; the verdict judges "
                "errors and the requests left unanswered";
      continue;
    }
    // Whole milliseconds, rounded up: the target is never below the measured p99 × headroom.
    const double target_s = std::ceil(p99.seconds * options.slo_headroom * 1e3) / 1e3;
    slo.percentile = 99;
    slo.latency = static_cast<SimTime>(std::llround(target_s * 1e9));
    iw.notes["slo"] =
        "latency: measured p99 " + import_text::Seconds(p99.seconds) +
        (p99.pooled ? " (histogram over the window)" : " (mean of the samples' p99, approximate)") +
        " × " + import_text::FormatNumber("%g", options.slo_headroom) + " (--slo-headroom)";
  }
}

}  // namespace knobsim
