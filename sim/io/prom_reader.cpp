#include "sim/io/prom_reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <string_view>
#include <utility>

#include "sim/io/json_lexing.h"
#include "sim/io/utf8.h"
#include "sim/text.h"

namespace knobsim {
namespace {

// Deeper nesting than this is no Prometheus answer; the limit keeps a hostile file from
// exhausting the stack while an unknown value is skipped.
constexpr int kMaxDepth = 256;

// Error texts quote at most this much of a value, so a pasted blob cannot flood the terminal.
constexpr size_t kMaxQuoted = 40;
// Prometheus' own error and warning texts are kept whole up to this length.
constexpr size_t kMaxServerText = 500;

constexpr const char* kSampleShape = "a sample is [<unix seconds>, \"<value>\"]";

std::string Clip(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::string clipped(text.substr(0, limit));
  clipped.append("...");
  return clipped;
}

// A value from the file as messages quote it, clipped: one bad sample never echoes a 10 MB line.
std::string QuoteClipped(std::string_view text) {
  return Quote(Clip(text, kMaxQuoted));
}

// How an error names the series it is about: its metric name and the pod it belongs to. Other
// label values stay out of messages.
std::string SeriesName(const std::map<std::string, std::string>& labels) {
  auto get = [&](const char* key) -> std::string {
    auto it = labels.find(key);
    return it == labels.end() ? std::string() : it->second;
  };
  std::string name = get("__name__");
  if (name.empty()) name = "series";
  const std::string ns = get("namespace");
  const std::string pod = get("pod");
  if (!pod.empty()) name += fmt::format(" of pod {}{}", ns.empty() ? "" : ns + "/", pod);
  return name;
}

// Thrown inside the parser and caught in ReadPromString: the error never leaves this file as
// an exception.
struct Failure {
  InputError error;
};

// One step of the path to a value: an object key, or an array index when `key` is empty.
struct Segment {
  std::string key;
  int64_t index = -1;
};

// What the data object said about itself, checked once it is complete (keys may come in any
// order).
struct DataShape {
  std::string result_type;  // empty when absent
  // The first series of each kind, for "an instant sample in a matrix result".
  int64_t first_values = -1, first_value = -1;
  int first_values_line = 0, first_value_line = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {
    result_.file = file;
    // Never reallocated, so the key a member callback sees stays put while it descends.
    path_.reserve(kMaxDepth + 16);
  }

  PromResult Parse() {
    // A UTF-8 byte order mark is not JSON, but editors on Windows add one; it hides nothing.
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    SkipWs();
    if (p_ == end_) {
      Fail(1, "the file is empty", "save the answer of /api/v1/query_range (curl ... > file.json)");
    }
    if (Peek() == '{') {
      ParseTop();
    } else if (Peek() == '[') {
      DataShape shape;
      ParseResultArray(shape);
    } else {
      Fail(line_, fmt::format("expected a Prometheus answer ({{\"status\":\"success\",\"data\":"
                              "...}}), found {}",
                              Found()));
    }
    SkipWs();
    if (p_ != end_) FailSyntax("the end of the file after the JSON document");
    return std::move(result_);
  }

 private:
  // ---- Positions and failures -----------------------------------------------------------

  std::string Path(std::string_view suffix = {}) const {
    std::string path;
    for (const Segment& s : path_) {
      if (s.key.empty()) {
        fmt::format_to(std::back_inserter(path), "[{}]", s.index);
      } else {
        if (!path.empty()) path.push_back('.');
        path.append(s.key);
      }
    }
    path.append(suffix);
    return path;
  }

  [[noreturn]] void Fail(int line, std::string message, std::string hint = {},
                         std::string_view suffix = {}) const {
    throw Failure{
        InputError{result_.file, line, Path(suffix), std::move(message), std::move(hint)}};
  }

  // The byte under the cursor, as a reader of the file would describe it.
  std::string Found() const {
    if (p_ >= end_) return "the end of the file";
    const unsigned char c = static_cast<unsigned char>(*p_);
    switch (c) {
      case '"':
        return "a string";
      case '{':
        return "an object";
      case '[':
        return "an array";
      case 't':
      case 'f':
        return "a boolean";
      case 'n':
        return "null";
      default:
        break;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return "a number";
    if (c >= 0x21 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("the byte 0x{:02X}", c);
  }

  // The byte under the cursor for a syntax error, where its kind would not say what is wrong.
  std::string FoundByte() const {
    if (p_ >= end_) return "the end of the file";
    const unsigned char c = static_cast<unsigned char>(*p_);
    if (c >= 0x21 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("the byte 0x{:02X}", c);
  }

  int Column() const {
    const char* line_start = p_;
    while (line_start > begin_ && line_start[-1] != '\n') --line_start;
    return static_cast<int>(p_ - line_start) + 1;
  }

  // "expected X, found Y (column N)": for text that is not JSON, or not the JSON expected.
  [[noreturn]] void FailSyntax(std::string_view expected) const {
    std::string message =
        fmt::format("expected {}, found {} (column {})", expected, FoundByte(), Column());
    std::string hint;
    if (p_ >= end_) hint = "the file ends early: was the download cut short?";
    Fail(line_, std::move(message), std::move(hint));
  }

  // ---- Tokens ---------------------------------------------------------------------------

  char Peek() const { return p_ < end_ ? *p_ : '\0'; }

  // JSON whitespace. Newlines occur nowhere else in valid JSON, so this is the only place that
  // counts lines.
  void SkipWs() {
    while (p_ < end_) {
      const char c = *p_;
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++p_;
    }
  }

  void Expect(char c, std::string_view what) {
    if (Peek() != c) FailSyntax(what);
    ++p_;
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  // A JSON number (json_lexing.h), as a double. The cursor is on its first byte.
  double ParseNumber() {
    const char* start = p_;
    const JsonNumberScan scan = ScanJsonNumber(Rest(), 0);
    p_ += scan.end;
    switch (scan.error) {
      case JsonNumberError::kNone:
        break;
      case JsonNumberError::kNoDigit:
        FailSyntax("a digit");
      case JsonNumberError::kNoFractionDigit:
        FailSyntax("a digit after the decimal point");
      case JsonNumberError::kNoExponentDigit:
        FailSyntax("a digit in the exponent");
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(start, p_, value);
    if (ec != std::errc() || end != p_) {
      Fail(line_, fmt::format("the number {} is out of range",
                              Clip({start, size_t(p_ - start)}, kMaxQuoted)));
    }
    return value;
  }

  // The text from the cursor on.
  std::string_view Rest() const { return {p_, static_cast<size_t>(end_ - p_)}; }

  // A JSON string, cursor on its opening quote. Without escapes the result points into the
  // text (no copy: sample values take this path); with escapes it is decoded into `scratch_`.
  std::string_view ParseString() {
    ++p_;
    const char* start = p_;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        std::string_view s(start, static_cast<size_t>(p_ - start));
        ++p_;
        return s;
      }
      if (c == '\\' || c < 0x20) break;
      ++p_;
    }
    scratch_.assign(start, p_);
    while (true) {
      if (p_ >= end_) FailSyntax("the closing quote of a string");
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return scratch_;
      }
      if (c < 0x20) FailSyntax("a closing quote (a string cannot hold a raw control character)");
      if (c != '\\') {
        scratch_.push_back(static_cast<char>(c));
        ++p_;
        continue;
      }
      ++p_;
      const char e = Peek();
      switch (e) {
        case '"':
          scratch_.push_back('"');
          break;
        case '\\':
          scratch_.push_back('\\');
          break;
        case '/':
          scratch_.push_back('/');
          break;
        case 'b':
          scratch_.push_back('\b');
          break;
        case 'f':
          scratch_.push_back('\f');
          break;
        case 'n':
          scratch_.push_back('\n');
          break;
        case 'r':
          scratch_.push_back('\r');
          break;
        case 't':
          scratch_.push_back('\t');
          break;
        case 'u': {
          ++p_;
          const std::string_view rest = Rest();
          size_t pos = 0;
          uint32_t cp = 0;
          const bool ok = ReadJsonCodePoint(rest, pos, cp);
          p_ += pos;
          if (!ok) {
            FailSyntax(pos == rest.size() ? "four hex digits after \\u" : "a hex digit after \\u");
          }
          AppendUtf8(scratch_, cp);
          continue;  // past the digits already
        }
        default:
          FailSyntax("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
      }
      ++p_;
    }
  }

  // A string where one is required; `what` names it for the error.
  std::string ReadString(std::string_view what) {
    if (Peek() != '"') Fail(line_, fmt::format("expected {}, found {}", what, Found()));
    return std::string(ParseString());
  }

  void ExpectLiteral(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      FailSyntax(fmt::format("a JSON value (\"{}\"?)", word));
    }
    p_ += word.size();
  }

  // Skips one value of any kind (an unknown key's), checking its syntax.
  void SkipValue(int depth = 0) {
    if (depth > kMaxDepth) Fail(line_, fmt::format("nested deeper than {} levels", kMaxDepth));
    switch (Peek()) {
      case '"':
        ParseString();
        return;
      case 't':
        ExpectLiteral("true");
        return;
      case 'f':
        ExpectLiteral("false");
        return;
      case 'n':
        ExpectLiteral("null");
        return;
      case '{':
        ForEachMember([&](std::string_view, int) { SkipValue(depth + 1); });
        return;
      case '[':
        ForEachElement([&](int64_t) { SkipValue(depth + 1); });
        return;
      default:
        if (Peek() == '-' || IsDigit(Peek())) {
          ParseNumber();
          return;
        }
        FailSyntax("a JSON value");
    }
  }

  // Calls `member(key, line)` with the cursor on each value of the object under the cursor
  // (which must consume it); the key is on the path meanwhile.
  template <class F>
  void ForEachMember(F&& member) {
    ++p_;  // '{'
    SkipWs();
    if (Peek() == '}') {
      ++p_;
      return;
    }
    path_.push_back({});
    while (true) {
      if (Peek() != '"') FailSyntax("a key in quotes");
      path_.back().key = std::string(ParseString());
      SkipWs();
      Expect(':', "':' after the key");
      SkipWs();
      member(std::string_view(path_.back().key), line_);
      SkipWs();
      if (Peek() == ',') {
        ++p_;
        SkipWs();
        continue;
      }
      if (Peek() == '}') {
        ++p_;
        break;
      }
      FailSyntax("',' or '}' after a value");
    }
    path_.pop_back();
  }

  // Calls `element(index)` with the cursor on each element of the array under the cursor.
  template <class F>
  void ForEachElement(F&& element) {
    ++p_;  // '['
    SkipWs();
    if (Peek() == ']') {
      ++p_;
      return;
    }
    path_.push_back({});
    for (int64_t i = 0;; ++i) {
      path_.back().index = i;
      element(i);
      SkipWs();
      if (Peek() == ',') {
        ++p_;
        SkipWs();
        continue;
      }
      if (Peek() == ']') {
        ++p_;
        break;
      }
      FailSyntax("',' or ']' after an element");
    }
    path_.pop_back();
  }

  // A key seen twice is a document two tools disagree about: JSON leaves it open which wins.
  void Once(bool& seen, std::string_view key) {
    if (seen) Fail(line_, fmt::format("\"{}\" appears twice in the same object", key));
    seen = true;
  }

  // ---- The document ---------------------------------------------------------------------

  // The whole response, or its data object alone: told apart by the keys.
  void ParseTop() {
    std::string status, error_type, error;
    int status_line = 0;
    bool seen_status = false, seen_type = false, seen_error = false, seen_data = false;
    bool seen_warnings = false, seen_infos = false, seen_result = false, data_is_null = false;
    int top_data_line = 0;
    DataShape shape;  // for a bare data object
    const int top_line = line_;
    ForEachMember([&](std::string_view key, int line) {
      if (key == "status") {
        Once(seen_status, key);
        status_line = line;
        status = ReadString("\"success\" or \"error\"");
      } else if (key == "errorType") {
        Once(seen_type, key);
        error_type = ReadString("a string");
      } else if (key == "error") {
        Once(seen_error, key);
        error = ReadString("a string");
      } else if (key == "warnings" || key == "infos") {
        Once(key == "warnings" ? seen_warnings : seen_infos, key);
        ParseServerNotes(key == "warnings" ? "warning" : "info");
      } else if (key == "data") {
        Once(seen_data, key);
        if (Peek() == 'n') {  // an error may carry "data": null
          ExpectLiteral("null");
          data_is_null = true;
          return;
        }
        if (Peek() != '{') {
          Fail(line,
               fmt::format("expected an object with resultType and result, found {}", Found()));
        }
        ParseData();
      } else if (key == "resultType" || key == "result") {
        if (top_data_line == 0) top_data_line = line;
        if (key == "resultType") {
          ParseResultType(shape);
        } else {
          Once(seen_result, key);
          ParseResult(shape);
        }
      } else {
        SkipValue();
      }
    });
    if (seen_data && top_data_line > 0) {
      Fail(top_data_line,
           "has both \"data\" and a data object's keys (resultType, result) at the top level",
           "save the answer as Prometheus sends it, or only its data object");
    }
    if (status == "error") {
      Fail(status_line,
           fmt::format("Prometheus answered with an error: {}: {}",
                       error_type.empty() ? "(no errorType)" : Clip(error_type, kMaxServerText),
                       error.empty() ? "(no error text)" : Clip(error, kMaxServerText)),
           "fix the query and fetch the file again", "status");
    }
    if (seen_status && status != "success") {
      Fail(status_line, fmt::format("{} is not a status", QuoteClipped(status)),
           "Prometheus answers \"success\" or \"error\"", "status");
    }
    if (top_data_line > 0) {
      if (!seen_result) Fail(top_line, "the data object has no \"result\"");
      CheckShape(shape);
      return;
    }
    if (!seen_data || data_is_null) {
      Fail(top_line, data_is_null ? "\"data\" is null" : "has no \"data\"",
           "expected the JSON that /api/v1/query_range answers: {\"status\":\"success\","
           "\"data\":{\"resultType\":\"matrix\",\"result\":[...]}}");
    }
  }

  // "warnings": ["text", ...] and "infos": [...], kept as reader warnings.
  void ParseServerNotes(std::string_view kind) {
    if (Peek() != '[') Fail(line_, fmt::format("expected an array of strings, found {}", Found()));
    ForEachElement([&](int64_t) {
      const std::string text = ReadString("a string");
      result_.warnings.push_back(
          fmt::format("{}: Prometheus {}: {}", result_.file, kind, Clip(text, kMaxServerText)));
    });
  }

  void ParseData() {
    DataShape shape;
    bool seen_result = false;
    const int data_line = line_;
    ForEachMember([&](std::string_view key, int) {
      if (key == "resultType") {
        ParseResultType(shape);
      } else if (key == "result") {
        Once(seen_result, key);
        ParseResult(shape);
      } else {
        SkipValue();  // "stats" with stats=all
      }
    });
    if (!seen_result) Fail(data_line, "has no \"result\"");
    CheckShape(shape);
  }

  void ParseResultType(DataShape& shape) {
    if (!shape.result_type.empty()) Fail(line_, "\"resultType\" appears twice in the same object");
    shape.result_type = ReadString("\"matrix\" or \"vector\"");
    if (shape.result_type == "matrix" || shape.result_type == "vector") return;
    if (shape.result_type == "scalar" || shape.result_type == "string") {
      Fail(line_,
           fmt::format("is {}: knobsim reads series, and a {} has none", Quote(shape.result_type),
                       shape.result_type),
           "query a metric selector or an expression that keeps its labels");
    }
    Fail(line_, fmt::format("{} is not a result type", QuoteClipped(shape.result_type)),
         "Prometheus answers \"matrix\" (query_range) or \"vector\" (query)");
  }

  void ParseResult(DataShape& shape) {
    if (Peek() != '[') {
      Fail(line_, fmt::format("expected an array of series, found {}", Found()));
    }
    ParseResultArray(shape);
  }

  // The result array itself: [{"metric": {...}, "values": [...]}, ...].
  void ParseResultArray(DataShape& shape) {
    ForEachElement([&](int64_t i) { ParseSeries(shape, i); });
  }

  // Once the keys of a data object are all read: its series match its resultType.
  void CheckShape(const DataShape& shape) const {
    const char* kInstant = "a series with \"value\" (an instant query's sample)";
    const char* kRange = "a series with \"values\" (a range query's samples)";
    if (shape.result_type == "matrix" && shape.first_value >= 0) {
      Fail(shape.first_value_line, fmt::format("{} in a matrix result", kInstant), {},
           fmt::format("{}result[{}]", path_.empty() ? "" : ".", shape.first_value));
    }
    if (shape.result_type == "vector" && shape.first_values >= 0) {
      Fail(shape.first_values_line, fmt::format("{} in a vector result", kRange), {},
           fmt::format("{}result[{}]", path_.empty() ? "" : ".", shape.first_values));
    }
  }

  void ParseSeries(DataShape& shape, int64_t index) {
    const int line = line_;
    if (Peek() != '{') {
      Fail(line, fmt::format("expected a series {{\"metric\": {{...}}, \"values\": [...]}}, "
                             "found {}",
                             Found()));
    }
    PromSeries series;
    // A series of the same query usually has as many samples as the one before it.
    series.times.reserve(last_series_size_);
    series.values.reserve(last_series_size_);
    bool seen_metric = false, seen_values = false, seen_value = false, seen_histograms = false;
    ForEachMember([&](std::string_view key, int key_line) {
      if (key == "metric") {
        Once(seen_metric, key);
        ParseLabels(series.labels);
      } else if (key == "values") {
        Once(seen_values, key);
        if (Peek() != '[') {
          Fail(key_line, fmt::format("expected an array of samples, found {}", Found()),
               kSampleShape);
        }
        ForEachElement([&](int64_t) { ParseSample(series); });
      } else if (key == "value") {
        Once(seen_value, key);
        ParseSample(series);
      } else if (key == "histograms" || key == "histogram") {
        seen_histograms = true;
        SkipValue();
      } else {
        SkipValue();
      }
    });
    if (seen_values && seen_value) {
      Fail(line, "has both \"values\" (range query) and \"value\" (instant query)");
    }
    if (seen_values && shape.first_values < 0) {
      shape.first_values = index;
      shape.first_values_line = line;
    }
    if (seen_value && shape.first_value < 0) {
      shape.first_value = index;
      shape.first_value_line = line;
    }
    if (!seen_values && !seen_value) {
      if (seen_histograms) {
        Warn(line, fmt::format("{} has native histograms only; skipped (knobsim reads gauges)",
                               SeriesName(series.labels)));
        return;
      }
      Fail(line, "a series without \"values\" (range query) or \"value\" (instant query)",
           kSampleShape);
    }
    if (seen_histograms) {
      Warn(line, fmt::format("{} mixes float and histogram samples; the histogram samples are "
                             "skipped",
                             SeriesName(series.labels)));
    }
    last_series_size_ = series.times.size();
    result_.series.push_back(std::move(series));
  }

  void ParseLabels(std::map<std::string, std::string>& labels) {
    if (Peek() != '{') {
      Fail(line_, fmt::format("expected an object of labels, found {}", Found()));
    }
    ForEachMember([&](std::string_view key, int) {
      // The key string lives in path_ until the member is done; copy it before the value.
      std::string name(key);
      std::string value = ReadString("a label value (a string)");
      if (!labels.emplace(std::move(name), std::move(value)).second) {
        Fail(line_, "the label appears twice");
      }
    });
  }

  // [<unix seconds>, "<value>"]: the cursor is on the '['; the path names the sample.
  void ParseSample(PromSeries& series) {
    const int line = line_;
    if (Peek() != '[') {
      Fail(line, fmt::format("expected a sample, found {}", Found()), kSampleShape);
    }
    ++p_;
    SkipWs();
    if (Peek() == ']') Fail(line, "is an empty array", kSampleShape);
    if (Peek() != '-' && !IsDigit(Peek())) {
      Fail(line_, fmt::format("expected the time in Unix seconds (a number), found {}", Found()),
           kSampleShape, "[0]");
    }
    const double t = ParseNumber();
    SkipWs();
    if (Peek() == ']') Fail(line, "has one element", kSampleShape);
    Expect(',', "',' between the time and the value of a sample");
    SkipWs();
    const int value_line = line_;
    if (Peek() != '"') {
      Fail(value_line,
           fmt::format("expected the value as a string (Prometheus writes \"1.5\"), found {}",
                       Found()),
           kSampleShape, "[1]");
    }
    const std::string_view text = ParseString();
    SkipWs();
    if (Peek() == ',') Fail(line, "has more than two elements", kSampleShape);
    Expect(']', "']' after the sample's value");

    double v = 0;
    if (!ParseGoFloat(text, v)) {
      Fail(value_line, fmt::format("{} is not a number", QuoteClipped(text)),
           "Prometheus writes values such as \"1.5\", \"1e+06\", \"NaN\", \"+Inf\"", "[1]");
    }
    // Prometheus answers in Unix seconds; a time past year 5000 is milliseconds or nanoseconds
    // (an exporter's raw timestamp), which would move the whole metrics window millennia on.
    constexpr double kLatestSeconds = 95'617'584'000;  // 5000-01-01T00:00:00Z
    if (t > kLatestSeconds) {
      Fail(line,
           fmt::format("time {:.0f} is after the year 5000 in Unix seconds: milliseconds or "
                       "nanoseconds since 1970?",
                       t),
           "Prometheus' query_range answers give Unix seconds (1717200000.5); divide by 1000 "
           "(ms) or 1e9 (ns)",
           "[0]");
    }
    if (!series.times.empty() && !(t > series.times.back())) {
      Fail(line,
           fmt::format("time {} is not after the previous sample's ({}): samples must be in time "
                       "order",
                       t, series.times.back()),
           {}, "[0]");
    }
    series.times.push_back(t);
    series.values.push_back(v);
  }

  // Go's strconv.ParseFloat as Prometheus' values need it: decimal and exponent forms, an
  // optional sign, and Inf/Infinity/NaN in any case. Out-of-range numbers are rejected.
  static bool ParseGoFloat(std::string_view text, double& v) {
    if (text.empty()) return false;
    // from_chars takes "-" and "inf"/"nan" but no '+'; a leading '+' is Go's, so drop one.
    if (text[0] == '+') {
      text.remove_prefix(1);
      if (text.empty() || text[0] == '+' || text[0] == '-') return false;
    }
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return false;
    // "nan(0x1)" and friends are C's, not Go's.
    if (std::isnan(v) && text.size() != 3) return false;
    return true;
  }

  void Warn(int line, std::string_view text) {
    result_.warnings.push_back(fmt::format("{}:{}: {}: {}", result_.file, line, Path(), text));
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  int line_ = 1;
  std::vector<Segment> path_;
  std::string scratch_;
  size_t last_series_size_ = 0;
  PromResult result_;
};

}  // namespace

Expected<PromResult> ReadPromString(const std::string& text, const std::string& file_name) {
  try {
    return Parser(text, file_name).Parse();
  } catch (const Failure& f) {
    return f.error;
  } catch (const std::bad_alloc&) {
    return InputError{file_name, 0, "", "not enough memory to read the file", ""};
  }
}

Expected<PromResult> ReadPromFile(const std::string& path) {
  // ReadFileText reads a pipe (`--prom <(curl ...)`) as it reads a file: no seek.
  const Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ReadPromString(*text, path == "-" ? "<stdin>" : path);
}

}  // namespace knobsim
