#include "sim/io/shard_json.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/io/json_document.h"
#include "sim/io/json_numbers.h"
#include "sim/io/run_result_json.h"
#include "sim/random_stream.h"
#include "sim/text.h"
#include "sim/variant.h"

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

InputError Error(const std::string& file, std::string path, std::string message,
                 std::string hint = "") {
  InputError e;
  e.file = file;
  e.path = std::move(path);
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

Json SloJson(const Slo& s) {
  Json j;
  j["percentile"] = ExactDouble(s.percentile);
  j["latency_ns"] = s.latency;
  j["error_budget"] = ExactDouble(s.error_budget);
  return j;
}

// The identity as JSON, in a fixed key order. Merging compares shards key by key on this very
// object, so every field written here is checked, and the message names the key that differs.
Json IdentityJson(const RunSweepIdentity& id) {
  Json j;
  j["knobsim_version"] = id.knobsim_version;
  j["scenario"] = id.scenario;
  j["scenario_hash"] = id.scenario_hash;
  j["seed"] = id.seed;
  j["replications"] = id.replications;
  j["duration_ns"] = id.duration;
  j["warmup_ns"] = id.warmup;
  Json variants = Json::array();
  for (const ShardVariant& v : id.variants) {
    Json jv;
    jv["name"] = v.name;
    jv["description"] = v.description;
    Json workloads = Json::array();
    for (const ShardWorkloadSlo& w : v.workloads) {
      Json jw;
      jw["name"] = w.name;
      jw["slo"] = SloJson(w.slo);
      workloads.push_back(std::move(jw));
    }
    jv["workloads"] = std::move(workloads);
    variants.push_back(std::move(jv));
  }
  j["variants"] = std::move(variants);
  return j;
}

// A short rendering of an identity value for a message: the variants by name only.
std::string Show(const std::string& key, const Json& value) {
  if (key == "variants" && value.is_array()) {
    std::string names;
    for (const Json& v : value) {
      if (!names.empty()) names += ",";
      names += v.value("name", "?");
    }
    return "[" + names + "]";
  }
  return value.dump();
}

// Reading with field paths (the shard's own fields; RunResults read themselves), by the
// document rule of sim/io/json_document.h.
Slo ReadSlo(const JsonField& j) {
  Slo s;
  const auto real = [&](const char* key) {
    const JsonField f = j.At(key);
    double x = 0;
    if (!ReadExactDouble(f.json(), &x)) f.Fail(f.Shown() + " is not a number");
    return x;
  };
  s.percentile = real("percentile");
  s.latency = j.At("latency_ns").Integer(0);
  s.error_budget = real("error_budget");
  return s;
}

RunSweepIdentity ReadIdentity(const JsonField& j) {
  RunSweepIdentity id;
  id.knobsim_version = j.At("knobsim_version").String();
  id.scenario = j.At("scenario").String();
  id.scenario_hash = j.At("scenario_hash").String();
  id.seed = j.At("seed").Unsigned();
  id.replications = static_cast<int>(j.At("replications").Integer(1, 1'000'000));
  id.duration = j.At("duration_ns").Integer(1);
  id.warmup = j.At("warmup_ns").Integer(0);
  const JsonField variants = j.At("variants");
  if (variants.Items().empty()) variants.Fail("is empty (the base always runs)");
  for (const JsonField& v : variants.Items()) {
    ShardVariant sv;
    sv.name = v.At("name").String();
    sv.description = v.At("description").String();
    for (const JsonField& w : v.At("workloads").Items()) {
      ShardWorkloadSlo sw;
      sw.name = w.At("name").String();
      sw.slo = ReadSlo(w.At("slo"));
      sv.workloads.push_back(std::move(sw));
    }
    id.variants.push_back(std::move(sv));
  }
  return id;
}

// The scenario SummarizeVariant needs: it reads only the workloads' names and objectives.
Scenario SloScenario(const ShardVariant& v) {
  Scenario s;
  for (const ShardWorkloadSlo& w : v.workloads) {
    Workload wl;
    wl.name = w.name;
    wl.slo = w.slo;
    s.workloads.push_back(std::move(wl));
  }
  return s;
}

}  // namespace

std::string ContentHash(std::string_view bytes) {
  return fmt::format("fnv1a64:{:016x}", HashName(bytes));
}

Expected<std::string> FileHash(const std::string& path) {
  const Expected<std::string> bytes = ReadFileText(path);
  if (!bytes) return bytes.error();
  return ContentHash(*bytes);
}

RunSweepIdentity MakeRunSweepIdentity(const Scenario& scenario, std::string_view scenario_bytes,
                                      const std::vector<std::string>& variants,
                                      std::string_view knobsim_version) {
  RunSweepIdentity id;
  id.knobsim_version = std::string(knobsim_version);
  id.scenario = scenario.name;
  id.scenario_hash = ContentHash(scenario_bytes);
  id.seed = scenario.run.seed;
  id.replications = scenario.run.replications;
  id.duration = scenario.run.duration;
  id.warmup = scenario.run.warmup;
  const auto add = [&id](std::string name, std::string description, const Scenario& resolved) {
    ShardVariant v;
    v.name = std::move(name);
    v.description = std::move(description);
    for (const Workload& w : resolved.workloads) v.workloads.push_back({w.name, w.slo});
    id.variants.push_back(std::move(v));
  };
  // RunSet's order and its rules: the base first, then each named variant once.
  add(std::string(kBaseVariant), "the scenario as written", scenario);
  for (const std::string& name : variants) {
    if (name == kBaseVariant) continue;
    bool seen = false;
    for (const ShardVariant& v : id.variants) seen = seen || v.name == name;
    if (seen) continue;
    const Variant* v = FindVariant(scenario, name);
    if (v == nullptr) throw std::invalid_argument("unknown variant: " + name);
    add(v->name, v->description, ApplyVariant(scenario, *v));
  }
  return id;
}

std::string RunShardJsonText(const RunShardDocument& doc) {
  Json j;
  j["schema"] = kRunShardSchema;
  const Json identity = IdentityJson(doc.sweep);  // named: items() of a temporary would dangle
  for (const auto& [key, value] : identity.items()) j[key] = value;
  j["shard"] = {{"index", doc.shard.index}, {"count", doc.shard.count}};
  Json jobs = Json::array();
  const int reps = doc.sweep.replications;
  for (const ShardJob& job : doc.jobs) {
    Json jj;
    jj["job"] = job.job;
    jj["variant"] = doc.sweep.variants.at(static_cast<size_t>(job.job / reps)).name;
    jj["replication"] = job.job % reps;
    jj["seed"] = ReplicationSeed(doc.sweep.seed, static_cast<int>(job.job % reps));
    jj["result"] = RunResultToJson(job.result);
    jobs.push_back(std::move(jj));
  }
  j["jobs"] = std::move(jobs);
  // Compact: a document between two knobsim processes, read with jq if at all; indented, the
  // histograms' [bucket, count] pairs would take four lines each and the file five times the space.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Expected<RunShardDocument> ParseRunShard(const Json& json, const std::string& file) {
  try {
    const JsonField root(json, "", file);
    if (!json.is_object()) root.Fail("is not a JSON object");
    const JsonField schema = root.At("schema");
    if (schema.String() != kRunShardSchema)
      schema.Fail(schema.Shown() + " is not " + std::string(kRunShardSchema));
    RunShardDocument doc;
    doc.sweep = ReadIdentity(root);
    const JsonField shard = root.At("shard");
    doc.shard.count = static_cast<int>(shard.At("count").Integer(1, 1'000'000));
    doc.shard.index = static_cast<int>(shard.At("index").Integer(0, doc.shard.count - 1));
    const JsonField jobs = root.At("jobs");
    const int64_t total = doc.sweep.jobs();
    const int reps = doc.sweep.replications;
    // The jobs must be exactly the shard's, in order: then the merged set is the whole sweep
    // exactly when every shard index is there once.
    int64_t expected = doc.shard.index;
    for (const JsonField& item : jobs.Items()) {
      const JsonField job_field = item.At("job");
      const int64_t job = job_field.Integer(0);
      if (job != expected || job >= total) {
        job_field.Fail(expected < total
                           ? fmt::format("is {}, expected {} (shard {} of a sweep of {} jobs)", job,
                                         expected, ShardText(doc.shard), total)
                           : fmt::format("is {}, but shard {} of {} jobs has no more", job,
                                         ShardText(doc.shard), total));
      }
      const std::string variant = item.At("variant").String();
      const int64_t replication = item.At("replication").Integer(0, reps - 1);
      const std::string& want = doc.sweep.variants[static_cast<size_t>(job / reps)].name;
      if (variant != want || replication != job % reps) {
        item.Fail(fmt::format("job {} is {} replication {}, not {} replication {}", job, want,
                              job % reps, variant, replication));
      }
      const JsonField result = item.At("result");
      Expected<RunResult> run = RunResultFromJson(result.json(), file, result.path());
      if (!run.ok()) return run.error();
      doc.jobs.push_back({job, std::move(*run)});
      expected += doc.shard.count;
    }
    if (expected < total) {
      jobs.Fail(fmt::format("job {} of shard {} is missing ({} jobs in the sweep)", expected,
                            ShardText(doc.shard), total),
                "the shard's run did not finish; run it again");
    }
    return doc;
  } catch (const JsonFieldError& bad) {
    return bad.error;
  }
}

Expected<RunSetResult> MergeRunShards(const std::vector<RunShardDocument>& shards,
                                      const std::vector<std::string>& files) {
  if (shards.empty()) return Error("", "", "no shards to merge");
  const RunShardDocument& first = shards.front();
  const Json first_id = IdentityJson(first.sweep);
  const int n = first.shard.count;
  std::vector<int> owner(static_cast<size_t>(n), -1);  // shard index -> position in `shards`
  for (size_t k = 0; k < shards.size(); ++k) {
    const RunShardDocument& s = shards[k];
    const Json id = IdentityJson(s.sweep);
    for (const auto& [key, value] : first_id.items()) {
      if (id[key] != value) {
        return Error(files[k], key,
                     Show(key, id[key]) + " differs from " + Show(key, value) + " in " + files[0],
                     "merge the shards of one sweep: same scenario file, seed, replications, "
                     "duration, warm-up, variants and knobsim version");
      }
    }
    if (s.shard.count != n) {
      return Error(
          files[k], "shard",
          fmt::format("shard {} is one of {}, but {} is shard {} of {}", ShardText(s.shard),
                      s.shard.count, files[0], ShardText(first.shard), n));
    }
    int& slot = owner[static_cast<size_t>(s.shard.index)];
    if (slot >= 0) {
      return Error(files[k], "shard",
                   fmt::format("shard {} is given twice (also {})", ShardText(s.shard),
                               files[static_cast<size_t>(slot)]));
    }
    slot = static_cast<int>(k);
  }
  std::string missing;
  for (int i = 0; i < n; ++i) {
    if (owner[static_cast<size_t>(i)] < 0)
      missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty()) {
    return Error(files[0], "shard",
                 fmt::format("the sweep has {} shards; missing: shard index {} (of 0..{})", n,
                             missing, n - 1),
                 "name every shard's file, e.g. shard-*.json");
  }

  // Each shard holds exactly its jobs (ParseRunShard), so together they hold each job once.
  const RunSweepIdentity& id = first.sweep;
  const int reps = id.replications;
  std::vector<const RunResult*> runs(static_cast<size_t>(id.jobs()), nullptr);
  for (const RunShardDocument& s : shards) {
    for (const ShardJob& job : s.jobs) runs[static_cast<size_t>(job.job)] = &job.result;
  }
  RunSetResult out;
  out.scenario = id.scenario;
  out.seed = id.seed;
  out.replications = reps;
  out.duration = id.duration;
  out.warmup = id.warmup;
  for (size_t v = 0; v < id.variants.size(); ++v) {
    std::vector<RunResult> variant_runs;
    for (int r = 0; r < reps; ++r) {
      const RunResult* run = runs[v * static_cast<size_t>(reps) + static_cast<size_t>(r)];
      if (run == nullptr) return Error(files[0], "jobs", "a job is missing");  // unreachable
      variant_runs.push_back(*run);
    }
    const ShardVariant& sv = id.variants[v];
    try {
      out.variants.push_back(
          SummarizeVariant(sv.name, sv.description, SloScenario(sv), std::move(variant_runs)));
    } catch (const std::exception& e) {
      return Error(files[0], "jobs", "variant " + sv.name + ": " + e.what());
    }
  }
  return out;
}

}  // namespace knobsim
