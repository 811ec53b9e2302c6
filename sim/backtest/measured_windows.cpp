#include "sim/backtest/measured_windows.h"

#include <cmath>
#include <limits>

#include "sim/import/import_steps.h"

namespace knobsim::backtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The window of a sample at `t` of a series sampled every `step`; -1 outside the grid.
int WindowOf(double t, double step, const WindowGrid& grid) {
  const double k = std::floor((t - step - grid.from) / grid.window_s);
  return k >= 0 && k < grid.windows ? static_cast<int>(k) : -1;
}

}  // namespace

std::vector<double> CommonBuckets(const std::vector<const PodLatency*>& pods) {
  for (const PodLatency* p : pods)
    if (p->bucket_le.empty() || p->bucket_le != pods.front()->bucket_le) return {};
  return pods.empty() ? std::vector<double>{} : pods.front()->bucket_le;
}

std::vector<double> WindowMeans(const std::vector<double>& times, const std::vector<double>& values,
                                const WindowGrid& grid) {
  std::vector<double> covers_from = times;
  const double step = import_text::MedianStep(times);
  for (double& t : covers_from) t -= step;
  return import_text::Bin(covers_from, values, grid.from, grid.window_s, grid.windows);
}

WindowLatency LatencyWindows(const std::vector<const PodLatency*>& pods, const WindowGrid& grid) {
  const auto n = static_cast<size_t>(grid.windows);
  WindowLatency out;
  out.mean_ms.assign(n, kNaN);
  out.p99_ms.assign(n, kNaN);
  out.requests.assign(n, kNaN);
  std::vector<double> weight(n, 0), mean_sum(n, 0), p99_weight(n, 0), p99_sum(n, 0);
  const bool histograms = !CommonBuckets(pods).empty();
  out.p99_exact = histograms;
  std::vector<std::vector<double>> cumulative(
      n, std::vector<double>(histograms ? pods.front()->bucket_le.size() : 0, 0.0));
  for (const PodLatency* p : pods) {
    out.source = out.source.empty() || out.source == p->source ? p->source : "mixed";
    const double step = import_text::MedianStep(p->times);
    for (size_t i = 0; i < p->times.size(); ++i) {
      const int k = WindowOf(p->times[i], step, grid);
      if (k < 0) continue;
      const double count = i < p->count.size() ? p->count[i] : kNaN;
      const double requests = std::isfinite(count) ? count * std::max(step, 1.0) : kNaN;
      if (std::isfinite(requests))
        out.requests[k] = (std::isfinite(out.requests[k]) ? out.requests[k] : 0) + requests;
      const double w = std::isfinite(requests) ? requests : 1.0;
      if (std::isfinite(p->mean_s[i]) && w > 0) {
        weight[k] += w;
        mean_sum[k] += w * p->mean_s[i];
      }
      if (histograms && i < p->buckets.size()) {
        for (size_t b = 0; b < p->buckets[i].size(); ++b)
          if (std::isfinite(p->buckets[i][b])) cumulative[k][b] += p->buckets[i][b] * step;
      } else if (i < p->p99_s.size() && std::isfinite(p->p99_s[i]) && w > 0) {
        p99_weight[k] += w;
        p99_sum[k] += w * p->p99_s[i];
      }
    }
  }
  for (size_t k = 0; k < n; ++k) {
    if (weight[k] > 0) out.mean_ms[k] = mean_sum[k] / weight[k] * 1e3;
    if (histograms) {
      if (!cumulative[k].empty() && cumulative[k].back() > 0)
        out.p99_ms[k] = HistogramQuantile(0.99, pods.front()->bucket_le, cumulative[k]) * 1e3;
    } else if (p99_weight[k] > 0) {
      out.p99_ms[k] = p99_sum[k] / p99_weight[k] * 1e3;
    }
  }
  return out;
}

}  // namespace knobsim::backtest
