// `knobsim replay`: the FGD paper's placement experiment on the Alibaba openb trace
// (docs/replay.md, docs/fgd-policies.md): every pod file × policy × seed replayed in parallel, the
// reference's three result files written, and the medians at x = 100 and 130 printed beside the
// paper's own when its files are given. With --timed, the trace's own times drive arrivals and
// departures instead (sim/replay/timed.h): one CSV of samples per run and a table of medians.
// With --shard i/N, only the runs the shard owns, and a manifest that marks --out as a shard for
// `knobsim merge` (sim/replay/replay_shard.h, docs/sharding.md).
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/input_error.h"
#include "sim/io/results_json.h"
#include "sim/io/shard_json.h"
#include "sim/quantity.h"
#include "sim/replay/discrete.h"
#include "sim/replay/medians.h"
#include "sim/replay/replay_shard.h"
#include "sim/replay/sweep.h"
#include "sim/replay/timed_output.h"
#include "sim/replay/trace_reader.h"
#include "sim/replay/workload.h"
#include "sim/shard.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/progress_line.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

using fgd::PolicyKind;

struct ReplayArgs {
  std::string nodes;
  std::vector<std::string> pods;
  std::vector<std::string> policies;
  std::string seeds = "42-51";
  double tune = 1.3;
  int threads = 0;
  std::string out;
  std::string expected;
  bool quiet = false;
  bool progress = false;
  bool timed = false;
  std::string interval = "1h";
  double compress = 1;
  std::string until;
  std::string shard;  // "i/N"; empty = the whole sweep
  // Which options the command line set: some only make sense with or without --timed.
  bool tune_given = false;
  bool interval_given = false;
  bool compress_given = false;
  bool until_given = false;
};

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// "42-51", "42,45,50" or "42"; ranges and lists mix ("42-44,50"). The error is only a message.
Expected<std::vector<int64_t>> ParseSeeds(const std::string& text) {
  std::vector<int64_t> seeds;
  std::set<int64_t> seen;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string_view piece(text.data() + start, comma - start);
    start = comma + 1;
    const size_t dash = piece.find('-', 1);  // a leading '-' would be a sign
    std::optional<int64_t> lo =
        ParseInt(dash == std::string_view::npos ? piece : piece.substr(0, dash));
    std::optional<int64_t> hi =
        dash == std::string_view::npos ? lo : ParseInt(piece.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi - *lo >= 100000) {
      std::string e = "--seeds: \"";
      e.append(piece).append("\" is not a seed, a list of seeds or a range such as 42-51");
      return InputError{"", 0, "", std::move(e), ""};
    }
    for (int64_t s = *lo; s <= *hi; ++s) {
      if (seen.insert(s).second) seeds.push_back(s);
    }
  }
  return seeds;
}

std::string PolicyList() {
  std::string s;
  for (PolicyKind k : fgd::kAllPolicies) {
    if (!s.empty()) s += ", ";
    s.append(fgd::PolicyName(k));
  }
  return s;
}

// The policies named by --policy, each once, in order; the error is only a message.
Expected<std::vector<PolicyKind>> ParsePolicies(const std::vector<std::string>& names) {
  std::vector<PolicyKind> out;
  std::set<PolicyKind> seen;
  const auto add = [&](PolicyKind k) {
    if (seen.insert(k).second) out.push_back(k);
  };
  for (const std::string& name : names) {
    if (name == "all") {
      for (PolicyKind k : fgd::kAllPolicies) add(k);
    } else if (name == "paper") {  // the six of the FGD paper
      for (PolicyKind k : fgd::kAllPolicies) {
        if (k != PolicyKind::kAckBinpack && k != PolicyKind::kAckSpread) add(k);
      }
    } else if (const std::optional<PolicyKind> k = fgd::ParsePolicy(name)) {
      add(*k);
    } else {
      return InputError{
          "", 0, "",
          "--policy: unknown policy \"" + name + "\"; one of " + PolicyList() + " (or paper, all)",
          ""};
    }
  }
  return out;
}

// A sharded replay: which shard, and the manifest it writes last (ReplayShardManifest).
struct ShardRun {
  std::optional<Shard> shard;  // nullopt: the whole sweep
  ReplaySweepIdentity sweep;
  Shard get() const { return shard.value_or(Shard{}); }
};

// The out directory is ready for this replay: created, and rid of a manifest an earlier shard
// run left there (else this replay's files would look like that shard's to `knobsim merge`).
Status PrepareOut(const std::string& out) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return Status::Failure("--out: cannot create " + out + ": " + ec.message());
  std::filesystem::remove(out + "/" + std::string(kReplayShardManifest), ec);
  if (ec) {
    return Status::Failure("--out: cannot remove the old " + std::string(kReplayShardManifest) +
                           ": " + ec.message());
  }
  return Status::Ok();
}

// Last, after every result file: the manifest, so that a directory holding one is complete.
Status WriteManifest(const std::string& out, const ShardRun& shard) {
  ReplayShardManifest m;
  m.sweep = shard.sweep;
  m.shard = *shard.shard;
  m.files = ReplayShardFiles(m.sweep, m.shard);
  if (Status written = WriteFileAtomically(out + "/" + std::string(kReplayShardManifest),
                                           ReplayShardManifestText(m));
      !written) {
    return written;
  }
  return Status::Ok();
}

void ReportShard(const ShardRun& shard, size_t runs, double seconds, const std::string& out) {
  std::cerr << "knobsim: shard " << ShardText(*shard.shard) << ": " << runs << " of "
            << shard.sweep.runs() << " runs in " << fmt::format("{:.1f}", seconds) << " s; wrote "
            << out << " (combine the shards with knobsim merge)\n";
}

// The timed replay's most samples per run: beyond it --interval is surely a slip (1s over a
// 149-day trace would write 13 million rows per run).
constexpr int64_t kMaxSamples = 1'000'000;
// The longest --interval and --until (about 31 years): the sample clock stays clear of int64's
// end however long the trace.
constexpr SimTime kMaxDuration = 1'000'000'000 * kNanosPerSecond;

int TimedReplay(const ReplayArgs& args, const std::vector<replay::Workload>& workloads,
                const std::vector<std::string>& pod_files, const std::vector<PolicyKind>& policies,
                const std::vector<int64_t>& seeds, ShardRun shard) {
  if (args.tune_given) return BadInput("--tune: the timed replay neither shuffles nor tunes");
  if (!args.expected.empty()) {
    return BadInput("--expected: the paper's files are for the untimed replay, not --timed");
  }
  replay::TimedOptions options;
  const Parsed<int64_t> interval = ParseDuration(args.interval);
  if (!interval.ok()) {
    return BadInput("--interval: " + interval.error + (interval.hint.empty() ? "" : "; ") +
                    interval.hint);
  }
  if (*interval.value <= 0 || *interval.value > kMaxDuration) {
    return BadInput("--interval must be above 0 and at most 1000000000s");
  }
  options.interval = *interval.value;
  if (!(args.compress >= 1 && args.compress <= 1e9)) {
    return BadInput("--compress must be in [1, 1e9]");
  }
  options.compress = args.compress;
  if (args.until_given) {
    const Parsed<int64_t> until = ParseDuration(args.until);
    if (!until.ok()) {
      return BadInput("--until: " + until.error + (until.hint.empty() ? "" : "; ") + until.hint);
    }
    if (*until.value <= 0 || *until.value > kMaxDuration) {
      return BadInput("--until must be above 0 and at most 1000000000s");
    }
    options.until = *until.value;
  }
  shard.sweep.interval = options.interval;
  shard.sweep.compress = options.compress;
  shard.sweep.until = options.until;
  for (size_t i = 0; i < workloads.size(); ++i) {
    if (const Status times = replay::CheckTimes(workloads[i], pod_files[i]); !times) {
      return BadInput(times);
    }
    const SimTime end = replay::TimedEnd(workloads[i], options);
    if (end / options.interval >= kMaxSamples) {
      return BadInput(fmt::format("--interval {}: {} would get {} samples per run, at most {}",
                                  args.interval, pod_files[i], end / options.interval + 1,
                                  kMaxSamples));
    }
  }

  if (Status s = PrepareOut(args.out); !s) return BadInput(s);

  // Each run writes its own file from its worker thread; the first failure is kept.
  Status write_error;
  std::mutex write_error_mutex;
  const replay::TimedSink sink = [&](const replay::TimedRun& run,
                                     const replay::TimedResult& result) {
    const std::string path =
        args.out + "/" + replay::TimedCsvName(run.workload->name, run.policy, run.seed);
    Status written =
        WriteFileAtomically(path, replay::FormatTimedCsv(result, run.workload->capacity_milli));
    if (!written) {
      const std::lock_guard<std::mutex> lock(write_error_mutex);
      if (write_error) write_error = std::move(written);
    }
  };
  ProgressLine progress(ChooseProgressMode(args.quiet, args.progress), "knobsim replay", "runs");
  std::vector<replay::TimedRun> runs;
  try {
    runs = replay::RunTimedSweep(workloads, policies, seeds, options, args.threads, sink,
                                 progress.Callback(), shard.get());
  } catch (...) {
    progress.Clear();
    throw;
  }
  progress.Clear();
  if (!write_error) return BadInput(write_error);
  if (shard.shard) {
    if (Status s = WriteManifest(args.out, shard); !s) return BadInput(s);
    if (!args.quiet) ReportShard(shard, runs.size(), progress.Elapsed(), args.out);
    return kExitOk;
  }
  if (!args.quiet) {
    std::cerr << "knobsim: " << runs.size() << " timed runs in "
              << fmt::format("{:.1f}", progress.Elapsed()) << " s; wrote " << args.out
              << "/timed_<workload>_<policy>_<seed>.csv\n";
    std::cout << "Timed replay, medians over seeds: time averages from the first arrival to the "
                 "end and peaks of the allocated GPU (% of capacity) and the Pending pods; the "
                 "fragmented GPU (% of capacity); pods placed after waiting, their mean wait, pods "
                 "never placed\n"
              << replay::FormatTimedTable(runs) << std::flush;
  }
  return kExitOk;
}

int Replay(const ReplayArgs& args) {
  Expected<std::vector<PolicyKind>> parsed_policies = ParsePolicies(args.policies);
  if (!parsed_policies) return BadInput(parsed_policies.error().message);
  Expected<std::vector<int64_t>> parsed_seeds = ParseSeeds(args.seeds);
  if (!parsed_seeds) return BadInput(parsed_seeds.error().message);
  const std::vector<PolicyKind> policies = std::move(*parsed_policies);
  const std::vector<int64_t> seeds = std::move(*parsed_seeds);
  ShardRun shard;
  if (!args.shard.empty()) {
    const Expected<Shard> parsed_shard = ParseShard(args.shard);
    if (!parsed_shard) return BadInput("--shard: " + parsed_shard.error().message);
    shard.shard = *parsed_shard;
    if (!args.expected.empty()) {
      return BadInput(
          "--expected: a shard prints no table; `knobsim merge` prints the merged "
          "medians");
    }
  }
  if (!(args.tune > 0 && args.tune <= 100)) return BadInput("--tune must be in (0, 100]");
  if (!args.timed && (args.interval_given || args.compress_given || args.until_given)) {
    return BadInput(std::string(args.interval_given   ? "--interval"
                                : args.compress_given ? "--compress"
                                                      : "--until") +
                    ": only with --timed");
  }

  Expected<std::vector<replay::TraceNode>> nodes = replay::ReadNodeCsv(args.nodes);
  if (!nodes.ok()) return BadInput(nodes.error());
  if (nodes->empty()) return BadInput(args.nodes + ": no nodes");
  std::vector<replay::Workload> workloads;
  std::set<std::string> stems;
  for (const std::string& path : args.pods) {
    Expected<std::vector<replay::TracePod>> pods = replay::ReadPodCsv(path);
    if (!pods.ok()) return BadInput(pods.error());
    std::string stem = replay::FileStem(path);
    if (!stems.insert(stem).second) {
      return BadInput("--pods: two pod files named " + stem +
                      " (the workload column is the file's stem)");
    }
    workloads.push_back(replay::MakeWorkload(std::move(stem), *nodes, std::move(*pods)));
  }
  if (shard.shard) {
    // What the shards of one replay agree on; the input files by their bytes' hash.
    ReplaySweepIdentity& id = shard.sweep;
    id.knobsim_version = KNOBSIM_VERSION;
    id.timed = args.timed;
    const Expected<std::string> nodes_hash = FileHash(args.nodes);
    if (!nodes_hash) return BadInput(args.nodes + ": cannot read the file");
    id.nodes_hash = *nodes_hash;
    for (size_t i = 0; i < args.pods.size(); ++i) {
      const Expected<std::string> hash = FileHash(args.pods[i]);
      if (!hash) return BadInput(args.pods[i] + ": cannot read the file");
      id.pods.push_back({workloads[i].name, *hash});
    }
    for (PolicyKind k : policies) id.policies.emplace_back(fgd::PolicyName(k));
    id.seeds = seeds;
    if (!args.timed) id.tune = replay::PyRepr(args.tune);
  }
  if (args.timed) return TimedReplay(args, workloads, args.pods, policies, seeds, shard);

  std::vector<replay::ResultRow> expected;
  if (!args.expected.empty()) {
    const std::string path =
        args.expected + "/" + std::string(replay::ResultFileName(replay::ResultFile::kAllo));
    Expected<std::vector<replay::ResultRow>> rows = replay::ReadResultCsv(path);
    if (!rows.ok()) return BadInput(rows.error());
    expected = std::move(*rows);
  }

  if (Status s = PrepareOut(args.out); !s) return BadInput(s);

  ProgressLine progress(ChooseProgressMode(args.quiet, args.progress), "knobsim replay", "runs");
  replay::SweepResults results;
  try {
    results = replay::RunSweep(workloads, policies, seeds, args.tune, args.threads,
                               progress.Callback(), shard.get());
  } catch (...) {
    progress.Clear();
    throw;
  }
  progress.Clear();
  const double seconds = progress.Elapsed();

  for (replay::ResultFile f : replay::kResultFiles) {
    const std::string path = args.out + "/" + std::string(replay::ResultFileName(f));
    if (Status written = WriteFileAtomically(path, replay::FormatResultCsv(f, results.rows(f)));
        !written) {
      return BadInput(written);
    }
  }
  if (shard.shard) {
    if (Status s = WriteManifest(args.out, shard); !s) return BadInput(s);
    if (!args.quiet) ReportShard(shard, results.allo.size(), seconds, args.out);
    return kExitOk;
  }
  if (!args.quiet) {
    const size_t runs = workloads.size() * policies.size() * seeds.size();
    std::cerr << "knobsim: " << runs << " runs in " << fmt::format("{:.1f}", seconds)
              << " s; wrote " << args.out << "/analysis_{allo,frag,frag_ratio}_discrete.csv\n";
    const std::vector<replay::MedianRow> medians =
        replay::AllocationMedians(results.allo, expected);
    std::cout << "Allocated GPU % (median over seeds) when the arrived request reaches x % of "
                 "capacity\n"
              << replay::FormatMediansTable(medians) << std::flush;
  }
  return kExitOk;
}

}  // namespace

void AddReplayCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Replay the Alibaba openb GPU trace the way the FGD paper did (shuffle by seed, tune to "
      "--tune x GPU capacity, nothing departs) under placement policies, and write the paper's "
      "result files; with --timed, by the trace's own creation and deletion times instead "
      "(see docs/replay.md).");
  cmd->add_option("--nodes", args->nodes, "Node list CSV (sn,cpu_milli,memory_mib,gpu,model)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--pods", args->pods,
                  "Pod list CSV(s); each is one workload, named by its file stem")
      ->required()
      ->type_name("FILE...");
  cmd->add_option("--policy", args->policies,
                  "Policies, comma-separated: random, dotprod, clustering, packing, bestfit, fgd, "
                  "ack-binpack, ack-spread; paper = the first six; all = all eight")
      ->required()
      ->delimiter(',')
      ->type_name("P[,P...]");
  cmd->add_option("--seeds", args->seeds, "Seeds: a range, a list or both (default 42-51)")
      ->type_name("SEEDS");
  cmd->add_option("--tune", args->tune,
                  "Tune the workload to this multiple of the GPU capacity (default 1.3)")
      ->type_name("RATIO");
  cmd->add_option("--threads", args->threads,
                  "Runs in parallel (default 0 = all cores); results do not depend on it")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--out", args->out,
                  "Directory for the three result files (with --timed: one file per run)")
      ->required()
      ->type_name("DIR");
  cmd->add_option("--expected", args->expected,
                  "Directory holding the reference's analysis_allo_discrete.csv: its medians "
                  "are printed beside ours")
      ->type_name("DIR");
  cmd->add_flag("--quiet,-q", args->quiet, "Print no table and no progress line");
  AddProgressOption(cmd, &args->progress);
  cmd->add_option("--shard", args->shard,
                  "Run only shard i of N of the workload × policy × seed runs (0-based, e.g. "
                  "$JOB_COMPLETION_INDEX/4); --out then also gets a manifest, and knobsim merge "
                  "combines the N directories (docs/sharding.md)")
      ->type_name("i/N");
  cmd->add_flag("--timed", args->timed,
                "Replay by the trace's creation and deletion times instead: pods arrive, wait "
                "Pending and leave; writes DIR/timed_<workload>_<policy>_<seed>.csv");
  CLI::Option* interval = cmd->add_option("--interval", args->interval,
                                          "With --timed: trace time between samples (default 1h)")
                              ->type_name("DURATION");
  CLI::Option* compress =
      cmd->add_option("--compress", args->compress,
                      "With --timed: divide creation times by F, keeping each pod's lifetime "
                      "(F times the arrival rate; default 1)")
          ->type_name("F");
  CLI::Option* until =
      cmd->add_option("--until", args->until,
                      "With --timed: stop at this trace time (default: after the last event)")
          ->type_name("DURATION");
  CLI::Option* tune = cmd->get_option("--tune");
  cmd->callback([args, exit_code, interval, compress, until, tune] {
    args->tune_given = tune->count() > 0;
    args->interval_given = interval->count() > 0;
    args->compress_given = compress->count() > 0;
    args->until_given = until->count() > 0;
    *exit_code = Replay(*args);
  });
}

}  // namespace knobsim::cli
