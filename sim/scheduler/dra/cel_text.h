// Text as the CEL evaluator needs it: CEL strings are code points over UTF-8 (decoded as Go
// decodes them), doubles print as Go prints them, and names are compared for "did you mean"
// hints. Internal to the CEL evaluator (sim/scheduler/dra/cel.h is its interface).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace knobsim::dra::cel_internal {

// One code point of UTF-8 at s[*i], advancing *i; a byte that starts no valid sequence reads as
// U+FFFD and advances one byte, as Go's range over a string does (CEL strings are code points).
char32_t DecodeUtf8(std::string_view s, size_t* i);

// The code points of `s`, as DecodeUtf8 reads them.
size_t RuneCount(std::string_view s);

// Whether `s` is valid UTF-8 (an encoded U+FFFD is valid).
bool ValidUtf8(std::string_view s);

void AppendUtf8(std::string& out, char32_t c);

std::u32string Runes(std::string_view s);

std::string FromRunes(std::u32string_view runes);

// Go's unicode.IsSpace, what strings.TrimSpace (CEL's trim()) strips.
bool IsUnicodeSpace(char32_t c);

// A double as Go's %g writes it (cel-go's string(double) and the %v of error messages): the
// shortest digits that read back, in exponent form below 1e-4 and from 1e6 on ("1e+06").
std::string GoDouble(double d);

// The candidate closest to `name` by edit distance, for "did you mean" hints; "" when none is
// close enough.
std::string ClosestName(std::string_view name, const std::vector<std::string_view>& candidates);

}  // namespace knobsim::dra::cel_internal
