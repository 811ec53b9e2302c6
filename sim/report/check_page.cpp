#include "sim/report/check_page.h"

#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/report/svg_chart.h"

namespace knobsim::report {

namespace {

constexpr std::array<const char*, 3> kSeverities = {"critical", "warning", "info"};

std::string Objects(const Json& finding) {
  std::string out;
  for (const Json& o : Items(Get(finding, "objects"))) {
    const std::string ns = Text(Get(o, "namespace"));
    // Appended piece by piece: `"" + std::string` here made GCC 12's LTO warn of a bogus
    // memcpy size (-Wstringop-overflow).
    if (!out.empty()) out += ", ";
    out += Text(Get(o, "kind"));
    out += ' ';
    if (!ns.empty()) out += ns + "/";
    out += Text(Get(o, "name"));
  }
  return out;
}

// Findings per check, one bar per severity: where the upgrade would hurt, at a glance.
std::string FindingsChart(const Json& doc) {
  std::vector<std::string> checks;
  std::map<std::string, std::array<double, 3>> counts;
  for (const Json& f : Items(Get(doc, "findings"))) {
    const std::string id = Text(Get(f, "id"));
    if (counts.count(id) == 0) {
      checks.push_back(id);
      counts[id] = {0, 0, 0};
    }
    for (size_t s = 0; s < kSeverities.size(); ++s)
      if (Text(Get(f, "severity")) == kSeverities[s]) counts[id][s] += 1;
  }
  BarChart chart;
  chart.title = "Findings per check, by severity";
  chart.y_label = "findings";
  chart.groups = checks;
  // Severity colours: critical is the failure red; the others are not.
  chart.colors = {CauseColor("oom"), SeriesColor(1), SeriesColor(0)};
  for (size_t s = 0; s < kSeverities.size(); ++s) {
    chart.series.push_back(kSeverities[s]);
    std::vector<double> values;
    for (const std::string& id : checks) values.push_back(counts[id][s]);
    chart.values.push_back(std::move(values));
  }
  return "<figure>" + RenderBarChart(chart) + "</figure>\n";
}

std::string Findings(const Json& doc) {
  std::string out;
  for (const char* severity : kSeverities) {
    Table t;
    t.Head({"check", "objects", "finding", "if isolation were enforced"});
    for (const Json& f : Items(Get(doc, "findings"))) {
      if (Text(Get(f, "severity")) != severity) continue;
      std::string consequence = Text(Get(f, "consequence"));
      if (const std::string kind = Text(Get(f, "consequence_kind")); !kind.empty())
        consequence += " (" + kind + ")";
      if (const std::string skipped = Text(Get(f, "skipped")); !skipped.empty())
        consequence += (consequence.empty() ? "" : "; ") + std::string("skipped: ") + skipped;
      t.Row()
          .Cell(Text(Get(f, "id")), std::string(severity) == "critical" ? "bad" : "")
          .Cell(Objects(f))
          .Cell(Text(Get(f, "message")))
          .Cell(consequence);
    }
    if (t.empty()) continue;
    out += "<h3>" + std::string(severity) + "</h3>\n<div class=\"wide\">" + t.Render() + "</div>\n";
  }
  return out.empty() ? "<p>No finding: nothing the checks look for would break.</p>\n" : out;
}

}  // namespace

std::string CheckPageBody(const Json& doc) {
  const Json* summary = Get(doc, "summary");
  const double critical = Number(Get(summary, "critical"));
  std::string out = "<h1>Pre-upgrade check: " + HtmlEscape(Text(Get(doc, "source"))) + "</h1>\n";
  out += "<p class=\"meta\">" + HtmlEscape(std::string(kCheckSchema)) + " \xC2\xB7 knobsim " +
         HtmlEscape(Text(Get(doc, "knobsim_version"))) + " \xC2\xB7 from " +
         HtmlEscape(Text(Get(doc, "origin"))) + "</p>\n";
  out += std::string("<section id=\"verdict\"><h2>Verdict</h2>\n<div class=\"verdict ") +
         (critical > 0 ? "bad" : "ok") + "\"><h3>" +
         HtmlEscape(Count(critical) + " critical, " + Count(Number(Get(summary, "warning"))) +
                    " warning, " + Count(Number(Get(summary, "info"))) + " info") +
         "</h3>\n<p>" +
         HtmlEscape(critical > 0 ? "Something breaks when the upgrade enforces memory isolation: "
                                   "fix the critical findings first."
                                 : "Nothing critical: the upgrade breaks none of what the checks "
                                   "look for.") +
         "</p></div>\n";
  if (const std::string note = Text(Get(doc, "consequence_note")); !note.empty())
    out += "<p class=\"meta\">Consequences: " + HtmlEscape(note) + "</p>\n";
  out += "</section>\n";
  if (!Items(Get(doc, "findings")).empty()) {
    out += "<section id=\"findings\"><h2>Findings</h2>\n" + FindingsChart(doc) + Findings(doc) +
           "</section>\n";
  } else {
    out += "<section id=\"findings\"><h2>Findings</h2>\n" + Findings(doc) + "</section>\n";
  }
  std::string warnings;
  for (const Json& w : Items(Get(doc, "warnings")))
    warnings += "<li>" + HtmlEscape(Text(&w)) + "</li>\n";
  if (!warnings.empty())
    out += "<section id=\"warnings\"><h2>Warnings</h2>\n<ul>\n" + warnings + "</ul>\n</section>\n";
  return out;
}

}  // namespace knobsim::report
