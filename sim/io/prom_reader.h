// Reads what Prometheus' HTTP API answers to a range or instant query, saved to a file
// (`curl 'http://prom/api/v1/query_range?query=...&start=...&end=...&step=60' > fb_used.json`),
// into plain series of (time, value) samples (docs/semantics.md §5.5). What the samples mean for
// GPU memory and utilization is prom_metrics.h's business; this file only reads.
//
// Accepted shapes, the last two for people who cut the answer down with jq (each is told apart
// by its first token and its keys, so leniency guesses nothing):
//  * the whole response: {"status":"success","data":{"resultType":"matrix","result":[...]},
//    "warnings":[...],"infos":[...]};
//  * its `data` object alone (`jq .data`): {"resultType":"matrix","result":[...]};
//  * its `result` array alone (`jq .data.result`): [{"metric":{...},"values":[...]}, ...].
// resultType "matrix" (query_range: "values": [[t, "v"], ...]) and "vector" (query: "value":
// [t, "v"], one sample per series) are read; "scalar" and "string" have no series and are an
// error. Without a resultType (the bare array) each series says which by its key.
//
// Strict where a value matters: a timestamp must be a JSON number and a sample value a string
// holding a Go float ("1.5", "1e3", "NaN", "+Inf", "-Inf"); NaN and the infinities are kept, for
// the interpretation to count and skip. Timestamps within a series must increase. Anything
// else wrong (`status: "error"`, a truncated download, a sample that is not a pair) is an
// InputError naming the file, the line and the path to the value (`data.result[3].values[17][1]`;
// Prometheus writes the whole answer on one line, so the path is what finds it, and syntax
// errors add the column). A series with native histograms only is skipped with a warning:
// knobsim reads gauges. Unknown keys (`stats`, `exemplars`) are ignored.
//
// The parser is a small hand-written scanner over the file's bytes, not a JSON tree: a 7-day
// export at 1-minute steps holds 10 080 samples per series and hundreds of series, tens of MB.
// Measured: 107 MB (400 such series, compact as curl saves it) in 0.30 s at -O2 on one core,
// plus 0.18 s to read the file; nlohmann::json's SAX parser only accepting the same text: 2 s.
// It stays a scanner rather than reading through the document tree of the Kubernetes reader
// (sim/io/document_tree.h): the tree would hold ~60 bytes of nodes per 20-byte sample, three
// times the file, and an error would come from the whole text's syntax before the first bad
// sample. The two share the JSON token rules instead (number grammar, \u escapes and
// surrogate pairs: sim/io/json_lexing.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

struct PromSeries {
  std::map<std::string, std::string> labels;  // the series' "metric", __name__ included
  std::vector<double> times;                  // Unix seconds, increasing
  std::vector<double> values;                 // parallel to times; NaN and ±Inf kept as such
};

struct PromResult {
  std::string file;
  std::vector<PromSeries> series;  // in file order, histogram-only series left out
  // The response's "warnings" and "infos" ("file: Prometheus warning: text") and the reader's
  // own ("file:line: data.result[2]: text").
  std::vector<std::string> warnings;
};

// Reads one saved answer; `-` reads standard input.
Expected<PromResult> ReadPromFile(const std::string& path);

// Reads the text of one answer; `file_name` is what errors and warnings call it.
Expected<PromResult> ReadPromString(const std::string& text, const std::string& file_name);

}  // namespace knobsim
