// Charts as inline SVG: the pictures of the HTML report (html_report.h), drawn by knobsim itself
// so that the page needs no JavaScript, no chart library and no network.
//
// Three kinds: an x/y chart (lines and scatter, with axes and ticks), a grouped bar chart and a
// heat map. Each returns one `<svg class="chart">` element for an HTML5 page (no xmlns: inline
// SVG in HTML needs none). Every drawn data element carries class "mark", so a checker can count
// what a chart shows (tools/report-check); a chart with nothing to draw is written as
// `<svg class="chart no-data">` with a note, never as an empty frame that looks like a bug.
//
// Every text that reaches the SVG (titles, labels, legend names) is escaped with HtmlEscape.
// Output is a pure function of the input: coordinates are printed with fixed precision.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim::report {

// `text` safe inside HTML or SVG text and attribute values: & < > " ' become entities, and ':'
// becomes &#58; so that no text taken from a document (a price source, a scenario name) ever
// reads as a URL scheme in the page's source. Browsers show the text unchanged. Bytes that are
// not valid UTF-8 become U+FFFD.
std::string HtmlEscape(std::string_view text);

// Tick positions for an axis over [lo, hi]: about `target` "nice" values (1, 2 or 5 × 10^k
// apart) covering the range. lo == hi gives a range around that value.
std::vector<double> NiceTicks(double lo, double hi, int target = 5);

// A tick label: as few decimals as the tick step needs (step 0.25 → "0.25", step 500 → "1500").
std::string TickLabel(double value, double step);

// Eight distinguishable colours for series (variants), in order: Tableau 10 without red and
// pink, which read as failure and belong to the causes.
const std::string& SeriesColor(size_t index);

// The colour of a failure cause (oom, fake_ready, no_replica, interrupted, timeout; grey for
// any other), the same on every chart of a page.
const std::string& CauseColor(std::string_view cause);

struct Point {
  double x = 0;
  double y = 0;
};

struct XYSeries {
  std::string name;           // legend entry; empty: not in the legend
  std::vector<Point> points;  // non-finite coordinates are skipped
  bool joined = true;         // a line through the points in the given order, plus markers
  bool muted = false;         // grey and behind the others (e.g. options off the frontier)
  bool emphasized = false;    // larger ringed markers (e.g. the recommended option)
  std::string color;          // empty: SeriesColor(index among the non-muted series)
};

struct XYChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<XYSeries> series;
  // A dashed horizontal line (e.g. p99/SLO = 1, where the SLO is just met); NaN: none.
  double y_reference = std::numeric_limits<double>::quiet_NaN();
  std::string reference_label;
  bool y_from_zero = true;  // the y axis starts at 0 (ratios and latencies read honestly)
  // The y axis reaches at least this (NaN: the data decide): charts compared side by side share
  // one scale.
  double y_max = std::numeric_limits<double>::quiet_NaN();
  bool small = false;  // half width: one of several small charts side by side
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> groups;  // along x (e.g. workloads)
  std::vector<std::string> series;  // one bar per group each (e.g. variants), in legend order
  std::vector<std::vector<double>> values;  // [series][group]; NaN: no bar, "n/a" written
  std::vector<std::string> colors;          // per series; empty or missing: SeriesColor(index)
  // [series][group] true: that bar's outcome is a failure with no value to show (every request
  // failed): drawn full height, outlined and labelled `failed_label`, never as a short bar.
  std::vector<std::vector<bool>> failed;
  std::string failed_label = "failed";
  // Per group, an objective drawn as a dashed line across the group's bars (e.g. the workload's
  // SLO latency); NaN or missing: none.
  std::vector<double> group_reference;
  std::string reference_label = "SLO";
};

struct HeatMap {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> columns;
  std::vector<std::string> rows;
  std::vector<std::vector<double>> values;  // [row][column] in 0..1 (clamped); NaN: empty cell
  std::string value_label = "busy";         // what the colour scale shows
};

std::string RenderXYChart(const XYChart& chart);
std::string RenderBarChart(const BarChart& chart);
std::string RenderHeatMap(const HeatMap& chart);

}  // namespace knobsim::report
