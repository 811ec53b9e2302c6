// The backtest as the text `knobsim backtest` prints (docs/backtest.md): the windows, one line
// per card and per workload with its scores beside the naive baselines', the pods whose memory
// rose above their train-window peak or quota, the verdicts, and the notes.
#pragma once

#include <string>

#include "sim/backtest/backtest.h"

namespace knobsim::backtest {

std::string BacktestText(const BacktestReport& report);

}  // namespace knobsim::backtest
