// Internal to sim/io's Prometheus interpretation (prom_metrics.cpp, prom_latency.cpp): the series
// of the files once windowed, NaN-filtered and merged across files, and the label and combining
// rules the interpretations share. The contract of each is prom_metrics.h's.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/io/prom_metrics.h"

namespace knobsim::prom_detail {

using Labels = std::map<std::string, std::string>;

struct Sample {
  double t;
  double v;
};

// One series after the window, the NaN filter and the merge across files.
struct Series {
  const Labels* labels;
  std::vector<Sample> samples;  // increasing t
  bool needs_merge = false;     // samples appended from a second file
};

// The largest magnitude a sample of any metric knobsim reads may have: no GPU memory (a petabyte
// card in bytes is 1e15), utilization or request rate comes near it, and beyond it the
// conversions to whole MiB and counts overflow int64 (a Prometheus 1e308 would import as
// negative gibibytes). Larger samples are skipped and counted, like NaN.
inline constexpr double kLargestMetricValue = 1e15;

// Every named series of every file, by metric name, with what was dropped on the way.
struct Collected {
  std::map<std::string, std::vector<Series>> by_name;
  std::map<std::string, size_t> non_finite;  // metric -> samples skipped
  std::map<std::string, size_t> too_large;   // metric -> samples beyond kLargestMetricValue
  std::map<std::string, size_t> conflicts;   // metric -> times two files disagree on
  size_t unnamed = 0;

  const std::vector<Series>& Of(const std::string& name) const {
    static const std::vector<Series> kNone;
    auto it = by_name.find(name);
    return it == by_name.end() ? kNone : it->second;
  }
};

// Only the metrics in `wanted` are kept: the rest of a big export is not copied.
Collected Collect(std::span<const PromResult> results, const std::set<std::string>& wanted,
                  double start, double end);

PodKey PodOf(const Labels& labels, const MetricNames& names);
CardKey CardOf(const Labels& labels, const MetricNames& names);
// What identifies a card across series: its UUID, else node and index; empty when neither.
std::string CardId(const CardKey& card);

// "1 card", "3 cards".
std::string Plural(size_t n, std::string_view one, std::string_view many);

// Samples of several series as one, per timestamp the sum or the largest of those present.
std::vector<Sample> Combine(const std::vector<const Series*>& parts, bool sum);

// The latency metric's series per pod (prom_metrics.h, "Latency"), into out.latencies.
void Latencies(const Collected& c, const MetricNames& names, Metrics& out);

// The profiling counters' solo samples per pod (prom_metrics.h, "GPU profiles"), into
// out.profiles (prom_profiles.cpp).
void SoloProfiles(const Collected& c, const MetricNames& names, Metrics& out);

}  // namespace knobsim::prom_detail
