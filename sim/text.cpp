#include "sim/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>

namespace knobsim {

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  return fmt::to_string(fmt::join(parts, separator));
}

// Appends rather than concatenates: GCC 12 warns falsely (-Wrestrict, PR 105651) on
// `"\"" + std::string(text)` at -O3.
std::string Quote(std::string_view text) {
  std::string quoted(1, '"');
  quoted.append(text);
  quoted.push_back('"');
  return quoted;
}

std::string Percent(double fraction, int decimals, std::string_view sign) {
  return fmt::format("{:.{}f}{}", 100 * fraction, decimals, sign);
}

std::string MarkdownText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '@') {
      out += "@\xE2\x81\xA0";  // U+2060 WORD JOINER
    } else if (std::string_view("\\`*_[]|~#").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string YamlCommentText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    const std::string_view rest = text.substr(i);
    if (text[i] == '\n') {
      out += "\\n";
    } else if (text[i] == '\r') {
      out += "\\r";
    } else if ((u < 0x20 && text[i] != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else if (rest.starts_with("\xC2\x85")) {
      out += "\\u0085";
      ++i;
    } else if (rest.starts_with("\xE2\x80\xA8") || rest.starts_with("\xE2\x80\xA9")) {
      out += rest[2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string DurationText(double seconds) {
  if (seconds < 1) return fmt::format("{:.0f} ms", seconds * 1e3);
  const struct {
    double seconds;
    const char* name;
  } units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  for (const auto& unit : units) {
    if (seconds < unit.seconds) continue;
    std::string number = fmt::format("{:.1f}", seconds / unit.seconds);
    if (number.ends_with(".0")) number.resize(number.size() - 2);
    return number + " " + unit.name;
  }
  return "";  // not reached: seconds >= 1 here
}

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return (values[n / 2 - 1] + values[n / 2]) / 2;
}

Expected<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InputError{path, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                      ""};
  }
  // istream::read, not `out << in.rdbuf()`: a failed read then sets badbit on `in`, where a
  // stream-buffer copy would only stop early and leave no trace.
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad() || !in.eof()) return InputError{path, 0, "", "cannot read the file", ""};
  return text;
}

std::string Rfc3339(double unix_seconds) {
  const auto t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace knobsim
