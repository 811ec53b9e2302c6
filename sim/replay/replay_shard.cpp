#include "sim/replay/replay_shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/io/json_numbers.h"
#include "sim/io/results_json.h"
#include "sim/replay/timed_output.h"
#include "sim/scheduler/fgd/policy.h"
#include "sim/text.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

struct Bad {
  InputError error;
};

[[noreturn]] void Fail(const std::string& file, const std::string& path, const std::string& message,
                       const std::string& hint = "") {
  InputError e;
  e.file = file;
  e.path = path;
  e.message = message;
  e.hint = hint;
  throw Bad{std::move(e)};
}

std::string PathIn(const std::string& dir, std::string_view name) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  path.append(name);
  return path;
}

// The identity as JSON in a fixed key order; merging compares shards key by key on it.
Json IdentityJson(const ReplaySweepIdentity& id) {
  Json j;
  j["knobsim_version"] = id.knobsim_version;
  j["mode"] = id.timed ? "timed" : "discrete";
  j["nodes_hash"] = id.nodes_hash;
  Json pods = Json::array();
  for (const ReplaySweepIdentity::PodFile& p : id.pods) {
    pods.push_back(Json{{"workload", p.workload}, {"hash", p.hash}});
  }
  j["pods"] = std::move(pods);
  j["policies"] = id.policies;
  j["seeds"] = id.seeds;
  if (id.timed) {
    j["tune"] = nullptr;
    j["timed"] = Json{{"interval_ns", id.interval},
                      {"compress", ExactDouble(id.compress)},
                      {"until_ns", id.until}};
  } else {
    j["tune"] = id.tune;
    j["timed"] = nullptr;
  }
  return j;
}

const Json& At(const Json& j, const std::string& key, const std::string& file) {
  const auto it = j.find(key);
  if (it == j.end()) Fail(file, key, "is missing");
  return *it;
}

std::string Str(const Json& j, const std::string& key, const std::string& file) {
  const Json& v = At(j, key, file);
  if (!v.is_string()) Fail(file, key, "is not a string");
  return v.get<std::string>();
}

int64_t Int(const Json& j, const std::string& key, const std::string& file, int64_t lo,
            int64_t hi) {
  const Json& v = At(j, key, file);
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) ||
      v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    Fail(file, key, fmt::format("is not an integer in {}..{}", lo, hi));
  }
  return v.get<int64_t>();
}

ReplaySweepIdentity ReadIdentity(const Json& j, const std::string& file) {
  ReplaySweepIdentity id;
  id.knobsim_version = Str(j, "knobsim_version", file);
  const std::string mode = Str(j, "mode", file);
  if (mode != "timed" && mode != "discrete") Fail(file, "mode", "is not discrete or timed");
  id.timed = mode == "timed";
  id.nodes_hash = Str(j, "nodes_hash", file);
  const Json& pods = At(j, "pods", file);
  if (!pods.is_array() || pods.empty()) Fail(file, "pods", "is not a list of pod files");
  for (size_t i = 0; i < pods.size(); ++i) {
    const std::string path = fmt::format("pods[{}]", i);
    if (!pods[i].is_object()) Fail(file, path, "is not an object");
    id.pods.push_back({Str(pods[i], "workload", file), Str(pods[i], "hash", file)});
  }
  const Json& policies = At(j, "policies", file);
  if (!policies.is_array() || policies.empty()) Fail(file, "policies", "is not a list of policies");
  for (size_t i = 0; i < policies.size(); ++i) {
    if (!policies[i].is_string() || !fgd::ParsePolicy(policies[i].get<std::string>())) {
      Fail(file, fmt::format("policies[{}]", i), "is not a replay policy");
    }
    id.policies.push_back(policies[i].get<std::string>());
  }
  const Json& seeds = At(j, "seeds", file);
  if (!seeds.is_array() || seeds.empty()) Fail(file, "seeds", "is not a list of seeds");
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (!seeds[i].is_number_integer() ||
        (seeds[i].is_number_unsigned() &&
         seeds[i].get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
      Fail(file, fmt::format("seeds[{}]", i), "is not a seed");
    }
    id.seeds.push_back(seeds[i].get<int64_t>());
  }
  if (id.timed) {
    const Json& t = At(j, "timed", file);
    if (!t.is_object()) Fail(file, "timed", "is not an object");
    const int64_t max = std::numeric_limits<int64_t>::max();
    id.interval = Int(t, "interval_ns", file, 1, max);
    if (!ReadExactDouble(At(t, "compress", file), &id.compress)) {
      Fail(file, "timed.compress", "is not a number");
    }
    id.until = Int(t, "until_ns", file, 0, max);
  } else {
    id.tune = Str(j, "tune", file);
  }
  return id;
}

std::string ReadBytes(const std::string& path) {
  Expected<std::string> bytes = ReadFileText(path);
  if (!bytes) Fail(path, "", bytes.error().message, "was the shard's run complete?");
  return std::move(*bytes);
}

}  // namespace

ReplayRunKey ReplayRunAt(const ReplaySweepIdentity& sweep, int64_t run) {
  const auto seeds = static_cast<int64_t>(sweep.seeds.size());
  const auto policies = static_cast<int64_t>(sweep.policies.size());
  ReplayRunKey key;
  key.seed = sweep.seeds[static_cast<size_t>(run % seeds)];
  key.policy = sweep.policies[static_cast<size_t>(run / seeds % policies)];
  key.workload = sweep.pods[static_cast<size_t>(run / seeds / policies)].workload;
  return key;
}

std::vector<std::string> ReplayShardFiles(const ReplaySweepIdentity& sweep, const Shard& shard) {
  std::vector<std::string> files;
  if (!sweep.timed) {
    for (replay::ResultFile f : replay::kResultFiles) {
      files.emplace_back(replay::ResultFileName(f));
    }
  } else {
    for (int64_t j = shard.index; j < sweep.runs(); j += shard.count) {
      const ReplayRunKey key = ReplayRunAt(sweep, j);
      files.push_back(replay::TimedCsvName(key.workload, *fgd::ParsePolicy(key.policy), key.seed));
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReplayShardManifestText(const ReplayShardManifest& m) {
  Json j;
  j["schema"] = kReplayShardSchema;
  const Json identity = IdentityJson(m.sweep);  // named: items() of a temporary would dangle
  for (const auto& [key, value] : identity.items()) j[key] = value;
  j["shard"] = Json{{"index", m.shard.index}, {"count", m.shard.count}};
  j["runs"] = (m.sweep.runs() - m.shard.index + m.shard.count - 1) / m.shard.count;
  j["files"] = m.files;
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Expected<ReplayShardManifest> ReadReplayShardManifest(const std::string& dir) {
  const std::string file = PathIn(dir, kReplayShardManifest);
  try {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) Fail(dir, "", "is not a directory");
    if (!std::filesystem::exists(file, ec)) {
      Fail(dir, "", "holds no " + std::string(kReplayShardManifest) + ": not a replay shard",
           "run `knobsim replay ... --shard i/N --out DIR` and wait for it to finish");
    }
    Json j;
    try {
      j = Json::parse(ReadBytes(file));
    } catch (const Json::parse_error& e) {
      Fail(file, "", std::string("is not JSON: ") + e.what());
    }
    if (!j.is_object()) Fail(file, "", "is not a JSON object");
    const std::string schema = Str(j, "schema", file);
    if (schema != kReplayShardSchema) {
      Fail(file, "schema", Quote(schema) + " is not " + std::string(kReplayShardSchema));
    }
    ReplayShardManifest m;
    m.sweep = ReadIdentity(j, file);
    const Json& shard = At(j, "shard", file);
    if (!shard.is_object()) Fail(file, "shard", "is not an object");
    m.shard.count = static_cast<int>(Int(shard, "count", file, 1, 1'000'000));
    m.shard.index = static_cast<int>(Int(shard, "index", file, 0, m.shard.count - 1));
    const Json& files = At(j, "files", file);
    if (!files.is_array()) Fail(file, "files", "is not a list");
    for (const Json& f : files) {
      if (!f.is_string()) Fail(file, "files", "is not a list of file names");
      m.files.push_back(f.get<std::string>());
    }
    if (m.files != ReplayShardFiles(m.sweep, m.shard)) {
      Fail(file, "files",
           "are not the files shard " + ShardText(m.shard) + " of this replay writes");
    }
    return m;
  } catch (const Bad& bad) {
    return bad.error;
  }
}

namespace {

// The shards are those of one sweep (the same identity and shard count), each index given
// once, and the output directory is none of them.
void CheckOneSweep(const std::vector<ReplayShardManifest>& shards,
                   const std::vector<std::string>& dirs, const std::string& out_dir) {
  const Json first_id = IdentityJson(shards[0].sweep);
  const int n = shards[0].shard.count;
  std::vector<int> owner(static_cast<size_t>(n), -1);
  for (size_t k = 0; k < shards.size(); ++k) {
    const std::string file = PathIn(dirs[k], kReplayShardManifest);
    const Json id = IdentityJson(shards[k].sweep);
    for (const auto& [key, value] : first_id.items()) {
      if (id[key] != value) {
        Fail(file, key,
             id[key].dump() + " differs from " + value.dump() + " in " +
                 PathIn(dirs[0], kReplayShardManifest),
             "merge the shards of one replay: same node and pod files, policies, seeds, tune "
             "or timed options, and knobsim version");
      }
    }
    if (shards[k].shard.count != n) {
      Fail(
          file, "shard",
          fmt::format("shard {} is one of {}, but {} is shard {} of {}", ShardText(shards[k].shard),
                      shards[k].shard.count, dirs[0], ShardText(shards[0].shard), n));
    }
    int& slot = owner[static_cast<size_t>(shards[k].shard.index)];
    if (slot >= 0) {
      Fail(dirs[k], "shard",
           fmt::format("shard {} is given twice (also {})", ShardText(shards[k].shard),
                       dirs[static_cast<size_t>(slot)]));
    }
    slot = static_cast<int>(k);
  }
  std::string missing;
  for (int i = 0; i < n; ++i) {
    if (owner[static_cast<size_t>(i)] < 0) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
  }
  if (!missing.empty()) {
    Fail(dirs[0], "shard",
         fmt::format("the replay has {} shards; missing: shard index {} (of 0..{})", n, missing,
                     n - 1),
         "name every shard's directory");
  }
  std::error_code ec;
  for (const std::string& dir : dirs) {
    if (std::filesystem::exists(out_dir, ec) && std::filesystem::equivalent(dir, out_dir, ec)) {
      Fail(out_dir, "", "is one of the shard directories; merge into another directory");
    }
  }
}

// A file of the merged directory: its bytes, or the shard's file to copy.
struct MergedFile {
  std::string name;
  std::string bytes;
  std::string copy_of;  // timed: the shard's file, copied when written (they can be large)
};

// One result file's rows from one shard, which must be exactly that shard's runs.
std::vector<replay::ResultRow> ShardRows(const ReplayShardManifest& shard, const std::string& path,
                                         const ReplaySweepIdentity& sweep) {
  Expected<std::vector<replay::ResultRow>> read = replay::ReadResultCsv(path);
  if (!read.ok()) throw Bad{read.error()};
  std::set<std::tuple<std::string, std::string, int64_t>> want;
  for (int64_t j = shard.shard.index; j < sweep.runs(); j += shard.shard.count) {
    const ReplayRunKey key = ReplayRunAt(sweep, j);
    want.emplace(key.workload, std::string(fgd::ScPolicyLabel(*fgd::ParsePolicy(key.policy))),
                 key.seed);
  }
  for (const replay::ResultRow& r : *read) {
    if (r.tune != sweep.tune || want.erase({r.workload, r.sc_policy, r.seed}) == 0) {
      Fail(path, "",
           fmt::format("the row {},{},{},{} is not one of shard {}'s runs", r.workload, r.sc_policy,
                       r.tune, r.seed, ShardText(shard.shard)));
    }
  }
  if (!want.empty()) {
    const auto& [w, p, s] = *want.begin();
    Fail(path, "",
         fmt::format("has no row for {},{},{} (shard {} has {} runs)", w, p, s,
                     ShardText(shard.shard), read->size() + want.size()));
  }
  return std::move(*read);
}

// Discrete: each result file, the rows of every shard sorted as one run writes them.
std::vector<MergedFile> MergedResultFiles(const std::vector<ReplayShardManifest>& shards,
                                          const std::vector<std::string>& dirs,
                                          ReplayMerge& merged) {
  std::vector<MergedFile> outputs;
  for (replay::ResultFile f : replay::kResultFiles) {
    const std::string name(replay::ResultFileName(f));
    std::vector<replay::ResultRow> rows;
    for (size_t k = 0; k < shards.size(); ++k) {
      std::vector<replay::ResultRow> read =
          ShardRows(shards[k], PathIn(dirs[k], name), shards[0].sweep);
      rows.insert(rows.end(), std::make_move_iterator(read.begin()),
                  std::make_move_iterator(read.end()));
    }
    replay::SortRows(rows);
    outputs.push_back({name, replay::FormatResultCsv(f, rows), ""});
    if (f == replay::ResultFile::kAllo) merged.allo = std::move(rows);
  }
  return outputs;
}

// Timed: every shard's own files, by name, copied as they are.
std::vector<MergedFile> TimedShardFiles(const std::vector<ReplayShardManifest>& shards,
                                        const std::vector<std::string>& dirs) {
  std::vector<MergedFile> outputs;
  std::error_code ec;
  for (size_t k = 0; k < shards.size(); ++k) {
    for (const std::string& name : shards[k].files) {
      const std::string path = PathIn(dirs[k], name);
      if (!std::filesystem::is_regular_file(path, ec)) {
        Fail(path, "", "is missing", "was the shard's run complete?");
      }
      outputs.push_back({name, "", path});
    }
  }
  std::sort(outputs.begin(), outputs.end(),
            [](const MergedFile& a, const MergedFile& b) { return a.name < b.name; });
  return outputs;
}

}  // namespace

Expected<ReplayMerge> MergeReplayShards(const std::vector<std::string>& dirs,
                                        const std::string& out_dir) {
  try {
    if (dirs.empty()) Fail("", "", "no shard directories to merge");
    std::vector<ReplayShardManifest> shards;
    for (const std::string& dir : dirs) {
      Expected<ReplayShardManifest> m = ReadReplayShardManifest(dir);
      if (!m.ok()) return m.error();
      shards.push_back(std::move(*m));
    }
    CheckOneSweep(shards, dirs, out_dir);

    // Everything is read and checked before anything is written.
    ReplayMerge merged;
    merged.timed = shards[0].sweep.timed;
    const std::vector<MergedFile> outputs =
        merged.timed ? TimedShardFiles(shards, dirs) : MergedResultFiles(shards, dirs, merged);

    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) Fail(out_dir, "", "cannot create the directory: " + ec.message());
    // A manifest left there by an earlier shard run would make the merged files look like a
    // shard's.
    std::filesystem::remove(PathIn(out_dir, kReplayShardManifest), ec);
    for (const MergedFile& o : outputs) {
      const std::string bytes = o.copy_of.empty() ? o.bytes : ReadBytes(o.copy_of);
      if (Status written = WriteFileAtomically(PathIn(out_dir, o.name), bytes); !written) {
        return written.error();
      }
      merged.files.push_back(o.name);
    }
    return merged;
  } catch (const Bad& bad) {
    return bad.error;
  }
}

}  // namespace knobsim
