// Recorded traffic files: the arrivals of `traffic: {replay: FILE}` and the per-interval counts
// of `traffic: {counts: {file: FILE}}` (docs/scenario.md "Recorded traffic").
//
// An arrivals file is a CSV with a header. Column `time` (or `timestamp`) is required: seconds
// as a decimal number, or an RFC 3339 instant (`2026-03-02T10:00:00.250Z`, `+08:00` offsets).
// Column `work` (or `work_s`) is optional: each request's work in seconds of reference-GPU
// time, which then replaces the workload's work distribution for that request. Any other
// column is refused, naming it. Blank lines and lines starting with `#` are skipped. Rows need
// not be sorted: they are sorted by time, equal times keeping file order.
//
// Times become offsets from the run's start, `start`:
// - not given: times are offsets already (seconds from 0); a time of 1e9 or more (a Unix
//   epoch, or an RFC 3339 instant) is refused with the hint to set `start`;
// - `first`: the earliest time in the file is t = 0;
// - an instant (RFC 3339, or Unix epoch seconds): that instant is t = 0; earlier rows are refused.
// A number of 1e11 or more is refused as milliseconds (or finer) since the epoch: give seconds.
//
// A counts file holds one non-negative integer a line (an optional first line `count`, blank
// lines and `#` comments skipped).
//
// A per-pod counts file (`traffic: {counts: {per_pod_file: FILE}}`) is a CSV with the header
// `interval,<pod>,<pod>...` (distinct pod names) and one row per interval: its index, 0, 1, 2 …
// in order with none left out, then each pod's count (an integer from 0 to 1e9). Blank lines
// and `#` comments are skipped.
//
// Errors name the file, the 1-based line and the column. Both readers stop at
// kMaxRecordedArrivals rows (a named limit: 16 bytes each, so 320 MB at most).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace knobsim {

inline constexpr int64_t kMaxRecordedArrivals = 20'000'000;

// Where t = 0 of a recording is.
struct RecordingStart {
  bool first = false;             // the earliest time in the file
  std::optional<double> epoch_s;  // this instant (Unix seconds)
};

// "first", an RFC 3339 instant or Unix epoch seconds; when it is none, an error that is only a
// message saying why (the caller names the field and quotes the text before it).
Expected<RecordingStart> ParseRecordingStart(std::string_view text);

// An RFC 3339 instant as Unix seconds (fractions kept); nullopt when `text` is not one.
std::optional<double> ParseRfc3339(std::string_view text);

Expected<RecordedArrivals> ParseArrivalsCsv(std::string_view text, const std::string& file,
                                            const RecordingStart& start);
Expected<RecordedArrivals> ReadArrivalsCsv(const std::string& path, const RecordingStart& start);

Expected<std::vector<int64_t>> ParseCountsFile(std::string_view text, const std::string& file);
Expected<std::vector<int64_t>> ReadCountsFile(const std::string& path);

// Each pod's counts, in header order; PodCounts::replica is left for the reader to set.
Expected<std::vector<PodCounts>> ParsePerPodCountsCsv(std::string_view text,
                                                      const std::string& file);
Expected<std::vector<PodCounts>> ReadPerPodCountsCsv(const std::string& path);

}  // namespace knobsim
