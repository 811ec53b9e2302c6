#include "sim/io/prom_reader.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace knobsim {
namespace {

// The fixtures sit in testdata/prom/ beside this file. Under CMake __FILE__ is absolute; a
// direct compile from the repository root gives a relative path that works from there.
std::string PromDataDir() {
#ifdef KNOBSIM_SOURCE_DIR
  return std::string(KNOBSIM_SOURCE_DIR) + "/sim/io/testdata/prom/";
#else
  const std::string here = __FILE__;
  return here.substr(0, here.find_last_of('/') + 1) + "testdata/prom/";
#endif
}

PromResult MustRead(const std::string& text) {
  Expected<PromResult> read = ReadPromString(text, "q.json");
  if (!read.ok()) FAIL(read.error().ToString());
  return std::move(read.value());
}

PromResult MustReadFile(const std::string& name) {
  Expected<PromResult> read = ReadPromFile(PromDataDir() + name);
  if (!read.ok()) FAIL(read.error().ToString());
  return std::move(read.value());
}

InputError ErrorOf(const std::string& text) {
  Expected<PromResult> read = ReadPromString(text, "q.json");
  REQUIRE_FALSE(read.ok());
  return read.error();
}

// ---- What is read ----------------------------------------------------------------------------

TEST_CASE("a matrix answer reads every series in file order with labels, times and values") {
  const PromResult r = MustReadFile("good_matrix.json");
  CHECK(r.file == PromDataDir() + "good_matrix.json");
  REQUIRE(r.series.size() == 3);
  const PromSeries& ocr = r.series[0];
  CHECK(ocr.labels.size() == 7);
  CHECK(ocr.labels.at("__name__") == "DCGM_FI_DEV_FB_USED");
  CHECK(ocr.labels.at("Hostname") == "node-a");
  CHECK(ocr.labels.at("UUID") == "GPU-aaaa");
  CHECK(ocr.labels.at("pod") == "ocr-0");
  REQUIRE(ocr.times.size() == 6);
  REQUIRE(ocr.values.size() == 6);
  CHECK(ocr.times[0] == 1700000000.0);
  CHECK(ocr.times[5] == 1700000300.0);
  CHECK(ocr.values[0] == 2048.0);
  CHECK(ocr.values[1] == 2050.5);
  CHECK(ocr.values[5] == 1000.0);
  CHECK(r.series[1].labels.at("pod") == "asr-0");
  CHECK(r.series[1].times == std::vector<double>{1700000000.5, 1700000060.5});
  CHECK(r.series[1].values == std::vector<double>{0.0, 7.25});
  CHECK(r.series[2].times.empty());
}

TEST_CASE("NaN, +Inf and -Inf sample strings are kept as such") {
  const PromResult r = MustReadFile("good_matrix.json");
  const std::vector<double>& v = r.series[0].values;
  CHECK(std::isnan(v[2]));
  CHECK(v[3] == INFINITY);
  CHECK(v[4] == -INFINITY);
}

TEST_CASE("Go float spellings read as Go reads them") {
  struct Case {
    const char* text;
    double value;
  };
  const Case cases[] = {{"1", 1},          {"-2.5", -2.5},      {"1e+06", 1e6},
                        {"+3", 3},         {"1.5E-3", 1.5e-3},  {".5", 0.5},
                        {"Inf", INFINITY}, {"-inf", -INFINITY}, {"+Infinity", INFINITY},
                        {"0", 0}};
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const PromResult r =
        MustRead(std::string(R"({"status":"success","data":{"resultType":)") +
                 R"("vector","result":[{"metric":{},"value":[1,")" + c.text + R"("]}]}})");
    REQUIRE(r.series.size() == 1);
    CHECK(r.series[0].values[0] == c.value);
  }
  const PromResult nan = MustRead(R"([{"metric":{},"value":[1,"nan"]}])");
  CHECK(std::isnan(nan.series[0].values[0]));
}

TEST_CASE("the response's warnings and infos become reader warnings naming the file") {
  const PromResult r = MustRead(R"({"status":"success","data":{"resultType":"matrix",)"
                                R"("result":[]},"warnings":["too many"],"infos":["a hint"]})");
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] == "q.json: Prometheus warning: too many");
  CHECK(r.warnings[1] == "q.json: Prometheus info: a hint");
}

TEST_CASE("an instant query's vector gives one sample per series") {
  const PromResult r = MustReadFile("instant_vector.json");
  REQUIRE(r.series.size() == 2);
  CHECK(r.series[0].times == std::vector<double>{1700000000.781});
  CHECK(r.series[0].values == std::vector<double>{4096});
  CHECK(r.series[1].labels.at("pod") == "asr-0");
  CHECK(r.series[1].values == std::vector<double>{512});
}

TEST_CASE("the data object alone and the result array alone read like the whole answer") {
  const PromResult data = MustReadFile("data_only.json");
  REQUIRE(data.series.size() == 1);
  CHECK(data.series[0].labels.at("__name__") == "up");
  CHECK(data.series[0].values == std::vector<double>{1, 0});

  const PromResult result = MustReadFile("result_only.json");
  REQUIRE(result.series.size() == 2);
  CHECK(result.series[0].labels.at("job") == "dcgm");
  CHECK(result.series[0].times == std::vector<double>{1, 2});
  CHECK(result.series[1].values == std::vector<double>{0});
}

TEST_CASE("a series with native histograms only is skipped with a warning") {
  const PromResult r = MustReadFile("histograms_only.json");
  REQUIRE(r.series.size() == 1);
  CHECK(r.series[0].labels.at("__name__") == "inference_requests");
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == PromDataDir() +
                             "histograms_only.json:2: data.result[0]: inference_latency_seconds of "
                             "pod ml/ocr-0 has native histograms only; skipped (knobsim reads "
                             "gauges)");
}

TEST_CASE("a series with both floats and histograms keeps the floats and says so") {
  const PromResult r = MustRead(R"([{"metric":{"__name__":"m"},"values":[[1,"2"]],)"
                                R"("histograms":[[2,{"count":"1"}]]}])");
  REQUIRE(r.series.size() == 1);
  CHECK(r.series[0].values == std::vector<double>{2});
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] ==
        "q.json:1: [0]: m mixes float and histogram samples; the histogram "
        "samples are skipped");
}

TEST_CASE("unknown keys, escapes, a byte order mark and CRLF lines are read past") {
  const PromResult r = MustRead(
      "\xEF\xBB\xBF{\"status\":\"success\",\r\n\"data\":{\"stats\":{\"timings\":[1,2.5e3,true,"
      "null,{\"a\":[]}]},\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"pod\":"
      "\"caf\\u00e9-\\ud83d\\ude00\\n\\\"q\\\"\"},\"exemplars\":[],\"values\":[[1,\"1\"]]}]}}\r\n");
  REQUIRE(r.series.size() == 1);
  CHECK(r.series[0].labels.at("pod") == "caf\xC3\xA9-\xF0\x9F\x98\x80\n\"q\"");
}

TEST_CASE("the status may come after the data") {
  const PromResult r =
      MustRead(R"({"data":{"result":[],"resultType":"matrix"},"status":"success"})");
  CHECK(r.series.empty());
}

// ---- What is refused, and where it is reported ------------------------------------------------

struct ErrorCase {
  const char* name;
  std::string text;
  int line;
  std::string path;
  std::string message;  // the whole InputError::ToString()
};

TEST_CASE("every malformed answer is an error naming the line and the path to the value") {
  const std::string head = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  const std::string series = R"({"metric":{"__name__":"m"},"values":)";
  const ErrorCase cases[] = {
      {"value as a number", head + series + "[[1,\"1\"],\n[2,2]]}]}}", 2,
       "data.result[0].values[1][1]",
       "q.json:2: data.result[0].values[1][1]: expected the value as a string (Prometheus writes "
       "\"1.5\"), found a number; a sample is [<unix seconds>, \"<value>\"]"},
      {"time as a string", head + series + "[[\"1\",\"1\"]]}]}}", 1, "data.result[0].values[0][0]",
       "q.json:1: data.result[0].values[0][0]: expected the time in Unix seconds (a number), "
       "found a string; a sample is [<unix seconds>, \"<value>\"]"},
      {"sample of one element", head + series + "[[1]]}]}}", 1, "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: has one element; a sample is [<unix seconds>, "
       "\"<value>\"]"},
      {"sample of three elements", head + series + "[[1,\"1\",\"2\"]]}]}}", 1,
       "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: has more than two elements; a sample is [<unix "
       "seconds>, \"<value>\"]"},
      {"empty sample", head + series + "[[]]}]}}", 1, "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: is an empty array; a sample is [<unix seconds>, "
       "\"<value>\"]"},
      {"sample not an array", head + series + "[{\"t\":1}]}]}}", 1, "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: expected a sample, found an object; a sample is "
       "[<unix seconds>, \"<value>\"]"},
      {"values not an array", head + series + "\"1\"}]}}", 1, "data.result[0].values",
       "q.json:1: data.result[0].values: expected an array of samples, found a string; a sample "
       "is [<unix seconds>, \"<value>\"]"},
      {"unparsable value", head + series + "[[1,\"12 MiB\"]]}]}}", 1, "data.result[0].values[0][1]",
       "q.json:1: data.result[0].values[0][1]: \"12 MiB\" is not a number; Prometheus writes "
       "values such as \"1.5\", \"1e+06\", \"NaN\", \"+Inf\""},
      {"C's nan(...) is not Go's", head + series + "[[1,\"nan(1)\"]]}]}}", 1,
       "data.result[0].values[0][1]",
       "q.json:1: data.result[0].values[0][1]: \"nan(1)\" is not a number; Prometheus writes "
       "values such as \"1.5\", \"1e+06\", \"NaN\", \"+Inf\""},
      {"time going back", head + series + "[[1,\"1\"],[3,\"1\"],\n\n[2,\"1\"]]}]}}", 3,
       "data.result[0].values[2][0]",
       "q.json:3: data.result[0].values[2][0]: time 2 is not after the previous sample's (3): "
       "samples must be in time order"},
      {"time in milliseconds", head + series + "[[1717200000000,\"1\"]]}]}}", 1,
       "data.result[0].values[0][0]",
       "q.json:1: data.result[0].values[0][0]: time 1717200000000 is after the year 5000 in Unix "
       "seconds: milliseconds or nanoseconds since 1970?; Prometheus' query_range answers give "
       "Unix seconds (1717200000.5); divide by 1000 (ms) or 1e9 (ns)"},
      {"time repeated", head + series + "[[1.5,\"1\"],[1.5,\"1\"]]}]}}", 1,
       "data.result[0].values[1][0]",
       "q.json:1: data.result[0].values[1][0]: time 1.5 is not after the previous sample's "
       "(1.5): samples must be in time order"},
      {"label value not a string", head + "{\"metric\":{\"gpu\":0},\"values\":[]}]}}", 1,
       "data.result[0].metric.gpu",
       "q.json:1: data.result[0].metric.gpu: expected a label value (a string), found a number"},
      {"label twice", head + "{\"metric\":{\"a\":\"1\",\"a\":\"2\"},\"values\":[]}]}}", 1,
       "data.result[0].metric.a", "q.json:1: data.result[0].metric.a: the label appears twice"},
      {"series without samples", head + "{\"metric\":{}}]}}", 1, "data.result[0]",
       "q.json:1: data.result[0]: a series without \"values\" (range query) or \"value\" "
       "(instant query); a sample is [<unix seconds>, \"<value>\"]"},
      {"series not an object", head + "[1,\"1\"]]}}", 1, "data.result[0]",
       "q.json:1: data.result[0]: expected a series {\"metric\": {...}, \"values\": [...]}, found "
       "an array"},
      {"instant sample in a matrix",
       head + "\n" + series + "[]},\n{\"metric\":{},\"value\":[1,\"1\"]}]}}", 3, "data.result[1]",
       "q.json:3: data.result[1]: a series with \"value\" (an instant query's sample) in a matrix "
       "result"},
      {"range samples in a vector",
       R"({"data":{"result":[{"metric":{},"values":[]}],"resultType":"vector"}})", 1,
       "data.result[0]",
       "q.json:1: data.result[0]: a series with \"values\" (a range query's samples) in a vector "
       "result"},
      {"scalar result", R"({"status":"success","data":{"resultType":"scalar","result":[1,"1"]}})",
       1, "data.resultType",
       "q.json:1: data.resultType: is \"scalar\": knobsim reads series, and a scalar has none; "
       "query a metric selector or an expression that keeps its labels"},
      {"unknown result type", R"({"data":{"resultType":"table","result":[]}})", 1,
       "data.resultType",
       "q.json:1: data.resultType: \"table\" is not a result type; Prometheus answers \"matrix\" "
       "(query_range) or \"vector\" (query)"},
      {"result not an array", R"({"data":{"resultType":"matrix","result":{}}})", 1, "data.result",
       "q.json:1: data.result: expected an array of series, found an object"},
      {"data without result", "{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\"}}", 2,
       "data", "q.json:2: data: has no \"result\""},
      {"no data", R"({"status":"success"})", 1, "",
       "q.json:1: has no \"data\"; expected the JSON that /api/v1/query_range answers: "
       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[...]}}"},
      {"data is null on success", R"({"status":"success","data":null})", 1, "",
       "q.json:1: \"data\" is null; expected the JSON that /api/v1/query_range answers: "
       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[...]}}"},
      {"data not an object", R"({"status":"success","data":[]})", 1, "data",
       "q.json:1: data: expected an object with resultType and result, found an array"},
      {"unknown status", "{\"data\":{\"result\":[]},\n\"status\":\"ok\"}", 2, "status",
       "q.json:2: status: \"ok\" is not a status; Prometheus answers \"success\" or \"error\""},
      {"status not a string", R"({"status":1})", 1, "status",
       "q.json:1: status: expected \"success\" or \"error\", found a number"},
      {"status twice", R"({"status":"success","status":"error"})", 1, "status",
       "q.json:1: status: \"status\" appears twice in the same object"},
      {"warnings not strings", R"({"warnings":[1]})", 1, "warnings[0]",
       "q.json:1: warnings[0]: expected a string, found a number"},
      {"data and result both at the top", R"({"data":{"result":[]},"result":[]})", 1, "",
       "q.json:1: has both \"data\" and a data object's keys (resultType, result) at the top "
       "level; save the answer as Prometheus sends it, or only its data object"},
      {"not an answer", "\n\n\"hello\"", 3, "",
       "q.json:3: expected a Prometheus answer ({\"status\":\"success\",\"data\":...}), found a "
       "string"},
      {"empty", "  \n ", 1, "",
       "q.json:1: the file is empty; save the answer of /api/v1/query_range (curl ... > "
       "file.json)"},
      {"truncated", head + series + "[[1,\"1\"],\n[2,\"2", 2, "data.result[0].values[1]",
       "q.json:2: data.result[0].values[1]: expected the closing quote of a string, found the "
       "end of the file (column 6); the file ends early: was the download cut short?"},
      {"trailing garbage", head + "]}}\n{}", 2, "",
       "q.json:2: expected the end of the file after the JSON document, found '{' (column 1)"},
      {"missing comma", head + series + "[[1,\"1\"] [2,\"1\"]]}]}}", 1, "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: expected ',' or ']' after an element, found '[' "
       "(column 106)"},
      {"bad escape", R"({"status":"succ\ess"})", 1, "status",
       "q.json:1: status: expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u), found 'e' "
       "(column 17)"},
      {"raw newline in a string", "{\"status\":\"succ\ness\"}", 1, "status",
       "q.json:1: status: expected a closing quote (a string cannot hold a raw control "
       "character), found the byte 0x0A (column 16)"},
      {"number out of range", head + series + "[[1e999,\"1\"]]}]}}", 1, "data.result[0].values[0]",
       "q.json:1: data.result[0].values[0]: the number 1e999 is out of range"},
      {"bad literal", R"({"stats":nul})", 1, "stats",
       "q.json:1: stats: expected a JSON value (\"null\"?), found 'n' (column 10)"},
      {"leading zero", R"({"stats":01})", 1, "stats",
       "q.json:1: stats: expected ',' or '}' after a value, found '1' (column 11)"},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(std::string(c.name));
    const InputError e = ErrorOf(c.text);
    CHECK(e.file == "q.json");
    CHECK(e.line == c.line);
    CHECK(e.path == c.path);
    CHECK(e.ToString() == c.message);
  }
}

TEST_CASE("nesting deeper than the limit is an error, not a stack overflow") {
  const std::string deep =
      "{\"stats\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  const InputError e = ErrorOf(deep);
  CHECK(e.path.starts_with("stats[0][0]"));
  CHECK(e.message == "nested deeper than 256 levels");
}

TEST_CASE("Prometheus' own error is reported with its errorType and text") {
  Expected<PromResult> read = ReadPromFile(PromDataDir() + "status_error.json");
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().ToString() ==
        PromDataDir() +
            "status_error.json:2: status: Prometheus answered with an error: bad_data: invalid "
            "parameter \"query\": 1:16: parse error: unexpected \"}\"; fix the query and fetch "
            "the file again");
}

TEST_CASE("the fixture files fail at the line and path a person would look at") {
  struct Case {
    const char* file;
    int line;
    const char* path;
    const char* message;
  };
  const Case cases[] = {
      {"compact_bad_value.json", 1, "data.result[1].values[1][1]", "\"x5\" is not a number"},
      {"truncated.json", 3, "data.result[0].values[1]",
       "expected the closing quote of a string, found the end of the file (column 53)"},
      {"trailing_garbage.json", 2, "",
       "expected the end of the file after the JSON document, found '{' (column 1)"},
      {"value_is_number.json", 4, "data.result[0].values[1][1]",
       "expected the value as a string (Prometheus writes \"1.5\"), found a number"},
      {"time_is_string.json", 5, "data.result[2].values[1][0]",
       "expected the time in Unix seconds (a number), found a string"},
      {"sample_not_pair.json", 4, "data.result[0].values[1]", "has more than two elements"},
      {"time_order.json", 4, "data.result[0].values[2][0]",
       "time 1700000060 is not after the previous sample's (1700000120): samples must be in time "
       "order"},
      {"scalar.json", 2, "data.resultType",
       "is \"scalar\": knobsim reads series, and a scalar has none"},
      {"empty.json", 1, "", "the file is empty"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.file));
    Expected<PromResult> read = ReadPromFile(PromDataDir() + c.file);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().file == PromDataDir() + c.file);
    CHECK(read.error().line == c.line);
    CHECK(read.error().path == c.path);
    CHECK(read.error().message == c.message);
  }
}

TEST_CASE("a missing file is an error naming it") {
  Expected<PromResult> read = ReadPromFile(PromDataDir() + "no_such_file.json");
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().file == PromDataDir() + "no_such_file.json");
  CHECK(read.error().message == "cannot read the file: No such file or directory");
}

// ---- Size ----------------------------------------------------------------------------------

// A compact export as curl saves it: `series` series of `samples` samples at 60 s steps.
std::string GeneratedExport(int series, int samples) {
  std::string text = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  char buffer[64];
  for (int s = 0; s < series; ++s) {
    if (s > 0) text.push_back(',');
    text += R"({"metric":{"__name__":"DCGM_FI_DEV_FB_USED","Hostname":"node-)" +
            std::to_string(s / 8) + R"(","gpu":")" + std::to_string(s % 8) +
            R"(","namespace":"ml","pod":"pod-)" + std::to_string(s) + R"("},"values":[)";
    for (int i = 0; i < samples; ++i) {
      std::snprintf(buffer, sizeof buffer, "%s[%d.%03d,\"%d.%d\"]", i > 0 ? "," : "",
                    1700000000 + 60 * i, i % 1000, (s * 37 + i) % 16000, i % 10);
      text += buffer;
    }
    text += "]}";
  }
  text += "]}}";
  return text;
}

TEST_CASE("a generated week-long export reads every sample exactly") {
  // 40 series x 10 080 samples (7 days at 1 minute), about 11 MB: correctness at size. The
  // speed quoted in prom_reader.h was measured on 100 MB of this shape, outside the tests.
  const int kSeries = 40, kSamples = 10080;
  const PromResult r = MustRead(GeneratedExport(kSeries, kSamples));
  REQUIRE(r.series.size() == kSeries);
  for (int s : {0, 17, kSeries - 1}) {
    CAPTURE(s);
    const PromSeries& series = r.series[static_cast<size_t>(s)];
    REQUIRE(series.times.size() == kSamples);
    CHECK(series.labels.at("pod") == "pod-" + std::to_string(s));
    for (int i : {0, 1, 999, 5000, kSamples - 1}) {
      // In whole milliseconds and tenths: the decimal text is not a sum of doubles.
      CHECK(std::llround(series.times[static_cast<size_t>(i)] * 1000) ==
            (1700000000LL + 60 * i) * 1000 + i % 1000);
      CHECK(std::llround(series.values[static_cast<size_t>(i)] * 10) ==
            ((s * 37 + i) % 16000) * 10 + i % 10);
    }
  }
}

}  // namespace
}  // namespace knobsim
