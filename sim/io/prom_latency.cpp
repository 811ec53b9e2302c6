// The latency metric per pod (prom_metrics.h, "Latency"): a classic histogram, a summary or a
// mean series, with raw cumulative counters differenced first.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/io/prom_series.h"

namespace knobsim {

double HistogramQuantile(double q, const std::vector<double>& le, std::vector<double> cumulative) {
  // promql/quantile.go bucketQuantile, for one series' buckets.
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(q)) return kNaN;
  if (q < 0) return -INFINITY;
  if (q > 1) return INFINITY;
  const size_t n = std::min(le.size(), cumulative.size());
  if (n < 2 || !std::isinf(le[n - 1]) || le[n - 1] < 0) return kNaN;
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(cumulative[i])) return kNaN;
  for (size_t i = 1; i < n; ++i) cumulative[i] = std::max(cumulative[i], cumulative[i - 1]);
  const double observations = cumulative[n - 1];
  if (!(observations > 0)) return kNaN;
  double rank = q * observations;
  const size_t b = static_cast<size_t>(
      std::lower_bound(cumulative.begin(), cumulative.begin() + static_cast<long>(n), rank) -
      cumulative.begin());
  if (b >= n - 1) return le[n - 2];
  if (b == 0 && le[0] <= 0) return le[0];
  const double start = b == 0 ? 0 : le[b - 1];
  const double end = le[b];
  double count = cumulative[b];
  if (b > 0) {
    count -= cumulative[b - 1];
    rank -= cumulative[b - 1];
  }
  if (!(count > 0)) return end;
  return start + (end - start) * (rank / count);
}

namespace prom_detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// `le` and `quantile` values are Go floats ("0.5", "1e-3", "+Inf").
bool ParseBound(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || std::isnan(v)) return false;
  *out = v;
  return true;
}

// prom_metrics.h: more than two samples, a rise, and falls at no more than kMaxResetFraction
// of the steps.
bool LooksCumulative(const std::vector<Sample>& s) {
  if (s.size() <= 2) return false;
  size_t falls = 0;
  bool rises = false;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i].v < s[i - 1].v) ++falls;
    rises = rises || s[i].v > s[i - 1].v;
  }
  return rises &&
         static_cast<double>(falls) <= kMaxResetFraction * static_cast<double>(s.size() - 1);
}

// The increase per second over each step, a fall read as a reset to 0 (rate()'s rule).
std::vector<Sample> Differenced(const std::vector<Sample>& s) {
  std::vector<Sample> out;
  for (size_t i = 1; i < s.size(); ++i) {
    const double dt = s[i].t - s[i - 1].t;
    if (!(dt > 0)) continue;
    const double increase = s[i].v >= s[i - 1].v ? s[i].v - s[i - 1].v : s[i].v;
    out.push_back({s[i].t, increase / dt});
  }
  return out;
}

// One pod's series of the latency metric, by role.
struct PodParts {
  std::map<double, std::vector<const Series*>> buckets;    // by le
  std::map<double, std::vector<const Series*>> quantiles;  // by quantile
  std::vector<const Series*> sum, count, gauge;
};

// What the notes and warnings count.
struct Tally {
  std::map<std::string, size_t> by_source;
  size_t cumulative = 0, no_pod = 0, bad_label = 0, several_quantile = 0, several_gauge = 0;
};

std::map<double, double> ByTime(const std::vector<Sample>& samples) {
  std::map<double, double> m;
  for (const Sample& s : samples) m[s.t] = s.v;
  return m;
}

double At(const std::map<double, double>& m, double t) {
  const auto it = m.find(t);
  return it == m.end() ? kNaN : it->second;
}

double Ratio(double sum, double count) {
  return std::isfinite(sum) && std::isfinite(count) && count > 0 ? sum / count : kNaN;
}

class PodReader {
 public:
  PodReader(const PodParts& parts, const MetricNames& names) : parts_(parts), names_(names) {
    const std::vector<const Series*>* counter = &parts.count;
    if (counter->empty() && !parts.buckets.empty() && std::isinf(parts.buckets.rbegin()->first))
      counter = &parts.buckets.rbegin()->second;
    cumulative_ = !counter->empty() &&
                  std::all_of(counter->begin(), counter->end(),
                              [](const Series* s) { return LooksCumulative(s->samples); });
  }
  bool cumulative() const { return cumulative_; }

  // The series summed per time, differenced first when the pod's counters are cumulative.
  std::vector<Sample> Summed(const std::vector<const Series*>& parts) {
    if (parts.empty()) return {};
    if (!cumulative_) return Combine(parts, /*sum=*/true);
    std::vector<const Series*> diffed;
    for (const Series* s : parts) {
      store_.push_back({s->labels, Differenced(s->samples)});
      diffed.push_back(&store_.back());
    }
    return Combine(diffed, /*sum=*/true);
  }

  void Histogram(PodLatency& out) {
    const double unit = names_.latency_unit_s;
    std::map<double, std::vector<double>> rows;  // time -> cumulative count per bucket
    const size_t k = parts_.buckets.size();
    size_t i = 0;
    for (const auto& [le, series] : parts_.buckets) {
      out.bucket_le.push_back(std::isinf(le) ? le : le * unit);
      for (const Sample& s : Summed(series)) {
        auto [it, fresh] = rows.try_emplace(s.t, std::vector<double>(k, kNaN));
        it->second[i] = s.v;
      }
      ++i;
    }
    const auto sum = ByTime(Summed(parts_.sum)), count = ByTime(Summed(parts_.count));
    const bool has_inf = std::isinf(out.bucket_le.back());
    for (auto& [t, row] : rows) {
      for (size_t j = 1; j < k; ++j)
        if (std::isfinite(row[j]) && std::isfinite(row[j - 1]))
          row[j] = std::max(row[j], row[j - 1]);
      double n = At(count, t);
      if (std::isnan(n) && has_inf) n = row.back();
      out.times.push_back(t);
      out.count.push_back(n);
      out.mean_s.push_back(Ratio(At(sum, t) * unit, n));
      out.p50_s.push_back(HistogramQuantile(0.5, out.bucket_le, row));
      out.p99_s.push_back(HistogramQuantile(0.99, out.bucket_le, row));
      out.buckets.push_back(row);
    }
    out.source = "histogram";
  }

  void Summary(PodLatency& out, Tally& tally) {
    const double unit = names_.latency_unit_s;
    auto quantile = [&](double q) {
      const auto it = parts_.quantiles.find(q);
      if (it == parts_.quantiles.end()) return std::map<double, double>{};
      if (it->second.size() > 1) {
        ++tally.several_quantile;
        return std::map<double, double>{};
      }
      return ByTime(it->second[0]->samples);
    };
    const auto p50 = quantile(0.5), p99 = quantile(0.99);
    const auto sum = ByTime(Summed(parts_.sum)), count = ByTime(Summed(parts_.count));
    std::map<double, bool> times;
    for (const auto* m : {&p50, &p99, &sum, &count})
      for (const auto& [t, v] : *m) times[t] = true;
    for (const auto& [t, unused] : times) {
      out.times.push_back(t);
      out.count.push_back(At(count, t));
      out.mean_s.push_back(Ratio(At(sum, t) * unit, At(count, t)));
      out.p50_s.push_back(At(p50, t) * unit);
      out.p99_s.push_back(At(p99, t) * unit);
    }
    out.source = "summary";
  }

  void Mean(PodLatency& out, Tally& tally) {
    const double unit = names_.latency_unit_s;
    if (!parts_.gauge.empty()) {
      if (parts_.gauge.size() > 1) ++tally.several_gauge;
      for (const Sample& s : parts_.gauge[0]->samples) {
        out.times.push_back(s.t);
        out.mean_s.push_back(parts_.gauge.size() > 1 ? kNaN : s.v * unit);
      }
    } else {
      const auto sum = ByTime(Summed(parts_.sum)), count = ByTime(Summed(parts_.count));
      for (const auto& [t, n] : count) {
        out.times.push_back(t);
        out.mean_s.push_back(Ratio(At(sum, t) * unit, n));
      }
      for (double t : out.times) out.count.push_back(At(count, t));
    }
    out.count.resize(out.times.size(), kNaN);
    out.p50_s.assign(out.times.size(), kNaN);
    out.p99_s.assign(out.times.size(), kNaN);
    out.source = "mean";
  }

 private:
  const PodParts& parts_;
  const MetricNames& names_;
  bool cumulative_ = false;
  std::deque<Series> store_;  // differenced copies (stable addresses)
};

std::map<PodKey, PodParts> GroupLatencySeries(const Collected& c, const MetricNames& names,
                                              Tally& tally) {
  const std::string& name = names.latency_metric;
  std::map<PodKey, PodParts> pods;
  auto each = [&](const std::string& metric, auto&& add) {
    for (const Series& s : c.Of(metric)) {
      const PodKey pod = PodOf(*s.labels, names);
      if (pod.pod.empty()) {
        ++tally.no_pod;
        continue;
      }
      add(pods[pod], s);
    }
  };
  auto bound = [&](const Series& s, const char* label, double* v) {
    const auto it = s.labels->find(label);
    if (it == s.labels->end()) return false;
    if (!ParseBound(it->second, v)) {
      ++tally.bad_label;
      return false;
    }
    return true;
  };
  each(name + "_bucket", [&](PodParts& p, const Series& s) {
    double le = 0;
    if (bound(s, "le", &le)) p.buckets[le].push_back(&s);
  });
  each(name, [&](PodParts& p, const Series& s) {
    double q = 0;
    if (s.labels->count("quantile")) {
      if (bound(s, "quantile", &q)) p.quantiles[q].push_back(&s);
    } else if (!s.labels->count("le")) {
      p.gauge.push_back(&s);
    }
  });
  each(name + "_sum", [](PodParts& p, const Series& s) { p.sum.push_back(&s); });
  each(name + "_count", [](PodParts& p, const Series& s) { p.count.push_back(&s); });
  return pods;
}

}  // namespace

void Latencies(const Collected& c, const MetricNames& names, Metrics& out) {
  const std::string& name = names.latency_metric;
  if (name.empty()) return;
  Tally tally;
  for (auto& [pod, parts] : GroupLatencySeries(c, names, tally)) {
    PodReader reader(parts, names);
    PodLatency l;
    l.pod = pod;
    if (!parts.buckets.empty()) {
      reader.Histogram(l);
    } else if (!parts.quantiles.empty()) {
      reader.Summary(l, tally);
    } else if (!parts.gauge.empty() || (!parts.sum.empty() && !parts.count.empty())) {
      reader.Mean(l, tally);
    } else {
      continue;  // a _sum or _count alone says nothing about latency
    }
    if (reader.cumulative()) ++tally.cumulative;
    ++tally.by_source[l.source];
    out.latencies.push_back(std::move(l));
  }
  if (out.latencies.empty()) {
    out.warnings.push_back(fmt::format(
        "no latency of {} (--latency-metric): no pod-labelled series of {}, {}_bucket or "
        "{}_sum with {}_count in the Prometheus files",
        name, name, name, name, name));
  } else {
    std::vector<std::string> parts;
    for (const auto& [source, n] : tally.by_source)
      parts.push_back(fmt::format("{} as {}", Plural(n, "pod", "pods"), source));
    std::string note = fmt::format("latency from {} ({} s per unit): ", name, names.latency_unit_s);
    for (size_t i = 0; i < parts.size(); ++i) note += (i > 0 ? ", " : "") + parts[i];
    if (tally.cumulative > 0)
      note += fmt::format("; {} read as raw cumulative counters and differenced",
                          Plural(tally.cumulative, "pod's series", "pods' series"));
    out.notes.push_back(note);
  }
  if (tally.no_pod > 0)
    out.warnings.push_back(fmt::format("{}: {} without a pod label not used", name,
                                       Plural(tally.no_pod, "series", "series")));
  if (tally.bad_label > 0)
    out.warnings.push_back(
        fmt::format("{}: {} whose le or quantile label is not a number, not used", name,
                    Plural(tally.bad_label, "series", "series")));
  if (tally.several_quantile > 0)
    out.warnings.push_back(fmt::format(
        "{}: {} with several series of one quantile: quantiles do not add, so that quantile is "
        "unknown (give one series per pod, or a histogram)",
        name, Plural(tally.several_quantile, "pod", "pods")));
  if (tally.several_gauge > 0)
    out.warnings.push_back(fmt::format(
        "{}: {} with several mean-latency series: means cannot be combined without their "
        "request counts, so the mean is unknown (give one series per pod, e.g. "
        "sum(rate(NAME_sum[w])) by (pod) / sum(rate(NAME_count[w])) by (pod))",
        name, Plural(tally.several_gauge, "pod", "pods")));
}

}  // namespace prom_detail
}  // namespace knobsim
