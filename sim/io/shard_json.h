// The shard document of `knobsim run --shard i/N --json FILE` (schema "knobsim.shard/v1",
// docs/sharding.md) and the merge of N of them back into the run set one unsharded run gives.
//
// A shard carries what identifies its sweep (scenario, seed, replications, duration, warm-up,
// the variants run, the knobsim version) and the full RunResult of each job it owns, so that
// `knobsim merge` can summarize every variant exactly as RunSet does: the merged results
// document is byte-identical to the unsharded `knobsim run --json` output. Jobs are numbered as
// RunSet runs them: job = variant ordinal × replications + replication, base first; shard i of
// N owns job j when j mod N == i (sim/shard.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/input_error.h"
#include "sim/results.h"
#include "sim/run_set.h"
#include "sim/scenario.h"
#include "sim/shard.h"

namespace knobsim {

inline constexpr std::string_view kRunShardSchema = "knobsim.shard/v1";

// What SummarizeVariant reads from a variant's resolved scenario: each workload's objective.
struct ShardWorkloadSlo {
  std::string name;
  Slo slo;
};

struct ShardVariant {
  std::string name;  // "base" first
  std::string description;
  std::vector<ShardWorkloadSlo> workloads;  // scenario order
};

// Everything shards of one sweep must agree on.
struct RunSweepIdentity {
  std::string knobsim_version;
  std::string scenario;       // the scenario's name
  std::string scenario_hash;  // ContentHash of the scenario file's bytes
  uint64_t seed = 1;
  int replications = 1;
  SimTime duration = 0;
  SimTime warmup = 0;
  std::vector<ShardVariant> variants;  // in RunSet's order: base, then the variants asked for

  int64_t jobs() const { return static_cast<int64_t>(variants.size()) * replications; }
};

struct ShardJob {
  int64_t job = 0;  // variant = job / replications, replication = job % replications
  RunResult result;
};

struct RunShardDocument {
  RunSweepIdentity sweep;
  Shard shard;
  std::vector<ShardJob> jobs;  // exactly the jobs the shard owns, in increasing order
};

// "fnv1a64:" and 16 hex digits of the 64-bit FNV-1a hash of `bytes` (an input file as read).
// Every byte counts, comments included: shards must be made from the same files. (A check
// against mix-ups, not against forgery.)
std::string ContentHash(std::string_view bytes);

// ContentHash of the file at `path`; ReadFileText's error when it cannot be read.
Expected<std::string> FileHash(const std::string& path);

// The identity of a run set of `scenario` (after the command line's overrides) running
// `variants` (RunSet's names: "base" and repeats are skipped, every other name must exist).
RunSweepIdentity MakeRunSweepIdentity(const Scenario& scenario, std::string_view scenario_bytes,
                                      const std::vector<std::string>& variants,
                                      std::string_view knobsim_version);

// The document as text: compact (one line) with a final newline.
std::string RunShardJsonText(const RunShardDocument& doc);

// Reads a parsed document of schema kRunShardSchema. Checks its own consistency (the jobs are
// exactly the shard's); `file` names it in errors.
Expected<RunShardDocument> ParseRunShard(const nlohmann::ordered_json& json,
                                         const std::string& file);

// The run set the shards are the pieces of. `files[k]` names `shards[k]` in errors: shards of
// different sweeps (what differs, in which file), of different N, an index twice or missing.
Expected<RunSetResult> MergeRunShards(const std::vector<RunShardDocument>& shards,
                                      const std::vector<std::string>& files);

}  // namespace knobsim
