// How knobsim's JSON documents (results, timeline, plan) write numbers: a double that is not
// finite as null, never as invalid JSON — nlohmann would write null too, but the rule is ours
// and stays independent of the library's defaults — and times in seconds.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/event_queue.h"

namespace knobsim::json_numbers {

inline nlohmann::ordered_json Num(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

inline double Seconds(SimTime t) { return static_cast<double>(t) / kNanosPerSecond; }

}  // namespace knobsim::json_numbers
