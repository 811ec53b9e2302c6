#include "sim/report/timeline_charts.h"

#include <algorithm>
#include <cmath>
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

std::string WorkloadId(const Json& w) {
  if (std::string id = Text(Get(w, "id")); !id.empty()) return id;
  return Text(Get(w, "namespace")) + "/" + Text(Get(w, "name"));
}

std::string AvailabilityChart(const std::string& variant, const Json& timeline) {
  XYChart c;
  c.title = variant + ": available pods \xC3\xB7 desired, per workload";
  c.x_label = "minutes from the start of the run";
  c.y_label = "available / desired";
  c.y_reference = 1;
  c.reference_label = "desired";
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    XYSeries s;
    s.name = WorkloadId(w) + " (" + Text(Get(w, "desired")) + " wanted at the start)";
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

// Replicas wanted and available per workload, nodes per pool: drawn when one of them moves.
std::string ScalingChart(const std::string& variant, const Json& timeline, bool* drawn) {
  XYChart c;
  c.title = variant + ": replicas and nodes over time";
  c.x_label = "minutes from the start of the run";
  c.y_label = "replicas, nodes (time-average per step)";
  *drawn = false;
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    const Json* points = Get(w, "points");
    if (points == nullptr || !Moves(*points, "desired_mean")) continue;
    *drawn = true;
    for (const char* key : {"desired_mean", "available_mean"}) {
      XYSeries s;
      s.name = WorkloadId(w) + (std::string_view(key) == "desired_mean" ? " wanted" : " available");
      for (const Json& p : Items(points))
        s.points.push_back({Minutes(Get(p, "t_s")), Number(Get(p, key))});
      c.series.push_back(std::move(s));
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

std::string ErrorsChart(const std::string& variant, const Json& timeline) {
  XYChart c;
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
    for (size_t i = 0; i < sums.size(); ++i) s.points.push_back({starts[i], sums[i]});
    c.series.push_back(std::move(s));
  }
  if (!any && !starts.empty()) {  // nothing failed: say so with a flat line, not an empty frame
    XYSeries s;
    s.name = "all causes (none failed)";
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
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    XYSeries s;
    s.name = WorkloadId(w);
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

std::string TimelineSections(const Json& doc) {
  std::string out;
  size_t index = 0;
  // The timeline is summarized over the replications point by point (docs/results.md).
  const double replications = Number(Get(doc, "replications"));
  const std::string over =
      replications > 1 ? "; each point the mean over " + Count(replications) + " replications" : "";
  for (const Json& v : Items(Get(doc, "variants"))) {
    const Json* timeline = Get(v, "timeline");
    if (timeline == nullptr || !timeline->is_object() || Get(v, "upgrade") != nullptr) continue;
    const std::string name = Text(Get(v, "name"));
    out += fmt::format("<section id=\"timeline-{}\"><h2>Over time: {}</h2>\n", index++,
                       HtmlEscape(name));
    out += "<p class=\"meta\">Steps of " + Count(Number(Get(timeline, "step_s"))) +
           " s from the start of the run, warm-up included" + over + ".</p>\n";
    out += TimelineFigures(name, *timeline) + "</section>\n";
  }
  return out;
}

}  // namespace knobsim::report
