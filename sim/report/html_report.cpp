#include "sim/report/html_report.h"

#include "sim/io/results_json.h"
#include "sim/report/backtest_page.h"
#include "sim/report/check_page.h"
#include "sim/report/diff_page.h"
#include "sim/report/html_parts.h"
#include "sim/report/plan_page.h"
#include "sim/report/results_page.h"
#include "sim/report/svg_chart.h"
#include "sim/report/timeline_charts.h"
#include "sim/report/upgrade_page.h"

namespace knobsim {

namespace {

using report::Json;

constexpr std::string_view kPlanSchema = "knobsim.plan/v1";

// Plain, print-friendly styling; system fonts only (a web font would be an external URL).
constexpr std::string_view kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
       color: #222; background: #fff; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 28px 40px; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.meta { color: #666; margin: 2px 0; }
.warn { background: #fff4e5; border-left: 4px solid #e67e22; padding: 6px 10px; }
ul.recs { padding-left: 18px; } ul.recs li { margin: 6px 0; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
thead th { background: #f3f5f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.ok { color: #1e7b34; } td.bad { color: #b03a2e; font-weight: 600; } td.na { color: #999; }
table.settings th { background: #f8f9fa; font-weight: normal; color: #444; }
.wide { overflow-x: auto; }
figure { margin: 12px 0 20px; overflow-x: auto; }
figcaption { color: #555; font-size: 13px; max-width: 760px; }
svg.chart { display: block; background: #fff; }
figure.pair { display: flex; flex-wrap: wrap; gap: 8px; }
.verdict { border: 1px solid #ddd; border-left-width: 5px; padding: 4px 12px; margin: 10px 0; }
.verdict.ok { border-left-color: #2e9e4f; } .verdict.bad { border-left-color: #c0392b; }
.verdict li.old { color: #666; }
.kind { display: inline-block; min-width: 86px; font-weight: 600; }
pre { background: #f5f5f5; padding: 8px 12px; overflow-x: auto; white-space: pre-wrap; }
details summary { cursor: pointer; margin: 8px 0; }
footer { color: #888; font-size: 12px; margin-top: 36px; }
)css";

std::string Page(const std::string& title, const std::string& schema, const std::string& body) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + report::HtmlEscape(title) + "</title>\n<style>" + std::string(kStyle) +
         "</style>\n";
  out += "</head>\n<body>\n<main>\n" + body;
  out += "<footer>Written by knobsim report from a " + report::HtmlEscape(schema) +
         " document. This page has no scripts and loads nothing: it reads the same "
         "offline.</footer>\n";
  out += "</main>\n</body>\n</html>\n";
  return out;
}

bool IsArray(const Json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_array();
}

}  // namespace

Expected<std::string> RenderReport(const nlohmann::ordered_json& doc) {
  const auto schema_it = doc.is_object() ? doc.find("schema") : doc.end();
  const std::string schema = doc.is_object() && schema_it != doc.end() && schema_it->is_string()
                                 ? schema_it->get<std::string>()
                                 : "";
  auto fail = [](std::string message) { return InputError{"", 0, "", std::move(message), ""}; };
  const std::string scenario = report::Text(report::Get(doc, "scenario"));
  if (schema == kPlanSchema) {
    if (!IsArray(doc, "options"))
      return fail("not a valid knobsim.plan/v1 document: \"options\" is not an array");
    return Page("knobsim plan: " + scenario, schema, report::PlanPageBody(doc));
  }
  if (schema == report::kBacktestSchema) {
    if (!IsArray(doc, "cards"))
      return fail("not a valid knobsim.backtest/v1 document: \"cards\" is not an array");
    return Page("knobsim backtest", schema, report::BacktestPageBody(doc));
  }
  if (schema == report::kCheckSchema) {
    if (!IsArray(doc, "findings"))
      return fail("not a valid knobsim.check/v1 document: \"findings\" is not an array");
    return Page("knobsim check: " + report::Text(report::Get(doc, "source")), schema,
                report::CheckPageBody(doc));
  }
  if (schema == report::kDiffSchema) {
    if (!IsArray(doc, "rows"))
      return fail("not a valid knobsim.diff/v1 document: \"rows\" is not an array");
    return Page("knobsim diff", schema, report::DiffPageBody(doc));
  }
  if (schema == kResultsSchema) {
    if (!IsArray(doc, "variants")) {
      return fail("not a valid knobsim.results/v1 document: \"variants\" is not an array");
    }
    // `knobsim upgrade` documents: the results page, then the rehearsal's own sections.
    // Variants with a timeline and no rehearsal (`--timeline`, an upgrade's base): over time.
    if (report::HasUpgradeSections(doc)) {
      return Page("knobsim upgrade: " + scenario, schema,
                  report::ResultsPageBody(doc) + report::UpgradePageSections(doc) +
                      report::TimelineSections(doc));
    }
    return Page("knobsim results: " + scenario, schema,
                report::ResultsPageBody(doc) + report::TimelineSections(doc));
  }
  return fail(schema.empty()
                  ? "not a knobsim results document (no \"schema\" field)"
                  : "not a knobsim results document (schema \"" + schema + "\"; expected " +
                        std::string(kResultsSchema) + ", " + std::string(kPlanSchema) + ", " +
                        std::string(report::kBacktestSchema) + ", " +
                        std::string(report::kCheckSchema) + " or " +
                        std::string(report::kDiffSchema) + ")");
}

Status WriteReportFile(const nlohmann::ordered_json& doc, const std::string& path) {
  const Expected<std::string> html = RenderReport(doc);
  if (!html) return Status::Failure(html.error().message);
  return WriteFileAtomically(path, *html);
}

}  // namespace knobsim
