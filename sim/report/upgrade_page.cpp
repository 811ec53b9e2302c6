#include "sim/report/upgrade_page.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/report/svg_chart.h"
#include "sim/report/timeline_charts.h"

namespace knobsim::report {

namespace {

constexpr const char* kDrainColor = "#e69f00";    // cordoned, draining
constexpr const char* kGaveUpColor = "#f2b8b0";   // a drain attempt that timed out
constexpr const char* kResetColor = "#56a0d3";    // down for the reset
constexpr const char* kBackColor = "#2e9e4f";     // back with the new settings
constexpr const char* kBlockedColor = "#c0392b";  // evictions refused by a PDB (429)

std::string N(double v) {
  if (std::abs(v) < 0.05) v = 0;
  return fmt::format("{:.1f}", v);
}

double Minutes(const Json* seconds) {
  return Number(seconds) / 60;
}

// "1:10:30" for a span in seconds; "—" when unknown.
std::string Span(double s) {
  if (!std::isfinite(s) || s < 0) return "\xE2\x80\x94";
  const auto t = static_cast<long long>(s);
  return fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
}

// "t+02:10" for a time in seconds from the start of the run (the terminal report's form).
std::string At(double s) {
  if (!std::isfinite(s) || s < 0) return "\xE2\x80\x94";
  const auto t = static_cast<long long>(s);
  if (t >= 3600) return fmt::format("t+{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
  return fmt::format("t+{:02}:{:02}", t / 60, t % 60);
}

struct Bar {
  double from = 0, to = 0;  // minutes
  const char* color = kDrainColor;
  std::string what;
};

// A node's row of the Gantt chart, from its steps: cordoned opens a drain; drained closes it and
// opens the reset; drain-timeout or uncordoned closes it as given up; back closes the reset.
std::vector<Bar> NodeBars(const Json& node, double end) {
  std::vector<Bar> bars;
  double drain = NAN, reset = NAN;
  for (const Json& s : Items(Get(node, "steps"))) {
    const std::string what = Text(Get(s, "what"));
    const double t = Minutes(Get(s, "t_s"));
    if (!std::isfinite(t)) continue;
    if (what == "cordoned" && !std::isfinite(drain) && !std::isfinite(reset)) {
      drain = t;
    } else if (what == "drained" && std::isfinite(drain)) {
      bars.push_back({drain, t, kDrainColor, "draining"});
      drain = NAN;
      reset = t;
    } else if ((what == "drain-timeout" || what == "uncordoned") && std::isfinite(drain)) {
      bars.push_back({drain, t, kGaveUpColor, "drain given up"});
      drain = NAN;
    } else if (what == "back" && std::isfinite(reset)) {
      bars.push_back({reset, t, kResetColor, "down for the reset"});
      reset = NAN;
    }
  }
  if (std::isfinite(drain)) bars.push_back({drain, end, kDrainColor, "draining"});
  if (std::isfinite(reset)) bars.push_back({reset, end, kResetColor, "down for the reset"});
  return bars;
}

std::string GanttChart(const std::string& title, const Json& upgrade, double end_min) {
  const Json& nodes = Items(Get(upgrade, "nodes"));
  const double row_h = 24, left = 190, right_pad = 24, top = 56, width = 980;
  const double plot_w = width - left - right_pad;
  const double height = top + row_h * static_cast<double>(std::max<size_t>(nodes.size(), 1)) + 78;
  std::string out = fmt::format(
      "<svg class=\"chart{}\" role=\"img\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\"><title>{}</title>\n",
      nodes.empty() ? " no-data" : "", N(width), N(height), N(width), N(height), HtmlEscape(title));
  out += fmt::format(
      "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\" "
      "font-weight=\"bold\">{}</text>\n",
      N(width / 2), HtmlEscape(title));
  if (nodes.empty()) {
    return out + fmt::format(
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#777\">no "
                     "node was upgraded</text></svg>\n",
                     N(width / 2), N(height / 2));
  }
  if (!(end_min > 0)) end_min = 1;
  auto x = [&](double minutes) { return left + std::clamp(minutes / end_min, 0.0, 1.0) * plot_w; };
  const double bottom = top + row_h * static_cast<double>(nodes.size());
  const std::vector<double> ticks = NiceTicks(0, end_min, 8);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  for (double t : ticks) {
    if (t < 0 || t > end_min + 1e-9) continue;
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        N(x(t)), N(top), N(bottom + 5), N(bottom + 18), HtmlEscape(TickLabel(t, step)));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">minutes from the start of the "
      "run</text>\n",
      N(left + plot_w / 2), N(bottom + 36));
  const Json& blocked = Items(Get(upgrade, "blocked"));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Json& node = nodes[i];
    const std::string name = Text(Get(node, "node"));
    const double y = top + row_h * static_cast<double>(i);
    const std::string label =
        name.size() > 28 ? "\xE2\x80\xA6" + name.substr(name.size() - 27) : name;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", N(left - 8),
                       N(y + row_h / 2 + 4), HtmlEscape(label));
    for (const Bar& b : NodeBars(node, end_min)) {
      const double w = std::max(1.5, x(b.to) - x(b.from));
      out += fmt::format(
          "<rect class=\"mark\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}</title></rect>\n",
          N(x(b.from)), N(y + 4), N(w), N(row_h - 8), b.color,
          HtmlEscape(name + ": " + b.what + " " + At(b.from * 60) + " to " + At(b.to * 60)));
    }
    for (const Json& bd : blocked) {
      if (Text(Get(bd, "node")) != name) continue;
      const double from = Minutes(Get(bd, "from_s"));
      const double until = Get(bd, "until_s") != nullptr ? Minutes(Get(bd, "until_s")) : end_min;
      if (!std::isfinite(from)) continue;
      out += fmt::format(
          "<rect class=\"mark\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"4\" "
          "fill=\"{}\"><title>{}</title></rect>\n",
          N(x(from)), N(y + row_h - 6), N(std::max(1.5, x(until) - x(from))), kBlockedColor,
          HtmlEscape(Text(Get(bd, "pod")) + " refused " + Text(Get(bd, "refusals")) + " times by " +
                     Text(Get(bd, "budget")) + ": " + Text(Get(bd, "cause"))));
    }
    const double back = Minutes(Get(node, "back_s"));
    if (std::isfinite(back)) {
      out += fmt::format(
          "<path class=\"mark\" d=\"M{} {} l5 {} l-5 {} l-5 {} z\" fill=\"{}\">"
          "<title>{}</title></path>\n",
          N(x(back)), N(y + 2), N(row_h / 2 - 2), N(row_h / 2 - 2), N(-(row_h / 2 - 2)), kBackColor,
          HtmlEscape(name + " back " + At(back * 60)));
    }
  }
  out +=
      fmt::format("<polyline points=\"{0},{1} {0},{2} {3},{2}\" fill=\"none\" stroke=\"#555\"/>\n",
                  N(left), N(top), N(bottom), N(left + plot_w));
  // Legend under the axis title.
  double lx = left;
  const double ly = bottom + 58;
  for (const auto& [label, color] :
       std::vector<std::pair<const char*, const char*>>{{"draining", kDrainColor},
                                                        {"drain given up", kGaveUpColor},
                                                        {"down for the reset", kResetColor},
                                                        {"back, new settings", kBackColor},
                                                        {"429: PDB refused", kBlockedColor}}) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        N(lx), N(ly - 9), color, N(lx + 20), N(ly), HtmlEscape(label));
    lx += 20 + 6.6 * static_cast<double>(std::string_view(label).size()) + 18;
  }
  return out + "</svg>\n";
}

struct Totals {
  double oom = 0, fake_ready = 0, first_error = NAN;
};

Totals ErrorTotals(const Json* timeline) {
  Totals t;
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    for (const Json& p : Items(Get(w, "points"))) {
      const double oom = Number(Get(Get(p, "errors"), "oom"));
      const double fake = Number(Get(Get(p, "errors"), "fake_ready"));
      if (std::isfinite(oom)) t.oom += oom;
      if (std::isfinite(fake)) t.fake_ready += fake;
      const double at = Number(Get(p, "t_s"));
      if ((oom > 0 || fake > 0) && std::isfinite(at) && !(t.first_error <= at)) t.first_error = at;
    }
  }
  return t;
}

// A workload with no available replica while it wanted some, from the upgrade's start: an
// outage, whatever the nodes' outcome (a pod whose image tag is gone never comes back).
struct Outage {
  std::string workload;
  double down_s = 0;      // steps with no available replica, times the step
  double no_replica = 0;  // requests that found no replica, from the same step
};

std::vector<Outage> Outages(const Json& variant, double since_s) {
  std::vector<Outage> out;
  const Json* timeline = Get(variant, "timeline");
  const double step = Number(Get(timeline, "step_s")), end = Number(Get(timeline, "end_s"));
  for (const Json& w : Items(Get(timeline, "workloads"))) {
    Outage o;
    o.workload = WorkloadId(w);
    for (const Json& p : Items(Get(w, "points"))) {
      const double t = Number(Get(p, "t_s"));
      if (!(t + step > since_s)) continue;  // before the step the upgrade started in
      const double n = Number(Get(Get(p, "errors"), "no_replica"));
      if (std::isfinite(n)) o.no_replica += n;
      double desired = Number(Get(p, "desired_mean"));
      if (!std::isfinite(desired)) desired = Number(Get(w, "desired"));
      // From the step the upgrade started in; the last step may end early, with the run.
      if (desired > 0 && Number(Get(p, "available_mean")) == 0 && std::isfinite(step)) {
        o.down_s += std::isfinite(end) ? std::min(step, end - t) : step;
      }
    }
    if (o.down_s > 0) out.push_back(o);
  }
  return out;
}

std::vector<std::string> BrokenPods(const Json& variant) {
  std::vector<std::string> pods;
  for (const Json& p : Items(Get(variant, "pods"))) {
    const std::string state = Text(Get(p, "state"));
    if (state == "ImagePullBackOff" || state == "CrashLoopBackOff" || state == "FakeReady") {
      pods.push_back(Text(Get(p, "namespace")) + "/" + Text(Get(p, "name")) + " " + state);
    }
  }
  return pods;
}

std::string Summary(const std::vector<const Json*>& variants) {
  Table t;
  t.Head({"variant", "upgrade", "outages", "OOM errors", "fake-Ready errors", "first of them",
          "pods ending broken", "quota fixes"});
  for (const Json* v : variants) {
    const Json* u = Get(*v, "upgrade");
    const double started = Number(Get(u, "started_s"));
    const double finished = Number(Get(u, "finished_s"));
    const Totals e = ErrorTotals(Get(*v, "timeline"));
    const std::vector<std::string> broken = BrokenPods(*v);
    std::string pods;
    for (const std::string& p : broken) pods += (pods.empty() ? "" : ", ") + p;
    std::string upgraded;
    if (std::isfinite(finished)) {
      upgraded = "finished in " + Span(finished - started) + " (" + At(started) + " to " +
                 At(finished) + ")";
    } else {
      std::vector<std::string> left;
      for (const Json& n : Items(Get(u, "nodes"))) {
        if (Text(Get(n, "outcome")) != "upgraded")
          left.push_back(Text(Get(n, "node")) + " " + Text(Get(n, "outcome")));
      }
      upgraded = "not finished";
      for (size_t i = 0; i < left.size(); ++i) upgraded += (i == 0 ? ": " : ", ") + left[i];
    }
    const std::vector<Outage> outages = Outages(*v, std::isfinite(started) ? started : 0);
    std::string down;
    for (const Outage& o : outages) {
      down += (down.empty() ? "" : "; ") + o.workload + " no replica for " + Span(o.down_s) + " (" +
              Count(o.no_replica) + " requests found none)";
    }
    // Every node back is not a success when a service was down on the way.
    if (std::isfinite(finished) && !outages.empty()) upgraded += ", with an outage";
    t.Row()
        .Cell(Text(Get(*v, "name")))
        .Cell(upgraded, std::isfinite(finished) && outages.empty() ? "ok" : "bad")
        .Cell(down.empty() ? "none" : down, down.empty() ? "" : "bad")
        .Cell(Count(e.oom), e.oom > 0 ? "bad" : "num")
        .Cell(Count(e.fake_ready), e.fake_ready > 0 ? "bad" : "num")
        .Cell(At(e.first_error))
        .Cell(pods.empty() ? "none" : pods, pods.empty() ? "" : "bad")
        .Cell(Count(static_cast<double>(Items(Get(u, "quota_fixes")).size())), "num");
  }
  return "<section id=\"upgrade\"><h2>Upgrade rehearsal</h2>\n<p>The rolling node reset of "
         "<code>knobsim upgrade</code>, per variant: whether every node came back, the outages "
         "from the upgrade's start (a workload with no available replica while it wanted some, "
         "for how long, and how many requests found no replica), the request "
         "errors the upgrade is about (CUDA OOM, fake Ready) over the whole run, and the pods "
         "that end ImagePullBackOff, CrashLoopBackOff or fake Ready. Times are from the start of "
         "the run, warm-up included.</p>\n<div class=\"wide\">" +
         t.Render() + "</div>\n</section>\n";
}

std::string VariantSection(const Json& v, size_t index) {
  const std::string name = Text(Get(v, "name"));
  const Json* u = Get(v, "upgrade");
  const Json* timeline = Get(v, "timeline");
  double end_min = Minutes(Get(timeline, "end_s"));
  if (!std::isfinite(end_min)) {  // no timeline: the last thing that happened
    end_min = 0;
    for (const Json& n : Items(Get(u, "nodes")))
      for (const Json& s : Items(Get(n, "steps")))
        end_min = std::max(end_min, Minutes(Get(s, "t_s")));
  }
  std::string out =
      fmt::format("<section id=\"upgrade-{}\"><h2>Upgrade: {}</h2>\n", index, HtmlEscape(name));
  if (const std::string d = Text(Get(v, "description")); !d.empty()) {
    out += "<p class=\"meta\">" + HtmlEscape(d) + "</p>\n";
  }
  out += "<figure>" + GanttChart(name + ": node timeline", *u, end_min) +
         "<figcaption>One row per node, in upgrade order: cordoned and draining, a drain given up "
         "at its timeout (the node is uncordoned and retried later), down for its reset, back "
         "with the new settings. The thin red line under a row: evictions a PodDisruptionBudget "
         "refused with HTTP 429. Hover for times and causes.</figcaption></figure>\n";
  const Json& blocked = Items(Get(u, "blocked"));
  if (!blocked.empty()) {
    Table t;
    t.Head({"node", "pod", "budget", "from", "until", "429s", "gave up", "cause"});
    for (const Json& b : blocked) {
      t.Row()
          .Cell(Text(Get(b, "node")))
          .Cell(Text(Get(b, "pod")))
          .Cell(Text(Get(b, "budget")))
          .Cell(At(Number(Get(b, "from_s"))))
          .Cell(Get(b, "until_s") != nullptr ? At(Number(Get(b, "until_s"))) : "the end")
          .Cell(Text(Get(b, "refusals")), "num")
          .Cell(Text(Get(b, "gave_up")))
          .Cell(Text(Get(b, "cause")));
    }
    out += "<h3>Blocked drains</h3>\n<div class=\"wide\">" + t.Render() + "</div>\n";
  }
  if (timeline == nullptr) {
    return out + "<p>This variant carries no timeline.</p>\n</section>\n";
  }
  out += TimelineFigures(name, *timeline);
  return out + "</section>\n";
}

}  // namespace

bool HasUpgradeSections(const Json& doc) {
  for (const Json& v : Items(Get(doc, "variants")))
    if (Get(v, "upgrade") != nullptr && Get(v, "upgrade")->is_object()) return true;
  return false;
}

std::string UpgradePageSections(const Json& doc) {
  if (!HasUpgradeSections(doc)) return "";
  std::vector<const Json*> variants;
  for (const Json& v : Items(Get(doc, "variants")))
    if (Get(v, "upgrade") != nullptr && Get(v, "upgrade")->is_object()) variants.push_back(&v);
  std::string out = Summary(variants);
  for (size_t i = 0; i < variants.size(); ++i) out += VariantSection(*variants[i], i);
  return out;
}

}  // namespace knobsim::report
