// The reference's three result files (docs/fgd-policies.md §2.6): one row per run, keyed by
// `workload,sc_policy,tune,seed`, then (allocation file only) `total_gpus`, then the columns
// 0 … 130. Written the way pandas' to_csv wrote the paper's files (Python float repr, empty
// cells for missing values), and read back for comparison.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"
#include "sim/replay/discrete.h"

namespace knobsim::replay {

enum class ResultFile { kAllo, kFrag, kFragRatio };
inline constexpr ResultFile kResultFiles[] = {ResultFile::kAllo, ResultFile::kFrag,
                                              ResultFile::kFragRatio};

// analysis_allo_discrete.csv, analysis_frag_discrete.csv, analysis_frag_ratio_discrete.csv.
std::string_view ResultFileName(ResultFile file);

struct ResultRow {
  std::string workload;   // the pod file's stem, e.g. openb_pod_list_default
  std::string sc_policy;  // 01-Random … 08-ACK-Spread
  std::string tune;       // as written, e.g. "1.3"
  int64_t seed = 0;
  int total_gpus = 0;  // allocation file only
  Curve values;
};

// Row order of the reference: workload, sc_policy, tune, then seed.
void SortRows(std::vector<ResultRow>& rows);

std::string FormatResultCsv(ResultFile file, std::span<const ResultRow> rows);

// Reads one result file of the reference's shape (with or without total_gpus).
Expected<std::vector<ResultRow>> ReadResultCsv(const std::string& path);
Expected<std::vector<ResultRow>> ParseResultCsv(std::string_view text, const std::string& file);

}  // namespace knobsim::replay
