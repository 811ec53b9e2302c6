#include "sim/report/timeline_charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/report/svg_chart.h"

namespace knobsim::report {

namespace {

double Minutes(const Json* seconds) {
  return Number(seconds) / 60;
}

std::string AvailabilityChart(const std::string& variant, const Json& timeline) {
  XYChart c;
  c.title = variant + ": available pods \xC3\xB7 desired, per workload";
  c.x_label = "minutes from the start of the run";
  c.y_label = "available / desired";
  c.y_reference = 1;
  c.reference_label = "desired";
  size_t index = 0;
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    XYSeries s;
    s.name = WorkloadId(w) + " (" + Text(Get(w, "desired")) + " wanted at the start)";
    s.color = SeriesColor(index++);
    for (const Json& p : Items(Get(w, "points"))) {
      // What the workload wanted in that step (an HPA or CronHPA moves it), else `desired`.
      double desired = Number(Get(p, "desired_mean"));
      if (!std::isfinite(desired)) desired = Number(Get(w, "desired"));
      s.points.push_back(
          {Minutes(Get(p, "t_s")), desired > 0 ? Number(Get(p, "available_mean")) / desired : NAN});
    }
    c.series.push_back(std::move(s));
  }
  return RenderXYChart(c);
}

// Whether a series of `key` over `points` moves (an autoscaler at work).
bool Moves(const Json& points, const char* key) {
  double first = NAN;
  for (const Json& p : Items(&points)) {
    const double x = Number(Get(p, key));
    if (!std::isfinite(x)) continue;
    if (!std::isfinite(first)) first = x;
    if (x != first) return true;
  }
  return false;
}

// Replicas wanted, available and Pending per workload, nodes per pool: drawn when one of them
// moves. A workload whose wanted replicas move always has its three series (Pending too while
// flat at 0), so a series keeps its place, hence its colour, on every variant's chart; a document
// from before `pending_mean` has two.
std::string ScalingChart(const std::string& variant, const Json& timeline, bool* drawn) {
  XYChart c;
  c.title = variant + ": replicas and nodes over time";
  c.x_label = "minutes from the start of the run";
  c.y_label = "replicas, nodes (time-average per step)";
  *drawn = false;
  const std::pair<const char*, const char*> kinds[] = {
      {"desired_mean", " wanted"}, {"available_mean", " available"}, {"pending_mean", " Pending"}};
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    const Json* points = Get(w, "points");
    if (points == nullptr || !Moves(*points, "desired_mean")) continue;
    *drawn = true;
    for (const auto& [key, suffix] : kinds) {
      XYSeries s;
      s.name = WorkloadId(w) + suffix;
      bool any = false;
      for (const Json& p : Items(points)) {
        const double y = Number(Get(p, key));
        any |= std::isfinite(y);
        s.points.push_back({Minutes(Get(p, "t_s")), y});
      }
      if (any) c.series.push_back(std::move(s));
    }
  }
  for (const Json& pool : Items(Get(timeline, "node_pools"))) {
    const Json* points = Get(pool, "points");
    if (points == nullptr || !Moves(*points, "nodes_mean")) continue;
    *drawn = true;
    XYSeries s;
    s.name = "nodes of " + Text(Get(pool, "name"));
    for (const Json& p : Items(points))
      s.points.push_back({Minutes(Get(p, "t_s")), Number(Get(p, "nodes_mean"))});
    c.series.push_back(std::move(s));
  }
  return *drawn ? RenderXYChart(c) : std::string();
}

std::string ErrorsChart(const std::string& variant, const Json& timeline, double y_max = NAN) {
  XYChart c;
  c.y_max = y_max;
  c.title = variant + ": errors per step, by cause (all workloads)";
  c.x_label = "minutes from the start of the run";
  c.y_label = "failed requests per step";
  const Json& workloads = Items(Get(timeline, "workloads"));
  std::vector<double> starts;
  if (!workloads.empty()) {
    for (const Json& p : Items(Get(workloads[0], "points")))
      starts.push_back(Minutes(Get(p, "t_s")));
  }
  bool any = false;
  for (const char* cause : {"oom", "fake_ready", "no_replica", "interrupted", "timeout"}) {
    std::vector<double> sums(starts.size(), 0);
    double total = 0;
    for (const Json& w : workloads) {
      const Json& points = Items(Get(w, "points"));
      for (size_t i = 0; i < points.size() && i < sums.size(); ++i) {
        const double n = Number(Get(Get(points[i], "errors"), cause));
        if (std::isfinite(n)) {
          sums[i] += n;
          total += n;
        }
      }
    }
    if (total <= 0) continue;
    any = true;
    XYSeries s;
    s.name = cause;
    s.color = CauseColor(cause);
    for (size_t i = 0; i < sums.size(); ++i) s.points.push_back({starts[i], sums[i]});
    c.series.push_back(std::move(s));
  }
  if (!any && !starts.empty()) {  // nothing failed: say so with a flat line, not an empty frame
    XYSeries s;
    s.name = "all causes (none failed)";
    s.color = CauseColor("");
    for (double t : starts) s.points.push_back({t, 0});
    c.series.push_back(std::move(s));
  }
  return RenderXYChart(c);
}

std::string LatencyChart(const std::string& variant, const Json& timeline) {
  XYChart c;
  c.title = variant + ": p99 latency per step";
  c.x_label = "minutes from the start of the run";
  c.y_label = "p99 (ms)";
  size_t index = 0;
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    XYSeries s;
    s.name = WorkloadId(w);
    // By the workload's place, not among those drawn: a workload keeps its colour.
    s.color = SeriesColor(index++);
    double arrivals = 0;
    for (const Json& p : Items(Get(w, "points"))) {
      arrivals += std::max(0.0, Number(Get(p, "arrivals")));
      // null where nothing succeeded in the step: skipped, not drawn as 0 ms.
      s.points.push_back({Minutes(Get(p, "t_s")), Number(Get(Get(p, "latency_ms"), "p99"))});
    }
    if (arrivals > 0) c.series.push_back(std::move(s));
  }
  return RenderXYChart(c);
}

}  // namespace

std::string TimelineFigures(const std::string& variant, const Json& timeline) {
  std::string out;
  out += "<figure>" + AvailabilityChart(variant, timeline) +
         "<figcaption>Time-average of the available pods in each step over the replicas the "
         "workload wants (dashed: all of them). Available means Ready with its model loaded: a "
         "fake-Ready pod is Ready for Kubernetes but never available.</figcaption></figure>\n";
  out += "<figure>" + ErrorsChart(variant, timeline) +
         "<figcaption>Failed requests per step, summed over the workloads, one line per cause "
         "that occurred.</figcaption></figure>\n";
  out += "<figure>" + LatencyChart(variant, timeline) +
         "<figcaption>The p99 of the requests that succeeded in each step; a gap: nothing "
         "succeeded. Workloads without traffic are left out.</figcaption></figure>\n";
  bool scaling = false;
  const std::string chart = ScalingChart(variant, timeline, &scaling);
  if (scaling) {
    out += "<figure>" + chart +
           "<figcaption>The replicas each autoscaled workload wanted (what its HPA or CronHPA "
           "last set) against those available, and the size of each node pool the "
           "cluster-autoscaler moved (nodes provisioning included), per step. Workloads and "
           "pools that never changed are left out.</figcaption></figure>\n";
  }
  return out;
}

namespace {

// The most failed requests in one step of one cause over every variant's timeline, so that the
// variants' error charts share one scale.
double MostErrorsPerStep(const std::vector<const Json*>& timelines) {
  double most = 0;
  for (const Json* timeline : timelines) {
    const Json& workloads = Items(Get(*timeline, "workloads"));
    std::vector<std::map<std::string, double>> sums;
    for (const Json& w : workloads) {
      const Json& points = Items(Get(w, "points"));
      if (sums.size() < points.size()) sums.resize(points.size());
      for (size_t i = 0; i < points.size(); ++i) {
        const Json* errors = Get(points[i], "errors");
        if (errors == nullptr || !errors->is_object()) continue;
        for (const auto& [cause, n] : errors->items()) {
          if (n.is_number()) sums[i][cause] += n.get<double>();
        }
      }
    }
    for (const auto& step : sums)
      for (const auto& [cause, n] : step) most = std::max(most, n);
  }
  return most;
}

// One workload over the variants that recorded a timeline: its p99 per step against its SLO and
// its available pods over those wanted, two small charts with a variant per line (coloured as
// on the rest of the page).
std::string WorkloadFigure(const std::string& id, const std::vector<const Json*>& variants,
                           const std::vector<size_t>& color_index) {
  XYChart latency, available;
  latency.small = available.small = true;
  latency.title = id + ": p99 per step";
  latency.x_label = available.x_label = "minutes";
  latency.y_label = "p99 (ms)";
  available.title = id + ": available \xC3\xB7 wanted";
  available.y_label = "available / wanted";
  available.y_reference = 1;
  available.reference_label = "wanted";
  for (size_t k = 0; k < variants.size(); ++k) {
    const Json& v = *variants[k];
    const std::string name = Text(Get(v, "name"));
    const Json* w = nullptr;
    for (const Json& x : Items(Get(Get(v, "timeline"), "workloads")))
      if (WorkloadId(x) == id) w = &x;
    if (w == nullptr) continue;
    for (const Json& r : Items(Get(v, "workloads"))) {
      const Json* slo = Get(r, "slo");
      if (WorkloadId(r) == id && !std::isfinite(latency.y_reference) &&
          Number(Get(slo, "percentile")) == 99 && Number(Get(slo, "latency_ms")) > 0) {
        latency.y_reference = Number(Get(slo, "latency_ms"));
        latency.reference_label = "SLO";
      }
    }
    XYSeries p99, ready;
    p99.name = ready.name = name;
    p99.color = ready.color = SeriesColor(color_index[k]);
    for (const Json& p : Items(Get(*w, "points"))) {
      const double t = Minutes(Get(p, "t_s"));
      // null where nothing succeeded in the step: skipped, not drawn as 0 ms.
      p99.points.push_back({t, Number(Get(Get(p, "latency_ms"), "p99"))});
      double desired = Number(Get(p, "desired_mean"));
      if (!std::isfinite(desired)) desired = Number(Get(*w, "desired"));
      ready.points.push_back({t, desired > 0 ? Number(Get(p, "available_mean")) / desired : NAN});
    }
    latency.series.push_back(std::move(p99));
    available.series.push_back(std::move(ready));
  }
  return "<figure class=\"pair\">" + RenderXYChart(latency) + RenderXYChart(available) +
         "</figure>\n";
}

}  // namespace

std::string TimelineSections(const Json& doc) {
  std::vector<const Json*> variants, timelines;
  std::vector<size_t> color_index;  // the variant's place in the document: its page colour
  std::vector<std::string> workloads;
  size_t place = 0;
  for (const Json& v : Items(Get(doc, "variants"))) {
    if (!v.is_object()) continue;
    const size_t index = place++;
    const Json* timeline = Get(v, "timeline");
    if (timeline == nullptr || !timeline->is_object() || Get(v, "upgrade") != nullptr) continue;
    variants.push_back(&v);
    timelines.push_back(timeline);
    color_index.push_back(index);
    for (const Json& w : Items(Get(*timeline, "workloads"))) {
      const std::string id = WorkloadId(w);
      if (std::find(workloads.begin(), workloads.end(), id) == workloads.end())
        workloads.push_back(id);
    }
  }
  if (variants.empty()) return "";
  // The timeline is summarized over the replications point by point (docs/results.md).
  const double replications = Number(Get(doc, "replications"));
  const std::string over =
      replications > 1 ? "; each point the mean over " + Count(replications) + " replications" : "";
  std::string out = "<section id=\"timeline\"><h2>Over time</h2>\n";
  out += "<p class=\"meta\">Steps of " + Count(Number(Get(*timelines.front(), "step_s"))) +
         " s from the start of the run, warm-up included" + over +
         ". Per workload: the p99 of the requests that succeeded in each step (a gap: nothing "
         "succeeded; dashed: the SLO) and the time-average of its available pods over those it "
         "wanted (dashed: all of them; available means Ready with its model loaded), one line "
         "per variant.</p>\n";
  for (const std::string& id : workloads) out += WorkloadFigure(id, variants, color_index);
  const double most = MostErrorsPerStep(timelines);
  for (size_t k = 0; k < variants.size(); ++k) {
    const std::string name = Text(Get(*variants[k], "name"));
    out += fmt::format("<h3>{}</h3>\n", HtmlEscape(name));
    out += "<figure>" + ErrorsChart(name, *timelines[k], most > 0 ? most : NAN) +
           "<figcaption>Failed requests per step, summed over the workloads, one line per cause "
           "that occurred; every variant on the same scale.</figcaption></figure>\n";
    bool scaling = false;
    const std::string chart = ScalingChart(name, *timelines[k], &scaling);
    if (scaling) {
      out += "<figure>" + chart +
             "<figcaption>The replicas each autoscaled workload wanted against those available, "
             "and the nodes of each pool the cluster-autoscaler moved, per step.</figcaption>"
             "</figure>\n";
    }
  }
  return out + "</section>\n";
}

}  // namespace knobsim::report
