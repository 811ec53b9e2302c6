// End-to-end tests of `knobsim report` on the real binary: a run document made by `knobsim
// run` in the test and the hand-made plan document (testdata/plan-sample.json) become pages that
// say the recommendation, draw one chart per expected figure, load nothing from the network and
// escape every name; bad input exits 2 and leaves no file.
#include <doctest/doctest.h>

#include <filesystem>

#include <cstdio>
#include <fstream>
#include <string>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void CheckSelfContained(const std::string& html) {
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("//cdn") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("no-data") == std::string::npos);  // every chart has something to draw
}

TEST_CASE("the plan fixture becomes a page with its recommendations, frontiers and heat maps") {
  const std::string out = TempPath("plan.html");
  const Outcome o = Run("report " + QuotedSourcePath("tools/knobsim/testdata/plan-sample.json") +
                        " -o '" + out + "'");
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.empty());
  const std::string html = ReadFile(out);
  std::remove(out.c_str());
  const json plan = json::parse(ReadFile(SourcePath("tools/knobsim/testdata/plan-sample.json")));
  const size_t levels = plan.at("traffic_levels").size();
  REQUIRE(levels == 3);
  // Each recommendation in words (the fixture's text has ':' and '(' that the page escapes).
  CHECK(html.find(
            "At 1x traffic&#58; 4 nodes of ecs.gn7i-c8g1.2xlarge (A10), POLICY 5, binpack, 2 pods "
            "per card, spot, 2703.20 USD/month; ai/ocr binds (p99 165.6 ms of 200 ms).") !=
        std::string::npos);
  for (const json& r : plan.at("recommendations"))
    CHECK(html.find(r.at("option").get<std::string>()) != std::string::npos);
  // A frontier per traffic level, one p99-against-traffic chart, a heat map per recommendation.
  CHECK(Count(html, "<svg class=\"chart\"") == levels + 1 + levels);
  CHECK(html.find("monthly cost (USD)") != std::string::npos);
  CHECK(html.find("The prices are examples") != std::string::npos);
  CHECK(html.find("x2/A10/p3/binpack/spot (max nodes 6 reached)") != std::string::npos);
  // The command that reproduces it.
  CHECK(html.find("knobsim plan scenarios/capacity-plan.yaml --traffic 1,1.5,2") !=
        std::string::npos);
  CheckSelfContained(html);
}

TEST_CASE("a run document becomes a page with the variants side by side") {
  const std::string doc = TempPath("run.json"), out = TempPath("run.html");
  const Outcome run = Run("run " + QuotedSourcePath("scenarios/quickstart.yaml") +
                          " --all --duration 10m --quiet --json '" + doc + "'");
  INFO("knobsim run: ", run.err);
  REQUIRE((run.exit_code == 0 || run.exit_code == 1));
  const json results = json::parse(ReadFile(doc));
  const Outcome o = Run("report '" + doc + "' -o '" + out + "'");
  REQUIRE(o.exit_code == 0);
  const std::string html = ReadFile(out);
  std::remove(doc.c_str());
  std::remove(out.c_str());
  // p99 per variant, and per variant its cards' busy shaped like its cluster (node × card).
  CHECK(Count(html, "<svg class=\"chart\"") == 1 + results.at("variants").size());
  for (const json& v : results.at("variants")) {
    CHECK(html.find("<h3>" + v.at("name").get<std::string>() + "</h3>") != std::string::npos);
  }
  for (const json& w : results.at("variants").at(0).at("workloads")) {
    CHECK(html.find(w.at("id").get<std::string>()) != std::string::npos);
  }
  CHECK(html.find("every SLO met") != std::string::npos);  // the base's verdict
  CheckSelfContained(html);
}

TEST_CASE("names from the document are escaped in the page") {
  json plan = json::parse(ReadFile(SourcePath("tools/knobsim/testdata/plan-sample.json")));
  for (json& o : plan.at("options")) o.at("workloads").at(0).at("name") = "<b>o&c</b>";
  plan.at("recommendations").at(0).at("text") = "use <img src=x>";
  const std::string doc = TempPath("crafted.json"), out = TempPath("crafted.html");
  WriteText(doc, plan.dump());
  const Outcome o = Run("report '" + doc + "' -o '" + out + "'");
  REQUIRE(o.exit_code == 0);
  const std::string html = ReadFile(out);
  std::remove(doc.c_str());
  std::remove(out.c_str());
  CHECK(html.find("<b>o&c</b>") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("ai/&lt;b&gt;o&amp;c&lt;/b&gt;") != std::string::npos);
  CHECK(html.find("use &lt;img src=x&gt;") != std::string::npos);
}

TEST_CASE("bad input exits 2 with the file named, and writes nothing") {
  const std::string out = TempPath("bad.html");
  const std::string broken = TempPath("broken.json"), other = TempPath("other.json");
  WriteText(broken, "{\n  \"schema\": \"knobsim.plan/v1\",\n  \"options\": [1, 2,]\n}\n");
  WriteText(other, "{\"schema\": \"knobsim.replay/v1\"}");

  Outcome o = Run("report '" + broken + "' -o '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("knobsim: " + broken + ":3: invalid JSON at byte") != std::string::npos);

  o = Run("report '" + other + "' -o '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(other + ": not a knobsim results document") != std::string::npos);

  o = Run("report '" + TempPath("missing.json") + "' -o '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("cannot read file") != std::string::npos);

  o = Run("report " + QuotedSourcePath("tools/knobsim/testdata/plan-sample.json") +
          " -o /nonexistent-dir/x.html");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find("/nonexistent-dir/x.html") != std::string::npos);

  o = Run("report '" + other + "'");  // -o is required
  CHECK(o.exit_code == 2);
  CHECK(!std::ifstream(out).good());
  std::remove(broken.c_str());
  std::remove(other.c_str());
}

TEST_CASE("report: results and plan documents are read by the JSON rule: file, line, field") {
  json plan = json::parse(ReadFile(SourcePath("tools/knobsim/testdata/plan-sample.json")));
  plan.at("options").at(1).at("workloads").at(0).at("slo_met") = "yes";
  const std::string doc = TempPath("typed.json"), out = TempPath("typed.html");
  WriteText(doc, plan.dump(1));
  Outcome o = Run("report '" + doc + "' -o '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK_MESSAGE(o.err.find(doc + ":") != std::string::npos, o.err);
  CHECK(o.err.find(": options[1].workloads[0].slo_met: \"yes\" is not true or false") !=
        std::string::npos);
  WriteText(doc,
            "{\"schema\": \"knobsim.results/v1\", \"scenario\": \"s\", \"seed\": 1,\n"
            " \"replications\": 1, \"duration_s\": 1e400, \"variants\": []}");
  o = Run("report '" + doc + "' -o '" + out + "'");
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(doc + ":2: \"1e400\" is out of range for a number") != std::string::npos);
  CHECK(o.err.find("json.exception") == std::string::npos);
  CHECK(!std::filesystem::exists(out));
  std::remove(doc.c_str());
}

TEST_CASE("report --help says what it renders") {
  const Outcome o = Run("report --help");
  CHECK(o.exit_code == 0);
  CHECK(o.out.find("self-contained HTML") != std::string::npos);
  CHECK(o.out.find("FILE.html") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::e2e
