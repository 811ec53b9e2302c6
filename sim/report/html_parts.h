// The small pieces the report pages are built from: tolerant reading of a results document
// (a field that is missing, null or of the wrong type reads as "unknown", never as an
// exception or a zero), numbers written for people, and HTML tables whose every cell is
// escaped text unless the caller says it is markup.
//
// A document is user input: a hand-edited or truncated file must give a page with gaps, or an
// error from RenderReport, never a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace knobsim::report {

using Json = nlohmann::ordered_json;

// The member `key` of `j`; nullptr when `j` is not an object or the member is absent or null.
const Json* Get(const Json& j, std::string_view key);
const Json* Get(const Json* j, std::string_view key);

// A number, or NaN when `j` is null or not a number (JSON null means unknown, results.md).
double Number(const Json* j);
// Text for a scalar: strings as they are, numbers in shortest form, booleans yes/no; "" else.
std::string Text(const Json* j);
// The elements of an array; empty when `j` is not one.
const Json& Items(const Json* j);
// A workload's "namespace/name" in a results document: its `id`, else built from its fields.
std::string WorkloadId(const Json& w);

// "182.4 ms", "—" for NaN. `decimals` after the point.
std::string Ms(double ms, int decimals = 1);
// A fraction in 0..1 as a percentage ("61.0 %"), "—" for NaN.
std::string Pct(double fraction, int decimals = 1);
// A number with `decimals` decimals, "—" for NaN.
std::string Fixed(double v, int decimals);
// Shortest round-trip form of a number ("1.5", "2", "0.001"), "—" for NaN.
std::string Short(double v);
// A count: an integer when it is one, else one decimal (means over replications).
std::string Count(double v);

// An HTML table built row by row. Cells are text (escaped) unless added with Html().
class Table {
 public:
  explicit Table(std::string css_class = "") : class_(std::move(css_class)) {}
  Table& Head(std::vector<std::string> cells);
  Table& Row();
  Table& Cell(std::string_view text, std::string_view css_class = "");
  Table& Html(std::string markup, std::string_view css_class = "");
  Table& HeadCell(std::string_view text);  // a row header (<th scope="row">) in the current row
  bool empty() const { return rows_.empty(); }
  std::string Render() const;

 private:
  std::string class_;
  std::string head_;
  std::vector<std::string> rows_;
};

// A two-column table of settings: name, value (both text).
std::string KeyValueTable(const std::vector<std::pair<std::string, std::string>>& rows);

// An array of objects as a table: one column per scalar member, in first-seen order (objects
// and arrays inside are shown as compact JSON). For optional parts of a document whose exact
// shape this page does not fix (the GPU catalog, work per request).
std::string GenericTable(const Json& array);

}  // namespace knobsim::report
