// `knobsim diff BASE.json NEW.json`: two results documents compared, and the regression rules
// that make it a CI gate on predicted latency, errors and utilization (docs/diff.md). Exit 0 no
// regression, 1 a rule fired, 2 the files cannot be compared.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "sim/diff/results_diff.h"
#include "sim/io/json_document.h"
#include "sim/io/results_document.h"
#include "sim/io/results_json.h"
#include "sim/output_file.h"
#include "sim/report/html_report.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct DiffArgs {
  std::string base;
  std::string next;
  std::string fail_on{kDefaultDiffRules};
  std::string format = "text";
  std::string out = "-";
  std::string report;  // --report FILE.html
  bool allow_scenario_change = false;
  std::vector<std::string> variants;
};

int Diff(const DiffArgs& args) {
  auto rules = ParseDiffRules(args.fail_on);
  if (!rules) return BadInput("--fail-on: " + rules.error().message);
  if (args.out != "-") {
    if (Status s = CheckOutputPath(args.out, "--out"); !s) return BadInput(s);
  }
  if (Status s = CheckOutputPath(args.report, "--report"); !s) return BadInput(s);
  // Both documents read and checked by the one rule (sim/io/results_document.h) before any
  // number is compared: a document that is not what knobsim writes is bad input, never "no
  // difference".
  Expected<JsonDocument> base = ReadJsonDocument(args.base);
  if (!base.ok()) return BadInput(base.error().ToString());
  if (Status bad = CheckResultsDocument(*base); !bad) return BadInput(bad);
  Expected<JsonDocument> next = ReadJsonDocument(args.next);
  if (!next.ok()) return BadInput(next.error().ToString());
  if (Status bad = CheckResultsDocument(*next); !bad) return BadInput(bad);
  DiffOptions options{*rules, args.allow_scenario_change, args.variants};
  if (Status why = CheckComparable(base->root, next->root, options); !why) {
    return BadInput("cannot compare " + args.base + " and " + args.next + ": " + why.ToString());
  }
  const DiffReport report = DiffResults(base->root, next->root, options);
  const std::string text = args.format == "markdown" ? DiffMarkdown(report)
                           : args.format == "json"   ? DiffJson(report).dump(2) + "\n"
                                                     : DiffText(report);
  if (args.out == "-") {
    std::cout << text << std::flush;
  } else if (Status written = WriteFileAtomically(args.out, text); !written) {
    return BadInput(written);
  }
  if (!args.report.empty()) {
    if (Status written = WriteReportFile(DiffJson(report), args.report); !written) {
      return BadInput(written);
    }
  }
  return report.regressions > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddDiffCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two results documents (run/whatif --json) and fail on regressions");
  cmd->footer(
      "A rule fires when NEW - BASE moves its metric the bad way past the threshold AND by more "
      "than the noise (the paired 95 % half-width over replications, else the sum of both "
      "half-widths). Rules: p50 p90 p99 p999 mean (ms, or %), errors (count or %), error_ratio "
      "and busy (pp), pending and fake_ready (pods), slo_met:any. Exit 0 no regression, 1 "
      "regression, 2 not comparable (docs/diff.md).");
  cmd->add_option("BASE", args->base, "results of the base (e.g. the main branch)")->required();
  cmd->add_option("NEW", args->next, "results of the change")->required();
  cmd->add_option("--fail-on", args->fail_on, "comma-separated rules, e.g. p99:+10%,errors:+0")
      ->capture_default_str();
  cmd->add_option("--format", args->format, "text, markdown (a pull-request comment) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--out", args->out, "where to write the report (`-` = stdout)")
      ->capture_default_str();
  cmd->add_option("--report", args->report,
                  "Also write the HTML page of the comparison (docs/report.md) to FILE.html");
  cmd->add_flag("--allow-scenario-change", args->allow_scenario_change,
                "compare documents of differently named scenarios");
  cmd->add_option("--variant", args->variants,
                  "compare only this variant (repeatable; default: every variant in both)");
  cmd->callback([args, exit_code] { *exit_code = Diff(*args); });
}

}  // namespace knobsim::cli
