#include "sim/report/upgrade_page.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/io/timeline_json.h"
#include "sim/report/html_report.h"
#include "sim/upgrade/upgrade_json.h"
#include "sim/upgrade/upgrade_sample_test.h"

namespace knobsim {
namespace {

using report::Json;

Json UpgradeDocument(std::vector<UpgradeRun> runs = upgrade_sample::Comparison()) {
  Json doc;
  doc["schema"] = "knobsim.results/v1";
  doc["scenario"] = "cgpu-upgrade";
  doc["seed"] = 8;
  doc["replications"] = 1;
  Json variants = Json::array();
  // As ResultsToJson writes them: each variant with its run's timeline.
  for (const UpgradeRun& r : runs)
    variants.push_back(
        Json{{"name", r.name}, {"description", "d"}, {"timeline", TimelineToJson(r.run)}});
  doc["variants"] = variants;
  return AddUpgradeSections(doc, runs, upgrade_sample::Options(),
                            "knobsim upgrade s.yaml --compare");
}

size_t CountOf(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

// The <svg> element whose <title> is `title`.
std::string Chart(const std::string& html, const std::string& title) {
  const size_t t = html.find("<title>" + title + "</title>");
  if (t == std::string::npos) return "";
  const size_t start = html.rfind("<svg", t);
  return html.substr(start, html.find("</svg>", t) + 6 - start);
}

TEST_CASE("an upgrade document gets the results page plus a summary and four charts per variant") {
  const std::string html = RenderReport(UpgradeDocument()).value();
  CHECK(html.find("<title>knobsim upgrade&#58; cgpu-upgrade</title>") != std::string::npos);
  CHECK(html.find("<section id=\"verdict\">") != std::string::npos);  // the results page first
  CHECK(html.find("<section id=\"upgrade\">") < html.find("<section id=\"upgrade-0\">"));
  CHECK(html.find("<section id=\"upgrade-1\">") != std::string::npos);
  // 1 from the results page (p99 bars, empty: the hand-made document has no workload results,
  // and no card, so no utilization map), 4 per variant.
  CHECK(CountOf(html, "<svg class=\"chart") == 1 + 2 * 4);
  CHECK(CountOf(html, "no-data") == 1);
  CHECK(html.find("upgrade-first&#58; errors per step") != std::string::npos);
  CHECK(html.find("all causes (none failed)") != std::string::npos);  // fix-quotas-first
  // upgrade-first finished, but asr had no replica on the way: an outage, not a green finish.
  CHECK(html.find("ai/asr no replica for 0&#58;03&#58;00 (720 requests found none)") !=
        std::string::npos);
  CHECK(html.find("<td class=\"bad\">finished in") != std::string::npos);
  CHECK(html.find("with an outage") != std::string::npos);
}

TEST_CASE("the Gantt chart draws each node's drain, reset and return, and the PDB-blocked span") {
  const std::string html = RenderReport(UpgradeDocument()).value();
  const std::string gantt = Chart(html, "upgrade-first&#58; node timeline");
  REQUIRE_FALSE(gantt.empty());
  // gpu-1: draining, reset, back; cpu-1: the same and one blocked span.
  CHECK(CountOf(gantt, "class=\"mark\"") == 7);
  CHECK(gantt.find("gpu-1&#58; draining t+01&#58;00 to t+01&#58;05") != std::string::npos);
  CHECK(gantt.find("cpu-1&#58; down for the reset t+05&#58;01 to t+08&#58;00") !=
        std::string::npos);
  CHECK(gantt.find("infra/etcd-0 refused 12 times by infra/etcd") != std::string::npos);
}

TEST_CASE("a drain that timed out is drawn as given up, and an open reset runs to the end") {
  std::vector<UpgradeRun> runs = {upgrade_sample::Variant(false)};
  NodeUpgrade& cpu = runs[0].upgrade.nodes[1];
  cpu.steps = {{240 * upgrade_sample::S, "cordoned", "", ""},
               {540 * upgrade_sample::S, "drain-timeout", "", ""},
               {540 * upgrade_sample::S, "uncordoned", "", ""},
               {550 * upgrade_sample::S, "cordoned", "", ""},
               {560 * upgrade_sample::S, "drained", "", ""}};
  cpu.back = -1;
  runs[0].upgrade.finished = -1;
  const std::string html = RenderReport(UpgradeDocument(runs)).value();
  const std::string gantt = Chart(html, "upgrade-first&#58; node timeline");
  CHECK(gantt.find("cpu-1&#58; drain given up t+04&#58;00 to t+09&#58;00") != std::string::npos);
  CHECK(gantt.find("cpu-1&#58; down for the reset t+09&#58;20 to t+10&#58;00") !=
        std::string::npos);
  CHECK(html.find("not finished&#58; cpu-1 upgraded") == std::string::npos);
  CHECK(html.find("<td class=\"bad\">not finished</td>") != std::string::npos);
}

TEST_CASE("a results document without upgrade sections renders as before") {
  Json doc = UpgradeDocument();
  for (Json& v : doc["variants"]) {
    v.erase("upgrade");
    v.erase("timeline");
  }
  CHECK_FALSE(report::HasUpgradeSections(doc));
  CHECK(report::UpgradePageSections(doc).empty());
  const std::string html = RenderReport(doc).value();
  CHECK(html.find("<title>knobsim results&#58; cgpu-upgrade</title>") != std::string::npos);
  CHECK(html.find("id=\"upgrade") == std::string::npos);
}

TEST_CASE("names from the document are escaped and odd shapes leave gaps, not crashes") {
  std::vector<UpgradeRun> runs = {upgrade_sample::Variant(false)};
  runs[0].upgrade.nodes[0].node = "<b>node</b>";
  const std::string html = RenderReport(UpgradeDocument(runs)).value();
  CHECK(html.find("<b>node</b>") == std::string::npos);
  CHECK(html.find("&lt;b&gt;node&lt;/b&gt;") != std::string::npos);

  Json odd = UpgradeDocument();
  odd["variants"][0]["upgrade"]["nodes"] = "not an array";
  odd["variants"][0]["timeline"] = 3;
  odd["variants"][1]["upgrade"]["blocked"][0]["from_s"] = nullptr;
  const Expected<std::string> rendered = RenderReport(odd);
  REQUIRE(rendered);
  const std::string& page = *rendered;
  CHECK(page.find("no node was upgraded") != std::string::npos);
}

}  // namespace
}  // namespace knobsim
