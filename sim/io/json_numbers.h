// How knobsim's JSON documents write numbers, under two policies:
//
// - The documents people read (results, timeline, plan): a double that is not finite as null,
//   never as invalid JSON — nlohmann would write null too, but the rule is ours and stays
//   independent of the library's defaults — and times in seconds (Num, Seconds).
// - The documents knobsim reads back (shards): every double bit for bit (ExactDouble) — nlohmann's
//   shortest round-trip numbers read back to the same bits, -0.0 included — and the non-finite
//   ones, which JSON has no number for, as the strings "NaN", "Infinity" and "-Infinity" (a NaN's
//   payload is not kept); times as integer nanoseconds.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/event_queue.h"

namespace knobsim {

namespace json_numbers {

inline nlohmann::ordered_json Num(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

inline double Seconds(SimTime t) {
  return static_cast<double>(t) / kNanosPerSecond;
}

}  // namespace json_numbers

// The double as a shard writes it (see above), and back.
inline nlohmann::ordered_json ExactDouble(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

// False when `json` is neither a number nor one of the three strings.
inline bool ReadExactDouble(const nlohmann::ordered_json& json, double* out) {
  if (json.is_number()) {
    *out = json.get<double>();
    return true;
  }
  if (!json.is_string()) return false;
  const std::string& s = json.get_ref<const std::string&>();
  if (s == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (s == "Infinity") {
    *out = std::numeric_limits<double>::infinity();
  } else if (s == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

}  // namespace knobsim
