// Spelling: how far a typed word is from an allowed one, for "did you mean ...?" hints.
#pragma once

#include <cstddef>
#include <string_view>

namespace knobsim {

// Optimal string alignment distance (Levenshtein plus adjacent swaps), case-insensitive: the
// typos people make in keys and values are a dropped, doubled, swapped or wrong-case letter.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace knobsim
