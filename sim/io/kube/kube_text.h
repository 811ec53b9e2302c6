// Text and number helpers of the Kubernetes export reader (sim/io/kube/): how its messages
// quote values and suggest fixes, and the integer rules of Kubernetes quantities.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "sim/text.h"  // Quote

namespace knobsim::kube {

std::string Backquote(std::string_view text);
std::string Cat(std::initializer_list<std::string_view> parts);

// "did you mean `X`?" for the nearest allowed value, else "use A, B or C".
std::string EnumHint(std::string_view word, std::initializer_list<std::string_view> allowed);

bool EndsWith(std::string_view s, std::string_view suffix);
std::string Lower(std::string_view text);  // ASCII letters only

// A whole decimal number, all of `text` (an optional `-`, digits).
std::optional<int64_t> ParseInteger(std::string_view text);

// `x` as an integer when it is one but for floating-point noise (3.92 * 1000).
std::optional<int64_t> ExactInt(double x);

// Kubernetes' Quantity.Value(): rounded up, unless integer but for noise.
std::optional<int64_t> CeilToInt(double x);

}  // namespace knobsim::kube
