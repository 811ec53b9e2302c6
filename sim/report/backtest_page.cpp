#include "sim/report/backtest_page.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/report/svg_chart.h"

namespace knobsim::report {
namespace {

// One series of a chart: `field` (a path of one or two keys) of every window, against minutes.
XYSeries Series(const Json& item, std::string name, std::string_view key,
                std::string_view sub = "") {
  XYSeries s;
  s.name = std::move(name);
  for (const Json& w : Items(Get(item, "windows"))) {
    const Json* v = Get(w, key);
    if (!sub.empty()) v = Get(v, sub);
    s.points.push_back({Number(Get(w, "t_s")) / 60, Number(v)});
  }
  return s;
}

XYSeries Muted(XYSeries s) {
  s.muted = true;
  return s;
}

std::string Verdicts(const Json& doc) {
  std::string out = "<h2>Verdict</h2>\n";
  for (const Json& v : Items(Get(doc, "verdicts"))) {
    const Json* t = Get(v, "trust");
    const bool trust = t != nullptr && t->is_boolean() && t->get<bool>();
    out += "<div class=\"verdict " + std::string(trust ? "ok" : "bad") +
           "\"><p><span class=\"kind\">" + HtmlEscape(trust ? "trust" : "do not trust") +
           "</span> <b>" + HtmlEscape(Text(Get(v, "what"))) +
           "</b>: " + HtmlEscape(Text(Get(v, "why"))) + "</p></div>\n";
  }
  return out;
}

std::string Summary(const Json& doc) {
  const Json* s = Get(doc, "summary");
  const Json* u = Get(s, "utilization");
  const Json* l = Get(s, "latency");
  Table t("settings");
  t.Head({"score", "knobsim", "naive baseline", "second baseline"});
  t.Row().HeadCell("card utilization, median R²");
  t.Cell(Fixed(Number(Get(u, "r2_median")), 3), "num")
      .Cell(Fixed(Number(Get(Get(u, "baseline_train_mean"), "r2_median")), 3) + " (train mean)",
            "num")
      .Cell("");
  t.Row().HeadCell("card utilization, median MAE (points)");
  t.Cell(Fixed(Number(Get(u, "mae_pp_median")), 2), "num")
      .Cell(Fixed(Number(Get(Get(u, "baseline_train_mean"), "mae_pp_median")), 2) + " (train mean)",
            "num")
      .Cell("");
  for (const char* key : {"mdape_mean", "mdape_p99"}) {
    t.Row().HeadCell(std::string("latency ") + (key == std::string("mdape_mean") ? "mean" : "p99") +
                     ", MdAPE");
    t.Cell(Pct(Number(Get(l, key))), "num")
        .Cell(Pct(Number(Get(Get(l, "baseline_train_median"), key))) + " (train median)", "num")
        .Cell(Pct(Number(Get(Get(l, "baseline_mm1"), key))) + " (per-pod M/M/1)", "num");
  }
  return "<h2>Scores</h2>\n<div class=\"wide\">" + t.Render() + "</div>\n";
}

std::string Cards(const Json& doc) {
  std::string out = "<h2>Card utilization per window</h2>\n";
  for (const Json& c : Items(Get(doc, "cards"))) {
    XYChart chart;
    chart.title = Text(Get(c, "id")) + " " + Text(Get(c, "gpu")) + " — R² " +
                  Fixed(Number(Get(c, "r2")), 3) + ", MAE " + Fixed(Number(Get(c, "mae_pp")), 2) +
                  " points";
    chart.x_label = "minutes into the test window";
    chart.y_label = "busy (fraction)";
    chart.series = {Series(c, "measured", "measured"), Series(c, "predicted", "predicted"),
                    Muted(Series(c, "train mean", "baseline_train_mean"))};
    out += "<figure>" + RenderXYChart(chart) + "</figure>\n";
  }
  return out;
}

std::string Workloads(const Json& doc) {
  std::string out;
  for (const Json& w : Items(Get(doc, "workloads"))) {
    if (out.empty()) out = "<h2>Latency per window</h2>\n";
    for (const char* key : {"mean_ms", "p99_ms"}) {
      const bool mean = key == std::string("mean_ms");
      XYChart chart;
      chart.title = Text(Get(w, "id")) + (mean ? " mean" : " p99") + " latency — MdAPE " +
                    Pct(Number(Get(w, mean ? "mdape_mean" : "mdape_p99")));
      chart.x_label = "minutes into the test window";
      chart.y_label = "ms";
      chart.series = {Series(w, "measured", "measured", key),
                      Series(w, "predicted", "predicted", key),
                      Muted(Series(w, "train median", "baseline_train_median", key)),
                      Muted(Series(w, "M/M/1", "baseline_mm1", key))};
      out += "<figure>" + RenderXYChart(chart) + "</figure>\n";
    }
  }
  return out;
}

std::string Memory(const Json& doc) {
  Table t;
  t.Head({"pod", "card", "test peak", "train peak", "quota", "above"});
  for (const Json& m : Items(Get(doc, "memory"))) {
    const bool train = Text(Get(m, "over_train_peak")) == "yes";
    const bool quota = Text(Get(m, "over_quota")) == "yes";
    if (!train && !quota) continue;
    t.Row().Cell(Text(Get(m, "pod"))).Cell(Text(Get(m, "card")));
    t.Cell(Fixed(Number(Get(m, "test_peak_mib")), 0) + " MiB", "num")
        .Cell(Fixed(Number(Get(m, "train_peak_mib")), 0) + " MiB", "num")
        .Cell(Fixed(Number(Get(m, "quota_mib")), 0) + " MiB", "num")
        .Cell(std::string(train ? "train peak" : "") + (train && quota ? ", " : "") +
                  (quota ? "quota" : ""),
              "bad");
  }
  if (t.empty()) return "";
  return "<h2>GPU memory above the train-window peak or quota</h2>\n" + t.Render();
}

std::string Notes(const Json& doc) {
  std::string items;
  for (const Json& n : Items(Get(doc, "notes"))) items += "<li>" + HtmlEscape(Text(&n)) + "</li>\n";
  return items.empty() ? "" : "<h2>Notes</h2>\n<ul>\n" + items + "</ul>\n";
}

}  // namespace

std::string BacktestPageBody(const Json& doc) {
  const Json* train = Get(doc, "train");
  const Json* test = Get(doc, "test");
  std::string out = "<h1>knobsim backtest</h1>\n";
  out += "<p class=\"meta\">Trained on " + HtmlEscape(Text(Get(train, "from"))) + " to " +
         HtmlEscape(Text(Get(train, "to"))) + "; tested on " + HtmlEscape(Text(Get(test, "from"))) +
         " to " + HtmlEscape(Text(Get(test, "to"))) + ": " + HtmlEscape(Text(Get(doc, "windows"))) +
         " windows of " + HtmlEscape(Short(Number(Get(doc, "window_s")) / 60)) + " min, " +
         HtmlEscape(Text(Get(doc, "replications"))) + " replications.</p>\n";
  return out + Verdicts(doc) + Summary(doc) + Cards(doc) + Workloads(doc) + Memory(doc) +
         Notes(doc);
}

}  // namespace knobsim::report
