// The report page of a backtest (`knobsim backtest --json`, schema knobsim.backtest/v1,
// docs/backtest.md): the verdicts in words, the summary beside the naive baselines, then per
// card predicted against measured utilization over the test window and per workload predicted
// against measured latency (mean and p99), the pods whose memory rose above their train-window
// peak or quota, and the notes.
#pragma once

#include <string>
#include <string_view>

#include "sim/report/html_parts.h"

namespace knobsim::report {

inline constexpr std::string_view kBacktestSchema = "knobsim.backtest/v1";

// The <body> content for `doc`, whose schema is knobsim.backtest/v1 and whose "cards" is an
// array (RenderReport checks both). Missing or null fields leave gaps, never an error.
std::string BacktestPageBody(const Json& doc);

}  // namespace knobsim::report
