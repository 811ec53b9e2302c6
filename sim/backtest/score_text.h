// How the backtest writes a score in its texts (the verdicts, the table): "n/a" for a number
// that is not finite (a card without variance has no R², a workload without windows no MdAPE).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "sim/text.h"

namespace knobsim::backtest {

inline std::string Fixed(double v, int decimals) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "n/a";
}

inline std::string Pct(double fraction) {
  return std::isfinite(fraction) ? Percent(fraction, 1, " %") : "n/a";
}

}  // namespace knobsim::backtest
