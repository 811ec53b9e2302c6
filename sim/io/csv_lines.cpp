#include "sim/io/csv_lines.h"

#include <charconv>

namespace knobsim {

std::string_view TrimCell(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> SplitCommas(std::string_view line) {
  std::vector<std::string_view> out;
  size_t from = 0;
  while (true) {
    const size_t comma = line.find(',', from);
    out.push_back(TrimCell(line.substr(from, comma - from)));
    if (comma == std::string_view::npos) return out;
    from = comma + 1;
  }
}

std::optional<double> ParseCellNumber(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace knobsim
