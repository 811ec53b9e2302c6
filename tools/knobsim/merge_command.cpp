// `knobsim merge`: the N shards of a sweep (`--shard i/N`) back into exactly what one unsharded
// run writes (docs/sharding.md):
//   - shard documents of `knobsim run` (knobsim.shard/v1) -> the results document of `run --json`;
//   - plan documents of `knobsim plan --shard` (knobsim.plan/v1) -> the unsharded plan document;
//   - replay shard directories (knobsim-shard.json inside) -> the unsharded replay's files.
// The shards must be one sweep, each index 0..N-1 exactly once; anything else is bad input
// (exit 2) naming the file and what differs, and nothing is written.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input_error.h"
#include "sim/io/json_document.h"
#include "sim/io/results_json.h"
#include "sim/io/shard_json.h"
#include "sim/plan/plan_json.h"
#include "sim/replay/medians.h"
#include "sim/replay/replay_shard.h"
#include "sim/text.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

using Json = nlohmann::ordered_json;

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out;
  bool quiet = false;
};

// Writes `text` to `out` (`-`: stdout), atomically.
int Emit(const std::string& out, const std::string& text) {
  if (out == "-") {
    std::cout << text << std::flush;
    return kExitOk;
  }
  if (Status written = WriteFileAtomically(out, text); !written) return BadInput(written);
  return kExitOk;
}

// Reads and parses one document; a bad one most often is a shard cut short.
Expected<JsonDocument> ReadJson(const std::string& path) {
  Expected<JsonDocument> doc = ReadJsonDocument(path);
  if (!doc.ok() && doc.error().line > 0) {
    InputError e = doc.error();
    if (e.hint.empty()) e.hint = "is it the complete output of a shard?";
    return e;
  }
  return doc;
}

std::string SchemaOf(const Json& doc) {
  if (!doc.is_object()) return "";
  const auto it = doc.find("schema");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

int MergeRuns(const MergeArgs& args, const std::vector<JsonDocument>& docs) {
  std::vector<RunShardDocument> shards;
  for (size_t k = 0; k < docs.size(); ++k) {
    Expected<RunShardDocument> shard = ParseRunShard(docs[k].root, args.inputs[k]);
    if (!shard.ok()) return BadInput(WithJsonLine(shard.error(), docs[k]));
    if (shard->sweep.knobsim_version != KNOBSIM_VERSION) {
      return BadInput(args.inputs[k] + ": knobsim_version: written by knobsim " +
                      shard->sweep.knobsim_version + ", this is knobsim " KNOBSIM_VERSION +
                      "; merge with the version that ran the shards");
    }
    shards.push_back(std::move(*shard));
  }
  Expected<RunSetResult> merged = MergeRunShards(shards, args.inputs);
  if (!merged.ok()) return BadInput(merged.error().ToString());
  const int status = Emit(args.out, ResultsJsonText(ResultsDocument(*merged)));
  if (status == kExitOk && !args.quiet && args.out != "-") {
    std::cerr << "knobsim: merged " << shards.size() << " shards (" << shards.front().sweep.jobs()
              << " runs) into " << args.out << "\n";
  }
  return status;
}

// Plan shards (knobsim.plan/v1 with a "shard" key) are merged by the plan's own code, which
// recomputes the recommendations and the frontier from the options exactly as the unsharded
// plan does (sim/plan/plan_json.h).
int MergePlans(const MergeArgs& args, const std::vector<JsonDocument>& docs) {
  std::vector<Json> roots;
  for (size_t k = 0; k < docs.size(); ++k) {
    if (Status bad = CheckPlanDocument(docs[k]); !bad) return BadInput(bad);
    if (!docs[k].root.contains("shard")) {
      return BadInput(args.inputs[k] +
                      ": shard: missing; this is a whole plan, not the output of plan --shard");
    }
    roots.push_back(docs[k].root);
  }
  const Expected<Json> merged = MergePlanShards(roots);
  if (!merged) {
    std::string error = merged.error().message;
    // MergePlanShards numbers the documents from 1 in the order given; name the files instead
    // (from the last, so that "document 1" does not eat "document 12").
    for (size_t k = docs.size(); k > 0; --k) {
      const std::string number = "document " + std::to_string(k);
      for (size_t at = error.find(number); at != std::string::npos;
           at = error.find(number, at + args.inputs[k - 1].size())) {
        error.replace(at, number.size(), args.inputs[k - 1]);
      }
    }
    return BadInput("merging plan shards: " + error);
  }
  const int status = Emit(args.out, PlanJsonText(*merged));
  if (status == kExitOk && !args.quiet && args.out != "-") {
    std::cerr << "knobsim: merged " << docs.size() << " plan shards into " << args.out << "\n";
  }
  return status;
}

int MergeReplays(const MergeArgs& args) {
  if (args.out == "-") {
    return BadInput("-o -: replay shards merge into a directory (the replay's --out), not stdout");
  }
  Expected<ReplayMerge> merged = MergeReplayShards(args.inputs, args.out);
  if (!merged.ok()) return BadInput(merged.error().ToString());
  if (!args.quiet) {
    std::cerr << "knobsim: merged " << args.inputs.size() << " replay shards into " << args.out
              << " (" << merged->files.size() << " files)\n";
    if (!merged->timed) {
      std::cout << "Allocated GPU % (median over seeds) when the arrived request reaches x % of "
                   "capacity\n"
                << replay::FormatMediansTable(replay::AllocationMedians(merged->allo, {}))
                << std::flush;
    }
  }
  return kExitOk;
}

int Merge(const MergeArgs& args) {
  // Directories are replay shards; files are documents. One merge is one kind.
  std::error_code ec;
  size_t dirs = 0;
  for (const std::string& in : args.inputs) dirs += std::filesystem::is_directory(in, ec) ? 1 : 0;
  if (dirs == args.inputs.size()) return MergeReplays(args);
  if (dirs > 0) {
    return BadInput("give either replay shard directories or shard documents, not both");
  }

  std::vector<JsonDocument> docs;
  for (const std::string& path : args.inputs) {
    Expected<JsonDocument> doc = ReadJson(path);
    if (!doc.ok()) return BadInput(doc.error().ToString());
    docs.push_back(std::move(*doc));
  }
  const std::string schema = SchemaOf(docs.front().root);
  for (size_t k = 1; k < docs.size(); ++k) {
    if (SchemaOf(docs[k].root) != schema) {
      return BadInput(fmt::format("{}: schema: {} differs from {} in {}", args.inputs[k],
                                  Quote(SchemaOf(docs[k].root)), Quote(schema), args.inputs[0]));
    }
  }
  if (schema == kRunShardSchema) return MergeRuns(args, docs);
  if (schema == kPlanSchema) return MergePlans(args, docs);
  return BadInput(
      fmt::format("{}: schema: {} is not a shard; knobsim merge reads {} (knobsim run --shard), {} "
                  "(knobsim plan --shard) and replay shard directories",
                  args.inputs[0], Quote(schema), kRunShardSchema, kPlanSchema));
}

}  // namespace

void AddMergeCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Combine the N shards of a sweep run with --shard i/N (knobsim run, plan or replay) into "
      "exactly what one unsharded run writes (docs/sharding.md).");
  cmd->add_option("shards", args->inputs,
                  "The shards: every shard document of one run or plan sweep, or every --out "
                  "directory of one replay sweep")
      ->required()
      ->type_name("SHARD...");
  cmd->add_option("-o,--out", args->out,
                  "Where the merged output goes: a file (- for stdout) for documents, a directory "
                  "for replay shards")
      ->required()
      ->type_name("FILE|DIR");
  cmd->add_flag("--quiet,-q", args->quiet, "Print no summary line and no table");
  cmd->callback([args, exit_code] { *exit_code = Merge(*args); });
}

}  // namespace knobsim::cli
