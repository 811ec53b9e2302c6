// Spelling: how far a typed word is from an allowed one, for "did you mean ...?" hints.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim {

// Optimal string alignment distance (Levenshtein plus adjacent swaps), case-insensitive: the
// typos people make in keys and values are a dropped, doubled, swapped or wrong-case letter.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if near enough to be the likely meaning; else empty. One
// edit per three letters: `replica` finds `replicas`, but `base` does not find `name`.
std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates);

// "did you mean `x`?" when a candidate is close, else "<list_intro> a, b, c"; empty without
// candidates.
std::string SuggestName(std::string_view word, const std::vector<std::string>& candidates,
                        std::string_view list_intro);

}  // namespace knobsim
