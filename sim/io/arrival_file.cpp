#include "sim/io/arrival_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "sim/io/csv_lines.h"
#include "sim/text.h"

namespace knobsim {
namespace {

constexpr double kEpochLike = 1e9;    // 2001-09-09 as Unix seconds: no offset is this large
constexpr double kMillisLike = 1e11;  // 5138 AD in seconds, 1973 in milliseconds

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool Digits(std::string_view s, size_t at, size_t n, int& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

InputError At(const std::string& file, int line, std::string column, std::string message,
              std::string hint = "") {
  return InputError{file, line, std::move(column), std::move(message), std::move(hint)};
}

}  // namespace

std::optional<double> ParseRfc3339(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
      !Digits(s, 11, 2, h) || s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' ||
      !Digits(s, 17, 2, sec)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  size_t at = 19;
  double fraction = 0;
  if (at < s.size() && s[at] == '.') {
    size_t end = at + 1;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    if (end == at + 1) return std::nullopt;
    fraction = *ParseCellNumber("0" + std::string(s.substr(at, end - at)));
    at = end;
  }
  int offset_s = 0;
  if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
    ++at;
  } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int oh, om;
    if (!Digits(s, at + 1, 2, oh) || at + 3 >= s.size() || s[at + 3] != ':' ||
        !Digits(s, at + 4, 2, om)) {
      return std::nullopt;
    }
    offset_s = (oh * 3600 + om * 60) * (s[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return std::nullopt;  // RFC 3339 requires the offset
  }
  if (at != s.size()) return std::nullopt;
  const int64_t days = DaysFromCivil(y, mo, d);
  return static_cast<double>(days * 86400 + h * 3600 + mi * 60 + sec - offset_s) + fraction;
}

Expected<RecordingStart> ParseRecordingStart(std::string_view text) {
  RecordingStart start;
  if (text == "first") {
    start.first = true;
    return start;
  }
  if (auto t = ParseRfc3339(text)) {
    start.epoch_s = *t;
    return start;
  }
  if (auto v = ParseCellNumber(text); v && std::isfinite(*v) && *v >= 0) {
    if (*v >= kMillisLike) {
      return InputError{"", 0, "",
                        "looks like milliseconds (or finer) since the epoch; give seconds", ""};
    }
    start.epoch_s = *v;
    return start;
  }
  return InputError{
      "", 0, "", "is neither `first`, an RFC 3339 instant (2026-03-02T10:00:00Z) nor Unix seconds",
      ""};
}

Expected<RecordedArrivals> ParseArrivalsCsv(std::string_view text, const std::string& file,
                                            const RecordingStart& start) {
  std::optional<InputError> error;
  int time_col = -1, work_col = -1, columns = 0;
  std::vector<double> times;
  std::vector<double> work;
  std::vector<int> lines;
  bool header = true;
  ForEachCsvLine(text, [&](int number, std::string_view line) {
    const std::vector<std::string_view> cells = SplitCommas(line);
    if (header) {
      header = false;
      columns = static_cast<int>(cells.size());
      for (int c = 0; c < columns; ++c) {
        const std::string_view name = cells[c];
        int* slot = name == "time" || name == "timestamp" ? &time_col
                    : name == "work" || name == "work_s"  ? &work_col
                                                          : nullptr;
        if (slot == nullptr) {
          error = At(file, number, std::string(name), "unknown column",
                     "an arrivals file has the columns time (or timestamp) and, optionally, "
                     "work (seconds of reference-GPU time per request)");
          return false;
        }
        if (*slot >= 0) {
          error = At(file, number, std::string(name), "the column is given twice");
          return false;
        }
        *slot = c;
      }
      if (time_col < 0) {
        error = At(file, number, "", "the header has no `time` column",
                   "the first line names the columns, e.g. `time,work`");
        return false;
      }
      return true;
    }
    if (static_cast<int>(cells.size()) != columns) {
      error = At(file, number, "",
                 "has " + std::to_string(cells.size()) + " cells where the header names " +
                     std::to_string(columns));
      return false;
    }
    if (static_cast<int64_t>(times.size()) >= kMaxRecordedArrivals) {
      error =
          At(file, number, "", "more than " + std::to_string(kMaxRecordedArrivals) + " arrivals",
             "split the recording, or give per-interval counts (traffic.counts)");
      return false;
    }
    const std::string_view t = cells[time_col];
    std::optional<double> seconds = ParseCellNumber(t);
    if (seconds && *seconds >= kMillisLike) {
      error = At(file, number, "time",
                 Quote(std::string(t)) + " looks like milliseconds (or finer) since the epoch",
                 "give seconds");
      return false;
    }
    if (!seconds) seconds = ParseRfc3339(t);
    if (!seconds || !std::isfinite(*seconds)) {
      error = At(file, number, "time", Quote(std::string(t)) + " is not a time",
                 "seconds (12.5) or an RFC 3339 instant (2026-03-02T10:00:00.250Z)");
      return false;
    }
    times.push_back(*seconds);
    lines.push_back(number);
    if (work_col >= 0) {
      const std::optional<double> w = ParseCellNumber(cells[work_col]);
      if (!w || !std::isfinite(*w) || *w <= 0) {
        error = At(file, number, "work",
                   Quote(std::string(cells[work_col])) + " is not a positive number of seconds");
        return false;
      }
      work.push_back(*w);
    }
    return true;
  });
  if (error) return *error;
  if (header) return At(file, 0, "", "the file is empty", "the first line names the columns");

  double origin = 0;
  if (start.first && !times.empty()) origin = *std::min_element(times.begin(), times.end());
  if (start.epoch_s) origin = *start.epoch_s;
  RecordedArrivals rec;
  rec.source = file;
  std::vector<size_t> order(times.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return times[a] < times[b]; });
  rec.at.reserve(times.size());
  for (size_t i : order) {
    const double offset = times[i] - origin;
    if (!start.first && !start.epoch_s && times[i] >= kEpochLike) {
      return At(file, lines[i], "time",
                "looks like an instant (Unix epoch or RFC 3339), not an offset",
                "set the workload's traffic.start: to `first` or to the instant the run starts");
    }
    if (offset < 0) {
      return At(file, lines[i], "time", "is before the recording's start",
                "traffic.start is later than this arrival");
    }
    if (offset >= 9.0e9) {
      return At(file, lines[i], "time", "is more than 9e9 s after the start");
    }
    rec.at.push_back(static_cast<SimTime>(std::llround(offset * 1e9)));
    if (!work.empty()) rec.work_s.push_back(work[i]);
  }
  return rec;
}

Expected<RecordedArrivals> ReadArrivalsCsv(const std::string& path, const RecordingStart& start) {
  Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParseArrivalsCsv(*text, path, start);
}

// A count of arrivals in one interval: an integer from 0 to 1e9.
std::optional<int64_t> ParseCount(std::string_view text) {
  int64_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 1'000'000'000)
    return std::nullopt;
  return v;
}

Expected<std::vector<int64_t>> ParseCountsFile(std::string_view text, const std::string& file) {
  std::optional<InputError> error;
  std::vector<int64_t> values;
  bool first = true;
  ForEachCsvLine(text, [&](int number, std::string_view line) {
    if (first && line == "count") {
      first = false;
      return true;
    }
    first = false;
    const std::optional<int64_t> v = ParseCount(line);
    if (!v) {
      error = At(file, number, "count", Quote(std::string(line)) + " is not a count of arrivals",
                 "one integer from 0 to 1e9 a line");
      return false;
    }
    if (static_cast<int64_t>(values.size()) >= kMaxRecordedArrivals) {
      error =
          At(file, number, "", "more than " + std::to_string(kMaxRecordedArrivals) + " intervals");
      return false;
    }
    values.push_back(*v);
    return true;
  });
  if (error) return *error;
  if (values.empty()) return At(file, 0, "", "the file holds no count");
  return values;
}

Expected<std::vector<int64_t>> ReadCountsFile(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParseCountsFile(*text, path);
}

Expected<std::vector<PodCounts>> ParsePerPodCountsCsv(std::string_view text,
                                                      const std::string& file) {
  std::optional<InputError> error;
  std::vector<PodCounts> pods;
  bool header = true;
  int64_t rows = 0;
  ForEachCsvLine(text, [&](int number, std::string_view line) {
    const std::vector<std::string_view> cells = SplitCommas(line);
    if (header) {
      header = false;
      if (cells[0] != "interval" || cells.size() < 2) {
        error =
            At(file, number, std::string(cells[0]), "the header is not `interval,<pod>,<pod>...`",
               "the first column is the interval's index, then one column per pod");
        return false;
      }
      for (size_t c = 1; c < cells.size(); ++c) {
        if (cells[c].empty()) {
          error = At(file, number, "", "column " + std::to_string(c + 1) + " has no pod name");
          return false;
        }
        for (const PodCounts& other : pods) {
          if (other.pod == cells[c]) {
            error = At(file, number, std::string(cells[c]), "the pod is given twice");
            return false;
          }
        }
        pods.push_back({std::string(cells[c]), 0, {}});
      }
      return true;
    }
    if (cells.size() != pods.size() + 1) {
      error = At(file, number, "",
                 "has " + std::to_string(cells.size()) + " cells where the header names " +
                     std::to_string(pods.size() + 1));
      return false;
    }
    if (ParseCount(cells[0]) != rows) {
      error =
          At(file, number, "interval",
             Quote(std::string(cells[0])) + " is not the next interval, " + std::to_string(rows),
             "one row per interval, from 0, in order, none left out");
      return false;
    }
    if (rows >= kMaxRecordedArrivals) {
      error =
          At(file, number, "", "more than " + std::to_string(kMaxRecordedArrivals) + " intervals");
      return false;
    }
    for (size_t c = 1; c < cells.size(); ++c) {
      const std::optional<int64_t> v = ParseCount(cells[c]);
      if (!v) {
        error = At(file, number, pods[c - 1].pod,
                   Quote(std::string(cells[c])) + " is not a count of arrivals",
                   "an integer from 0 to 1e9");
        return false;
      }
      pods[c - 1].values.push_back(*v);
    }
    ++rows;
    return true;
  });
  if (error) return *error;
  if (header) return At(file, 0, "", "the file is empty", "the first line names the columns");
  if (rows == 0) return At(file, 0, "", "the file holds no interval");
  return pods;
}

Expected<std::vector<PodCounts>> ReadPerPodCountsCsv(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParsePerPodCountsCsv(*text, path);
}

}  // namespace knobsim
