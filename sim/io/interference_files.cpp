#include "sim/io/interference_files.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/io/csv_lines.h"
#include "sim/io/json_document.h"
#include "sim/text.h"

namespace knobsim {
namespace {

InputError At(const std::string& file, int line, std::string column, std::string message,
              std::string hint = "") {
  return InputError{file, line, std::move(column), std::move(message), std::move(hint)};
}

// The header of a table: where each wanted column is (-1: absent), and the others.
struct Header {
  std::vector<int> at;
  std::vector<std::string> ignored;
  size_t columns = 0;
};

Expected<Header> ReadHeader(const std::vector<std::string_view>& cells,
                            const std::vector<std::string_view>& wanted, const std::string& file,
                            int line) {
  Header h;
  h.at.assign(wanted.size(), -1);
  h.columns = cells.size();
  std::set<std::string_view> seen;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (!seen.insert(cells[c]).second) {
      return At(file, line, std::string(cells[c]), "the column is given twice");
    }
    const auto it = std::find(wanted.begin(), wanted.end(), cells[c]);
    if (it == wanted.end()) {
      h.ignored.emplace_back(cells[c]);
    } else {
      h.at[it - wanted.begin()] = static_cast<int>(c);
    }
  }
  return h;
}

// A cell as a finite number in [lo, hi], or the error naming it.
Expected<double> NumberCell(std::string_view cell, double lo, double hi, const std::string& file,
                            int line, std::string_view column, std::string_view what,
                            std::string hint = "") {
  const std::optional<double> v = ParseCellNumber(cell);
  if (!v || !std::isfinite(*v)) {
    return At(file, line, std::string(column), Quote(cell) + " is not a number", hint);
  }
  if (*v < lo || *v > hi) {
    return At(file, line, std::string(column), Quote(cell) + " is not " + std::string(what), hint);
  }
  return *v;
}

// The first `required` columns of `wanted` the header lacks, as an error whose hint lists them
// all; ok when none is missing.
Status MissingColumns(const Header& h, const std::vector<std::string_view>& wanted, size_t required,
                      const std::string& file, int line) {
  std::vector<std::string> missing;
  for (size_t i = 0; i < required; ++i) {
    if (h.at[i] < 0) missing.emplace_back(wanted[i]);
  }
  if (missing.empty()) return Status::Ok();
  return At(file, line, "", "the header has no " + Join(missing) + " column",
            "the first line names the columns: " +
                Join(std::vector<std::string>(wanted.begin(), wanted.end()), ","));
}

// Reads the header into `*h` (the first `required` of `wanted` must be there), lets
// `check_header(number)` refuse it, then runs `row(number, cells)` over the data lines, with the
// row-count limit and the cell count checked.
template <class H, class R>
Status ForEachRow(std::string_view text, const std::string& file,
                  const std::vector<std::string_view>& wanted, size_t required, Header* h,
                  H check_header, R row) {
  Status status;
  bool in_header = true;
  int rows = 0;
  ForEachCsvLine(text, [&](int number, std::string_view line) {
    const std::vector<std::string_view> cells = SplitCommas(line);
    if (in_header) {
      in_header = false;
      Expected<Header> read = ReadHeader(cells, wanted, file, number);
      if (!read) {
        status = read.error();
        return false;
      }
      *h = std::move(*read);
      status = MissingColumns(*h, wanted, required, file, number);
      if (status) status = check_header(number);
      return status.ok();
    }
    if (cells.size() != h->columns) {
      status = At(file, number, "",
                  "has " + std::to_string(cells.size()) + " cells where the header names " +
                      std::to_string(h->columns));
      return false;
    }
    if (++rows > kMaxInterferenceRows) {
      status = At(file, number, "", "more than " + std::to_string(kMaxInterferenceRows) + " rows");
      return false;
    }
    status = row(number, cells);
    return status.ok();
  });
  if (status && in_header) {
    status = At(file, 0, "", "the file is empty", "the first line names the columns");
  }
  return status;
}

}  // namespace

Expected<SoloTable> ParseSoloCsv(std::string_view text, const std::string& file) {
  static const std::vector<std::string_view> kWanted = {"job", "gpu_util_pct", "mem_bw_util_pct",
                                                        "memory_mib"};
  SoloTable table;
  Header h;
  std::set<std::string> names;
  const Status read = ForEachRow(
      text, file, kWanted, kWanted.size(), &h, [](int) { return Status::Ok(); },
      [&](int line, const std::vector<std::string_view>& cells) -> Status {
        JobProfile p;
        p.job = std::string(cells[h.at[0]]);
        if (p.job.empty()) return At(file, line, "job", "is empty");
        if (!names.insert(p.job).second) {
          return At(file, line, "job", Quote(p.job) + " is measured twice",
                    "one row per job run alone");
        }
        Expected<double> util = NumberCell(cells[h.at[1]], 0, 100, file, line, "gpu_util_pct",
                                           "a percentage from 0 to 100");
        if (!util) return util.error();
        Expected<double> bw = NumberCell(cells[h.at[2]], 0, 100, file, line, "mem_bw_util_pct",
                                         "a percentage from 0 to 100");
        if (!bw) return bw.error();
        Expected<double> memory = NumberCell(cells[h.at[3]], 0, 1e9, file, line, "memory_mib",
                                             "a non-negative number of MiB");
        if (!memory) return memory.error();
        p.gpu_util_pct = *util;
        p.mem_bw_util_pct = *bw;
        p.memory_mib = *memory;
        table.profiles.push_back(std::move(p));
        return Status::Ok();
      });
  if (!read) return read.error();
  table.ignored_columns = h.ignored;
  if (table.profiles.empty()) return At(file, 0, "", "holds no job", "one row per job run alone");
  return table;
}

Expected<SoloTable> ReadSoloCsv(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParseSoloCsv(WithoutUtf8Bom(*text), path);
}

Expected<PairTable> ParsePairsCsv(std::string_view text, const std::string& file,
                                  bool speeds_required) {
  static const std::vector<std::string_view> kWanted = {"job_a", "job_b", "speed_a", "speed_b"};
  PairTable table;
  Header h;
  const Status read = ForEachRow(
      text, file, kWanted, speeds_required ? 4 : 2, &h,
      [&](int line) -> Status {
        if ((h.at[2] < 0) != (h.at[3] < 0)) {
          return At(file, line, h.at[2] < 0 ? "speed_a" : "speed_b",
                    "the header has one speed column without the other",
                    "job_a,job_b,speed_a,speed_b");
        }
        table.has_speeds = h.at[2] >= 0;
        return Status::Ok();
      },
      [&](int line, const std::vector<std::string_view>& cells) -> Status {
        PairRow row;
        row.line = line;
        row.job_a = std::string(cells[h.at[0]]);
        row.job_b = std::string(cells[h.at[1]]);
        if (row.job_a.empty()) return At(file, line, "job_a", "is empty");
        if (row.job_b.empty()) return At(file, line, "job_b", "is empty");
        if (table.has_speeds) {
          const std::string hint =
              "a speed is the job's speed beside the other as a fraction of its speed alone "
              "(1 = no slowdown)";
          for (int k = 0; k < 2; ++k) {
            Expected<double> v = NumberCell(cells[h.at[2 + k]], 0, kMaxPairSpeed, file, line,
                                            kWanted[2 + k], "a speed from 0 to 3", hint);
            if (!v) return v.error();
            (k == 0 ? row.speed_a : row.speed_b) = *v;
          }
        }
        table.rows.push_back(std::move(row));
        return Status::Ok();
      });
  if (!read) return read.error();
  table.ignored_columns = h.ignored;
  if (table.rows.empty()) return At(file, 0, "", "holds no pair");
  return table;
}

Expected<PairTable> ReadPairsCsv(const std::string& path, bool speeds_required) {
  Expected<std::string> text = ReadFileText(path);
  if (!text) return text.error();
  return ParsePairsCsv(WithoutUtf8Bom(*text), path, speeds_required);
}

Expected<std::vector<PairSample>> ResolvePairs(const PairTable& table,
                                               const std::vector<JobProfile>& profiles,
                                               const std::string& file) {
  std::map<std::string, int, std::less<>> index;
  for (size_t i = 0; i < profiles.size(); ++i) index.emplace(profiles[i].job, static_cast<int>(i));
  std::vector<PairSample> out;
  out.reserve(table.rows.size());
  for (const PairRow& row : table.rows) {
    PairSample s;
    for (int k = 0; k < 2; ++k) {
      const std::string& job = k == 0 ? row.job_a : row.job_b;
      const auto it = index.find(job);
      if (it == index.end()) {
        return At(file, row.line, k == 0 ? "job_a" : "job_b", Quote(job) + " has no solo profile",
                  "every job of a pair needs its row in the solo table (--solo)");
      }
      (k == 0 ? s.a : s.b) = it->second;
    }
    s.speed_a = row.speed_a.value_or(1);
    s.speed_b = row.speed_b.value_or(1);
    out.push_back(s);
  }
  return out;
}

nlohmann::ordered_json InterferenceModelJson(const InterferenceModelFile& file) {
  using Json = nlohmann::ordered_json;
  const InterferenceModel& m = file.model;
  Json terms = Json::array();
  for (const char* name : kSurfaceTermNames) terms.push_back(name);
  Json jobs = Json::array();
  for (const JobProfile& p : file.profiles) {
    const JobOffsets* o = m.Offsets(p.job);
    jobs.push_back({{"job", p.job},
                    {"gpu_util_pct", p.gpu_util_pct},
                    {"mem_bw_util_pct", p.mem_bw_util_pct},
                    {"memory_mib", p.memory_mib},
                    {"sensitivity", o ? Json(o->sensitivity) : Json(nullptr)},
                    {"pressure", o ? Json(o->pressure) : Json(nullptr)},
                    {"pairs", o ? o->pairs : 0}});
  }
  Json doc = {{"schema", kInterferenceModelSchema},
              {"surface",
               {{"terms", terms}, {"weights", m.weights}, {"memory_scale_mib", kMemoryScaleMib}}},
              {"lambda", m.lambda},
              {"min_speed", m.min_speed},
              {"max_speed", m.max_speed},
              {"train_mean_speed", m.train_mean},
              {"train_pairs", m.train_pairs},
              {"jobs", jobs}};
  if (const auto& cv = file.cross_validation) {
    doc["cross_validation"] = {{"folds", cv->folds},
                               {"pairs", cv->pairs},
                               {"model_mae", cv->model_mae},
                               {"surface_mae", cv->surface_mae},
                               {"speed_one_mae", cv->speed_one_mae},
                               {"train_mean_mae", cv->train_mean_mae}};
  }
  return doc;
}

namespace {

void OnlyKeys(const JsonField& object, std::initializer_list<std::string_view> keys) {
  for (const auto& [key, field] : object.Members()) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::vector<std::string> known(keys.begin(), keys.end());
    field.Fail("is not a key of an interference model", "known keys: " + Join(known));
  }
}

std::optional<double> OffsetOrNull(const JsonField& job, std::string_view key) {
  return job.At(key).NumberOrNull();
}

InterferenceModelFile ReadModel(const JsonField& root) {
  root.Object();
  OnlyKeys(root, {"schema", "surface", "lambda", "min_speed", "max_speed", "train_mean_speed",
                  "train_pairs", "jobs", "cross_validation"});
  const JsonField schema = root.At("schema");
  if (schema.String() != kInterferenceModelSchema) {
    schema.Fail("is not " + std::string(kInterferenceModelSchema),
                "write the model with `knobsim interference fit`");
  }
  InterferenceModelFile file;
  InterferenceModel& m = file.model;
  const JsonField surface = root.At("surface");
  surface.Object();
  OnlyKeys(surface, {"terms", "weights", "memory_scale_mib"});
  const std::vector<JsonField> terms = surface.At("terms").Items();
  bool same_terms = terms.size() == static_cast<size_t>(kSurfaceTerms);
  for (size_t k = 0; same_terms && k < terms.size(); ++k) {
    same_terms = terms[k].String() == kSurfaceTermNames[k];
  }
  if (!same_terms) {
    surface.At("terms").Fail("are not the terms of this knobsim's surface",
                             "fit the model again with this knobsim");
  }
  const std::vector<JsonField> weights = surface.At("weights").Items();
  if (weights.size() != terms.size()) {
    surface.At("weights").Fail("needs one weight per term (" + std::to_string(kSurfaceTerms) + ")");
  }
  for (const JsonField& w : weights) m.weights.push_back(w.Number());
  const JsonField scale = surface.At("memory_scale_mib");
  if (scale.Number() != kMemoryScaleMib) {
    scale.Fail("is not this knobsim's memory scale (" + std::to_string(kMemoryScaleMib) + ")");
  }
  m.lambda = root.At("lambda").Number();
  if (m.lambda < 0) root.At("lambda").Fail("is negative");
  m.min_speed = root.At("min_speed").Number();
  m.max_speed = root.At("max_speed").Number();
  if (m.max_speed < m.min_speed) root.At("max_speed").Fail("is below min_speed");
  m.train_mean = root.At("train_mean_speed").Number();
  m.train_pairs = static_cast<int>(root.At("train_pairs").Integer(1, kMaxInterferenceRows));
  std::set<std::string> names;
  for (const JsonField& job : root.At("jobs").Items()) {
    job.Object();
    OnlyKeys(job, {"job", "gpu_util_pct", "mem_bw_util_pct", "memory_mib", "sensitivity",
                   "pressure", "pairs"});
    JobProfile p;
    p.job = job.At("job").String();
    if (p.job.empty()) job.At("job").Fail("is empty");
    if (!names.insert(p.job).second) job.At("job").Fail("is listed twice");
    p.gpu_util_pct = job.At("gpu_util_pct").Number();
    p.mem_bw_util_pct = job.At("mem_bw_util_pct").Number();
    p.memory_mib = job.At("memory_mib").Number();
    if (p.gpu_util_pct < 0 || p.gpu_util_pct > 100) {
      job.At("gpu_util_pct").Fail("is not a percentage from 0 to 100");
    }
    if (p.mem_bw_util_pct < 0 || p.mem_bw_util_pct > 100) {
      job.At("mem_bw_util_pct").Fail("is not a percentage from 0 to 100");
    }
    if (p.memory_mib < 0) job.At("memory_mib").Fail("is negative");
    const std::optional<double> sensitivity = OffsetOrNull(job, "sensitivity");
    const std::optional<double> pressure = OffsetOrNull(job, "pressure");
    const int pairs = static_cast<int>(job.At("pairs").Integer(0, kMaxInterferenceRows));
    if (sensitivity.has_value() != pressure.has_value()) {
      job.At("pressure").Fail("must be null exactly when sensitivity is");
    }
    if (sensitivity) m.jobs.push_back({p.job, *sensitivity, *pressure, pairs});
    file.profiles.push_back(std::move(p));
  }
  std::sort(m.jobs.begin(), m.jobs.end(),
            [](const JobOffsets& a, const JobOffsets& b) { return a.job < b.job; });
  if (const std::optional<JsonField> cv = root.Find("cross_validation")) {
    cv->Object();
    OnlyKeys(*cv,
             {"folds", "pairs", "model_mae", "surface_mae", "speed_one_mae", "train_mean_mae"});
    CrossValidation c;
    c.folds = static_cast<int>(cv->At("folds").Integer(2, kMaxInterferenceRows));
    c.pairs = static_cast<int>(cv->At("pairs").Integer(2, kMaxInterferenceRows));
    c.model_mae = cv->At("model_mae").Number();
    c.surface_mae = cv->At("surface_mae").Number();
    c.speed_one_mae = cv->At("speed_one_mae").Number();
    c.train_mean_mae = cv->At("train_mean_mae").Number();
    file.cross_validation = c;
  }
  return file;
}

}  // namespace

Expected<InterferenceModelFile> ReadInterferenceModel(const std::string& path) {
  Expected<JsonDocument> doc = ReadJsonDocument(path);
  if (!doc) return doc.error();
  return ReadJson<InterferenceModelFile>(*doc, ReadModel);
}

}  // namespace knobsim
