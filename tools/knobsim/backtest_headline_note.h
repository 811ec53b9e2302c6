// What whatif and plan say about trust on an imported scenario: the headline of the backtest of
// the export the scenario came from (sim/backtest/backtest_headline.h), found by the scenario's
// `evidence:` in the store, or given as `--backtest FILE`.
#pragma once

#include <string>
#include <vector>

#include "sim/input_error.h"
#include "sim/scenario.h"

namespace CLI {
class App;
}

namespace knobsim::cli {

// Registers `--backtest FILE` (a `knobsim backtest --json` document).
void AddBacktestHeadlineOption(CLI::App* cmd, std::string* file);

// The headline text to print ("" when there is none), and in `notes` what stderr should say
// (no backtest yet, a store record that does not read). A `--backtest` document that does not
// read, or that judged other evidence than the scenario's, is an error naming the option.
Expected<std::string> BacktestHeadlineFor(const Scenario& scenario, const std::string& given,
                                          std::vector<std::string>* notes);

}  // namespace knobsim::cli
