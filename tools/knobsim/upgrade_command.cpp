// `knobsim upgrade`: rehearse the rolling node reset of a cGPU kernel-module upgrade on a
// scenario — cordon, drain through the Eviction API, reset, back with the new settings — while
// traffic flows, and report what breaks (docs/upgrade.md). `--compare` runs the two orders of
// docs/design.md §1 item 2 side by side: upgrade-first and fix-quotas-first, with the same seed.
//
// Exit status: 2 bad input; 1 when any variant that ran shows breakage (UpgradeBreakage: not
// finished, CUDA OOM or fake-Ready request errors, a pod ending ImagePullBackOff,
// CrashLoopBackOff or FakeReady); 0 otherwise.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/registry_tags.h"
#include "sim/engine/simulation.h"
#include "sim/input_error.h"
#include "sim/io/results_json.h"
#include "sim/io/scenario_reader.h"
#include "sim/io/spelling.h"
#include "sim/output_file.h"
#include "sim/quantity.h"
#include "sim/report/html_report.h"
#include "sim/run_set.h"
#include "sim/text.h"
#include "sim/upgrade/rolling_upgrade.h"
#include "sim/upgrade/upgrade_json.h"
#include "sim/upgrade/upgrade_run.h"
#include "sim/upgrade/upgrade_text.h"
#include "tools/knobsim/cli_validators.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/shell_quote.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct UpgradeArgs {
  CLI::App* cmd = nullptr;
  std::string scenario;
  std::string order;
  std::vector<std::string> nodes;
  std::vector<std::string> pools;
  int max_unavailable = 1;
  std::string reset_time = "15m";
  std::string drain_timeout = "10m";
  std::string after = "isolation=hard";
  bool fix_quotas_first = false;
  bool compare = false;
  bool force = false;
  std::string registry_tags;
  double pull_bandwidth = 60;
  std::string start;
  std::string step = "1m";
  std::string max_duration = "12h";
  uint64_t seed = 0;
  std::string json;
  std::string report;
  bool quiet = false;
  std::vector<std::string> limits;  // --limit NAME=VALUE

  bool given(const char* option) const { return cmd->get_option(option)->count() > 0; }
};

// The same quoting `knobsim plan` records its command with: plain words as they are, the rest
// in single quotes.
using cli::ShellQuote;

// The arguments that decide the rehearsal, in a fixed order; outputs (--json, --report,
// --quiet) are left out.
std::string CommandText(const UpgradeArgs& a) {
  std::string cmd = "knobsim upgrade " + ShellQuote(a.scenario);
  auto add = [&](const char* name, const std::string& value) {
    if (a.given(name)) cmd += std::string(" ") + name + " " + ShellQuote(value);
  };
  auto flag = [&](const char* name, bool on) {
    if (on) cmd += std::string(" ") + name;
  };
  add("--order", a.order);
  add("--nodes", Join(a.nodes, ","));
  add("--pools", Join(a.pools, ","));
  add("--max-unavailable", std::to_string(a.max_unavailable));
  add("--reset-time", a.reset_time);
  add("--drain-timeout", a.drain_timeout);
  add("--after", a.after);
  flag("--fix-quotas-first", a.fix_quotas_first);
  flag("--compare", a.compare);
  flag("--force", a.force);
  add("--registry-tags", a.registry_tags);
  add("--pull-bandwidth", a.cmd->get_option("--pull-bandwidth")->as<std::string>());
  add("--start", a.start);
  add("--step", a.step);
  add("--max-duration", a.max_duration);
  add("--seed", std::to_string(a.seed));
  return cmd;
}

// `--after isolation=hard,policy=3,cgpu_version=1.5.10`: what every reset node comes back with.
Status ParseAfter(const std::string& text, NodeSettings* after) {
  static const std::vector<std::string> kKeys = {"isolation", "policy", "cgpu_version"};
  *after = {};
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      if (end == text.size() && !text.empty()) break;
      return Status::Failure("--after: an empty setting in \"" + text +
                             "\"; expected KEY=VALUE[,KEY=VALUE...]");
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return Status::Failure("--after: \"" + item + "\" is not KEY=VALUE (e.g. isolation=hard)");
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "isolation") {
      if (value != "hard" && value != "soft") {
        return Status::Failure("--after: isolation: \"" + value + "\" is not an isolation; " +
                               SuggestName(value, {"hard", "soft"}, "use one of"));
      }
      after->isolation = value == "hard" ? MemoryIsolation::kHard : MemoryIsolation::kSoft;
    } else if (key == "policy") {
      int policy = -1;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), policy);
      if (ec != std::errc() || p != value.data() + value.size() || policy < 0 || policy > 5) {
        return Status::Failure("--after: policy: \"" + value +
                               "\" is not a cGPU POLICY; use 0 to 5");
      }
      after->policy = static_cast<SharingPolicy>(policy);
    } else if (key == "cgpu_version") {
      if (value.empty()) return Status::Failure("--after: cgpu_version: the version is empty");
      after->cgpu_version = value;
    } else {
      return Status::Failure("--after: unknown key \"" + key + "\"; " +
                             SuggestName(key, kKeys, "use one of"));
    }
  }
  return Status::Ok();
}

Status ToOptions(const UpgradeArgs& a, UpgradeOptions* o) {
  const bool node_list = !a.nodes.empty();
  if (a.given("--order")) {
    if (a.order == "pool") {
      o->order = UpgradeOrder::kPool;
    } else if (a.order == "zone") {
      o->order = UpgradeOrder::kZone;
    } else if (a.order == "node-list") {
      o->order = UpgradeOrder::kNodeList;
    } else {
      return Status::Failure("--order: \"" + a.order + "\" is not an order; " +
                             SuggestName(a.order, {"pool", "zone", "node-list"}, "use one of"));
    }
  } else if (node_list) {
    o->order = UpgradeOrder::kNodeList;  // --nodes alone: upgrade those, in the order given
  }
  if (o->order == UpgradeOrder::kNodeList && !node_list) {
    return Status::Failure(
        "--order node-list needs --nodes N1,N2,...: the nodes to upgrade, in order");
  }
  if (o->order != UpgradeOrder::kNodeList && node_list) {
    return Status::Failure("--nodes lists the nodes of --order node-list; with --order " + a.order +
                           " choose the scope with --pools");
  }
  if (o->order == UpgradeOrder::kNodeList && !a.pools.empty()) {
    return Status::Failure("--pools: with --order node-list the scope is --nodes");
  }
  o->nodes = a.nodes;
  o->pools = a.pools;
  if (a.max_unavailable < 1)
    return Status::Failure("--max-unavailable: at least 1 node must be allowed down");
  o->max_unavailable = a.max_unavailable;
  o->force = a.force;
  if (Status e = ParseDurationOption("--reset-time", a.reset_time, &o->reset_time); !e) return e;
  if (o->reset_time <= 0)
    return Status::Failure("--reset-time: a reset takes time; give a positive duration");
  if (Status e = ParseDurationOption("--drain-timeout", a.drain_timeout, &o->drain_timeout); !e)
    return e;
  if (a.given("--start")) {
    if (Status e = ParseDurationOption("--start", a.start, &o->start); !e) return e;
  }
  return ParseAfter(a.after, &o->after);
}

// Every image no longer in the registry, as the workload writes it: not pinned by digest, of a
// repository the tags file lists, with a tag it does not list (sim/check/registry_tags.h).
Expected<std::vector<std::string>> MissingImages(const Scenario& s, const std::string& tags_file) {
  std::vector<std::string> missing;
  if (tags_file.empty()) return missing;
  Expected<RegistryTags> tags = ReadRegistryTagsFile(tags_file);
  if (!tags.ok()) return tags.error();
  for (const Workload& w : s.workloads) {
    for (const std::string& image : w.images) {
      const ImageRef ref = ParseImageRef(image);
      if (ref.pinned() || !tags->Knows(ref.repository) || tags->Has(ref)) continue;
      if (std::find(missing.begin(), missing.end(), image) == missing.end())
        missing.push_back(image);
    }
  }
  return missing;
}

// An InputError about an option rather than a file reads "--nodes: unknown node ...".
std::string ErrorText(const InputError& e) {
  if (!e.file.empty()) return e.ToString();
  std::string text = e.path.empty() ? e.message : e.path + ": " + e.message;
  return e.hint.empty() ? text : text + "; " + e.hint;
}

std::string Description(const std::string& name) {
  return name == "fix-quotas-first"
             ? "quotas raised to their peak first (fix_quotas), then the same rolling upgrade"
             : "the rolling upgrade with the quotas as they are";
}

// The results document of the rehearsal: each run summarized as a one-replication variant
// (so `knobsim report` and `knobsim diff` read it), plus its timeline and upgrade sections.
// The document's variants: `base`, the scenario without the upgrade over as long as the
// longest rehearsal (same seed: common random numbers), so each rehearsal's verdict says what
// the upgrade changed; then the rehearsals.
nlohmann::ordered_json Document(const Scenario& scenario, const std::vector<UpgradeRun>& runs,
                                const UpgradeOptions& options, RunOptions run, uint64_t seed,
                                const std::string& command) {
  RunSetResult set;
  set.scenario = scenario.name;
  set.seed = seed;
  set.replications = 1;
  set.warmup = scenario.run.warmup;
  for (const UpgradeRun& r : runs) set.duration = std::max(set.duration, r.run.end);
  run.cluster_operator = nullptr;
  run.duration = set.duration;
  set.variants.push_back(
      SummarizeVariant(std::string(kBaseVariant),
                       "the scenario without the upgrade, as long as the longest rehearsal",
                       scenario, {Simulate(scenario, seed, run)}));
  for (const UpgradeRun& r : runs)
    set.variants.push_back(SummarizeVariant(r.name, Description(r.name), scenario, {r.run}));
  return AddUpgradeSections(ResultsDocument(set), runs, options, command);
}

// The output paths (writable before hours of simulation), then the rehearsals (two with --compare)
// and the base run of the document, each as long as
// --max-duration at most, with the timeline --step records, against the --limit limits.
Status CheckUpgradeLimits(const UpgradeArgs& a, const Scenario& scenario, const RunOptions& run) {
  if (Status s = CheckOutputPath(a.json, "--json"); !s) return s;
  if (Status s = CheckOutputPath(a.report, "--report"); !s) return s;
  RunLimits limits;
  if (Status s = ApplyLimitOptions(a.limits, &limits); !s) return s;
  Sweep sweep;
  sweep.runs.push_back({"the rehearsal", &scenario});
  if (a.compare) sweep.runs.push_back({"the fix-quotas-first rehearsal", &scenario});
  if (!a.json.empty() || !a.report.empty()) sweep.runs.push_back({"the base run", &scenario});
  sweep.duration = run.duration;
  sweep.timeline_step = run.timeline_step;
  return CheckRunLimits(sweep, limits);
}

int Upgrade(const UpgradeArgs& a) {
  if (a.compare && a.fix_quotas_first) {
    return BadInput(
        "--compare already runs fix-quotas-first beside upgrade-first; drop --fix-quotas-first");
  }
  Expected<Scenario> read = ReadScenarioFile(a.scenario);
  if (!read.ok()) return BadInput(read.error().ToString());
  const Scenario& scenario = *read;

  UpgradeOptions options;
  if (Status e = ToOptions(a, &options); !e) return BadInput(e);
  RunOptions run;
  if (Status e = ParseDurationOption("--step", a.step, &run.timeline_step); !e) return BadInput(e);
  if (run.timeline_step <= 0)
    return BadInput("--step: the timeline needs a positive step, e.g. 1m");
  if (Status e = ParseDurationOption("--max-duration", a.max_duration, &run.duration); !e)
    return BadInput(e);
  if (run.duration <= 0) return BadInput("--max-duration: give a positive duration, e.g. 12h");
  if (!(a.pull_bandwidth > 0) || !std::isfinite(a.pull_bandwidth)) {
    return BadInput("--pull-bandwidth: MiB/s must be a positive number");
  }
  run.pull_mib_per_s = a.pull_bandwidth;
  if (Status e = CheckUpgradeLimits(a, scenario, run); !e) return BadInput(e);
  Expected<std::vector<std::string>> missing = MissingImages(scenario, a.registry_tags);
  if (!missing.ok()) return BadInput(missing.error().ToString());
  run.missing_images = std::move(*missing);
  const uint64_t seed = a.given("--seed") ? a.seed : scenario.run.seed;

  std::vector<UpgradeRun> runs;
  if (a.compare) {
    Expected<std::vector<UpgradeRun>> both = RunUpgradeComparison(scenario, options, run, seed);
    if (!both.ok()) return BadInput(ErrorText(both.error()));
    runs = std::move(*both);
  } else {
    Expected<UpgradeRun> one = RunUpgrade(scenario, options, run, seed, a.fix_quotas_first);
    if (!one.ok()) return BadInput(ErrorText(one.error()));
    runs.push_back(std::move(*one));
  }

  const bool json_to_stdout = a.json == "-";
  if (!a.json.empty() || !a.report.empty()) {
    const nlohmann::ordered_json doc = Document(scenario, runs, options, run, seed, CommandText(a));
    if (!a.json.empty()) {
      const std::string text = ResultsJsonText(doc);
      if (json_to_stdout) {
        std::cout << text << std::flush;
      } else if (Status written = WriteFileAtomically(a.json, text); !written) {
        return BadInput(written);
      }
    }
    if (!a.report.empty()) {
      if (Status s = WriteReportFile(doc, a.report); !s) return BadInput(s);
    }
  }
  if (!a.quiet) {
    // With `--json -` stdout is the document alone; the report goes to stderr (as whatif's
    // verdict).
    std::ostream& out = json_to_stdout ? std::cerr : std::cout;
    out << UpgradeText(runs, options) << std::flush;
  }

  std::vector<std::string> broken;
  for (const UpgradeRun& r : runs) {
    if (JudgeUpgrade(r).broken()) broken.push_back(r.name);
  }
  if (!broken.empty()) {
    std::cerr << "knobsim: the rehearsal shows breakage in " << Join(broken, ", ") << "\n";
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void AddUpgradeCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<UpgradeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "upgrade",
      "Rehearse the rolling node reset a cGPU kernel-module upgrade needs: cordon, drain through "
      "the Eviction API (PodDisruptionBudgets, 429 retries), reset, back with new settings, "
      "while traffic flows. Reports a timeline per node, availability, errors by cause and "
      "latency over time, blocked drains and the total duration (docs/upgrade.md). Exit 1 when "
      "the rehearsal shows breakage.");
  args->cmd = cmd;
  cmd->add_option("scenario", args->scenario, "Scenario file (YAML, see docs/scenario.md)")
      ->required();
  cmd->add_option("--order", args->order,
                  "pool (pools in scenario order), zone (zone by zone) or node-list (--nodes, as "
                  "given); default pool, or node-list when --nodes is given")
      ->type_name("ORDER");
  cmd->add_option("--nodes", args->nodes, "The nodes to upgrade, in order (comma-separated)")
      ->delimiter(',')
      ->type_name("N1,N2");
  cmd->add_option("--pools", args->pools,
                  "Upgrade only these node pools (default: every pool with GPUs)")
      ->delimiter(',')
      ->type_name("P1,P2");
  cmd->add_option("--max-unavailable", args->max_unavailable,
                  "Nodes cordoned to uncordoned at once (default 1)");
  cmd->add_option("--reset-time", args->reset_time,
                  "Drained to back: remove, reset the system disk, re-add (default 15m)")
      ->type_name("DURATION");
  cmd->add_option("--drain-timeout", args->drain_timeout,
                  "Give up a drain after this long, uncordon and retry the node at the end of the "
                  "queue (default 10m; 0 waits forever, like kubectl drain)")
      ->type_name("DURATION");
  cmd->add_option("--after", args->after,
                  "What reset nodes come back with: isolation=hard|soft, policy=0..5, "
                  "cgpu_version=V (default isolation=hard: what the fixed cGPU module does)")
      ->type_name("K=V,...");
  cmd->add_flag("--fix-quotas-first", args->fix_quotas_first,
                "Raise every gpu-mem quota to its peak (+12 %) first, then upgrade");
  cmd->add_flag("--compare", args->compare,
                "Run upgrade-first and fix-quotas-first side by side, with the same seed");
  cmd->add_flag("--force", args->force,
                "As kubectl drain --force: delete pods that declare no controller (without it "
                "such a pod fails its node's drain)");
  cmd->add_option("--registry-tags", args->registry_tags,
                  "Tags the registry still has (docs/check.md); a tag-only image of a listed "
                  "repository whose tag is missing ends in ImagePullBackOff after a reset")
      ->type_name("FILE");
  cmd->add_option("--pull-bandwidth", args->pull_bandwidth,
                  "Image pull bandwidth after a reset, MiB/s (default 60: a VPC registry endpoint)")
      ->type_name("MIB/S");
  cmd->add_option("--start", args->start,
                  "When the first cordon happens (default: once the cluster is up, the warm-up "
                  "end or the longest start-up)")
      ->type_name("DURATION");
  cmd->add_option("--step", args->step, "Timeline step (default 1m)")->type_name("DURATION");
  AddLimitOption(cmd, &args->limits);
  cmd->add_option("--max-duration", args->max_duration,
                  "Stop the run here even if the upgrade is not done (default 12h); it ends 10 "
                  "minutes after the last node is back")
      ->type_name("DURATION");
  cmd->add_option("--seed", args->seed, "Override the scenario's seed")->check(Uint64Digits());
  cmd->add_option("--json", args->json,
                  "Write the results document with its timeline and upgrade sections "
                  "(docs/results.md) to FILE; - writes it to stdout and the report to stderr")
      ->type_name("FILE");
  cmd->add_option("--report", args->report, "Write the HTML report (docs/report.md) to FILE")
      ->type_name("FILE.html");
  cmd->add_flag("--quiet,-q", args->quiet, "Print no report");
  cmd->callback([args, exit_code] { *exit_code = Upgrade(*args); });
}

}  // namespace knobsim::cli
