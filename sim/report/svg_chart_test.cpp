#include "sim/report/svg_chart.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace knobsim::report {
namespace {

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++n;
  return n;
}

TEST_CASE("HtmlEscape turns markup into entities and leaves no URL scheme in the source") {
  CHECK(HtmlEscape("<b>&\"'") == "&lt;b&gt;&amp;&quot;&#39;");
  CHECK(HtmlEscape("https://example.com/x") == "https&#58;//example.com/x");
  CHECK(HtmlEscape("ai/ocr") == "ai/ocr");
  CHECK(HtmlEscape("1.5\xC3\x97 traffic") == "1.5\xC3\x97 traffic");  // valid UTF-8 kept
}

TEST_CASE("HtmlEscape replaces invalid UTF-8 and control bytes with U+FFFD") {
  CHECK(HtmlEscape("a\xFF"
                   "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(HtmlEscape("\xC3") == "\xEF\xBF\xBD");                  // truncated sequence
  CHECK(HtmlEscape("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  CHECK(HtmlEscape(std::string("a\0b", 3)) ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(HtmlEscape("a\tb\nc") == "a\tb\nc");
}

TEST_CASE("NiceTicks covers the range in steps of 1, 2 or 5 times a power of ten") {
  const std::vector<double> ratio = NiceTicks(0, 0.93);
  REQUIRE(ratio.size() == 6);
  for (size_t i = 0; i < ratio.size(); ++i)
    CHECK(ratio[i] == doctest::Approx(0.2 * static_cast<double>(i)));
  const std::vector<double> cost = NiceTicks(2703.2, 7300);
  CHECK(cost.front() == 2000);
  CHECK(cost.back() == 8000);
  CHECK(cost.size() == 7);
  const std::vector<double> one = NiceTicks(3, 3);  // a single value gets a range around it
  CHECK(one.front() < 3);
  CHECK(one.back() > 3);
  CHECK(NiceTicks(NAN, 1) == std::vector<double>{0, 1});
}

TEST_CASE("tick labels carry as many decimals as the step needs") {
  CHECK(TickLabel(0.6000000000000001, 0.2) == "0.6");
  CHECK(TickLabel(1500, 500) == "1500");
  CHECK(TickLabel(-1e-17, 0.2) == "0.0");
  CHECK(TickLabel(0.05, 0.01) == "0.05");
}

TEST_CASE("an x/y chart draws one mark per finite point and one per joined line") {
  XYChart chart;
  chart.title = "cost against p99";
  XYSeries frontier;
  frontier.name = "frontier";
  frontier.points = {{1000, 0.9}, {2000, 0.7}, {3000, 0.6}};
  XYSeries others;
  others.name = "dominated";
  others.joined = false;
  others.muted = true;
  others.points = {{2500, 0.95}, {NAN, 0.5}, {2600, INFINITY}};
  chart.series = {frontier, others};
  chart.y_reference = 1;
  const std::string svg = RenderXYChart(chart);
  CHECK(svg.rfind("<svg class=\"chart\"", 0) == 0);
  CHECK(Count(svg, "class=\"mark point\"") == 4);
  CHECK(Count(svg, "class=\"mark line\"") == 1);
  CHECK(svg.find("stroke-dasharray") != std::string::npos);  // the reference line
  CHECK(svg.find("xmlns") == std::string::npos);
  CHECK(svg == RenderXYChart(chart));
}

TEST_CASE("the legend names only the series that have something drawn") {
  XYChart chart;
  XYSeries drawn, empty;
  drawn.name = "frontier";
  drawn.points = {{1, 1}};
  empty.name = "dominated options";
  empty.points = {{NAN, 1}};
  chart.series = {drawn, empty};
  const std::string svg = RenderXYChart(chart);
  CHECK(svg.find(">frontier<") != std::string::npos);
  CHECK(svg.find("dominated options") == std::string::npos);
}

TEST_CASE("a chart with nothing finite to draw says so instead of drawing an empty frame") {
  XYChart chart;
  chart.title = "empty";
  XYSeries s;
  s.points = {{NAN, 1}};
  chart.series = {s};
  const std::string svg = RenderXYChart(chart);
  CHECK(svg.find("class=\"chart no-data\"") != std::string::npos);
  CHECK(svg.find("class=\"mark") == std::string::npos);
  CHECK(RenderBarChart(BarChart{}).find("no-data") != std::string::npos);
  CHECK(RenderHeatMap(HeatMap{}).find("no-data") != std::string::npos);
}

TEST_CASE("a bar chart draws one bar per finite value and marks the missing ones n/a") {
  BarChart chart;
  chart.title = "p99";
  chart.groups = {"ai/ocr", "ai/asr", "search/embed"};
  chart.series = {"base", "policy=3"};
  chart.values = {{120, 300, 20}, {150, NAN, 25}};
  const std::string svg = RenderBarChart(chart);
  CHECK(Count(svg, "class=\"mark bar\"") == 5);
  CHECK(Count(svg, ">n/a<") == 1);
}

TEST_CASE("a failed bar is drawn full height, outlined, never short and never n/a") {
  BarChart c;
  c.groups = {"ai/ocr", "ai/asr"};
  c.series = {"base", "incident"};
  c.values = {{120, 300}, {NAN, 250}};
  c.failed = {{false, false}, {true, false}};
  const std::string svg = RenderBarChart(c);
  CHECK(Count(svg, "class=\"mark bar failed\"") == 1);
  CHECK(Count(svg, "class=\"mark bar\"") == 3);
  CHECK(Count(svg, ">n/a<") == 0);
  // Full height: from the top of the plot (y 36) to the axis (276).
  CHECK(svg.find("class=\"mark bar failed\" x=\"") != std::string::npos);
  CHECK(svg.find("y=\"36.0\" width=") != std::string::npos);
  CHECK(svg.find("height=\"240.0\" fill=\"#fff\"") != std::string::npos);
  CHECK(svg.find("ai/ocr, incident&#58; failed") != std::string::npos);
  // Only failures: still a chart, not "no data".
  c.values = {{NAN, NAN}, {NAN, NAN}};
  c.failed = {{true, true}, {true, true}};
  const std::string all = RenderBarChart(c);
  CHECK(all.find("no-data") == std::string::npos);
  CHECK(Count(all, "class=\"mark bar failed\"") == 4);
}

TEST_CASE("a bar chart draws each group's objective across its bars, in the axis range") {
  BarChart c;
  c.groups = {"ai/ocr", "ai/asr", "ai/embed"};
  c.series = {"base"};
  c.values = {{120, 300, 40}};
  c.group_reference = {200, NAN, 1000};  // asr has none; embed's is above every bar
  c.reference_label = "SLO latency (p99)";
  const std::string svg = RenderBarChart(c);
  CHECK(Count(svg, "class=\"reference slo\"") == 2);
  CHECK(svg.find("ai/embed&#58; SLO latency (p99) 1000") != std::string::npos);
  CHECK(svg.find(">1000<") != std::string::npos);  // the axis reaches the highest objective
  CHECK(svg.find("data-series=\"SLO latency (p99)\"") != std::string::npos);
}

TEST_CASE("no series colour is red; causes keep one colour each") {
  for (size_t i = 0; i < 8; ++i) {
    const std::string& c = SeriesColor(i);
    CAPTURE(c);
    const double r = std::stoi(c.substr(1, 2), nullptr, 16),
                 g = std::stoi(c.substr(3, 2), nullptr, 16),
                 b = std::stoi(c.substr(5, 2), nullptr, 16);
    // Red reads as failure: a saturated colour of hue within 20 degrees of red (as
    // tools/report-check/check_dom.py judges it).
    const double hi = std::max({r, g, b}), lo = std::min({r, g, b});
    const bool saturated = hi > 0 && (hi - lo) / hi >= 0.35;
    const double hue = hi == r && hi > lo ? 60 * (g - b) / (hi - lo) : 180;
    CHECK_FALSE((saturated && hue >= -20 && hue <= 20));
    for (size_t j = 0; j < i; ++j) CHECK(SeriesColor(j) != c);
  }
  CHECK(CauseColor("oom") == CauseColor("oom"));
  CHECK(CauseColor("oom") != CauseColor("timeout"));
  CHECK(CauseColor("no_replica") != CauseColor("fake_ready"));
}

TEST_CASE("a long legend name wraps onto lines and is never cut") {
  XYChart c;
  XYSeries s;
  s.name = "fix-quotas-then-upgrade-with-a-very-long-variant-name/that keeps going past any width";
  s.points = {{0, 1}, {1, 2}};
  c.series = {s};
  const std::string svg = RenderXYChart(c);
  CHECK(svg.find("\xE2\x80\xA6") == std::string::npos);  // no ellipsis
  CHECK(Count(svg, "<tspan") >= 2);
  CHECK(svg.find("fix-quotas-then-upgrade-with-a-very-long-variant-name/") != std::string::npos);
  CHECK(svg.find("that keeps going past any width") != std::string::npos);
}

TEST_CASE("a heat map's column names (variants) are written whole, the chart widened for them") {
  HeatMap m;
  m.columns = {"base", "fix-quotas-then-upgrade-and-raise-every-replica-count-by-two"};
  m.rows = {"gpu-0/0"};
  m.values = {{0.5, 0.7}};
  const std::string svg = RenderHeatMap(m);
  CHECK(svg.find(">fix-quotas-then-upgrade-and-raise-every-replica-count-by-two<") !=
        std::string::npos);
  CHECK(svg.find("\xE2\x80\xA6") == std::string::npos);
  // 60 characters slanted at 35 degrees reach about 325 px right of their column.
  const size_t w = svg.find("width=\"");
  CHECK(std::stod(svg.substr(w + 7)) > 480);
}

TEST_CASE("emphasized points are drawn after every other series, never under them") {
  XYChart c;
  XYSeries best, other;
  best.name = "recommended";
  best.emphasized = true;
  best.joined = false;
  best.points = {{1, 1}};
  other.name = "dominated";
  other.joined = false;
  other.points = {{1, 1}};
  c.series = {best, other};
  const std::string svg = RenderXYChart(c);
  CHECK(svg.find("recommended (1, 1)") > svg.find("dominated (1, 1)"));
}

TEST_CASE("a heat map draws one cell per finite value, darker when busier") {
  HeatMap map;
  map.title = "busy";
  map.rows = {"node-0", "node-1"};
  map.columns = {"card 0", "card 1"};
  map.values = {{0.0, 1.0}, {0.5, NAN}};
  const std::string svg = RenderHeatMap(map);
  CHECK(Count(svg, "class=\"mark cell\"") == 3);
  CHECK(svg.find("fill=\"#f7fbff\"><title>node-0, card 0") != std::string::npos);  // idle: white
  CHECK(svg.find("fill=\"#08306b\"><title>node-0, card 1") != std::string::npos);  // always busy
  CHECK(svg.find(">100%<") != std::string::npos);
}

TEST_CASE("every text in a chart is escaped") {
  XYChart chart;
  chart.title = "<script>alert(1)</script>";
  chart.x_label = "a & b";
  XYSeries s;
  s.name = "\"quoted\" http://x";
  s.points = {{1, 1}};
  chart.series = {s};
  const std::string svg = RenderXYChart(chart);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;") != std::string::npos);
  CHECK(svg.find("a &amp; b") != std::string::npos);
  CHECK(svg.find("http://") == std::string::npos);
  CHECK(svg.find("&quot;quoted&quot;") != std::string::npos);
}

}  // namespace
}  // namespace knobsim::report
