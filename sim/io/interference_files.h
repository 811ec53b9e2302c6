// The files of `knobsim interference` (docs/interference.md): the jobs measured alone
// (SOLO.csv), the pairs measured together (PAIRS.csv) and the fitted model (MODEL.json).
//
// SOLO.csv: header `job,gpu_util_pct,mem_bw_util_pct,memory_mib` (any order), one row per job
// run alone: a job name (unique, not empty), its GPU utilization and memory-bandwidth
// utilization in percent (0–100) and the device memory it held in MiB (≥ 0).
// PAIRS.csv: header `job_a,job_b` and, for fitting, `speed_a,speed_b`: each job's speed beside
// the other as a fraction of its solo speed (1 = no slowdown; 0 to kMaxPairSpeed). A pair may
// name the same job twice (two copies of it) and may repeat (measured again).
// Both: the CSV line rules of sim/io/csv_lines.h. A column of another name is not an error — it
// is listed in `ignored_columns` for the caller to warn about — since measurement tables often
// carry more (the model, the batch size); a missing column is. Errors name the file, the line
// and the column. At most kMaxInterferenceRows rows.
//
// MODEL.json (schema kInterferenceModelSchema): the surface's terms and weights, the clamp, the
// λ, the training mean and size, every solo profile with its per-job offsets (null when the fit
// saw the job in no pair), and the cross-validation the fit printed. It is read back strictly:
// every key known, every number finite, the terms those of this knobsim.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/interference.h"
#include "sim/input_error.h"

namespace knobsim {

inline constexpr char kInterferenceModelSchema[] = "knobsim.interference/v1";
inline constexpr int kMaxInterferenceRows = 1'000'000;
// A co-located job measured more than 3× faster than alone is a speed that was not normalised
// to the solo speed (samples/s, say), not interference.
inline constexpr double kMaxPairSpeed = 3;

struct SoloTable {
  std::vector<JobProfile> profiles;
  std::vector<std::string> ignored_columns;
};

struct PairRow {
  std::string job_a, job_b;
  std::optional<double> speed_a, speed_b;  // both or neither
  int line = 0;
};

struct PairTable {
  std::vector<PairRow> rows;
  bool has_speeds = false;
  std::vector<std::string> ignored_columns;
};

Expected<SoloTable> ParseSoloCsv(std::string_view text, const std::string& file);
Expected<SoloTable> ReadSoloCsv(const std::string& path);

// `speeds_required`: refuse a header without speed_a and speed_b (fitting needs them).
Expected<PairTable> ParsePairsCsv(std::string_view text, const std::string& file,
                                  bool speeds_required);
Expected<PairTable> ReadPairsCsv(const std::string& path, bool speeds_required);

// The rows as samples on `profiles` (indexes by job name); a job with no profile is an error at
// its row. Rows without speeds get speed 1 (prediction ignores them).
Expected<std::vector<PairSample>> ResolvePairs(const PairTable& table,
                                               const std::vector<JobProfile>& profiles,
                                               const std::string& file);

// What a model file holds besides the model: the profiles it was fitted with (so `predict`
// needs no SOLO.csv) and the cross-validation of the fit.
struct InterferenceModelFile {
  InterferenceModel model;
  std::vector<JobProfile> profiles;  // in name order
  std::optional<CrossValidation> cross_validation;
};

nlohmann::ordered_json InterferenceModelJson(const InterferenceModelFile& file);
Expected<InterferenceModelFile> ReadInterferenceModel(const std::string& path);

}  // namespace knobsim
