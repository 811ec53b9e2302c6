// The line and cell rules of the small CSV files knobsim reads (recorded arrivals and counts,
// docs/scenario.md; interference profiles and pairs, docs/interference.md), so that every one
// trims, skips and splits alike: cells are split at every comma (no quoting: a cell that needs
// a comma has no place in these files), spaces, tabs and a trailing \r are trimmed, and blank
// lines and lines starting with `#` are skipped.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace knobsim {

// `s` without leading and trailing spaces and tabs (and a trailing \r of a CRLF line).
std::string_view TrimCell(std::string_view s);

// The trimmed cells of one line, split at every comma.
std::vector<std::string_view> SplitCommas(std::string_view line);

// The whole cell as a decimal number (std::from_chars: no leading '+', no spaces inside);
// nullopt otherwise. Infinities and NaN parse: callers check std::isfinite.
std::optional<double> ParseCellNumber(std::string_view s);

// Calls `row(line_number, line)` (1-based, the line trimmed) for each line that is neither blank
// nor a comment, until `row` returns false.
template <class F>
void ForEachCsvLine(std::string_view text, F&& row) {
  int number = 0;
  size_t from = 0;
  while (from <= text.size()) {
    size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view line = TrimCell(text.substr(from, end - from));
    if (!line.empty() && line.front() != '#') {
      if (!row(number, line)) return;
    }
    if (end == text.size()) break;
    from = end + 1;
  }
}

}  // namespace knobsim
