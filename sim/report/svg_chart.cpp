#include "sim/report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "sim/text.h"

namespace knobsim::report {

namespace {

constexpr const char* kMutedColor = "#b8b8b8";
constexpr const char* kAxisColor = "#555";
constexpr const char* kGridColor = "#e4e4e4";
constexpr const char* kReferenceColor = "#c0392b";  // SLO lines and failed bars
constexpr double kCharWidth = 6.6;  // px per character of 12 px sans-serif, for layout only

// The length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  // The sequence length from the lead byte, and the smallest code point that needs it.
  const size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0) return 0;
  const uint32_t min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, UTF-16 surrogates and values past Unicode are not text.
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Characters in `s` (code points), for estimating how wide a label is drawn.
size_t TextLength(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

double TextWidth(std::string_view s) {
  return kCharWidth * static_cast<double>(TextLength(s));
}

// `s` cut to `max` characters, with an ellipsis when it was longer (whole code points only).
std::string Shorten(std::string_view s, size_t max) {
  if (TextLength(s) <= max) return std::string(s);
  size_t chars = 0, i = 0;
  while (i < s.size() && chars + 1 < max) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    ++chars;
  }
  return std::string(s.substr(0, i)) + "\xE2\x80\xA6";
}

std::string Num(double v) {
  if (std::abs(v) < 0.05) v = 0;  // never "-0.0"
  return fmt::format("{:.1f}", v);
}

// A linear map from a data range onto pixels.
struct Scale {
  double d0 = 0, d1 = 1, p0 = 0, p1 = 1;
  double operator()(double v) const {
    return d1 == d0 ? (p0 + p1) / 2 : p0 + (v - d0) / (d1 - d0) * (p1 - p0);
  }
};

std::string Text(double x, double y, std::string_view text, std::string_view attrs = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>", Num(x), Num(y),
                     attrs.empty() ? "" : " ", attrs, HtmlEscape(text));
}

std::string SvgOpen(double width, double height, std::string_view title, bool has_data) {
  return fmt::format(
      "<svg class=\"chart{}\" role=\"img\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\"><title>{}</title>\n",
      has_data ? "" : " no-data", Num(width), Num(height), Num(width), Num(height),
      HtmlEscape(title));
}

std::string TitleText(double width, std::string_view title) {
  return Text(width / 2, 20, title, "text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\"");
}

std::string NoData(double width, double height, std::string_view title) {
  return SvgOpen(width, height, title, false) + TitleText(width, title) +
         Text(width / 2, height / 2, "no data to draw", "text-anchor=\"middle\" fill=\"#777\"") +
         "</svg>\n";
}

// `s` in lines of at most `width` characters, broken after a space, '/', '-', ',' or '.' where
// one is near, else inside a word (whole code points only): long names wrap, never cut.
std::vector<std::string> WrapLines(std::string_view s, size_t width) {
  width = std::max<size_t>(width, 1);
  std::vector<std::string> lines;
  while (TextLength(s) > width) {
    size_t chars = 0, i = 0, cut = 0;
    while (i < s.size() && chars < width) {
      const char c = s[i];
      ++i;
      while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
      ++chars;
      if (c == ' ' || c == '/' || c == '-' || c == ',' || c == '.') cut = i;
    }
    if (cut < i / 2) cut = i;  // no break near the end of the line: break inside the word
    lines.emplace_back(s.substr(0, cut));
    s.remove_prefix(cut);
  }
  lines.emplace_back(s);
  return lines;
}

// Legend entries laid out left to right, wrapping; returns the SVG and sets *height. Each
// swatch names its series (data-series), so a checker can see that a name keeps its colour on
// every chart of a page (tools/report-check).
std::string Legend(const std::vector<std::pair<std::string, std::string>>& entries, double x0,
                   double y0, double width, double* height) {
  constexpr size_t kLine = 44;  // characters per legend line
  std::string out;
  double x = x0, y = y0, row_height = 18;
  for (const auto& [name, color] : entries) {
    const std::vector<std::string> lines = WrapLines(name, kLine);
    double longest = 0;
    for (const std::string& line : lines) longest = std::max(longest, TextWidth(line));
    const double w = 28 + longest + 14;
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += row_height;
      row_height = 18;
    }
    out += fmt::format(
        "<rect class=\"legend-swatch\" data-series=\"{}\" x=\"{}\" y=\"{}\" width=\"14\" "
        "height=\"10\" fill=\"{}\"/>",
        HtmlEscape(name), Num(x), Num(y - 9), color);
    out += fmt::format("<text x=\"{}\" y=\"{}\">", Num(x + 20), Num(y));
    for (size_t k = 0; k < lines.size(); ++k) {
      out += fmt::format("<tspan x=\"{}\" dy=\"{}\">{}</tspan>", Num(x + 20), k == 0 ? "0" : "15",
                         HtmlEscape(lines[k]));
    }
    out += "</text>\n";
    row_height = std::max(row_height, 18 + 15 * static_cast<double>(lines.size() - 1));
    x += w;
  }
  *height = entries.empty() ? 0 : y - y0 + row_height;
  return out;
}

// Axes with grid lines and tick labels for a plot area [left, right] × [top, bottom].
std::string Axes(const Scale& xs, const std::vector<double>& xticks, const Scale& ys,
                 const std::vector<double>& yticks, double left, double right, double top,
                 double bottom) {
  std::string out;
  const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
  for (double t : yticks) {
    const double y = ys(t);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", Num(left),
                       Num(y), Num(right), Num(y), kGridColor);
    out += Text(left - 6, y + 4, TickLabel(t, ystep), "text-anchor=\"end\"") + "\n";
  }
  if (!xticks.empty()) {
    const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
    for (double t : xticks) {
      const double x = xs(t);
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", Num(x),
                         Num(bottom), Num(x), Num(bottom + 5), kAxisColor);
      out += Text(x, bottom + 18, TickLabel(t, xstep), "text-anchor=\"middle\"") + "\n";
    }
  }
  out +=
      fmt::format("<polyline points=\"{},{} {},{} {},{}\" fill=\"none\" stroke=\"{}\"/>\n",
                  Num(left), Num(top), Num(left), Num(bottom), Num(right), Num(bottom), kAxisColor);
  return out;
}

std::string YLabel(double x, double y, std::string_view label) {
  return fmt::format(
      "<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n", Num(x),
      Num(y), HtmlEscape(label));
}

bool Finite(const Point& p) {
  return std::isfinite(p.x) && std::isfinite(p.y);
}

// Blues from nearly white (idle) to deep blue (always busy), five stops interpolated.
std::string HeatColor(double v) {
  static constexpr std::array<std::array<double, 3>, 5> kStops = {
      {{247, 251, 255}, {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 48, 107}}};
  v = std::clamp(v, 0.0, 1.0) * (kStops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(v), kStops.size() - 2);
  const double f = v - static_cast<double>(i);
  auto mix = [&](int c) {
    return static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

// A heat-map cell's share, whole percent, held to 0..100 %.
std::string CellPercent(double v) {
  return Percent(std::clamp(v, 0.0, 1.0), 0);
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD, as a browser would show the broken byte
      ++i;
      continue;
    }
    const char c = text[i];
    if (n > 1) {
      out.append(text.substr(i, n));
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&#39;";
    } else if (c == ':') {
      out += "&#58;";
    } else if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
      out += "\xEF\xBF\xBD";  // control characters are not HTML text
    } else {
      out += c;
    }
    i += n;
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  target = std::max(target, 2);
  const double rough = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(rough)));
  const double norm = rough / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const double first = std::floor(lo / step + 1e-9);
  const double last = std::ceil(hi / step - 1e-9);
  std::vector<double> ticks;
  for (double k = first; k <= last && ticks.size() < 50; k += 1) {
    const double t = k * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  if (ticks.size() < 2) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::string TickLabel(double value, double step) {
  const int decimals =
      step > 0 && std::isfinite(step)
          ? std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 9)
          : 2;
  if (std::abs(value) < std::abs(step) * 1e-9) value = 0;
  return fmt::format("{:.{}f}", value, decimals);
}

const std::string& SeriesColor(size_t index) {
  // No red and no pink: on a page about SLOs those read as failure, and they belong to the
  // failure causes (CauseColor).
  static const std::array<std::string, 8> kColors = {"#4e79a7", "#f28e2b", "#76b7b2", "#59a14f",
                                                     "#b07aa1", "#9c755f", "#edc948", "#8cd17d"};
  return kColors[index % kColors.size()];
}

const std::string& CauseColor(std::string_view cause) {
  static const std::string kOom = "#e15759", kFakeReady = "#ff9da7", kNoReplica = "#9d2e2e",
                           kInterrupted = "#b07aa1", kTimeout = "#f28e2b", kOther = "#777777";
  if (cause == "oom") return kOom;
  if (cause == "fake_ready") return kFakeReady;
  if (cause == "no_replica") return kNoReplica;
  if (cause == "interrupted") return kInterrupted;
  if (cause == "timeout") return kTimeout;
  return kOther;
}

std::string RenderXYChart(const XYChart& chart) {
  const double kWidth = chart.small ? 380 : 760, kLeft = chart.small ? 60 : 72, kTop = 36,
               kBottom = chart.small ? 196 : 296;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  size_t points = 0;
  for (const XYSeries& s : chart.series) {
    for (const Point& p : s.points) {
      if (!Finite(p)) continue;
      xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
      ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
      ++points;
    }
  }
  if (points == 0) return NoData(kWidth, 160, chart.title);
  if (std::isfinite(chart.y_reference)) {
    ymin = std::min(ymin, chart.y_reference), ymax = std::max(ymax, chart.y_reference);
  }
  if (chart.y_from_zero) ymin = std::min(ymin, 0.0);
  if (std::isfinite(chart.y_max)) ymax = std::max(ymax, chart.y_max);
  const std::vector<double> xticks = NiceTicks(xmin, xmax, chart.small ? 4 : 5);
  const std::vector<double> yticks = NiceTicks(ymin, ymax);
  // The last x tick's label is centred on the plot's right end: leave it room inside the chart.
  const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;
  const double kRight = kWidth - std::max(20.0, TextWidth(TickLabel(xticks.back(), xstep)) / 2 + 6);
  const Scale xs{xticks.front(), xticks.back(), kLeft, kRight};
  const Scale ys{yticks.front(), yticks.back(), kBottom, kTop};

  // Colours by position among the coloured series, so muted ones do not shift the palette.
  std::vector<std::string> colors;
  std::vector<std::pair<std::string, std::string>> legend;
  size_t colored = 0;
  for (const XYSeries& s : chart.series) {
    colors.push_back(s.muted ? kMutedColor : !s.color.empty() ? s.color : SeriesColor(colored));
    if (!s.muted) ++colored;
    const bool drawn = std::any_of(s.points.begin(), s.points.end(), Finite);
    if (!s.name.empty() && drawn) legend.emplace_back(s.name, colors.back());
  }
  double legend_height = 0;
  const std::string legend_svg =
      Legend(legend, kLeft, kBottom + 58, kRight - kLeft, &legend_height);
  const double height = kBottom + 48 + legend_height + 8;

  std::string out = SvgOpen(kWidth, height, chart.title, true);
  out += TitleText(kWidth, chart.title);
  out += Axes(xs, xticks, ys, yticks, kLeft, kRight, kTop, kBottom);
  out += Text((kLeft + kRight) / 2, kBottom + 38, chart.x_label, "text-anchor=\"middle\"");
  out += YLabel(18, (kTop + kBottom) / 2, chart.y_label);
  if (std::isfinite(chart.y_reference)) {
    const double y = ys(chart.y_reference);
    out += fmt::format(
        "<line class=\"reference\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-dasharray=\"6 4\"/>",
        Num(kLeft), Num(y), Num(kRight), Num(y), kReferenceColor);
    out += Text(kRight - 4, y - 5, chart.reference_label,
                fmt::format("text-anchor=\"end\" fill=\"{}\"", kReferenceColor)) +
           "\n";
  }
  // Muted series first, emphasized ones last, so nothing is drawn over what the chart points at.
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < chart.series.size(); ++i) {
      const XYSeries& s = chart.series[i];
      const int layer = s.muted ? 0 : s.emphasized ? 2 : 1;
      if (layer != pass) continue;
      std::vector<Point> pts;
      for (const Point& p : s.points)
        if (Finite(p)) pts.push_back(p);
      if (pts.empty()) continue;
      out += "<g>";
      if (s.joined && pts.size() > 1) {
        std::string line;
        for (const Point& p : pts)
          line += (line.empty() ? "" : " ") + Num(xs(p.x)) + "," + Num(ys(p.y));
        out += fmt::format(
            "<polyline class=\"mark line\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"2\"/>",
            line, colors[i]);
      }
      for (const Point& p : pts) {
        const std::string tip = fmt::format("{}{}({}, {})", s.name, s.name.empty() ? "" : " ",
                                            fmt::format("{:.4g}", p.x), fmt::format("{:.4g}", p.y));
        if (s.emphasized) {
          out += fmt::format(
              "<circle class=\"mark point\" cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"{}\" "
              "stroke=\"#222\" stroke-width=\"2\"><title>{}</title></circle>",
              Num(xs(p.x)), Num(ys(p.y)), colors[i], HtmlEscape(tip));
        } else {
          out += fmt::format(
              "<circle class=\"mark point\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\">"
              "<title>{}</title></circle>",
              Num(xs(p.x)), Num(ys(p.y)), s.muted ? "3.5" : "4", colors[i], HtmlEscape(tip));
        }
      }
      out += "</g>\n";
    }
  }
  out += legend_svg;
  out += "</svg>\n";
  return out;
}

std::string RenderBarChart(const BarChart& chart) {
  const size_t groups = chart.groups.size(), series = chart.series.size();
  auto value = [&](size_t s, size_t g) {
    return s < chart.values.size() && g < chart.values[s].size() ? chart.values[s][g] : NAN;
  };
  auto failed = [&](size_t s, size_t g) {
    return s < chart.failed.size() && g < chart.failed[s].size() && chart.failed[s][g];
  };
  auto reference = [&](size_t g) {
    return g < chart.group_reference.size() ? chart.group_reference[g] : NAN;
  };
  double ymax = -INFINITY;
  bool any_failed = false, any_reference = false;
  for (size_t g = 0; g < groups; ++g) {
    for (size_t s = 0; s < series; ++s) {
      if (std::isfinite(value(s, g)) && !failed(s, g)) ymax = std::max(ymax, value(s, g));
      any_failed = any_failed || failed(s, g);
    }
    if (std::isfinite(reference(g))) {
      ymax = std::max(ymax, reference(g));
      any_reference = true;
    }
  }
  if (!std::isfinite(ymax) && any_failed) ymax = 1;  // only failures: any scale shows them
  const double min_group = std::max(56.0, 18.0 * static_cast<double>(series) + 16);
  const double kLeft = 72, kTop = 36, kBottom = 276;
  const double width = std::max(760.0, kLeft + 20 + min_group * static_cast<double>(groups));
  if (!std::isfinite(ymax) || groups == 0 || series == 0) return NoData(width, 160, chart.title);
  const double right = width - 20;
  const std::vector<double> yticks = NiceTicks(std::min(0.0, ymax), std::max(ymax, 0.0));
  const Scale ys{yticks.front(), yticks.back(), kBottom, kTop};
  const double group_w = (right - kLeft) / static_cast<double>(groups);
  const double bar_w = std::min(40.0, group_w * 0.8 / static_cast<double>(series));

  // Long or many group names are drawn slanted so that neighbours do not overlap.
  double longest = 0;
  for (const std::string& g : chart.groups) longest = std::max(longest, TextWidth(Shorten(g, 32)));
  const bool slanted = longest > group_w - 6;
  const double label_height = slanted ? longest * 0.6 + 16 : 22;

  std::vector<std::pair<std::string, std::string>> legend;
  auto color = [&](size_t s) {
    return s < chart.colors.size() && !chart.colors[s].empty() ? chart.colors[s] : SeriesColor(s);
  };
  for (size_t s = 0; s < series; ++s) legend.emplace_back(chart.series[s], color(s));
  if (any_reference) legend.emplace_back(chart.reference_label, kReferenceColor);
  double legend_height = 0;
  const std::string legend_svg =
      Legend(legend, kLeft, kBottom + label_height + 24, right - kLeft, &legend_height);
  const double height = kBottom + label_height + 14 + legend_height + 8;

  std::string out = SvgOpen(width, height, chart.title, true);
  out += TitleText(width, chart.title);
  out += Axes(Scale{}, {}, ys, yticks, kLeft, right, kTop, kBottom);
  out += YLabel(18, (kTop + kBottom) / 2, chart.y_label);
  for (size_t g = 0; g < groups; ++g) {
    const double x0 = kLeft + group_w * static_cast<double>(g) +
                      (group_w - bar_w * static_cast<double>(series)) / 2;
    out += "<g>";
    for (size_t s = 0; s < series; ++s) {
      const double v = value(s, g);
      const double x = x0 + bar_w * static_cast<double>(s);
      if (failed(s, g)) {
        // Failed is the worst outcome: a full-height outlined bar, never a short one.
        out += fmt::format(
            "<rect class=\"mark bar failed\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
            "fill=\"#fff\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"4 3\">"
            "<title>{}</title></rect>",
            Num(x + 2), Num(kTop), Num(std::max(bar_w - 4, 1.0)), Num(kBottom - kTop),
            kReferenceColor,
            HtmlEscape(
                fmt::format("{}, {}: {}", chart.groups[g], chart.series[s], chart.failed_label)));
        out += fmt::format(
            "<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"10\" fill=\"{}\">{}</text>",
            Num(x + bar_w / 2 + 3), Num((kTop + kBottom) / 2), kReferenceColor,
            HtmlEscape(chart.failed_label));
        continue;
      }
      if (!std::isfinite(v)) {
        out += Text(x + bar_w / 2, kBottom - 4, "n/a",
                    "text-anchor=\"middle\" font-size=\"9\" fill=\"#777\"");
        continue;
      }
      const double y = ys(std::max(v, 0.0)), y0 = ys(0);
      out += fmt::format(
          "<rect class=\"mark bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}</title></rect>",
          Num(x + 1), Num(y), Num(std::max(bar_w - 2, 1.0)), Num(std::max(y0 - y, 0.5)), color(s),
          HtmlEscape(fmt::format("{}, {}: {:.4g}", chart.groups[g], chart.series[s], v)));
    }
    if (const double r = reference(g); std::isfinite(r)) {
      // The group's objective across its bars: a bar above the line misses it.
      out += fmt::format(
          "<line class=\"reference slo\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
          "stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\"><title>{}</title></line>",
          Num(x0 - 4), Num(ys(r)), Num(x0 + bar_w * static_cast<double>(series) + 4), Num(ys(r)),
          kReferenceColor,
          HtmlEscape(fmt::format("{}: {} {:.4g}", chart.groups[g], chart.reference_label, r)));
    }
    out += "</g>\n";
    const double cx = kLeft + group_w * (static_cast<double>(g) + 0.5);
    const std::string label = Shorten(chart.groups[g], 32);
    if (slanted) {
      out += fmt::format(
          "<text transform=\"translate({},{}) rotate(-35)\" text-anchor=\"end\">{}</text>\n",
          Num(cx + 4), Num(kBottom + 14), HtmlEscape(label));
    } else {
      out += Text(cx, kBottom + 16, label, "text-anchor=\"middle\"") + "\n";
    }
  }
  out += legend_svg;
  out += "</svg>\n";
  return out;
}

std::string RenderHeatMap(const HeatMap& chart) {
  constexpr double kCellW = 64, kCellH = 20, kTop = 36;
  const size_t rows = chart.rows.size(), cols = chart.columns.size();
  bool any = false;
  for (size_t r = 0; r < rows && r < chart.values.size(); ++r)
    for (size_t c = 0; c < cols && c < chart.values[r].size(); ++c)
      any = any || std::isfinite(chart.values[r][c]);
  if (!any) return NoData(760, 160, chart.title);

  double row_label_w = TextWidth(chart.y_label);
  for (const std::string& r : chart.rows)
    row_label_w = std::max(row_label_w, TextWidth(Shorten(r, 40)));
  // Column labels (variants) in full, slanted at 35 degrees: they rise sin 35 and reach cos 35
  // of their length to the right of their column, and the chart makes room for both.
  double col_label_len = 0;
  for (const std::string& c : chart.columns) col_label_len = std::max(col_label_len, TextWidth(c));
  const double col_label_h = col_label_len * 0.58 + 12;
  const double left = 16 + row_label_w + 10;
  const double grid_top = kTop + 18 + col_label_h;
  const double grid_w = kCellW * static_cast<double>(cols);
  const double width = std::max(
      {480.0, left + grid_w + 24, left + grid_w - kCellW / 2 - 4 + col_label_len * 0.82 + 16});
  const double grid_bottom = grid_top + kCellH * static_cast<double>(rows);
  const double height = grid_bottom + 64;

  std::string out = SvgOpen(width, height, chart.title, true);
  out += TitleText(width, chart.title);
  out +=
      Text(16, kTop + 14, chart.x_label.empty() ? "" : chart.y_label + " \xC3\x97 " + chart.x_label,
           "fill=\"#555\"");
  for (size_t c = 0; c < cols; ++c) {
    const double cx = left + kCellW * (static_cast<double>(c) + 0.5);
    out += fmt::format("<text transform=\"translate({},{}) rotate(-35)\">{}</text>\n", Num(cx - 4),
                       Num(grid_top - 6), HtmlEscape(chart.columns[c]));
  }
  for (size_t r = 0; r < rows; ++r) {
    const double y = grid_top + kCellH * static_cast<double>(r);
    out += Text(left - 8, y + 14, Shorten(chart.rows[r], 40), "text-anchor=\"end\"");
    out += "<g>";
    for (size_t c = 0; c < cols; ++c) {
      const double v =
          r < chart.values.size() && c < chart.values[r].size() ? chart.values[r][c] : NAN;
      const double x = left + kCellW * static_cast<double>(c);
      if (!std::isfinite(v)) {
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
            "stroke=\"{}\"/>",
            Num(x + 1), Num(y + 1), Num(kCellW - 2), Num(kCellH - 2), kGridColor);
        continue;
      }
      out += fmt::format(
          "<rect class=\"mark cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}</title></rect>",
          Num(x + 1), Num(y + 1), Num(kCellW - 2), Num(kCellH - 2), HeatColor(v),
          HtmlEscape(fmt::format("{}, {}: {} {}", chart.rows[r], chart.columns[c],
                                 chart.value_label, CellPercent(v))));
      out += Text(x + kCellW / 2, y + 14, CellPercent(v),
                  std::clamp(v, 0.0, 1.0) > 0.55 ? "text-anchor=\"middle\" fill=\"#fff\""
                                                 : "text-anchor=\"middle\" fill=\"#222\"");
    }
    out += "</g>\n";
  }
  // The colour scale, in five steps.
  const double ly = grid_bottom + 22;
  out += Text(16, ly + 11, chart.value_label);
  for (int k = 0; k <= 4; ++k) {
    const double v = k / 4.0, x = 16 + TextWidth(chart.value_label) + 12 + 58.0 * k;
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"22\" height=\"14\" fill=\"{}\" stroke=\"#ccc\"/>", Num(x),
        Num(ly), HeatColor(v));
    out += Text(x + 26, ly + 11, CellPercent(v));
  }
  out += "\n</svg>\n";
  return out;
}

}  // namespace knobsim::report
