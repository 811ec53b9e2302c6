// The Prometheus series (MetricNames, WritePromJson in export_generator.h): each metric as one
// query_range response, the DCGM card series with dcgm-exporter's pod mapping and the request
// rates of the running pods (tools/gen-export/README.md, "Metrics").
//
// Contract: every sample is the truth's curve at that instant plus noise that depends only on
// (seed, series, instant), so a series sampled at a coarser step holds the same values as a fine
// one where they meet. Labels are sorted, timestamps whole seconds, values strings. The series
// are streamed one at a time, so a large export needs no document in memory.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <utility>

#include <nlohmann/json.hpp>

#include "tools/gen-export/export_generator.h"
#include "tools/gen-export/random.h"
#include "tools/gen-export/request_truth.h"
#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {
namespace {

using json = nlohmann::json;

struct Series {
  std::map<std::string, std::string> labels;
  int card = -1;  // truth indices; -1 where not applicable
  int pod = -1;
  int bucket = -1;  // the latency histogram's bucket (index into kLatencyBuckets, last +Inf)
};

// Fixed decimals without trailing zeros, as Prometheus writes them (no exponent).
std::string FormatDecimals(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string FormatRate(double v) {
  return FormatDecimals(v, 4);
}

// Values made from request counts: nine decimals, so count = value × step comes back whole.
std::string FormatCounted(double v) {
  return FormatDecimals(v, 9);
}

// `le` as client_golang writes it: the shortest form ("0.005", "1", "2.5"), then "+Inf".
std::string BucketLabel(int bucket) {
  if (bucket + 1 >= kLatencyBucketCount) return "+Inf";
  return fmt::format("{}", kLatencyBuckets[bucket]);
}

bool IsLatencyMetric(std::string_view metric) {
  return metric == kLatencyBucketMetric || metric == kLatencySumMetric ||
         metric == kLatencyCountMetric;
}

// The index of a profiling counter in kProfileMetrics; -1 for another metric.
int ProfileCounterOf(std::string_view metric) {
  for (int k = 0; k < static_cast<int>(std::size(kProfileMetrics)); ++k)
    if (metric == kProfileMetrics[k]) return k;
  return -1;
}

const GpuNames& NamesOf(const std::string& gpu_type) {
  for (const GpuNames& n : kGpuNames) {
    if (n.catalog == gpu_type) return n;
  }
  return kGpuNames[0];
}

std::map<std::string, std::string> CardLabels(std::string_view metric, const TruthCard& card,
                                              const std::string& node_ip) {
  return {{"__name__", std::string(metric)},
          {"DCGM_FI_DRIVER_VERSION", std::string(kDriverVersion)},
          {"Hostname", card.node},
          {"UUID", card.uuid},
          {"device", fmt::format("nvidia{}", card.index)},
          {"gpu", std::to_string(card.index)},
          {"instance", node_ip + ":9400"},
          {"job", "ack-prometheus-gpu-exporter"},
          {"modelName", std::string(NamesOf(card.gpu_type).model_name)}};
}

// The series of one metric, in the file's order: one per running pod with traffic for the
// request rate; for the DCGM metrics one per pod on each card (dcgm-exporter's pod mapping), or
// one without pod labels on an empty card.
std::vector<Series> SeriesOf(const GeneratedCluster& cluster, std::string_view metric) {
  const GroundTruth& t = cluster.truth;
  std::map<std::string, std::string> node_ip;
  for (const json& node : cluster.nodes) {
    node_ip[node["metadata"]["name"].get<std::string>()] =
        node["status"]["addresses"][0]["address"].get<std::string>();
  }
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> pod_info;
  for (const json& obj : cluster.objects) {
    if (obj["kind"] != "Pod") continue;
    const json& m = obj["metadata"];
    const json& status = obj["status"];
    pod_info[{m["namespace"].get<std::string>(), m["name"].get<std::string>()}] = {
        obj["spec"]["containers"][0]["name"].get<std::string>(), status.value("podIP", "")};
  }

  std::vector<Series> series;
  if (IsLatencyMetric(metric)) {
    for (size_t p = 0; p < t.pods.size(); ++p) {
      const TruthPod& pod = t.pods[p];
      if (!pod.requests) continue;
      const auto& [container, ip] = pod_info[{pod.namespace_, pod.name}];
      Series s{{{"__name__", std::string(metric)},
                {"namespace", pod.namespace_},
                {"pod", pod.name},
                {"container", container},
                {"instance", ip + ":8080"},
                {"job", "kubernetes-pods"}},
               -1,
               static_cast<int>(p)};
      if (metric != kLatencyBucketMetric) {
        series.push_back(std::move(s));
        continue;
      }
      for (int b = 0; b < kLatencyBucketCount; ++b) {
        s.bucket = b;
        s.labels["le"] = BucketLabel(b);
        series.push_back(s);
      }
    }
  } else if (metric == kRequestRateMetric) {
    for (size_t p = 0; p < t.pods.size(); ++p) {
      const TruthPod& pod = t.pods[p];
      if (pod.node.empty() || !t.workloads[pod.workload].has_traffic) continue;
      const auto& [container, ip] = pod_info[{pod.namespace_, pod.name}];
      series.push_back({{{"__name__", std::string(metric)},
                         {"namespace", pod.namespace_},
                         {"pod", pod.name},
                         {"container", container},
                         {"instance", ip + ":8080"},
                         {"job", "kubernetes-pods"}},
                        -1,
                        static_cast<int>(p)});
    }
  } else {
    for (size_t c = 0; c < t.cards.size(); ++c) {
      const TruthCard& card = t.cards[c];
      const bool process = metric == kProcessMemMetric;
      if (process && !card.process_metric) continue;
      if (card.pods.empty()) {
        if (!process)
          series.push_back({CardLabels(metric, card, node_ip[card.node]), static_cast<int>(c), -1});
        continue;
      }
      for (int p : card.pods) {
        const TruthPod& pod = t.pods[p];
        Series s{CardLabels(metric, card, node_ip[card.node]), static_cast<int>(c), p};
        s.labels["namespace"] = pod.namespace_;
        s.labels["pod"] = pod.name;
        s.labels["container"] = pod_info[{pod.namespace_, pod.name}].first;
        if (process) s.labels["pid"] = std::to_string(1000 + 97 * p % 30000);
        series.push_back(std::move(s));
      }
    }
  }
  return series;
}

// A request-truth sample: the steps of [ts − step, ts) of the pod's series, per second; what
// query_range of rate(x[step]) gives for a counter that grew by those counts.
std::string CountedValue(std::string_view metric, const Series& s, const RequestSeries& r,
                         int64_t ts, int step) {
  const auto [first, last] = StepRange(r, ts, step);
  double sum = 0;
  for (int64_t i = first; i < last; ++i) {
    const auto k = static_cast<size_t>(i);
    if (metric == kRequestRateMetric) {
      sum += r.arrivals[k];
    } else if (metric == kLatencySumMetric) {
      sum += r.latency_sum_s[k];
    } else if (metric == kLatencyCountMetric) {
      sum += r.completions[k];
    } else {  // a bucket: cumulative, le counts every faster request
      for (int b = 0; b <= s.bucket; ++b) sum += r.bucket_counts[k * kLatencyBucketCount + b];
    }
  }
  return FormatCounted(sum / step);
}

// The card's busy fraction behind a utilization sample: the fluid curve at ts, or the
// request-truth busy time over [ts − step, ts).
double SampledBusy(const GroundTruth& t, int card, int64_t ts, int step) {
  const TruthCard& c = t.cards[card];
  if (!c.request_truth) return CardBusy(t, card, ts);
  const RequestSeries& r = *t.pods[c.pods.front()].requests;
  const auto [first, last] = StepRange(r, ts, step);
  double busy = 0;
  for (int64_t i = first; i < last; ++i) busy += r.busy_s[static_cast<size_t>(i)];
  return std::min(1.0, busy / step);
}

// The sample of series s at ts (the series' step `step`), as the string Prometheus writes.
std::string SampleValue(const GeneratedCluster& cluster, std::string_view metric, const Series& s,
                        int64_t ts, int step) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  if (metric == kGpuUtilMetric) {
    const double noise = (2 * HashUnit(o.seed, 0x100000000ull + s.card, ts) - 1) * o.busy_noise;
    double busy = SampledBusy(t, s.card, ts, step);
    // The idle floor adds to the busy fraction (a loaded model's background kernels).
    if (t.cards[s.card].idle_floor > 0) busy = std::min(1.0, t.cards[s.card].idle_floor + busy);
    return std::to_string(std::lround(100 * std::clamp(busy + noise, 0.0, 1.0)));
  }
  if (s.pod >= 0 && t.pods[s.pod].requests &&
      (metric == kRequestRateMetric || IsLatencyMetric(metric)))
    return CountedValue(metric, s, *t.pods[s.pod].requests, ts, step);
  if (metric == kRequestRateMetric) {
    // A 1-minute rate() of Poisson counts: sd sqrt(rate / 60) (Box-Muller on hashed bits).
    const double rate = PodRate(t, s.pod, ts);
    const double u1 = std::max(HashUnit(o.seed, 0x200000000ull + s.pod, ts), 1e-12);
    const double u2 = HashUnit(o.seed, 0x300000000ull + s.pod, ts);
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    return FormatRate(std::max(0.0, rate + z * std::sqrt(rate / 60)));
  }
  if (const int k = ProfileCounterOf(metric); k >= 0) {
    // Profiling ratios: the card's busy (no idle floor: DCGM's profiling counters see kernels,
    // not a loaded model) times its pods' profiles, plus the utilization noise.
    const double noise =
        (2 * HashUnit(o.seed, 0x700000000ull + 8 * s.card + k, ts) - 1) * o.busy_noise;
    const double busy = SampledBusy(t, s.card, ts, step);
    const double v = CardProfileCounter(t, s.card, k, busy, ts);
    return FormatDecimals(v > 0 ? std::clamp(v + noise, 0.0, 1.0) : 0.0, 6);
  }
  if (s.pod < 0) return "0";
  const TruthCard& card = t.cards[s.card];
  if (metric == kFbUsedMetric && card.fb_used == "card_total") {
    int64_t total = 0;
    for (int p : card.pods) total += PodCardMemoryMib(t, p, ts);
    return std::to_string(total);
  }
  return std::to_string(PodCardMemoryMib(t, s.pod, ts));
}

}  // namespace

std::vector<std::string> MetricNames(const GeneratedCluster& cluster) {
  std::vector<std::string> names = {std::string(kGpuUtilMetric), std::string(kFbUsedMetric)};
  bool process = false;
  for (const TruthCard& c : cluster.truth.cards)
    process = process || (c.process_metric && !c.pods.empty());
  if (process) names.emplace_back(kProcessMemMetric);
  if (cluster.options.gpu_profiles)
    for (std::string_view m : kProfileMetrics) names.emplace_back(m);
  names.emplace_back(kRequestRateMetric);
  bool requests = false;
  for (const TruthPod& p : cluster.truth.pods) requests = requests || p.requests.has_value();
  if (requests) {
    for (std::string_view m : {kLatencyBucketMetric, kLatencySumMetric, kLatencyCountMetric})
      names.emplace_back(m);
  }
  return names;
}

void WritePromJson(const GeneratedCluster& cluster, std::string_view metric, std::ostream& out) {
  const GeneratorOptions& o = cluster.options;
  const GroundTruth& t = cluster.truth;
  const int metrics_step = o.metrics_step_s == 0 ? o.step_s : o.metrics_step_s;
  // The application's series (request rate, latency) at the rate step, DCGM's at its own.
  const bool app = metric == kRequestRateMetric || IsLatencyMetric(metric);
  const int step = app && o.rate_step_s != 0 ? o.rate_step_s : metrics_step;
  const int days = o.metrics_days == 0 ? o.days : o.metrics_days;
  const int64_t start = t.end_unix - days * kDay;
  const int64_t samples = days * kDay / step;
  const std::vector<Series> series = SeriesOf(cluster, metric);

  out << R"({"status":"success","data":{"resultType":"matrix","result":[)";
  std::string buffer;
  std::vector<std::string> card_values;  // one card's util strings, shared by its pod series
  int cached_card = -1;
  for (size_t si = 0; si < series.size(); ++si) {
    const Series& s = series[si];
    buffer.clear();
    if (si > 0) buffer += ',';
    buffer += R"({"metric":)";
    buffer += json(s.labels).dump();
    buffer += R"(,"values":[)";
    const bool reuse = metric == kGpuUtilMetric && s.card == cached_card;
    if (metric == kGpuUtilMetric && !reuse) card_values.clear();
    for (int64_t i = 0; i < samples; ++i) {
      const int64_t ts = start + i * step;
      if (i > 0) buffer += ',';
      buffer += '[';
      buffer += std::to_string(ts);
      buffer += ",\"";
      if (metric == kGpuUtilMetric) {
        if (!reuse) card_values.push_back(SampleValue(cluster, metric, s, ts, step));
        buffer += card_values[static_cast<size_t>(i)];
      } else {
        buffer += SampleValue(cluster, metric, s, ts, step);
      }
      buffer += "\"]";
    }
    if (metric == kGpuUtilMetric) cached_card = s.card;
    buffer += "]}";
    out << buffer;
  }
  out << "]}}\n";
}

}  // namespace knobsim::gen_export
