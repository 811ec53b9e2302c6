#include "sim/replay/result_csv.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <tuple>

#include "sim/text.h"

namespace knobsim::replay {

std::string_view ResultFileName(ResultFile file) {
  switch (file) {
    case ResultFile::kAllo:
      return "analysis_allo_discrete.csv";
    case ResultFile::kFrag:
      return "analysis_frag_discrete.csv";
    case ResultFile::kFragRatio:
      return "analysis_frag_ratio_discrete.csv";
  }
  return "";
}

void SortRows(std::vector<ResultRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const ResultRow& a, const ResultRow& b) {
    return std::tie(a.workload, a.sc_policy, a.tune, a.seed) <
           std::tie(b.workload, b.sc_policy, b.tune, b.seed);
  });
}

std::string FormatResultCsv(ResultFile file, std::span<const ResultRow> rows) {
  const bool with_gpus = file == ResultFile::kAllo;
  std::string out = "workload,sc_policy,tune,seed";
  if (with_gpus) out += ",total_gpus";
  for (int x = 0; x < kColumns; ++x) {
    out += ',';
    out += std::to_string(x);
  }
  out += '\n';
  for (const ResultRow& r : rows) {
    out += r.workload;
    out += ',';
    out += r.sc_policy;
    out += ',';
    out += r.tune;
    out += ',';
    out += std::to_string(r.seed);
    if (with_gpus) {
      out += ',';
      out += std::to_string(r.total_gpus);
    }
    for (const std::optional<double>& v : r.values) {
      out += ',';
      if (v) out += PyRepr(*v);
    }
    out += '\n';
  }
  return out;
}

namespace {

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

InputError Error(const std::string& file, int line, std::string path, std::string message) {
  InputError e;
  e.file = file;
  e.line = line;
  e.path = std::move(path);
  e.message = std::move(message);
  return e;
}

}  // namespace

Expected<std::vector<ResultRow>> ParseResultCsv(std::string_view text, const std::string& file) {
  std::vector<ResultRow> rows;
  std::vector<std::string_view> header;
  int line_no = 0;
  size_t pos = 0;
  bool with_gpus = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string_view> f = Split(line);
    if (header.empty()) {
      header = f;
      with_gpus = f.size() > 4 && f[4] == "total_gpus";
      const size_t first = with_gpus ? 5 : 4;
      const bool ok = f.size() == first + kColumns && f[0] == "workload" && f[1] == "sc_policy" &&
                      f[2] == "tune" && f[3] == "seed";
      for (size_t c = first; ok && c < f.size(); ++c) {
        if (f[c] != std::to_string(c - first)) {
          return Error(file, line_no, "header",
                       "column " + std::to_string(c + 1) + " is not " + std::to_string(c - first));
        }
      }
      if (!ok) {
        return Error(file, line_no, "header",
                     "expected workload,sc_policy,tune,seed,[total_gpus,]0,...,130");
      }
      continue;
    }
    if (f.size() != header.size()) {
      return Error(
          file, line_no, "row",
          std::to_string(f.size()) + " fields, the header has " + std::to_string(header.size()));
    }
    ResultRow r;
    r.workload = std::string(f[0]);
    r.sc_policy = std::string(f[1]);
    r.tune = std::string(f[2]);
    const auto [p, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), r.seed);
    if (ec != std::errc() || p != f[3].data() + f[3].size()) {
      return Error(file, line_no, "seed", Quote(std::string(f[3])) + " is not an integer");
    }
    const size_t first = with_gpus ? 5 : 4;
    if (with_gpus) {
      const auto [q, ec2] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), r.total_gpus);
      if (ec2 != std::errc() || q != f[4].data() + f[4].size()) {
        return Error(file, line_no, "total_gpus",
                     Quote(std::string(f[4])) + " is not an integer");
      }
    }
    for (int x = 0; x < kColumns; ++x) {
      const std::string_view cell = f[first + x];
      if (cell.empty()) continue;
      double v = 0;
      const auto [q, ec3] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      if (ec3 != std::errc() || q != cell.data() + cell.size()) {
        return Error(file, line_no, std::to_string(x),
                     Quote(std::string(cell)) + " is not a number");
      }
      r.values[x] = v;
    }
    rows.push_back(std::move(r));
  }
  if (header.empty()) return Error(file, 0, "", "empty file");
  return rows;
}

Expected<std::vector<ResultRow>> ReadResultCsv(const std::string& path) {
  const Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParseResultCsv(*text, path);
}

}  // namespace knobsim::replay
