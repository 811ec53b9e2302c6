// `knobsim run`: read a scenario, run the base and the chosen variants (replicated, in parallel),
// print the side-by-side table and optionally write the results document. With --shard i/N it
// runs only its share of the (variant, replication) jobs and writes a shard document instead,
// for `knobsim merge` (docs/sharding.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/input_error.h"
#include "sim/io/results_json.h"
#include "sim/io/results_table.h"
#include "sim/io/scenario_reader.h"
#include "sim/io/shard_json.h"
#include "sim/quantity.h"
#include "sim/run_set.h"
#include "sim/shard.h"
#include "sim/text.h"
#include "sim/variant.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> variants;
  bool all = false;
  SimulationOptions sim;
  std::string shard;  // "i/N"; empty = the whole sweep
};

std::string VariantList(const Scenario& s) {
  if (s.variants.empty()) return "the scenario defines no variants";
  std::vector<std::string> names;
  for (const Variant& v : s.variants) names.push_back(v.name);
  std::string list = "available: ";
  list += Join(names);
  return list;
}

// The jobs of shard `shard` of the run set `id` describes, simulated in parallel (each result
// stored at its place, so the thread count changes nothing). The job list is RunSet's: variant
// ordinal × replications + replication, every variant's scenario resolved as RunSet resolves it.
std::vector<ShardJob> RunShardJobs(const Scenario& scenario, const RunSweepIdentity& id,
                                   const Shard& shard, int threads) {
  std::vector<Scenario> resolved;
  for (const ShardVariant& v : id.variants) {
    const Variant* variant = FindVariant(scenario, v.name);
    resolved.push_back(
        v.name == kBaseVariant || variant == nullptr ? scenario : ApplyVariant(scenario, *variant));
    resolved.back().run.seed = id.seed;
    resolved.back().run.replications = id.replications;
  }
  std::vector<ShardJob> jobs;
  for (int64_t j = shard.index; j < id.jobs(); j += shard.count) jobs.push_back({j, {}});
  RunJobs(static_cast<int>(jobs.size()), threads, [&](int k) {
    const int64_t job = jobs[k].job;
    jobs[k].result = Simulate(resolved[job / id.replications],
                              ReplicationSeed(id.seed, static_cast<int>(job % id.replications)));
  });
  return jobs;
}

int RunShard(const RunArgs& args, const Scenario& scenario, const RunSetOptions& options) {
  const Expected<Shard> shard = ParseShard(args.shard);
  if (!shard) return BadInput("--shard: " + shard.error().message);
  if (!args.sim.json_wanted()) {
    return BadInput("--shard " + args.shard +
                    " needs --json FILE: a shard writes a shard document for `knobsim merge`, "
                    "not a table");
  }
  if (args.sim.fail_on_slo) {
    return BadInput(
        "--fail-on-slo: a shard holds only some replications; decide on the merged "
        "results (knobsim merge)");
  }
  // The shard's identity hashes the scenario file's bytes: every shard must read the same file.
  const Expected<std::string> bytes = ReadFileText(args.scenario);
  if (!bytes) return BadInput(bytes.error());

  RunShardDocument doc;
  doc.sweep = MakeRunSweepIdentity(scenario, *bytes, options.variants, KNOBSIM_VERSION);
  doc.shard = *shard;
  doc.jobs = RunShardJobs(scenario, doc.sweep, *shard, args.sim.threads);
  const std::string text = RunShardJsonText(doc);
  if (args.sim.json_to_stdout()) {
    std::cout << text << std::flush;
  } else if (Status written = WriteFileAtomically(args.sim.json, text); !written) {
    return BadInput(written);
  }
  if (!args.sim.quiet && !args.sim.json_to_stdout()) {
    std::cerr << "knobsim: shard " << ShardText(*shard) << ": " << doc.jobs.size() << " of "
              << doc.sweep.jobs() << " runs; wrote " << args.sim.json
              << " (combine the shards with knobsim merge)\n";
  }
  return kExitOk;
}

// A scenario whose `kube:` holds no claims gives its pods none (ReplicaPodSpec), so VolumeBinding
// and VolumeZone (docs/semantics.md §3.11) do not act in it: said once, naming the workloads
// whose pods would have claims.
void NoteUnsimulatedVolumes(const Scenario& scenario) {
  if (!scenario.kube.pvcs.empty()) return;
  std::vector<std::string> with_claims;
  for (const Workload& w : scenario.workloads) {
    bool claims = !w.volumes.empty();
    for (const StatefulSetSpec& set : scenario.kube.stateful_sets) {
      claims |= set.name == w.name && set.namespace_ == w.namespace_ &&
                !set.volume_claim_templates.empty();
    }
    if (claims) with_claims.push_back(w.namespace_ + "/" + w.name);
  }
  if (with_claims.empty()) return;
  std::cerr << "knobsim: note: the scenario's kube: section lists no pvcs, so the claims of "
            << Join(with_claims)
            << " are not checked (VolumeBinding, VolumeZone); their pods are placed as if "
               "their volumes fit every node\n";
}

int Run(const RunArgs& args) {
  Expected<Scenario> read = ReadScenarioFile(args.scenario);
  if (!read.ok()) return BadInput(read.error().ToString());
  Scenario& scenario = *read;
  NoteUnsimulatedVolumes(scenario);
  NoteCpuHpasWithoutRequest(scenario);

  // Command-line overrides of the scenario's run settings.
  if (Status s = ApplyRunOverrides(args.sim, &scenario); !s) return BadInput(s);

  RunSetOptions options;
  options.seed = scenario.run.seed;
  options.replications = scenario.run.replications;
  options.threads = args.sim.threads;
  if (args.all) {
    for (const Variant& v : scenario.variants) options.variants.push_back(v.name);
  }
  for (const std::string& name : args.variants) {
    if (name != kBaseVariant && FindVariant(scenario, name) == nullptr) {
      return BadInput("unknown variant \"" + name + "\" in " + args.scenario + "; " +
                      VariantList(scenario));
    }
    options.variants.push_back(name);
  }
  if (!args.shard.empty() && args.sim.timeline_opt->count() > 0) {
    return BadInput("--timeline: a shard document carries no timeline; run without --shard");
  }
  if (!args.shard.empty() && args.sim.report_wanted()) {
    return BadInput(
        "--report needs the whole sweep: merge the shards (knobsim merge), then run knobsim "
        "report on the result");
  }
  // The whole sweep's size, even for one shard: every shard of a sweep is refused alike.
  if (Status s = PrepareRunSet(args.sim, scenario, &options); !s) return BadInput(s);
  if (!args.shard.empty()) return RunShard(args, scenario, options);

  std::optional<PriceBook> prices;
  if (Status s = LoadPrices(args.sim, &prices); !s) return BadInput(s);
  RunSetResult results = RunWithProgress(scenario, options, ProgressModeOf(args.sim));
  ApplyPrices(prices, scenario, &results);
  if (Status s = WriteResultsDocument(args.sim, results); !s) return BadInput(s);
  // With `--json -` stdout is the document alone, so a pipe into jq or a file gets valid JSON.
  if (!args.sim.quiet && !args.sim.json_to_stdout()) {
    TableOptions table;
    table.width = TableWidth(args.sim);
    std::cout << ResultsTable(results, table) << std::flush;
  }

  if (args.sim.fail_on_slo) {
    std::vector<std::string> missed, pending;
    for (const VariantSummary& v : results.variants) {
      for (const WorkloadStats& w : v.workloads) {
        if (!w.slo_met) missed.push_back(v.name + "/" + w.name);
      }
      for (const std::string& pod : PendingPods(v)) pending.push_back(v.name + " " + pod);
    }
    if (!missed.empty())
      std::cerr << "knobsim: SLO missed (" << missed.size() << "): " << Join(missed) << "\n";
    if (!pending.empty())
      std::cerr << "knobsim: pods Pending (" << pending.size() << "): " << Join(pending) << "\n";
    if (!missed.empty() || !pending.empty()) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Simulate a scenario: the base cluster and the chosen variants side by side, per workload "
      "(latency, errors by cause, SLO) and per card (utilization, memory).");
  run->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")
      ->required();
  run->add_option("--variant", args->variants,
                  "Also run this variant of the scenario (repeatable, or comma-separated); the "
                  "base always runs first")
      ->delimiter(',');
  run->add_flag("--all", args->all, "Run every variant the scenario defines");
  AddSimulationOptions(run, &args->sim,
                       "Write the results document (docs/results.md) to FILE; - writes it to "
                       "stdout instead of the table",
                       "Print no table and no progress line");
  AddWideOption(run, &args->sim);
  AddPricesOption(run, &args->sim);
  run->add_flag("--fail-on-slo", args->sim.fail_on_slo,
                "Exit with status 1 when any workload of any variant run misses its SLO, or a pod "
                "is left Pending");
  run->add_option("--shard", args->shard,
                  "Run only shard i of N of the (variant, replication) jobs (0-based, e.g. "
                  "$JOB_COMPLETION_INDEX/4) and write a shard document to --json; combine the N "
                  "documents with knobsim merge (docs/sharding.md)")
      ->type_name("i/N");
  run->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace knobsim::cli
