// The knobsim subcommands. Each one registers itself (options, help, callback) on the program's
// CLI11 app; its callback does the work and leaves the process exit status in *exit_code.
//
// Exit statuses (docs/design.md §4): 0 success; 1 the run worked but a check failed (e.g.
// `--fail-on-slo`); 2 bad input or usage. The command line is the only place that prints:
// results to stdout, messages and progress to stderr.
#pragma once

namespace CLI {
class App;
}

// The version `knobsim --version` prints and the results document records. The build may pass
// the project version (CMake: KNOBSIM_VERSION="${PROJECT_VERSION}"); the fallback is kept equal
// to project(VERSION) in CMakeLists.txt.
#ifndef KNOBSIM_VERSION
#define KNOBSIM_VERSION "0.1.0"
#endif

namespace knobsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

// `knobsim run SCENARIO [--variant NAME]... [--all] ...`: simulate the base and variants.
void AddRunCommand(CLI::App& app, int* exit_code);

// `knobsim replay --nodes FILE --pods FILE... --policy P[,P...] --out DIR ...`: the FGD paper's
// trace replay (docs/replay.md).
void AddReplayCommand(CLI::App& app, int* exit_code);

// `knobsim schedule --cluster FILE... --pods FILE [--explain] [--json FILE] ...`: place pending
// pods on an exported cluster and say why (docs/schedule.md).
void AddScheduleCommand(CLI::App& app, int* exit_code);

// `knobsim import --kube FILE... [--prom FILE...] [-o scenario.yaml]`: an exported cluster (and
// its metrics) as a scenario file (docs/import.md).
void AddImportCommand(CLI::App& app, int* exit_code);

// `knobsim whatif SCENARIO --knob K=V... | --knobs FILE`: the base beside knob changes, with a
// verdict per variant (docs/whatif.md).
void AddWhatifCommand(CLI::App& app, int* exit_code);

// `knobsim plan SCENARIO [--traffic 1,1.5,2] [--gpu-types ...] ...`: the smallest node counts that
// meet every SLO per traffic level, GPU type, POLICY, placement and pricing (docs/plan.md).
void AddPlanCommand(CLI::App& app, int* exit_code);

// `knobsim merge SHARD... -o OUT`: the shards of a `--shard i/N` sweep (run, plan, replay) as
// the one unsharded output (docs/sharding.md).
void AddMergeCommand(CLI::App& app, int* exit_code);

// `knobsim report RESULTS.json -o FILE.html`: a results document as a self-contained HTML page
// (docs/report.md).
void AddReportCommand(CLI::App& app, int* exit_code);

// `knobsim backtest --kube FILE... --prom FILE... [--train FROM/TO --test FROM/TO | --split F]`:
// the import's predictions against the metrics' test window (docs/backtest.md).
void AddBacktestCommand(CLI::App& app, int* exit_code);

// `knobsim check SCENARIO | --kube FILE... [--prom FILE...]`: the pre-upgrade checklist
// (docs/check.md).
void AddCheckCommand(CLI::App& app, int* exit_code);

// `knobsim diff BASE.json NEW.json [--fail-on RULES] [--format text|markdown|json]`: the CI gate
// on predicted latency, errors and utilization (docs/diff.md).
void AddDiffCommand(CLI::App& app, int* exit_code);

// `knobsim upgrade SCENARIO [--order ...] [--after ...] [--compare]`: rehearse a rolling cGPU
// upgrade while traffic flows (docs/upgrade.md).
void AddUpgradeCommand(CLI::App& app, int* exit_code);

// `knobsim interference fit --solo SOLO.csv --pairs PAIRS.csv -o MODEL.json` and
// `knobsim interference predict --model MODEL.json --pairs PAIRS.csv [--json FILE]`: the
// co-location interference model (docs/interference.md).
void AddInterferenceCommand(CLI::App& app, int* exit_code);

}  // namespace knobsim::cli
