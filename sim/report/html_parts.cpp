#include "sim/report/html_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/report/svg_chart.h"
#include "sim/text.h"

namespace knobsim::report {

namespace {

constexpr const char* kUnknown = "\xE2\x80\x94";  // an em dash: no such number

std::string Attr(std::string_view css_class) {
  return css_class.empty() ? "" : " class=\"" + HtmlEscape(css_class) + "\"";
}

}  // namespace

const Json* Get(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

const Json* Get(const Json* j, std::string_view key) {
  return j == nullptr ? nullptr : Get(*j, key);
}

double Number(const Json* j) {
  if (j == nullptr || !j->is_number()) return std::numeric_limits<double>::quiet_NaN();
  return j->get<double>();
}

std::string Text(const Json* j) {
  if (j == nullptr) return "";
  if (j->is_string()) return j->get<std::string>();
  if (j->is_boolean()) return j->get<bool>() ? "yes" : "no";
  if (j->is_number_integer()) return j->dump();
  if (j->is_number()) return Short(j->get<double>());
  return "";
}

const Json& Items(const Json* j) {
  static const Json kEmpty = Json::array();
  return j != nullptr && j->is_array() ? *j : kEmpty;
}

std::string WorkloadId(const Json& w) {
  if (std::string id = Text(Get(w, "id")); !id.empty()) return id;
  return Text(Get(w, "namespace")) + "/" + Text(Get(w, "name"));
}

std::string Ms(double ms, int decimals) {
  return std::isfinite(ms) ? fmt::format("{:.{}f} ms", ms, decimals) : kUnknown;
}

std::string Pct(double fraction, int decimals) {
  return std::isfinite(fraction) ? Percent(fraction, decimals, " %") : kUnknown;
}

std::string Fixed(double v, int decimals) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : kUnknown;
}

std::string Short(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : kUnknown;
}

std::string Count(double v) {
  if (!std::isfinite(v)) return kUnknown;
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{:.0f}", v)
                                                  : fmt::format("{:.1f}", v);
}

Table& Table::Head(std::vector<std::string> cells) {
  head_ = "<thead><tr>";
  for (const std::string& c : cells) head_ += "<th scope=\"col\">" + HtmlEscape(c) + "</th>";
  head_ += "</tr></thead>";
  return *this;
}

Table& Table::Row() {
  rows_.emplace_back();
  return *this;
}

Table& Table::Cell(std::string_view text, std::string_view css_class) {
  return Html(HtmlEscape(text), css_class);
}

Table& Table::Html(std::string markup, std::string_view css_class) {
  if (rows_.empty()) Row();
  rows_.back() += "<td" + Attr(css_class) + ">" + markup + "</td>";
  return *this;
}

Table& Table::HeadCell(std::string_view text) {
  if (rows_.empty()) Row();
  rows_.back() += "<th scope=\"row\">" + HtmlEscape(text) + "</th>";
  return *this;
}

std::string Table::Render() const {
  std::string out = "<table" + Attr(class_) + ">" + head_ + "<tbody>\n";
  for (const std::string& r : rows_) out += "<tr>" + r + "</tr>\n";
  out += "</tbody></table>\n";
  return out;
}

std::string KeyValueTable(const std::vector<std::pair<std::string, std::string>>& rows) {
  Table t("settings");
  for (const auto& [k, v] : rows) t.Row().HeadCell(k).Cell(v);
  return t.Render();
}

std::string GenericTable(const Json& array) {
  if (!array.is_array() || array.empty()) return "";
  std::vector<std::string> columns;
  for (const Json& item : array) {
    if (!item.is_object()) continue;
    for (auto it = item.begin(); it != item.end(); ++it) {
      if (std::find(columns.begin(), columns.end(), it.key()) == columns.end())
        columns.push_back(it.key());
    }
  }
  if (columns.empty()) return "";
  Table t;
  t.Head(columns);
  for (const Json& item : array) {
    if (!item.is_object()) continue;
    t.Row();
    for (const std::string& c : columns) {
      const Json* v = Get(item, c);
      if (v != nullptr && (v->is_object() || v->is_array())) {
        t.Cell(v->dump(-1, ' ', false, Json::error_handler_t::replace));
      } else {
        t.Cell(v == nullptr ? kUnknown : Text(v));
      }
    }
  }
  return t.Render();
}

}  // namespace knobsim::report
