// A shard of `knobsim replay --shard i/N` and the merge of N of them (docs/sharding.md).
//
// A replay shard writes into its --out directory exactly the files an unsharded replay writes,
// holding only its own runs (the three analysis_*_discrete.csv files with its rows, or with
// --timed its timed_*.csv files), and last a manifest, `knobsim-shard.json` (schema
// "knobsim.replay-shard/v1"), which marks the directory as a shard and says which sweep it
// belongs to: the node and pod files (by their bytes' hash), policies, seeds, tune or the timed
// options, the knobsim version. Written last, the manifest also tells a finished shard from one
// whose process died.
//
// Runs are numbered in the replay's own order, workload × policy × seed nested that way, and
// shard i of N owns run j when j mod N == i (sim/shard.h). Merging checks that the directories
// are the N shards of one sweep and writes into the output directory the files one unsharded
// replay writes, byte for byte: the discrete rows read back, put together and sorted as the
// replay sorts them (the values are written in Python's repr, which reads back to the same
// double and prints the same again), the timed files copied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/event_queue.h"
#include "sim/input_error.h"
#include "sim/replay/result_csv.h"
#include "sim/shard.h"

namespace knobsim {

inline constexpr std::string_view kReplayShardSchema = "knobsim.replay-shard/v1";
inline constexpr std::string_view kReplayShardManifest = "knobsim-shard.json";

// Everything the shards of one replay sweep agree on.
struct ReplaySweepIdentity {
  std::string knobsim_version;
  bool timed = false;
  std::string nodes_hash;  // ContentHash of the node list's bytes (sim/io/shard_json.h)
  struct PodFile {
    std::string workload;  // the file's stem
    std::string hash;
  };
  std::vector<PodFile> pods;
  std::vector<std::string> policies;  // replay::PolicyName, in the command's order
  std::vector<int64_t> seeds;         // in the command's order
  std::string tune;                   // untimed: as the result files write it ("1.3")
  SimTime interval = 0;               // timed only
  double compress = 1;                // timed only
  SimTime until = 0;                  // timed only; 0 = to the end

  int64_t runs() const {
    return static_cast<int64_t>(pods.size() * policies.size() * seeds.size());
  }
};

struct ReplayShardManifest {
  ReplaySweepIdentity sweep;
  Shard shard;
  std::vector<std::string> files;  // what the shard wrote beside the manifest, sorted
};

// Run j of the sweep: its workload, policy name and seed.
struct ReplayRunKey {
  std::string workload;
  std::string policy;
  int64_t seed = 0;
};
ReplayRunKey ReplayRunAt(const ReplaySweepIdentity& sweep, int64_t run);

// The files shard `shard` writes beside its manifest, sorted: the three result files, or with
// --timed its runs' files.
std::vector<std::string> ReplayShardFiles(const ReplaySweepIdentity& sweep, const Shard& shard);

std::string ReplayShardManifestText(const ReplayShardManifest& manifest);

// Reads DIR/knobsim-shard.json. A directory without one is not a shard (the message says so).
Expected<ReplayShardManifest> ReadReplayShardManifest(const std::string& dir);

// What a merge wrote: the files, and for an untimed replay its allocation rows (for the table).
struct ReplayMerge {
  std::vector<std::string> files;
  bool timed = false;
  std::vector<replay::ResultRow> allo;
};

// Checks that `dirs` are the N shards of one sweep, each complete, and writes the merged files
// into `out_dir` (created if needed; each file written atomically). Nothing is written when a
// check fails.
Expected<ReplayMerge> MergeReplayShards(const std::vector<std::string>& dirs,
                                        const std::string& out_dir);

}  // namespace knobsim
