#include "sim/io/prom_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "sim/io/prom_series.h"
#include "sim/text.h"

namespace knobsim {
namespace prom_detail {

// A ratio metric may overshoot 1 by sampling noise; a percentage that never exceeds this is
// caught by the whole-number rule instead (prom_metrics.h).
constexpr double kRatioTolerance = kUtilRatioTolerance;

struct DerefLess {
  bool operator()(const Labels* a, const Labels* b) const { return *a < *b; }
};

// Only the metrics in `wanted` are kept: the rest of a big export is not copied.
Collected Collect(std::span<const PromResult> results, const std::set<std::string>& wanted,
                  double start, double end) {
  Collected c;
  std::map<const Labels*, std::pair<std::string, size_t>, DerefLess> index;
  for (const PromResult& result : results) {
    for (const PromSeries& s : result.series) {
      auto name_it = s.labels.find("__name__");
      if (name_it == s.labels.end() || name_it->second.empty()) {
        ++c.unnamed;
        continue;
      }
      const std::string& name = name_it->second;
      if (!wanted.count(name)) continue;
      std::vector<Sample> samples;
      samples.reserve(s.times.size());
      for (size_t i = 0; i < s.times.size() && i < s.values.size(); ++i) {
        if (!(s.times[i] >= start && s.times[i] <= end)) continue;
        if (!std::isfinite(s.values[i])) {
          ++c.non_finite[name];
          continue;
        }
        if (std::abs(s.values[i]) > kLargestMetricValue) {
          ++c.too_large[name];
          continue;
        }
        samples.push_back({s.times[i], s.values[i]});
      }
      std::vector<Series>& list = c.by_name[name];
      auto [it, inserted] = index.try_emplace(&s.labels, name, list.size());
      if (inserted) {
        list.push_back({&s.labels, std::move(samples)});
      } else {
        Series& merged = list[it->second.second];
        merged.samples.insert(merged.samples.end(), samples.begin(), samples.end());
        merged.needs_merge = true;
      }
    }
  }
  for (auto& [name, list] : c.by_name) {
    for (Series& s : list) {
      if (!s.needs_merge) continue;
      std::stable_sort(s.samples.begin(), s.samples.end(),
                       [](const Sample& a, const Sample& b) { return a.t < b.t; });
      std::vector<Sample> unique;
      unique.reserve(s.samples.size());
      for (const Sample& x : s.samples) {
        if (!unique.empty() && unique.back().t == x.t) {
          if (unique.back().v != x.v) ++c.conflicts[name];
          continue;
        }
        unique.push_back(x);
      }
      s.samples = std::move(unique);
    }
  }
  return c;
}

// ---- Labels ----------------------------------------------------------------------------------

namespace {
std::string FirstLabel(const Labels& labels, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    auto it = labels.find(n);
    if (it != labels.end() && !it->second.empty()) return it->second;
  }
  return {};
}

}  // namespace

PodKey PodOf(const Labels& labels, const MetricNames& names) {
  PodKey key;
  key.pod = FirstLabel(labels, names.pod_labels);
  if (!key.pod.empty()) key.ns = FirstLabel(labels, names.namespace_labels);
  return key;
}

CardKey CardOf(const Labels& labels, const MetricNames& names) {
  return {FirstLabel(labels, names.node_labels), FirstLabel(labels, {names.gpu_label}),
          FirstLabel(labels, {names.uuid_label})};
}

std::string CardId(const CardKey& card) {
  if (!card.uuid.empty()) return "uuid\x1F" + card.uuid;
  if (!card.node.empty() && !card.gpu.empty()) return card.node + "\x1F" + card.gpu;
  return {};
}

namespace {

// A card seen on several series: node and index filled in from whichever series has them.
void FillCard(CardKey& into, const CardKey& from) {
  if (into.node.empty()) into.node = from.node;
  if (into.gpu.empty()) into.gpu = from.gpu;
  if (into.uuid.empty()) into.uuid = from.uuid;
}

}  // namespace

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// ---- Combining series ------------------------------------------------------------------------

// Samples of several series as one, per timestamp the sum or the largest of those present.
std::vector<Sample> Combine(const std::vector<const Series*>& parts, bool sum) {
  if (parts.size() == 1) return parts[0]->samples;
  std::vector<Sample> all;
  for (const Series* s : parts) all.insert(all.end(), s->samples.begin(), s->samples.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const Sample& a, const Sample& b) { return a.t < b.t; });
  std::vector<Sample> out;
  for (const Sample& x : all) {
    if (!out.empty() && out.back().t == x.t) {
      out.back().v = sum ? out.back().v + x.v : std::max(out.back().v, x.v);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace prom_detail

namespace {
using namespace prom_detail;

void PeakAndMean(const std::vector<Sample>& samples, double scale, PodMemoryPeak& out) {
  double peak = 0, total = 0;
  for (const Sample& s : samples) {
    peak = std::max(peak, s.v * scale);
    total += s.v * scale;
  }
  out.peak_mib = peak;
  out.mean_mib = samples.empty() ? 0 : total / static_cast<double>(samples.size());
}

bool Differ(double a, double b) {
  return std::fabs(a - b) > 1e-9 * std::max(1.0, std::fabs(a));
}

// ---- Pod memory ------------------------------------------------------------------------------

struct PodCard {
  PodKey pod;
  CardKey card;
  std::vector<const Series*> parts;
};

// Series grouped per pod and card. Series without a pod label are counted in `no_pod`.
std::map<std::pair<PodKey, std::string>, PodCard> GroupByPodAndCard(
    const std::vector<Series>& series, const MetricNames& names, size_t& no_pod) {
  std::map<std::pair<PodKey, std::string>, PodCard> groups;
  for (const Series& s : series) {
    const PodKey pod = PodOf(*s.labels, names);
    if (pod.pod.empty()) {
      ++no_pod;
      continue;
    }
    const CardKey card = CardOf(*s.labels, names);
    PodCard& g = groups[{pod, CardId(card)}];
    if (g.parts.empty()) g.pod = pod;
    FillCard(g.card, card);
    g.parts.push_back(&s);
  }
  return groups;
}

// Rules 1 and 2 (prom_metrics.h): the metric per pod and card, summed at each time.
void SummedPerPod(const std::vector<Series>& series, const MetricNames& names,
                  const std::string& metric, double mib_per_unit, const std::string& source,
                  Metrics& out) {
  size_t no_pod = 0;
  const auto groups = GroupByPodAndCard(series, names, no_pod);
  for (const auto& [key, g] : groups) {
    PodMemoryPeak peak;
    peak.pod = g.pod;
    peak.card = g.card;
    peak.source = source;
    PeakAndMean(Combine(g.parts, /*sum=*/true), mib_per_unit, peak);
    out.pod_memory.push_back(std::move(peak));
  }
  if (no_pod > 0) {
    out.warnings.push_back(fmt::format("{}: {} without a pod label ({}) not used", metric,
                                       Plural(no_pod, "series", "series"), Join(names.pod_labels)));
  }
}

// Rule 3: DCGM's FB_USED, told apart per card into per-pod values and repeated card totals.
void FbUsedPerCard(const std::vector<Series>& series, const MetricNames& names, Metrics& out) {
  size_t no_pod = 0;
  const auto groups = GroupByPodAndCard(series, names, no_pod);
  // Card id -> its pods' series (a pod's several series counting once, by their largest).
  struct Card {
    CardKey key;
    std::vector<std::pair<PodKey, std::vector<Sample>>> pods;  // by pod
  };
  std::map<std::string, Card> cards;
  size_t no_card = 0;
  for (const auto& [key, g] : groups) {
    if (key.second.empty()) {
      ++no_card;
      continue;
    }
    Card& card = cards[key.second];
    FillCard(card.key, g.card);
    card.pods.emplace_back(g.pod, Combine(g.parts, /*sum=*/false));
  }
  std::vector<std::pair<CardKey, Card*>> ordered;
  for (auto& [id, card] : cards) ordered.emplace_back(card.key, &card);
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  size_t single = 0, per_pod = 0, totals = 0, apart = 0;
  const std::string& metric = names.fb_used;
  for (const auto& [key, card] : ordered) {
    // `card` by an init-capture: clang 14 (the fuzz preset's) cannot capture a structured binding.
    auto emit = [&, card = card](const std::string& source) {
      for (const auto& [pod, samples] : card->pods) {
        PodMemoryPeak peak;
        peak.pod = pod;
        peak.card = card->key;
        peak.source = source;
        PeakAndMean(samples, 1.0, peak);
        out.pod_memory.push_back(std::move(peak));
      }
    };
    if (card->pods.size() == 1) {
      ++single;
      emit(fmt::format("{} of a card holding only this pod", metric));
      continue;
    }
    // Every pod's value at each time, to see whether the pods sharing a time agree.
    std::vector<Sample> all;
    for (const auto& [pod, samples] : card->pods) {
      all.insert(all.end(), samples.begin(), samples.end());
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const Sample& a, const Sample& b) { return a.t < b.t; });
    bool shared = false, differ = false;
    for (size_t i = 1; i < all.size() && !differ; ++i) {
      if (all[i].t != all[i - 1].t) continue;
      shared = true;
      differ = Differ(all[i].v, all[i - 1].v);
    }
    if (differ) {
      ++per_pod;
      emit(fmt::format("{} per pod", metric));
    } else if (!shared) {
      ++apart;
      emit(fmt::format("{} of a card holding only this pod at each time", metric));
    } else {
      ++totals;
      CardTotalMemory total;
      total.card = card->key;
      for (const Sample& s : all) total.peak_mib = std::max(total.peak_mib, s.v);
      for (const auto& [pod, samples] : card->pods) total.pods.push_back(pod);
      out.card_totals.push_back(std::move(total));
    }
  }

  std::vector<std::string> parts;
  if (single > 0) {
    parts.push_back(fmt::format("{} with one pod (the card's total is the pod's)",
                                Plural(single, "card", "cards")));
  }
  if (per_pod > 0) {
    parts.push_back(fmt::format("{} whose pods report different values (per-pod values)",
                                Plural(per_pod, "card", "cards")));
  }
  if (apart > 0) {
    parts.push_back(fmt::format("{} whose pods were never there at the same time",
                                Plural(apart, "card", "cards")));
  }
  if (totals > 0) {
    parts.push_back(fmt::format(
        "{} whose pods all report the same value: the card's total, not any pod's usage (pods "
        "that really use the same amount look alike: --mem-metric overrides)",
        Plural(totals, "card", "cards")));
  }
  if (!parts.empty()) {
    out.notes.push_back(fmt::format("pod GPU memory from {} (MiB): {}", metric, Join(parts, "; ")));
  }
  if (no_card > 0) {
    out.warnings.push_back(fmt::format(
        "{}: {} without card labels ({}, or {} and {}) not used: a pod's usage cannot be told "
        "from the card's total",
        metric, Plural(no_card, "pod's series", "pods' series"), names.uuid_label,
        names.node_labels.empty() ? std::string("node") : names.node_labels[0], names.gpu_label));
  }
}

bool HasPodSeries(const std::vector<Series>& series, const MetricNames& names) {
  return std::any_of(series.begin(), series.end(),
                     [&](const Series& s) { return !PodOf(*s.labels, names).pod.empty(); });
}

void PodMemory(const Collected& c, const MetricNames& names, Metrics& out) {
  if (!names.mem_metric_override.empty()) {
    const std::vector<Series>& series = c.Of(names.mem_metric_override);
    if (series.empty()) {
      out.warnings.push_back(
          fmt::format("no series of {} (--mem-metric) in the Prometheus files: no pod GPU memory",
                      names.mem_metric_override));
      return;
    }
    SummedPerPod(series, names, names.mem_metric_override, names.mem_metric_mib_per_unit,
                 fmt::format("{} per pod (--mem-metric)", names.mem_metric_override), out);
    out.notes.push_back(fmt::format(
        "pod GPU memory from {} as given by --mem-metric, summed per pod and card, {} MiB per "
        "unit",
        names.mem_metric_override, names.mem_metric_mib_per_unit));
    return;
  }
  const std::vector<Series>& process = c.Of(names.process_mem);
  if (HasPodSeries(process, names)) {
    SummedPerPod(process, names, names.process_mem, names.process_mem_mib_per_unit,
                 fmt::format("{} summed over the pod's processes", names.process_mem), out);
    out.notes.push_back(fmt::format(
        "pod GPU memory from {} summed over each pod's processes, read as {} MiB per unit (the "
        "metric's unit is unconfirmed, docs/semantics.md §1.9)",
        names.process_mem, names.process_mem_mib_per_unit));
    return;
  }
  const std::vector<Series>& fb = c.Of(names.fb_used);
  if (HasPodSeries(fb, names)) {
    FbUsedPerCard(fb, names, out);
    return;
  }
  out.warnings.push_back(
      fmt::format("no pod GPU memory: no series of {} or {} carries a pod label ({})",
                  names.process_mem, names.fb_used, Join(names.pod_labels)));
}

// ---- Card utilization ------------------------------------------------------------------------

struct Scale {
  double factor = 1;
  std::string why;
};

Scale DetectScale(const std::string& metric, const std::vector<Series>& series, double forced) {
  if (forced > 0) {
    return {forced, fmt::format("{} scaled by {} as configured", metric, forced)};
  }
  double max = -INFINITY;
  bool whole = true;
  size_t n = 0;
  for (const Series& s : series) {
    for (const Sample& x : s.samples) {
      max = std::max(max, x.v);
      whole = whole && x.v == std::nearbyint(x.v);
      ++n;
    }
  }
  if (n == 0) return {1, fmt::format("{} has no samples in the window", metric)};
  if (max > 1 + kRatioTolerance) {
    return {0.01, fmt::format("{} read as a percentage (largest sample {} > {})", metric, max,
                              1 + kRatioTolerance)};
  }
  if (whole) {
    return {0.01, fmt::format("{} read as a percentage: whole numbers only (largest {}), as an "
                              "idle card's percentage reads and a ratio never does",
                              metric, max)};
  }
  return {1, fmt::format("{} read as a ratio (largest sample {} <= {})", metric, max,
                         1 + kRatioTolerance)};
}

void CardUtil(const Collected& c, const MetricNames& names, Metrics& out) {
  struct PerCard {
    CardKey key;
    std::vector<const Series*> parts;
    std::set<PodKey> pods;
  };
  struct PerMetric {
    std::string name;
    Scale scale;
    std::map<std::string, PerCard> cards;  // by card id
  };
  std::vector<PerMetric> metrics;
  std::set<std::string> listed;
  for (const std::string& name : names.card_util) {
    if (!listed.insert(name).second) continue;
    const std::vector<Series>& series = c.Of(name);
    if (series.empty()) continue;
    PerMetric m;
    m.name = name;
    m.scale = DetectScale(name, series, names.util_scale);
    size_t no_card = 0;
    for (const Series& s : series) {
      const CardKey card = CardOf(*s.labels, names);
      const std::string id = CardId(card);
      if (id.empty()) {
        ++no_card;
        continue;
      }
      PerCard& pc = m.cards[id];
      FillCard(pc.key, card);
      pc.parts.push_back(&s);
      const PodKey pod = PodOf(*s.labels, names);
      if (!pod.pod.empty()) pc.pods.insert(pod);
    }
    if (no_card > 0) {
      out.warnings.push_back(fmt::format(
          "{}: {} without card labels ({}, or {} and {}) not used", name,
          Plural(no_card, "series", "series"), names.uuid_label,
          names.node_labels.empty() ? std::string("node") : names.node_labels[0], names.gpu_label));
    }
    out.notes.push_back(m.scale.why);
    metrics.push_back(std::move(m));
  }
  if (metrics.empty()) {
    out.warnings.push_back(fmt::format("no card utilization: none of {} in the Prometheus files",
                                       Join(names.card_util)));
    return;
  }

  // Each card from the first metric that has it.
  std::map<std::string, size_t> chosen;  // card id -> index in metrics
  for (size_t i = 0; i < metrics.size(); ++i) {
    for (const auto& [id, pc] : metrics[i].cards) chosen.try_emplace(id, i);
  }
  std::vector<size_t> used(metrics.size(), 0), unused(metrics.size(), 0);
  for (const auto& [id, i] : chosen) {
    const PerMetric& m = metrics[i];
    const PerCard& pc = m.cards.at(id);
    CardUtilization u;
    u.card = pc.key;
    u.metric = m.name;
    u.scale = m.scale.factor;
    u.pods.assign(pc.pods.begin(), pc.pods.end());
    bool first = true;
    for (const Sample& s : Combine(pc.parts, /*sum=*/false)) {
      const double busy = s.v * m.scale.factor;
      u.largest = first ? busy : std::max(u.largest, busy);
      u.smallest = first ? busy : std::min(u.smallest, busy);
      first = false;
      // Impossible readings (prom_metrics.h): noise at full load clamped, the rest dropped.
      if (busy < 0) {
        ++u.dropped_negative;
        continue;
      }
      if (busy > 1 + kRatioTolerance) {
        ++u.dropped_high;
        continue;
      }
      if (busy > 1) ++u.clamped;
      u.times.push_back(s.t);
      u.busy.push_back(std::min(busy, 1.0));
    }
    ++used[i];
    out.cards.push_back(std::move(u));
  }
  for (size_t i = 0; i < metrics.size(); ++i) {
    unused[i] = metrics[i].cards.size() - used[i];
  }
  std::sort(out.cards.begin(), out.cards.end(),
            [](const CardUtilization& a, const CardUtilization& b) { return a.card < b.card; });

  for (size_t i = 0; i < metrics.size(); ++i) {
    const PerMetric& m = metrics[i];
    if (used[i] > 0) {
      out.notes.push_back(fmt::format("card utilization from {} on {}{}", m.name,
                                      Plural(used[i], "card", "cards"),
                                      i > 0 ? " that lack the metrics listed before it" : ""));
    }
    if (unused[i] > 0) {
      out.notes.push_back(
          fmt::format("{} also present on {} not used: the list prefers the metric before it ({})",
                      m.name, Plural(unused[i], "card", "cards"), Join(names.card_util)));
    }
  }
}

// ---- Request rates ---------------------------------------------------------------------------

void Rates(const Collected& c, const MetricNames& names, Metrics& out) {
  if (names.rate_metric.empty()) return;
  const std::vector<Series>& series = c.Of(names.rate_metric);
  if (series.empty()) {
    out.warnings.push_back(
        fmt::format("no series of {} (--rate-metric) in the Prometheus files", names.rate_metric));
    return;
  }
  // Per pod and node label; a series with negative samples is copied without them.
  std::map<std::pair<PodKey, std::string>, std::vector<const Series*>> pods;
  std::map<std::pair<PodKey, std::string>, std::pair<size_t, double>> negative;
  std::vector<Series> kept;
  kept.reserve(series.size());  // no reallocation: `pods` points into it
  std::set<PodKey> distinct;
  size_t no_pod = 0;
  for (const Series& s : series) {
    const PodKey pod = PodOf(*s.labels, names);
    if (pod.pod.empty()) {
      ++no_pod;
      continue;
    }
    const std::pair<PodKey, std::string> key{pod, FirstLabel(*s.labels, names.node_labels)};
    distinct.insert(pod);
    const bool any_negative =
        std::any_of(s.samples.begin(), s.samples.end(), [](const Sample& x) { return x.v < 0; });
    if (!any_negative) {
      pods[key].push_back(&s);
      continue;
    }
    Series& copy = kept.emplace_back(Series{s.labels, {}});
    auto& [count, lowest] = negative[key];
    for (const Sample& x : s.samples) {
      if (x.v >= 0) {
        copy.samples.push_back(x);
      } else {
        lowest = count++ == 0 ? x.v : std::min(lowest, x.v);
      }
    }
    pods[key].push_back(&copy);
  }
  for (const auto& [key, parts] : pods) {
    PodRate r;
    r.pod = key.first;
    r.node = key.second;
    if (auto n = negative.find(key); n != negative.end())
      std::tie(r.negative, r.lowest) = n->second;
    for (const Sample& s : Combine(parts, /*sum=*/true)) {
      r.times.push_back(s.t);
      r.rate.push_back(s.v);
    }
    out.rates.push_back(std::move(r));
  }
  out.notes.push_back(fmt::format("request rates from {}, summed per pod ({})", names.rate_metric,
                                  Plural(distinct.size(), "pod", "pods")));
  if (no_pod > 0) {
    out.warnings.push_back(fmt::format("{}: {} without a pod label ({}) not used",
                                       names.rate_metric, Plural(no_pod, "series", "series"),
                                       Join(names.pod_labels)));
  }
}

bool IsNumber(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool CardKey::operator<(const CardKey& other) const {
  // Card indices as numbers ("2" before "10"), numbers before any other text.
  auto gpu_order = [](const std::string& g) {
    return IsNumber(g) ? std::make_tuple(0, g.size(), std::string_view(g))
                       : std::make_tuple(1, size_t{0}, std::string_view(g));
  };
  return std::forward_as_tuple(node, gpu_order(gpu), uuid) <
         std::forward_as_tuple(other.node, gpu_order(other.gpu), other.uuid);
}

std::string CardKey::ToString() const {
  std::string s = node.empty() ? std::string("?") : node;
  if (!gpu.empty()) s += fmt::format("/gpu {}", gpu);
  if (!uuid.empty()) s += fmt::format(" ({})", uuid);
  return s;
}

std::string PodKey::ToString() const {
  return ns.empty() ? pod : fmt::format("{}/{}", ns, pod);
}

Metrics InterpretMetrics(std::span<const PromResult> results, const MetricNames& names,
                         double window_start, double window_end) {
  Metrics out;
  std::set<std::string> used = {names.fb_used, names.process_mem, names.mem_metric_override,
                                names.rate_metric};
  if (!names.latency_metric.empty()) {
    for (const char* suffix : {"", "_bucket", "_sum", "_count"})
      used.insert(names.latency_metric + suffix);
  }
  used.insert(names.card_util.begin(), names.card_util.end());
  used.insert(names.profile_counters.begin(), names.profile_counters.end());
  used.erase("");
  const Collected c = Collect(results, used, window_start, window_end);
  PodMemory(c, names, out);
  CardUtil(c, names, out);
  Rates(c, names, out);
  Latencies(c, names, out);
  SoloProfiles(c, names, out);
  std::sort(out.pod_memory.begin(), out.pod_memory.end(),
            [](const PodMemoryPeak& a, const PodMemoryPeak& b) {
              if (a.pod != b.pod) return a.pod < b.pod;
              return a.card < b.card;
            });
  std::sort(out.card_totals.begin(), out.card_totals.end(),
            [](const CardTotalMemory& a, const CardTotalMemory& b) { return a.card < b.card; });

  // What was dropped on the way.
  for (const auto& [metric, n] : c.non_finite) {
    out.warnings.push_back(
        fmt::format("{}: {} NaN or ±Inf skipped", metric, Plural(n, "sample", "samples")));
  }
  for (const auto& [metric, n] : c.too_large) {
    out.warnings.push_back(fmt::format(
        "{}: {} beyond ±{:g} skipped (no GPU memory, utilization or request rate is that large)",
        metric, Plural(n, "sample", "samples"), kLargestMetricValue));
  }
  for (const auto& [metric, n] : c.conflicts) {
    out.warnings.push_back(fmt::format(
        "{}: {} where two files hold the same series with different values; the first file's "
        "kept",
        metric, Plural(n, "time", "times")));
  }
  if (c.unnamed > 0) {
    out.warnings.push_back(fmt::format(
        "{} without a metric name (__name__) not used: a query such as rate(...) or sum by (...) "
        "drops it; keep one with label_replace(<query>, \"__name__\", \"<name>\", \"\", \"\")",
        Plural(c.unnamed, "series", "series")));
  }
  return out;
}

Metrics InterpretPodMemoryMetrics(std::span<const PromResult> results, const MetricNames& names,
                                  double window_start, double window_end) {
  Metrics metrics = InterpretMetrics(results, names, window_start, window_end);
  if (!names.mem_metric_override.empty()) return metrics;
  MetricNames fb = names;
  fb.process_mem = "\x01 no process metric";  // a name no series has
  const Metrics by_fb = InterpretMetrics(results, fb, window_start, window_end);
  std::set<PodKey> have;
  for (const PodMemoryPeak& m : metrics.pod_memory) have.insert(m.pod);
  for (const PodMemoryPeak& m : by_fb.pod_memory)
    if (!have.count(m.pod)) metrics.pod_memory.push_back(m);
  for (const CardTotalMemory& t : by_fb.card_totals) {
    bool any = false;
    for (const PodKey& k : t.pods) any = any || !have.count(k);
    if (any) metrics.card_totals.push_back(t);
  }
  for (const std::string& n : by_fb.notes)
    if (n.find(names.fb_used) != std::string::npos && n.find("memory") != std::string::npos)
      metrics.notes.push_back(n + " (pods without " + names.process_mem + ")");
  return metrics;
}

}  // namespace knobsim
