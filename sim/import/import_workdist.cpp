// The shape of each workload's work from the latency metric (import_steps.h, WorkShapes).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "models/service_time_fit.h"
#include "sim/import/import_steps.h"
#include "sim/import/scenario_writer.h"
#include "sim/text.h"

namespace knobsim {
using namespace import_text;

namespace {

// The latency samples of one workload that count as service time, pooled over its pods.
struct Evidence {
  std::string source;  // "histogram", "summary" or "mean": the first pod's form
  int samples = 0;
  double requests = 0;  // about: Σ requests/s × the latency's step
  std::set<int> pods;
  double weight = 0, weighted_mean = 0, weighted_speed = 0;
  std::vector<double> le, cumulative;         // histogram: pooled cumulative counts per bound
  double r50 = 0, w50 = 0, r99 = 0, w99 = 0;  // summary: Σ weight × p / mean, Σ weight
  std::vector<LoadSample> loads;
  int other_form = 0;  // pods whose form or buckets differ from the first pod's, left out
};

// The one card a pod holds alone, with its utilization; null when it shares or holds several.
const CardUtilization* AloneCard(int pod, const Metrics& metrics, const PodIndex& pods) {
  const auto pl = pods.place.find(pod);
  if (pl == pods.place.end() || pl->second.cards.size() != 1) return nullptr;
  const auto on = pods.card_pods.find({pl->second.node, pl->second.cards[0]});
  if (on == pods.card_pods.end() || on->second.size() != 1) return nullptr;
  for (const CardUtilization& cu : metrics.cards)
    if (cu.card.node == pl->second.node && cu.card.gpu == std::to_string(pl->second.cards[0]))
      return &cu;
  return nullptr;
}

// Adds the pod's samples that are alone and unqueued to the evidence.
void AddPod(const PodLatency& l, int pod, const CardUtilization& cu, double idle, double speed,
            const ImportOptions& options, Evidence& e) {
  if (e.source.empty()) {
    e.source = l.source;
    e.le = l.bucket_le;
    e.cumulative.assign(e.le.size(), 0.0);
  }
  if (l.source != e.source || l.bucket_le != e.le) {
    ++e.other_form;
    return;
  }
  const double step = MedianStep(l.times), half = MedianStep(cu.times) / 2;
  for (size_t j = 0; j < l.times.size(); ++j) {
    const double mean = l.mean_s[j];
    if (!(std::isfinite(mean) && mean > 0)) continue;
    const double rho = std::max(0.0, BusyAt(cu, l.times[j], half) - idle);
    if (!(rho <= options.alone_max_busy)) continue;  // NaN too: no busy sample
    const double n = j < l.count.size() ? l.count[j] : NAN;
    const double w = std::isfinite(n) && n > 0 ? n : (l.source == "mean" ? 1.0 : 0.0);
    if (!(w > 0)) continue;
    if (l.source == "histogram") {
      const std::vector<double>& row = l.buckets[j];
      if (!std::all_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); })) continue;
      // Requests, not rates: the likelihood's scale (and so the family rule) counts requests.
      for (size_t k = 0; k < row.size(); ++k) e.cumulative[k] += row[k] * (step > 0 ? step : 1);
    } else if (l.source == "summary") {
      const bool p50 = std::isfinite(l.p50_s[j]), p99 = std::isfinite(l.p99_s[j]);
      if (!p50 && !p99) continue;
      if (p50) {
        e.r50 += w * l.p50_s[j] / mean;
        e.w50 += w;
      }
      if (p99) {
        e.r99 += w * l.p99_s[j] / mean;
        e.w99 += w;
      }
    }
    ++e.samples;
    e.requests += std::isfinite(n) ? n * step : 0;
    e.weight += w;
    e.weighted_mean += w * mean;
    e.weighted_speed += w * speed;
    e.loads.push_back({rho, w});
    e.pods.insert(pod);
  }
}

// The latency's family and cv² from the evidence; `why` the comparison made.
ShapeFit LatencyShape(const Evidence& e, double mean, const ImportOptions& options,
                      std::string* why) {
  ShapeFit gamma, lognormal;
  bool lognormal_wins = false;
  if (e.source == "histogram") {
    std::vector<double> counts;
    double below = 0;
    for (double c : e.cumulative) {
      counts.push_back(std::max(0.0, c - below));
      below = std::max(below, c);
    }
    gamma = FitGroupedCounts(ShapeFamily::kGamma, e.le, counts, mean);
    lognormal = FitGroupedCounts(ShapeFamily::kLognormal, e.le, counts, mean);
    lognormal_wins = lognormal.score - gamma.score > options.prefer_lognormal;
    *why = "log-likelihood of the " + std::to_string(e.le.size()) + " buckets: gamma " +
           FormatNumber("%.1f", gamma.score) + ", lognormal " +
           FormatNumber("%.1f", lognormal.score) + " (lognormal when higher by " +
           FormatNumber("%g", options.prefer_lognormal) + ")";
  } else {
    const double r50 = e.w50 > 0 ? e.r50 / e.w50 : NAN, r99 = e.w99 > 0 ? e.r99 / e.w99 : NAN;
    gamma = FitQuantileRatios(ShapeFamily::kGamma, r50, r99);
    lognormal = FitQuantileRatios(ShapeFamily::kLognormal, r50, r99);
    lognormal_wins = -lognormal.score < -gamma.score / std::exp(options.prefer_lognormal);
    *why = "p50/mean " + FormatNumber("%.3f", r50) + ", p99/mean " + FormatNumber("%.3f", r99) +
           "; squared log error gamma " + FormatNumber("%.2g", -gamma.score) + ", lognormal " +
           FormatNumber("%.2g", -lognormal.score) + " (lognormal when below gamma's / e^" +
           FormatNumber("%g", options.prefer_lognormal) + ")";
  }
  return lognormal_wins ? lognormal : gamma;
}

// The evidence of one workload into its work (dist, cv and, when the fit gave none, the mean).
void ApplyShape(const Evidence& e, const ImportOptions& options, ImportedWorkload& iw,
                std::vector<std::string>& report) {
  const std::string who = iw.spec.namespace_ + "/" + iw.spec.name;
  const std::string rule =
      "alone on its card at busy <= " + FormatNumber("%g", options.alone_max_busy) +
      " less the idle term";
  std::string& note = iw.notes["work"];
  auto kept = [&](const std::string& why) {
    if (!note.empty()) note += "; ";
    note += "exponential kept: " + why;
    report.push_back("work shape of " + who + ": exponential kept, " + why);
  };
  if (e.source == "mean")
    return kept("the latency is a mean series (no buckets or quantiles), so it has no shape");
  if (e.samples < options.min_shape_samples)
    return kept(std::to_string(e.samples) + " latency samples " + rule + ", fewer than " +
                std::to_string(options.min_shape_samples));
  const double mean_t = e.weighted_mean / e.weight;
  std::string why;
  const ShapeFit t = LatencyShape(e, mean_t, options, &why);
  const ServiceShape s = ServiceCv2FromLatency(t.family, mean_t, t.cv2, e.loads);
  iw.spec.work.dist =
      t.family == ShapeFamily::kGamma ? WorkDistribution::kGamma : WorkDistribution::kLognormal;
  iw.spec.work.cv = std::sqrt(s.service_cv2);
  const double speed = e.weighted_speed / e.weight;
  std::string mean_note;
  if (!iw.has_work) {
    iw.spec.work.mean_s = s.service_mean * speed;
    iw.has_work = true;
    note = "mean from the latency (the fit did not identify it): " + Seconds(s.service_mean) +
           " of service on cards of speed " + FormatNumber("%.3g", speed) +
           ", the M/G/1 wait removed";
  } else if (std::fabs(s.service_mean * speed / iw.spec.work.mean_s - 1) > 0.25) {
    mean_note = "; the latency says a mean of " + Seconds(s.service_mean * speed) +
                " (time off the GPU in the latency?), the fit's kept";
  }
  const std::string shape =
      std::string(ShapeFamilyName(t.family)) + " cv² " + FormatNumber("%.3g", s.service_cv2) +
      (s.at_lower_bound ? " (the lower bound: the latency varies less than the wait alone "
                          "would make it)"
                        : "");
  note += "; shape " + shape + " from the latency " + e.source + ": " + std::to_string(e.samples) +
          " samples (~" + FormatNumber("%.0f", e.requests) + " requests) of " +
          std::to_string(e.pods.size()) + (e.pods.size() == 1 ? " pod " : " pods ") + rule +
          ", latency cv² " + FormatNumber("%.3g", t.cv2) + " less the M/G/1 wait; " + why +
          mean_note +
          (e.other_form > 0 ? "; " + std::to_string(e.other_form) +
                                  " pods of another latency form or buckets left out"
                            : "");
  report.push_back("work shape of " + who + ": " + shape + " from " + std::to_string(e.samples) +
                   " latency samples (" + e.source + ")");
}

}  // namespace

double import_text::BusyAt(const CardUtilization& cu, double t, double half) {
  const auto it = std::lower_bound(cu.times.begin(), cu.times.end(), t);
  double best = NAN, gap = INFINITY;
  for (auto at : {it, it == cu.times.begin() ? it : it - 1}) {
    if (at == cu.times.end()) continue;
    const double d = std::fabs(*at - t);
    if (d < gap && d <= half + 1e-9) {
      gap = d;
      best = cu.busy[static_cast<size_t>(at - cu.times.begin())];
    }
  }
  return best;
}

void WorkShapes(const Metrics& metrics, const NodeIndex& nodes, const PodIndex& pods,
                const GpuCatalog& catalog, const ImportOptions& options, ImportModel& model) {
  if (metrics.latencies.empty()) {
    model.fit_report.push_back(
        "work distribution: exponential, the mean only (no latency metric; --latency-metric "
        "gives the shape)");
    return;
  }
  std::map<int, Evidence> evidence;  // by workload
  for (const PodLatency& l : metrics.latencies) {
    const auto at = pods.workload_of.find(l.pod);
    if (at == pods.workload_of.end()) continue;
    const auto [wi, pod] = at->second;
    if (!model.workloads[wi].has_traffic) continue;
    Evidence& e = evidence[wi];
    const CardUtilization* cu = AloneCard(pod, metrics, pods);
    if (!cu) continue;
    const auto idle = model.card_idle_busy.find(cu->card.node + "/" + cu->card.gpu);
    double speed = 1.0;
    if (const auto g = nodes.gpu_of_node.find(cu->card.node); g != nodes.gpu_of_node.end())
      if (const GpuType* t = catalog.Find(g->second)) speed = t->speed;
    AddPod(l, pod, *cu, idle == model.card_idle_busy.end() ? 0.0 : idle->second, speed, options, e);
  }
  for (auto& [wi, e] : evidence) ApplyShape(e, options, model.workloads[wi], model.fit_report);
}

Expected<std::optional<WorkModel>> ParseWorkDist(std::string_view text) {
  auto fail = [&](std::string message) -> Expected<std::optional<WorkModel>> {
    InputError e;
    e.path = "--work-dist";
    e.message = Quote(std::string(text)) + " " + message;
    e.hint = "write auto, exponential, deterministic, gamma:CV2 or lognormal:CV2 (CV2 > 0)";
    return e;
  };
  if (text == "auto") return std::optional<WorkModel>();
  WorkModel w;
  if (text == "exponential") {
    w.dist = WorkDistribution::kExponential;
    w.cv = 1;
    return std::optional<WorkModel>(w);
  }
  if (text == "deterministic") {
    w.dist = WorkDistribution::kConstant;
    w.cv = 0;
    return std::optional<WorkModel>(w);
  }
  const auto colon = text.find(':');
  const std::string_view family = text.substr(0, colon);
  if (family != "gamma" && family != "lognormal") return fail("names no distribution");
  if (colon == std::string_view::npos)
    return fail("lacks its squared cv (" + std::string(family) + ":CV2)");
  const std::string_view number = text.substr(colon + 1);
  double cv2 = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), cv2);
  if (ec != std::errc() || end != number.data() + number.size() || !(cv2 > 0) ||
      !std::isfinite(cv2))
    return fail("needs a squared cv above 0 after `:`");
  w.dist = family == "gamma" ? WorkDistribution::kGamma : WorkDistribution::kLognormal;
  w.cv = std::sqrt(cv2);
  return std::optional<WorkModel>(w);
}

}  // namespace knobsim
