// The backtest as a document, `knobsim.backtest/v1` (docs/backtest.md "The document"): the
// windows, the summary and verdicts, then per card and per workload the measured and predicted
// series and their naive baselines, per window. Numbers that are not finite (a window without a
// measured sample, an R² of a flat card) are null. Keys in a fixed order.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/backtest/backtest.h"
#include "sim/input_error.h"
#include "sim/io/json_document.h"

namespace knobsim::backtest {

inline constexpr std::string_view kBacktestSchema = "knobsim.backtest/v1";

nlohmann::ordered_json BacktestToJson(const BacktestReport& report,
                                      std::string_view knobsim_version);

// A backtest document read back (`knobsim report`) checked by the one JSON reading rule
// (sim/io/json_document.h): every field BacktestToJson writes, of its type, each series one
// value (or null) per window; the first wrong one is an error with file, line and field path.
Status CheckBacktestDocument(const JsonDocument& doc);

}  // namespace knobsim::backtest
