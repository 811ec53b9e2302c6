#include "sim/report/diff_page.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "sim/report/svg_chart.h"

namespace knobsim::report {

namespace {

// A row's number as the diff wrote it ("130 ms"; "" for no noise), else the bare number (an older
// document), else "—".
std::string Shown(const Json& row, const char* key, const char* number_key) {
  if (const Json* shown = Get(Get(row, "shown"), key); shown != nullptr) return Text(shown);
  const double v = Number(Get(row, number_key));
  return std::isfinite(v) ? Short(v) : "\xE2\x80\x94";
}

bool Regression(const Json& row) {
  return !Text(Get(row, "rule")).empty();
}

std::string Verdict(const Json& doc) {
  const bool bad = Number(Get(doc, "regressions")) > 0;
  std::string out = std::string("<div class=\"verdict ") + (bad ? "bad" : "ok") + "\"><h3>" +
                    HtmlEscape(Text(Get(doc, "verdict"))) + "</h3>\n";
  std::string items;
  for (const Json& r : Items(Get(doc, "rows"))) {
    if (!Regression(r)) continue;
    const std::string who = Text(Get(r, "subject")) + " (" + Text(Get(r, "variant")) + ")";
    std::string what;
    if (const std::string note = Text(Get(r, "note")); !note.empty()) {
      what = note;
    } else {
      const std::string noise = Shown(r, "noise", "noise");
      what = Text(Get(r, "metric")) + " " + Shown(r, "base", "base") + " \xE2\x86\x92 " +
             Shown(r, "new", "new") + " (" + Shown(r, "change", "change") +
             (noise.empty() ? "" : ", noise " + noise) + ")";
    }
    items += "<li>" + HtmlEscape(who + ": " + what) + " breaks <b>" +
             HtmlEscape(Text(Get(r, "rule"))) + "</b></li>\n";
  }
  if (!items.empty()) out += "<ul>\n" + items + "</ul>\n";
  return out + "</div>\n";
}

// p99 per workload (and variant, when several), before and after, with the change's verdict.
std::string P99Chart(const Json& doc) {
  BarChart chart;
  chart.title = "p99 before and after, per workload";
  chart.y_label = "p99 (ms)";
  chart.series = {"BASE", "NEW"};
  chart.values.assign(2, {});
  const bool several = Items(Get(doc, "variants")).size() > 1;
  for (const Json& r : Items(Get(doc, "rows"))) {
    if (Text(Get(r, "metric")) != "p99") continue;
    chart.groups.push_back(Text(Get(r, "subject")) +
                           (several ? " (" + Text(Get(r, "variant")) + ")" : ""));
    chart.values[0].push_back(Number(Get(r, "base")));
    chart.values[1].push_back(Number(Get(r, "new")));
  }
  return "<section id=\"p99\"><h2>p99 before and after</h2>\n<figure>" + RenderBarChart(chart) +
         "<figcaption>BASE and NEW as the two documents give them (latency over successful "
         "requests); n/a: no request succeeded in that document.</figcaption></figure>\n"
         "</section>\n";
}

std::string Rows(const Json& doc) {
  Table t;
  t.Head({"variant", "subject", "metric", "base", "new", "change", "noise", "rule"});
  for (const Json& r : Items(Get(doc, "rows"))) {
    const bool bad = Regression(r);
    t.Row()
        .Cell(Text(Get(r, "variant")))
        .Cell(Text(Get(r, "subject")))
        .Cell(Text(Get(r, "metric")));
    if (const std::string note = Text(Get(r, "note")); !note.empty()) {
      t.Cell(note).Cell("").Cell("").Cell("");
    } else {
      t.Cell(Shown(r, "base", "base"), "num")
          .Cell(Shown(r, "new", "new"), "num")
          .Cell(Shown(r, "change", "change"), bad ? "bad" : "num")
          .Cell(Shown(r, "noise", "noise"), "num");
    }
    t.Cell(bad ? "breaks " + Text(Get(r, "rule")) : "", bad ? "bad" : "");
  }
  return "<section id=\"rows\"><h2>Every number compared</h2>\n<p>A rule fires when NEW "
         "\xE2\x88\x92 BASE moves its metric the bad way past the threshold and by more than the "
         "noise (the paired 95 % half-width over replications, else the sum of both "
         "half-widths). Fractions are shown in %, their changes in percentage points (pp)."
         "</p>\n<div class=\"wide\">" +
         t.Render() + "</div>\n</section>\n";
}

}  // namespace

std::string DiffPageBody(const Json& doc) {
  std::string out = "<h1>Comparison: " + HtmlEscape(Text(Get(doc, "base_scenario"))) +
                    " \xE2\x86\x92 " + HtmlEscape(Text(Get(doc, "new_scenario"))) + "</h1>\n";
  std::string variants;
  for (const Json& v : Items(Get(doc, "variants"))) {
    if (!variants.empty()) variants += ", ";  // see check_page.cpp Objects
    variants += Text(&v);
  }
  out += "<p class=\"meta\">" + HtmlEscape(std::string(kDiffSchema)) + " \xC2\xB7 variants " +
         HtmlEscape(variants.empty() ? "none in common" : variants) + "</p>\n";
  out += "<section id=\"verdict\"><h2>Verdict</h2>\n" + Verdict(doc) + "</section>\n";
  out += P99Chart(doc);
  out += Rows(doc);
  return out;
}

}  // namespace knobsim::report
