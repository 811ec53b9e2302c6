// `knobsim report RESULTS.json -o FILE.html`: any knobsim results document — a plan
// (knobsim.plan/v1), a run or a what-if (knobsim.results/v1) — as one self-contained HTML page
// that opens offline in a browser (docs/report.md; the page itself: sim/report/html_report.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/backtest/backtest_json.h"
#include "sim/input_error.h"
#include "sim/io/json_document.h"
#include "sim/io/results_document.h"
#include "sim/io/results_json.h"
#include "sim/plan/plan_json.h"
#include "sim/report/html_report.h"
#include "tools/knobsim/commands.h"
#include "tools/knobsim/simulation_options.h"

namespace knobsim::cli {

namespace {

struct ReportArgs {
  std::string input;
  std::string output;
};

int Report(const ReportArgs& args) {
  Expected<JsonDocument> read = ReadJsonDocument(args.input);
  if (!read.ok()) return BadInput(read.error().ToString());
  // Results, plan and backtest documents are checked by the one JSON rule first (file, line,
  // field); the page itself reads what is left tolerantly (sim/report/html_parts.h), as it reads
  // check and diff documents, which have no reader of their own.
  const nlohmann::ordered_json* doc = &read->root;
  const auto schema = doc->is_object() ? doc->find("schema") : doc->end();
  if (doc->is_object() && schema != doc->end()) {
    if (*schema == kResultsSchema) {
      if (Status bad = CheckResultsDocument(*read); !bad) return BadInput(bad);
    } else if (*schema == kPlanSchema) {
      if (Status bad = CheckPlanDocument(*read); !bad) return BadInput(bad);
    } else if (*schema == backtest::kBacktestSchema) {
      if (Status bad = backtest::CheckBacktestDocument(*read); !bad) return BadInput(bad);
    }
  }
  if (args.output == "-") {
    const Expected<std::string> html = RenderReport(*doc);
    if (!html) return BadInput(args.input + ": " + html.error().message);
    std::cout << *html << std::flush;
    return kExitOk;
  }
  if (Status failed = WriteReportFile(*doc, args.output); !failed) {
    // A document it cannot render names the input; a file it cannot write names the output.
    if (const Expected<std::string> html = RenderReport(*doc); !html)
      return BadInput(args.input + ": " + html.error().message);
    return BadInput(failed);
  }
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Render a knobsim document (run/whatif/upgrade, plan, backtest, check or diff --json) as "
      "one self-contained HTML page: verdicts, charts as inline SVG, variants side by side, the "
      "assumptions. No scripts, no external URL: it opens offline. See docs/report.md.");
  cmd->add_option("results", args->input, "The results document (JSON)")
      ->required()
      ->type_name("RESULTS.json");
  cmd->add_option("-o,--out,--output", args->output,
                  "The HTML file to write (atomically); - writes it to stdout")
      ->required()
      ->type_name("FILE.html");
  cmd->callback([args, exit_code] { *exit_code = Report(*args); });
}

}  // namespace knobsim::cli
