// The small text and number helpers that messages, tables and reports share, so that every
// command words a list, a quoted value or a percentage the same way, and the whole-file read
// that every reader of a user's file goes through.
//
// Join, Quote, Percent and DurationText format only; they know nothing of NaN (a caller that may
// hold one writes its own placeholder first). ReadFileText reports a file it cannot open, or a read
// cut short, as an InputError naming the path as given.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

// `value` is one of `list`.
bool Contains(const std::vector<std::string>& list, std::string_view value);

// "a, b, c" (fmt::join with `separator`); "" for no parts.
std::string Join(const std::vector<std::string>& parts, std::string_view separator = ", ");

// "a, b, c" of the first five names, and ", ..." beyond (messages that list what they name).
std::string FirstNames(const std::vector<std::string>& names);

// `text` without its leading and trailing ASCII whitespace (std::isspace).
std::string_view TrimSpace(std::string_view text);

// Messages quote at most this many bytes of an input: a 10 MB line is never echoed whole.
inline constexpr size_t kMaxQuotedBytes = 200;

// `text` between double quotes, as messages show a value from the input: "4GB". Longer than
// kMaxQuotedBytes: its first 200 bytes (cut at a character boundary), then `"... (N bytes)`.
std::string Quote(std::string_view text);

// The shortest text that reads back as `x` ("1", "1.5", "1e+20"; std::to_chars), as the JSON
// writers spell a number.
std::string ShortestNumber(double x);

// `fraction` as a percentage with `decimals` digits after the point, then `sign`:
// Percent(0.125) is "12.5%", Percent(0.125, 0, " %") is "12 %" (rounded as printf rounds).
std::string Percent(double fraction, int decimals = 1, std::string_view sign = "%");

// A name from the input as plain text inside GitHub-flavoured Markdown (a table cell, a list
// item of a pull-request comment): the characters Markdown or a table would act on are
// backslash-escaped (\ ` * _ [ ] | ~ #), HTML is written as entities (< > &), every line break
// and control character becomes a space (a cell is one line), and an @ is followed by a word
// joiner (U+2060), so that "@team" shows as written but notifies nobody.
std::string MarkdownText(std::string_view text);

// A name from the input inside a YAML comment ("# ..."), which ends at the first line break:
// line breaks (\n, \r, and U+0085, U+2028, U+2029, which YAML 1.1 counts as breaks) and other
// control characters are written as visible escapes (\n, \r, \xHH, \u2028), so the comment
// stays one line and still says what the name was.
std::string YamlCommentText(std::string_view text);

// A span of time for a person to read, in the largest unit that keeps it at least 1, with one
// decimal that is dropped when 0 (whole milliseconds below a second): 0.85 -> "850 ms",
// 45.2 -> "45.2 s", 60 -> "1 min", 750 -> "12.5 min", 11160 -> "3.1 h", 302400 -> "3.5 d".
std::string DurationText(double seconds);

// A Unix time as RFC 3339 UTC, whole seconds: 1717200000 -> "2024-06-01T00:00:00Z" (fractions
// are dropped, toward the earlier second).
std::string Rfc3339(double unix_seconds);

// The median (the mean of the middle two for an even count); nothing for no values.
std::optional<double> Median(std::vector<double> values);

// The input limit of every reader (docs/limits.md): 256 MiB, about three times the largest export
// seen (90 MB) and small enough that a file at the limit, once parsed (a tree costs about three
// times its text), stays within a 2 GB machine.
inline constexpr size_t kMaxInputBytes = size_t{256} << 20;

// The bytes of the file at `path` (`-`: standard input, named "<stdin>"), read to the end
// whatever it is: a regular file, a pipe such as `<(...)`, a device. Every reader of a user's
// file goes through it. The error names the file: "cannot read the file: <reason>" (it cannot be
// opened, or a read fails: never a text silently cut short), "is a directory, not a file", or
// "is larger than the input limit of 256 MiB" (checked as it reads: /dev/zero ends there).
Expected<std::string> ReadFileText(const std::string& path, size_t limit = kMaxInputBytes);

// ReadFileText's `error` in a reader's own words: its leading "cannot read the file" becomes
// "cannot read " + `what` ("the knobs file": "cannot read the knobs file: No such file or
// directory"); other messages (a directory, the input limit) are kept.
InputError ReadErrorAs(InputError error, std::string_view what);

// `text` without a leading UTF-8 byte order mark (what some Windows editors write first).
std::string_view WithoutUtf8Bom(std::string_view text);

}  // namespace knobsim
