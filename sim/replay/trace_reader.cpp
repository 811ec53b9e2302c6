#include "sim/replay/trace_reader.h"

#include <array>
#include <charconv>
#include <fstream>
#include <span>
#include <sstream>
#include <unordered_set>

#include "sim/scheduler/fgd/node_state.h"
#include "sim/text.h"

namespace knobsim::replay {

namespace {

constexpr std::array<std::string_view, 5> kNodeColumns = {"sn", "cpu_milli", "memory_mib", "gpu",
                                                          "model"};
constexpr std::array<std::string_view, 11> kPodColumns = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
constexpr size_t kShortPodColumns = 5;  // the multigpu files stop after gpu_milli

// One line of the file, split on commas (the trace quotes nothing, so neither do we).
struct Row {
  int line = 0;
  std::vector<std::string_view> fields;
};

std::vector<Row> SplitLines(std::string_view text) {
  std::vector<Row> rows;
  int line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view s = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    if (s.empty()) continue;  // blank lines (a trailing newline) carry nothing
    Row row;
    row.line = line;
    size_t start = 0;
    while (true) {
      const size_t comma = s.find(',', start);
      if (comma == std::string_view::npos) {
        row.fields.push_back(s.substr(start));
        break;
      }
      row.fields.push_back(s.substr(start, comma - start));
      start = comma + 1;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

InputError Error(const std::string& file, int line, std::string_view column, std::string message) {
  InputError e;
  e.file = file;
  e.line = line;
  e.path = std::string(column);
  e.message = std::move(message);
  return e;
}

// A non-negative decimal integer, as every amount and time of the trace is written.
std::optional<int64_t> ParseCount(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || text[0] == '-' || text[0] == '+' || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

// Checks the header against the expected column names; `allowed` lists the accepted widths.
Status CheckHeader(const Row& header, std::span<const std::string_view> columns,
                   std::initializer_list<size_t> allowed, const std::string& file) {
  bool width_ok = false;
  for (size_t w : allowed) width_ok = width_ok || header.fields.size() == w;
  for (size_t i = 0; i < header.fields.size() && i < columns.size(); ++i) {
    if (header.fields[i] != columns[i]) {
      std::string message = "column " + std::to_string(i + 1) + " is " + Quote(header.fields[i]) +
                            ", expected " + Quote(columns[i]);
      return Error(file, header.line, "header", std::move(message));
    }
  }
  if (!width_ok) {
    std::string expected;
    for (size_t w : allowed) {
      if (!expected.empty()) expected += " or ";
      expected += std::to_string(w);
    }
    return Error(file, header.line, "header",
                 std::to_string(header.fields.size()) + " columns, expected " + expected);
  }
  return Status::Ok();
}

// The trace's own wording for a file it cannot open: no OS reason (traces move between hosts);
// a directory or a file over the input limit keeps ReadFileText's message.
InputError CannotRead(const std::string& path, const InputError& read) {
  if (read.message.rfind("cannot read the file", 0) != 0) return read;
  InputError e;
  e.file = path;
  e.message = "cannot read the file";
  return e;
}

// Reads one integer field; on failure fills *error and returns false.
bool Count(const Row& row, size_t index, std::string_view column, const std::string& file,
           int64_t* out, Status* error) {
  const std::optional<int64_t> v = ParseCount(row.fields[index]);
  if (!v) {
    *error =
        Error(file, row.line, column, Quote(row.fields[index]) + " is not a non-negative integer");
    return false;
  }
  *out = *v;
  return true;
}

Status CheckWidth(const Row& row, size_t width, std::span<const std::string_view> columns,
                  const std::string& file) {
  if (row.fields.size() < width) {
    return Error(file, row.line, columns[row.fields.size()],
                 "missing: the row has " + std::to_string(row.fields.size()) +
                     " fields, the header " + std::to_string(width));
  }
  if (row.fields.size() > width) {
    return Error(
        file, row.line, "row",
        std::to_string(row.fields.size()) + " fields, the header has " + std::to_string(width));
  }
  return Status::Ok();
}

}  // namespace

Expected<std::vector<TraceNode>> ParseNodeCsv(std::string_view text, const std::string& file) {
  const std::vector<Row> rows = SplitLines(text);
  if (rows.empty()) return Error(file, 0, "", "empty file: expected a header and node rows");
  if (Status s = CheckHeader(rows[0], kNodeColumns, {kNodeColumns.size()}, file); !s)
    return s.error();
  std::vector<TraceNode> nodes;
  std::unordered_set<std::string_view> names;
  Status error;
  for (size_t r = 1; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (Status s = CheckWidth(row, kNodeColumns.size(), kNodeColumns, file); !s) return s.error();
    TraceNode node;
    node.line = row.line;
    node.name = std::string(row.fields[0]);
    if (node.name.empty()) return Error(file, row.line, "sn", "empty node name");
    if (!names.insert(row.fields[0]).second) {
      return Error(file, row.line, "sn", "duplicate node name " + Quote(node.name));
    }
    int64_t gpu = 0;
    if (!Count(row, 1, "cpu_milli", file, &node.cpu_milli, &error) ||
        !Count(row, 2, "memory_mib", file, &node.memory_mib, &error) ||
        !Count(row, 3, "gpu", file, &gpu, &error)) {
      return error.error();
    }
    if (gpu > fgd::kMaxCardsPerNode) {
      return Error(file, row.line, "gpu",
                   std::to_string(gpu) + " cards: a replay node has at most " +
                       std::to_string(fgd::kMaxCardsPerNode));
    }
    node.gpu = static_cast<int>(gpu);
    node.model = std::string(row.fields[4]);
    if (node.gpu > 0 && node.model.empty()) {
      return Error(file, row.line, "model", "empty model on a node with GPUs");
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Expected<std::vector<TracePod>> ParsePodCsv(std::string_view text, const std::string& file) {
  const std::vector<Row> rows = SplitLines(text);
  if (rows.empty()) return Error(file, 0, "", "empty file: expected a header and pod rows");
  if (Status s = CheckHeader(rows[0], kPodColumns, {kShortPodColumns, kPodColumns.size()}, file);
      !s) {
    return s.error();
  }
  const size_t width = rows[0].fields.size();
  std::vector<TracePod> pods;
  std::unordered_set<std::string_view> names;
  Status error;
  for (size_t r = 1; r < rows.size(); ++r) {
    const Row& row = rows[r];
    if (Status s = CheckWidth(row, width, kPodColumns, file); !s) return s.error();
    TracePod pod;
    pod.line = row.line;
    pod.name = std::string(row.fields[0]);
    if (pod.name.empty()) return Error(file, row.line, "name", "empty pod name");
    if (!names.insert(row.fields[0]).second) {
      return Error(file, row.line, "name", "duplicate pod name " + Quote(pod.name));
    }
    int64_t num_gpu = 0;
    if (!Count(row, 1, "cpu_milli", file, &pod.cpu_milli, &error) ||
        !Count(row, 2, "memory_mib", file, &pod.memory_mib, &error) ||
        !Count(row, 3, "num_gpu", file, &num_gpu, &error) ||
        !Count(row, 4, "gpu_milli", file, &pod.gpu_milli, &error)) {
      return error.error();
    }
    if (num_gpu > 64) {
      return Error(file, row.line, "num_gpu", std::to_string(num_gpu) + " cards is not plausible");
    }
    pod.num_gpu = static_cast<int>(num_gpu);
    if (width == kPodColumns.size()) {
      pod.gpu_spec = std::string(row.fields[5]);
      pod.qos = std::string(row.fields[6]);
      if (pod.qos != "LS" && pod.qos != "BE" && pod.qos != "Burstable" && pod.qos != "Guaranteed") {
        return Error(file, row.line, "qos",
                     Quote(pod.qos) + " is not one of LS, BE, Burstable, Guaranteed");
      }
      pod.pod_phase = std::string(row.fields[7]);
      if (pod.pod_phase != "Running" && pod.pod_phase != "Succeeded" && pod.pod_phase != "Failed" &&
          pod.pod_phase != "Pending") {
        return Error(file, row.line, "pod_phase",
                     Quote(pod.pod_phase) + " is not one of Running, Succeeded, Failed, Pending");
      }
      std::optional<int64_t>* times[] = {&pod.creation_time, &pod.deletion_time,
                                         &pod.scheduled_time};
      for (size_t t = 0; t < 3; ++t) {
        const std::string_view field = row.fields[8 + t];
        if (field.empty()) continue;  // e.g. no scheduled_time for a Pending pod
        int64_t value = 0;
        if (!Count(row, 8 + t, kPodColumns[8 + t], file, &value, &error)) return error.error();
        *times[t] = value;
      }
    }
    pods.push_back(std::move(pod));
  }
  return pods;
}

Expected<std::vector<TraceNode>> ReadNodeCsv(const std::string& path) {
  const Expected<std::string> text = ReadFileText(path);
  if (!text) return CannotRead(path, text.error());
  return ParseNodeCsv(WithoutUtf8Bom(*text), path);
}

Expected<std::vector<TracePod>> ReadPodCsv(const std::string& path) {
  const Expected<std::string> text = ReadFileText(path);
  if (!text) return CannotRead(path, text.error());
  return ParsePodCsv(WithoutUtf8Bom(*text), path);
}

}  // namespace knobsim::replay
